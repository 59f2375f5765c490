/**
 * Key presses as the console handles them. Ink hands a whole chunk of typed or pasted text to
 * `useInput` at once (`tmux send-keys ':subscriptions' Enter` can arrive as one chunk), so a
 * chunk of plain characters is split into single key presses, `\r` being Enter and a control
 * character (`tmux send-keys C-u text` sends `\x15text`) being Ctrl and its letter.
 */
import type { Key } from 'ink';

export interface KeyPress {
  /** The printable character(s), '' for special keys. */
  input: string;
  ret?: boolean;
  escape?: boolean;
  tab?: boolean;
  shift?: boolean;
  backspace?: boolean;
  up?: boolean;
  down?: boolean;
  left?: boolean;
  right?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  ctrl?: boolean;
  /** Text the terminal says was pasted (bracketed paste): typed into a prompt, never keys. */
  paste?: boolean;
}

function one(input: string, key: Key): KeyPress {
  return {
    input,
    ret: key.return,
    escape: key.escape,
    tab: key.tab,
    shift: key.shift,
    // Many terminals send DEL (0x7f) for Backspace, which Ink reports as `delete`.
    backspace: key.backspace || key.delete,
    up: key.upArrow,
    down: key.downArrow,
    left: key.leftArrow,
    right: key.rightArrow,
    pageUp: key.pageUp,
    pageDown: key.pageDown,
    home: key.home,
    end: key.end,
    ctrl: key.ctrl,
  };
}

/** One Ink input event as the key presses it stands for. */
export function keyPresses(input: string, key: Key): KeyPress[] {
  // ESC and a letter arriving together (`Esc` then `j` typed fast, or one tmux send-keys) reach
  // us as Alt and that letter: the console has no Alt keys, so they are the two keys. (Before a
  // character that is not a letter, `\x1b:`, Ink drops the ESC: that one cannot be told apart.)
  if (key.meta && !key.ctrl && [...input].length === 1 && printable({ input } as KeyPress) === input) {
    return [{ input: '', escape: true }, one(input, { ...key, meta: false })];
  }
  const special =
    key.return ||
    key.escape ||
    key.tab ||
    key.backspace ||
    key.delete ||
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageUp ||
    key.pageDown ||
    key.ctrl ||
    key.meta;
  if (special || [...input].length <= 1) return [one(input, key)];
  const out: KeyPress[] = [];
  for (const c of input) {
    const code = c.charCodeAt(0);
    if (c === '\r' || c === '\n') out.push({ input: '', ret: true });
    else if (c === '\t') out.push({ input: '', tab: true });
    else if (c === '\u007f' || c === '\b') out.push({ input: '', backspace: true });
    else if (c === '\u001b') out.push({ input: '', escape: true });
    // Ctrl-A..Ctrl-Z in a chunk (`tmux send-keys C-u text`, or typed fast): Ctrl and its letter,
    // as Ink reports them alone.
    else if (code >= 0x01 && code <= 0x1a) out.push({ input: String.fromCharCode(code + 0x60), ctrl: true });
    else out.push({ input: c, shift: /[A-Z]/.test(c) });
  }
  return out;
}

/** Printable text of a key press (nothing for control keys). */
export function printable(k: KeyPress): string {
  if (k.ctrl || k.ret || k.escape || k.tab || k.backspace) return '';
  // eslint-disable-next-line no-control-regex
  return k.input.replace(/[\u0000-\u001f\u007f]/g, '');
}

let segmenter: Intl.Segmenter | undefined;

/** `text` without its last character as the terminal draws it (a flag, an emoji of several, `e` and its accent). */
function dropLastGrapheme(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text.slice(0, -1);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let last = 0;
  for (const { index } of segmenter.segment(text)) last = index;
  return text.slice(0, last);
}

/**
 * Line editing for the prompts: typing appends, Backspace removes the last character as drawn
 * (`🇯🇵` whole: one of its two code points alone would leave half a flag), Ctrl-U clears.
 */
export function editLine(text: string, k: KeyPress): string {
  if (k.backspace) return dropLastGrapheme(text);
  if (k.ctrl && k.input === 'u') return '';
  return text + printable(k);
}

// Bracketed paste (PASTE_ON, src/ui/suspend.ts): the terminal wraps pasted text in `ESC [200~`
// and `ESC [201~`. Ink hands each escape sequence over as its own input, the ESC taken off. The
// same five characters typed in one chunk read the same: a terminal that brackets pastes never
// sends them so, and typing them is no key of the console's.
const PASTE_START = '[200~';
const PASTE_END = '[201~';
/** Pasted text kept at most (a prompt's line; the rest of a larger paste is dropped). */
const PASTE_MAX = 10_000;

/**
 * Ink's input events as key presses, a bracketed paste as one key press holding its text: line
 * breaks and tabs within it read as spaces (a filter's pairs are separated by spaces; a form's
 * field is one line), line breaks at its end dropped (a copied line ends with one).
 */
export class KeyReader {
  #pasted: string | undefined;

  read(input: string, key: Key): KeyPress[] {
    if (this.#pasted === undefined) {
      if (input === PASTE_START && !key.ctrl) {
        this.#pasted = '';
        return [];
      }
      return keyPresses(input, key);
    }
    if (input === PASTE_END) {
      const text = this.#pasted
        .replace(/\r\n?/g, '\n')
        .replace(/\n+$/, '')
        .replace(/[\n\t]/g, ' ');
      this.#pasted = undefined;
      return text ? [{ input: text, paste: true }] : [];
    }
    // A control character within the text (Ink reports it as Ctrl and a letter) is no text.
    const part = key.return ? '\n' : key.tab ? '\t' : key.ctrl ? '' : input;
    if (this.#pasted.length < PASTE_MAX) this.#pasted = (this.#pasted + part).slice(0, PASTE_MAX);
    return [];
  }
}
