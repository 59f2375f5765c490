/**
 * Server text on a terminal: the one place that decides what of it may reach one raw.
 *
 * A terminal acts on what it is sent: ESC starts CSI (clear the screen, move the cursor), OSC
 * (set the window title, OSC 52 writes the clipboard) and DCS sequences; C1 controls (U+0080-
 * U+009F) are 8-bit forms of the same; bidi overrides (U+202A-U+202E, U+2066-U+2069) reorder
 * what follows so a line reads other than it is. Each of these is shown as a visible escape
 * instead (`\x1b`, `\x9b`, `\u202e`), so ESC is never sent and no sequence can start.
 *
 * Off a terminal the bytes of json, ndjson and csv stay as the server sent them (scripts read
 * them); only the printers that write to a terminal call these.
 */

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_TEST = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw and a terminal acts on: DEL, C1 controls, bidi overrides. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function visible(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One line of a table, a key, a log line: every control character, ESC included, and every
 * bidi override as a visible escape. `terminalSafe('a\u001b]52;c;x\u0007') === 'a\\x1b]52;c;x\\x07'`.
 */
export function terminalSafe(s: string): string {
  return UNSAFE_TEST.test(s) ? s.replace(UNSAFE, visible) : s;
}

/** Text of several lines (messages, hints, csv on a terminal): as terminalSafe, newlines and tabs kept. */
export function terminalSafeText(s: string): string {
  return UNSAFE_TEST.test(s) ? s.replace(UNSAFE_BUT_LINES, visible) : s;
}

/**
 * JSON text for a terminal: JSON.stringify escapes C0 controls but leaves DEL, C1 and bidi
 * characters raw; they become `\u00XX` escapes, so the text parses to the same value.
 */
export function terminalSafeJson(text: string): string {
  return text.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** How much of a server's message an error shows (the whole of it under --verbose). */
const MESSAGE_MAX = 500;

/** A server's message cut to MESSAGE_MAX characters, saying how much was left out and where to see it. */
export function cutMessage(s: string, max = MESSAGE_MAX): string {
  if (s.length <= max) return s;
  return `${s.slice(0, max)}... (${s.length - max} more characters; --verbose shows the whole message)`;
}
