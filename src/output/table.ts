/**
 * Tables on a terminal, drawn with cli-table3: borderless columns two spaces apart (like gh and
 * kubectl), bold cyan headers when colour is on, fitted to the terminal's width by shrinking the
 * widest columns and cutting cells with '…' (a row never wraps onto a second line).
 * Loaded only when a table is printed on a terminal.
 */
import Table from 'cli-table3';
import type { Encoder, Row } from './encoders.js';
import { escapeControls, formatCell, getPath, isPlainObject } from './format.js';
import { headerStyle, keyStyle, ansi } from './style.js';
import { displayWidth, truncateWidth } from './width.js';

/** Spaces between columns. */
export const GAP = 2;
/** A column is not cut narrower than this (unless its content is narrower). */
const MIN_COLUMN = 6;
/** Rows looked at to size the columns; later rows reuse those widths (and are cut to them). */
export const LAYOUT_ROWS = 1000;
/** Rows drawn per write once the widths are fixed. */
const RENDER_BATCH = 100;
/** Extra columns a column gets (terminal permitting) when rows beyond the first LAYOUT_ROWS will reuse its width: ids grow. */
const HEADROOM = 4;

const CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};

export interface Fit {
  /** Width of each shown column. */
  widths: number[];
  /** How many columns (from the left) fit; the others are not shown. */
  shown: number;
}

/** The width of a line of columns `widths` wide, GAP apart. */
export function lineWidth(widths: number[]): number {
  let sum = 0;
  for (const w of widths) sum += w;
  return sum + GAP * Math.max(0, widths.length - 1);
}

/**
 * Column widths for a terminal `available` columns wide. The natural widths when they fit;
 * otherwise the widest columns are shrunk to a common cap (narrow ones keep their width), none
 * below MIN_COLUMN; if even that is too wide, the rightmost columns are dropped.
 * `fitColumns([2, 40, 30], 40)` -> `{ widths: [2, 17, 17], shown: 3 }` (2 + 17 + 17 + 2 gaps of 2 = 40);
 * `fitColumns([2, 40, 10], 40)` -> `{ widths: [2, 24, 10], shown: 3 }`.
 * With `content` (the widest value of each column, headers aside), headers wider than their
 * values are cut first: `fitColumns([15, 30], 30, [4, 30])` -> `{ widths: [6, 22], shown: 2 }`
 * rather than cutting both to 14.
 */
export function fitColumns(natural: number[], available: number, content?: number[]): Fit {
  if (natural.length === 0) return { widths: [], shown: 0 };
  if (lineWidth(natural) <= available) return { widths: natural.slice(), shown: natural.length };
  if (content) {
    // Headers give way first: a header wider than its column's values ('subscription_id' over
    // ids of four digits) is cut down to the values (not below MIN_COLUMN) before any value is.
    const demand = natural.map((w, i) => Math.min(w, Math.max(content[i], MIN_COLUMN)));
    if (lineWidth(demand) <= available) {
      // Room to spare goes back to the cut headers, left to right.
      let left = available - lineWidth(demand);
      for (let i = 0; i < demand.length && left > 0; i++) {
        const extra = Math.min(natural[i] - demand[i], left);
        demand[i] += extra;
        left -= extra;
      }
      return { widths: demand, shown: demand.length };
    }
    return fitColumns(demand, available);
  }
  const floors = natural.map((w) => Math.min(w, MIN_COLUMN));
  let shown = natural.length;
  while (shown > 1 && lineWidth(floors.slice(0, shown)) > available) shown--;
  const nat = natural.slice(0, shown);
  if (lineWidth(nat) <= available) return { widths: nat, shown };
  if (shown === 1) return { widths: [Math.max(1, Math.min(nat[0], available))], shown };
  return { widths: capWidths(nat, floors, available - GAP * (shown - 1)), shown };
}

/**
 * Widths between `lower` and `upper` (each column's) summing to at most `budget`: the widest
 * columns cut to the largest common cap that fits, the columns left over handed to the widest
 * cut ones. `capWidths([2, 40, 30], [2, 6, 6], 36)` -> `[2, 17, 17]`.
 */
export function capWidths(upper: number[], lower: number[], budget: number): number[] {
  const widthsAt = (cap: number): number[] => upper.map((w, i) => Math.max(lower[i], Math.min(w, cap)));
  const sum = (ws: number[]): number => ws.reduce((a, b) => a + b, 0);
  // Largest cap that fits.
  let lo = 0;
  let hi = Math.max(...upper);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sum(widthsAt(mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  const widths = widthsAt(lo);
  // Hand the columns left over (fewer than the cut columns) to the widest cut columns.
  let left = budget - sum(widths);
  const cut = widths
    .map((w, i) => i)
    .filter((i) => widths[i] < upper[i])
    .sort((a, b) => upper[b] - upper[a]);
  for (const i of cut) {
    if (left <= 0) break;
    widths[i]++;
    left--;
  }
  return widths;
}

/** Rows per cli-table3 call: its layout is quadratic in the rows, so a long list is drawn in calls of this many. */
const DRAW_CHUNK = 100;

function drawChunk(header: string[] | undefined, rows: string[][], widths: number[], color: boolean): string[] {
  const table = new Table({
    head: header ? header.slice(0, widths.length).map((h, i) => headerStyle(truncateWidth(h, widths[i]), color)) : [],
    colWidths: widths,
    chars: CHARS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    wordWrap: false,
    truncate: '…',
  });
  for (const r of rows) {
    const cells = new Array<string>(widths.length);
    for (let i = 0; i < widths.length; i++) cells[i] = truncateWidth(r[i] ?? '', widths[i]);
    table.push(cells);
  }
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd());
}

/**
 * Draws rows (already escaped, one line each) with cli-table3 at fixed widths; cells wider than
 * their column are cut with '…'. Lines carry no trailing spaces. No trailing newline.
 */
function drawTable(header: string[] | undefined, rows: string[][], widths: number[], color: boolean): string {
  if (widths.length === 0) return '';
  if (rows.length <= DRAW_CHUNK) return drawChunk(header, rows, widths, color).join('\n');
  const lines: string[] = [];
  for (let i = 0; i < rows.length; i += DRAW_CHUNK) {
    lines.push(...drawChunk(i === 0 ? header : undefined, rows.slice(i, i + DRAW_CHUNK), widths, color));
  }
  return lines.join('\n');
}

/** The columns' fit: natural widths are header or widest value, whichever is wider; values alone decide how far a header may be cut. */
function fitTable(header: string[], rows: string[][], available: number): Fit {
  const content = header.map(() => 0);
  for (const r of rows) {
    for (let i = 0; i < content.length; i++) {
      const w = displayWidth(r[i] ?? '');
      if (w > content[i]) content[i] = w;
    }
  }
  const natural = header.map((h, i) => Math.max(displayWidth(h), content[i]));
  return fitColumns(natural, available, content);
}

/** One row's cells as terminal text: formatted for a terminal, control characters escaped. */
function ttyCells(row: unknown, columns: string[]): string[] {
  const cells = new Array<string>(columns.length);
  for (let i = 0; i < columns.length; i++) cells[i] = escapeControls(formatCell(getPath(row, columns[i]), { tty: true }));
  return cells;
}

/**
 * A list as a table on a terminal. Buffers up to LAYOUT_ROWS rows (a terminal list is a page)
 * to size the columns. A longer list (`--all` on a terminal) is then streamed at those widths,
 * plus a little headroom, in flat memory; a later cell wider than its column is cut with '…'.
 */
export class TtyTableEncoder implements Encoder {
  private rows: string[][] = [];
  private fit: Fit | undefined;
  private headerDone = false;
  constructor(
    private columns: string[] | undefined,
    private readonly width: number,
    private readonly color: boolean,
    /** Called once with the columns that did not fit the terminal. */
    private readonly onHidden?: (hidden: string[]) => void,
  ) {}

  add(row: Row): void {
    this.columns ??= Object.keys(row);
    this.rows.push(ttyCells(row, this.columns));
    if (!this.fit && this.rows.length >= LAYOUT_ROWS) this.layout(true);
  }

  private layout(moreToCome: boolean): void {
    const header = (this.columns ?? []).map(escapeControls);
    const fit = fitTable(header, this.rows, this.width);
    if (moreToCome) {
      let slack = this.width - lineWidth(fit.widths);
      for (let i = 0; i < fit.widths.length && slack > 0; i++) {
        const extra = Math.min(HEADROOM, slack);
        fit.widths[i] += extra;
        slack -= extra;
      }
    }
    this.fit = fit;
    if (this.fit.shown < header.length) this.onHidden?.((this.columns ?? []).slice(this.fit.shown));
  }

  full(): boolean {
    return this.fit !== undefined && this.rows.length >= RENDER_BATCH;
  }

  take(): { text: string; rows: number } {
    if (!this.fit || (this.rows.length === 0 && this.headerDone)) return { text: '', rows: 0 };
    const header = this.headerDone ? undefined : (this.columns ?? []).map(escapeControls);
    this.headerDone = true;
    const rows = this.rows;
    this.rows = [];
    return { text: drawTable(header, rows, this.fit.widths, this.color) + '\n', rows: rows.length };
  }

  /** An empty list prints nothing on a terminal (the command says so on stderr if it wants). */
  finish(): { text: string; rows: number } {
    if (!this.fit) {
      if (this.rows.length === 0) return { text: '', rows: 0 };
      this.layout(false);
    }
    return this.take();
  }
}

/** Union of the keys of several objects, in order of first appearance. */
function unionKeys(items: Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  for (const it of items) for (const k of Object.keys(it)) seen.add(k);
  return [...seen];
}

/**
 * One object as a key/value view on a terminal, `width` columns wide:
 *
 * ```
 * id            12
 * service_code  GPT4
 * created_by
 *   id        3
 *   username  ana
 * plans (2)
 *   plan_code  price
 *   PRO-M      19.99
 * ```
 *
 * Nested objects become indented sections, arrays of objects sub-tables; values are cut with '…'.
 */
export function renderObject(obj: Record<string, unknown>, width: number, color: boolean): string {
  const out: string[] = [];
  renderSection(obj, 0, Math.max(20, width), color, out);
  return out.length === 0 ? '' : out.join('\n') + '\n';
}

function renderSection(obj: Record<string, unknown>, indent: number, width: number, color: boolean, out: string[]): void {
  const pad = ' '.repeat(indent);
  const room = Math.max(10, width - indent);
  const entries = Object.entries(obj);
  const isSection = (v: unknown): boolean =>
    (isPlainObject(v) && Object.keys(v).length > 0) || (Array.isArray(v) && v.length > 0 && v.every(isPlainObject));
  // Keys of the key/value column only: section headings stand on their own lines.
  const keyWidth = Math.min(
    Math.max(0, ...entries.filter(([, v]) => !isSection(v)).map(([k]) => displayWidth(escapeControls(k)))),
    Math.max(8, Math.floor(room / 3)),
  );
  const valueWidth = Math.max(1, room - keyWidth - GAP);
  let block: string[][] = [];
  const flushBlock = (): void => {
    if (block.length === 0) return;
    const keyed = block.map(([k, v]) => [keyStyle(truncateWidth(k, keyWidth), color), v]);
    for (const line of drawTable(undefined, keyed, [keyWidth, valueWidth], false).split('\n')) out.push(pad + line);
    block = [];
  };
  const heading = (text: string): string => pad + (color ? ansi.bold(ansi.cyan(text)) : text);
  for (const [key, value] of entries) {
    const k = escapeControls(key);
    if (isPlainObject(value) && isSection(value)) {
      flushBlock();
      out.push(heading(truncateWidth(k, room)));
      renderSection(value, indent + 2, width, color, out);
    } else if (Array.isArray(value) && isSection(value)) {
      flushBlock();
      out.push(heading(truncateWidth(`${k} (${value.length})`, room)));
      const items = value as Record<string, unknown>[];
      const columns = unionKeys(items);
      const header = columns.map(escapeControls);
      const rows = items.map((it) => ttyCells(it, columns));
      const fit = fitTable(header, rows, Math.max(10, room - 2));
      for (const line of drawTable(header, rows, fit.widths, color).split('\n')) out.push(pad + '  ' + line);
    } else {
      block.push([k, escapeControls(formatCell(value, { tty: true }))]);
    }
  }
  flushBlock();
}
