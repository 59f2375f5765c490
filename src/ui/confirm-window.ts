/**
 * Which rows of a confirmation's list are on screen. A confirmation for many marked rows names
 * each row's change: as many as the screen holds, the rest reached with ↑↓ PgUp/PgDn, a line
 * saying which are shown. Plain TypeScript: the controller (keys) and ConfirmView (drawing)
 * compute the same window.
 */

export interface ConfirmParts {
  /** Lines above the list (the action and how many rows). */
  lines: string[];
  /** One line per row (scrolls). */
  items: string[];
  /** Lines below the list (refusals counted, profile, reason). */
  tail: string[];
  scroll: number;
}

/** Lines under the tail: a blank one and the question. */
const PROMPT_LINES = 2;

/**
 * The list's window in `height` lines: `first` and `count` of the items shown, and whether the
 * "rows i-j of N" line is drawn (only when they do not all fit). The scroll is clamped.
 */
export function confirmWindow(o: ConfirmParts, height: number): { first: number; count: number; maxScroll: number; scrolls: boolean } {
  const room = Math.max(1, height - o.lines.length - o.tail.length - PROMPT_LINES);
  if (o.items.length <= room) return { first: 0, count: o.items.length, maxScroll: 0, scrolls: false };
  // One line goes to "rows i-j of N".
  const count = Math.max(1, room - 1);
  const maxScroll = o.items.length - count;
  const first = Math.max(0, Math.min(o.scroll, maxScroll));
  return { first, count, maxScroll, scrolls: true };
}

/** `rows 13-24 of 33 (↑↓ PgUp/PgDn)`. */
export function windowLine(first: number, count: number, total: number): string {
  return `rows ${first + 1}-${first + count} of ${total} (↑↓ PgUp/PgDn)`;
}
