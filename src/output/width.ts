/**
 * Terminal display width: how many columns a string takes on screen (CJK and emoji take two,
 * combining marks none). Used to fit tables to the terminal and to cut cells with '…'.
 */

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
const ASCII_PRINTABLE = /^[\x20-\x7e]*$/;
// The Unicode property classes are slow to build: made on first use, which an all-ASCII
// run (and every json/csv run) never reaches.
let unicode: { zeroWidth: RegExp; emoji: RegExp; emojiPresentation: RegExp } | undefined;
const classes = () =>
  (unicode ??= {
    zeroWidth: /^(?:\p{Mn}|\p{Me}|\p{Cf}|[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2060\ufe00-\ufe0f])+$/u,
    emoji: /\p{Extended_Pictographic}|\p{Regional_Indicator}/u,
    emojiPresentation: /\p{Emoji_Presentation}|\ufe0f/u,
  });

let segmenter: Intl.Segmenter | undefined;
function graphemes(s: string): Iterable<string> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const it = segmenter.segment(s);
  return (function* () {
    for (const part of it) yield part.segment;
  })();
}

/** East Asian Wide and Fullwidth code points (the ranges terminals draw two cells wide). */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    cp === 0x2329 ||
    cp === 0x232a ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe10 && cp <= 0xfe19) ||
    (cp >= 0xfe30 && cp <= 0xfe6f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1b000 && cp <= 0x1b001) ||
    (cp >= 0x1f200 && cp <= 0x1f251) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function graphemeWidth(g: string): number {
  const c = classes();
  if (c.zeroWidth.test(g)) return 0;
  if (c.emoji.test(g) && c.emojiPresentation.test(g)) return 2;
  return isWide(g.codePointAt(0) ?? 0) ? 2 : 1;
}

function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** `displayWidth('abc') === 3`, `displayWidth('日本') === 4`, ANSI colour codes count 0. */
export function displayWidth(s: string): number {
  if (ASCII_PRINTABLE.test(s)) return s.length;
  const plain = stripAnsi(s);
  if (ASCII_PRINTABLE.test(plain)) return plain.length;
  let w = 0;
  for (const g of graphemes(plain)) w += graphemeWidth(g);
  return w;
}

/**
 * Cuts `s` to at most `max` columns, ending with '…' when something was cut:
 * `truncateWidth('subscription', 6) === 'subsc…'`. Never splits a grapheme. No ANSI in `s`.
 */
export function truncateWidth(s: string, max: number): string {
  if (max <= 0) return '';
  if (ASCII_PRINTABLE.test(s)) return s.length <= max ? s : s.slice(0, max - 1) + '…';
  if (displayWidth(s) <= max) return s;
  const budget = max - 1;
  let out = '';
  let w = 0;
  for (const g of graphemes(s)) {
    const gw = graphemeWidth(g);
    if (w + gw > budget) break;
    out += g;
    w += gw;
  }
  return out + '…';
}

/** Pads with spaces to `width` columns (never cuts). */
export function padEndWidth(s: string, width: number): string {
  const w = displayWidth(s);
  return w >= width ? s : s + ' '.repeat(width - w);
}

export function padStartWidth(s: string, width: number): string {
  const w = displayWidth(s);
  return w >= width ? s : ' '.repeat(width - w) + s;
}
