/**
 * Text as the console draws it. Ink lays a line out with string-width, which (as our
 * displayWidth) gives a zero-width character standing alone (U+200B zero-width space, U+2060,
 * U+FEFF, a soft hyphen…) no column; but it cuts lines to their box with slice-ansi, which
 * gives every such character one. A line holding one then lost its last character on screen
 * (`zw a\u200bb END` drawn as `zw a\u200bb EN`). Those characters draw nothing, so they are left out
 * of what is drawn, and every width the console computes is the width Ink draws.
 * Zero-width characters inside a grapheme (a zero-width joiner in an emoji, combining marks)
 * are kept: they are part of a character both count the same.
 */
import { displayWidth } from '../output/width.js';

// C0 controls but the newline (ESC included), DEL, C1 controls, and the bidi controls (LRM,
// RLM, ALM, the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069).
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Server text made harmless for the console: control characters, escape sequences (their ESC),
 * C1 controls and bidi overrides shown as visible escapes (`\x1b`, `\x9b`, `\u202e`, `\t`);
 * newlines kept (multi-line messages). `consoleSafe('a\u202eb') === 'a\\u202eb'`.
 */
export function consoleSafe(s: string): string {
  return s.replace(UNSAFE, (c) => {
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    const n = c.charCodeAt(0);
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
  });
}

const PLAIN = /^[\x20-\x7e]*$/;
let segmenter: Intl.Segmenter | undefined;

/**
 * `drawable('zw a\u200bb') === 'zw ab'`; plain ASCII is returned as it is. Control characters
 * and bidi overrides are escaped first (consoleSafe): every text the console draws comes here.
 */
export function drawable(s: string): string {
  if (PLAIN.test(s)) return s;
  s = consoleSafe(s);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let out = '';
  for (const { segment } of segmenter.segment(s)) if (displayWidth(segment) > 0 || segment === '\n') out += segment;
  return out;
}

/**
 * Text drawn on one line (a form field's value, a header, a prompt): as `drawable`, and a
 * newline shown as `\n`, so that a value holding one cannot break the line it is drawn on.
 * `drawableLine('a\nb') === 'a\\nb'`.
 */
export function drawableLine(s: string): string {
  return drawable(s).replace(/\n/g, '\\n');
}
