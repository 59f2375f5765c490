/**
 * Tables fitted to the terminal for the console: cells formatted like the terminal printer
 * (times to the second, src/output/time.ts, their zone said once by the screen when all share
 * it; control characters escaped), the widest text columns shrunk and cut with '…',
 * and the rightmost columns dropped when even that does not fit. Numbers and dates are never
 * cut: `35065…` would read as another number. Pure functions, so a page is laid
 * out once (memoized by the screen) and only the visible rows are drawn.
 */
import { getPath, formatCell, escapeControls } from '../output/index.js';
import { capWidths, GAP, lineWidth } from '../output/table.js';
import { padEndWidth, truncateWidth, displayWidth } from '../output/width.js';
import { drawable, drawableLine } from './drawable.js';
import type { Row } from './resources.js';

export interface TableLayout {
  /** Columns shown, from the left. */
  columns: string[];
  /** Columns left out to fit the width. */
  hidden: string[];
  widths: number[];
  /** The header line (no trailing spaces). */
  header: string;
  /** One line per row, every row of the page (no trailing spaces). */
  lines: string[];
  /** The zone of every time in the table (`+09:00`), said once by the screen; undefined when none or several. */
  zone?: string;
}

/**
 * Columns to show: the resource's that some row of the page has (another platform may name its
 * fields otherwise, and a column no row has is only an empty one); the first row's keys when the
 * page has none of them or the resource names none.
 */
export function columnsFor(rows: Row[], preferred?: string[]): string[] {
  const objects = rows.filter((r) => r && typeof r === 'object');
  if (preferred && preferred.length) {
    if (!objects.length) return preferred;
    const present = preferred.filter((c) => objects.some((r) => getPath(r, c) !== undefined));
    if (present.length) return present;
  }
  return objects.length ? Object.keys(objects[0]) : [];
}

/** A cell as one terminal line, as drawn. */
function cellText(row: Row, column: string): string {
  return drawable(escapeControls(formatCell(getPath(row, column), { tty: true })));
}

/** Cells cut and padded to their widths, GAP apart, trailing spaces trimmed. */
function joinCells(cells: string[], widths: number[]): string {
  let out = '';
  for (let i = 0; i < widths.length; i++) {
    const c = truncateWidth(cells[i] ?? '', widths[i]);
    out += i === widths.length - 1 ? c : padEndWidth(c, widths[i]) + ' '.repeat(GAP);
  }
  return out.trimEnd();
}

/** A column is not cut narrower than this (unless its content is narrower), as the printer's tables. */
const MIN_COLUMN = 6;

/** A number (`350651`, `-3.5`, `1,013`), a date or a local time (`2026-10-23 09:30`). */
const NUMBER_OR_DATE = /^(?:[-+]?\d[\d,]*(?:\.\d+)?|\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?)$/;

/**
 * Widths of the columns in `available` terminal columns, and how many fit from the left.
 * Natural widths when they fit; else headers wider than their values are cut first, then the
 * widest values, none below its floor: MIN_COLUMN for text, the whole value for numbers and
 * dates (`whole`). Columns that cannot have their floors are dropped from the right.
 * `fitTable([2, 40, 16], [2, 40, 16], [true, false, true], 40)` -> `{ widths: [2, 18, 16], shown: 3 }`.
 */
function fitTable(natural: number[], content: number[], whole: boolean[], available: number): { widths: number[]; shown: number } {
  const floors = natural.map((w, i) => (whole[i] ? Math.max(content[i], Math.min(w, MIN_COLUMN)) : Math.min(w, MIN_COLUMN)));
  let shown = natural.length;
  while (shown > 1 && lineWidth(floors.slice(0, shown)) > available) shown--;
  const nat = natural.slice(0, shown);
  if (lineWidth(nat) <= available) return { widths: nat, shown };
  if (shown === 1) return { widths: [Math.max(1, Math.min(nat[0], available))], shown };
  // Headers give way first ('subscription_id' over ids of four digits is cut down to the ids),
  // to a common cap; when cutting the headers is not enough, the widest values, to a common cap,
  // none below its floor.
  const demand = nat.map((w, i) => Math.min(w, Math.max(content[i], floors[i])));
  const headersOnly = lineWidth(demand) <= available;
  const upper = headersOnly ? nat : demand;
  const lower = headersOnly ? demand : floors;
  return { widths: capWidths(upper, lower, available - GAP * (shown - 1)), shown };
}

const TIME_WITH_ZONE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} ([+-]\d{2}:\d{2})$/;

/** The zone (`+09:00`) every time of a column is in, when each non-empty cell is such a time. */
function sharedZone(column: string[]): string | undefined {
  let zone: string | undefined;
  for (const c of column) {
    if (c === '') continue;
    const m = TIME_WITH_ZONE.exec(c);
    if (!m || (zone !== undefined && m[1] !== zone)) return undefined;
    zone = m[1];
  }
  return zone;
}

/**
 * Lays out a page of rows in `width` columns; `labels` are shorter headers for some columns
 * (`referrer_username` as `referrer`: cut down to six columns, three `referral_*` headers all
 * read `refer…`).
 * `layoutTable([{id: 1, name: 'Alpha'}], ['id', 'name'], 80).lines -> ['1   Alpha']`.
 */
export function layoutTable(rows: Row[], columns: string[], width: number, labels: Record<string, string> = {}): TableLayout {
  const cells = rows.map((r) => columns.map((c) => cellText(r, c)));
  // Times all in one zone: the zone is said once (the list's title line, `times +09:00`), the
  // cells keep the seconds. Times in several zones (summer time) keep their zone each.
  const zones = columns.map((_c, i) => sharedZone(cells.map((r) => r[i])));
  const named = [...new Set(zones.filter((z): z is string => z !== undefined))];
  const zone = named.length === 1 ? named[0] : undefined;
  if (zone) for (const r of cells) zones.forEach((z, i) => z && r[i] !== '' && (r[i] = r[i].slice(0, -z.length - 1)));
  const content = columns.map((_c, i) => {
    let w = 0;
    for (const r of cells) {
      const cw = displayWidth(r[i]);
      if (cw > w) w = cw;
    }
    return w;
  });
  // Column names are the server's keys where the resource names none: drawn as its text is.
  const heads = columns.map((c) => drawableLine(labels[c] ?? c));
  const natural = columns.map((_c, i) => Math.max(displayWidth(heads[i]), content[i]));
  const whole = columns.map((_c, i) => cells.some((r) => r[i] !== '') && cells.every((r) => r[i] === '' || NUMBER_OR_DATE.test(r[i])));
  const fit = fitTable(natural, content, whole, Math.max(1, width));
  const shown = columns.slice(0, fit.shown);
  return {
    columns: shown,
    hidden: columns.slice(fit.shown),
    widths: fit.widths,
    header: joinCells(heads.slice(0, fit.shown), fit.widths),
    lines: cells.map((r) => joinCells(r, fit.widths)),
    zone,
  };
}
