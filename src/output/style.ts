/**
 * The few ANSI styles the printers use, written directly (no colour library: chalk and
 * cli-table3's colours ignore NO_COLOR). Callers decide with `useColor` from src/io.ts.
 */

export const ansi = {
  bold: (s: string): string => `\u001b[1m${s}\u001b[22m`,
  dim: (s: string): string => `\u001b[2m${s}\u001b[22m`,
  cyan: (s: string): string => `\u001b[36m${s}\u001b[39m`,
  yellow: (s: string): string => `\u001b[33m${s}\u001b[39m`,
  red: (s: string): string => `\u001b[31m${s}\u001b[39m`,
};

/** A table header cell: bold cyan when colour is on, the plain text otherwise. */
export function headerStyle(s: string, color: boolean): string {
  return color ? ansi.bold(ansi.cyan(s)) : s;
}

/** A key in a key/value view: cyan when colour is on. */
export function keyStyle(s: string, color: boolean): string {
  return color ? ansi.cyan(s) : s;
}
