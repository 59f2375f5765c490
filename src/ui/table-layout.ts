/**
 * Tables fitted to the terminal for the console: cells formatted like the terminal printer
 * (local times, escaped control characters), the widest columns shrunk and cut with '…', and
 * the rightmost columns dropped when even that does not fit. Pure functions, so a page is laid
 * out once (memoized by the screen) and only the visible rows are drawn.
 */
import { getPath, formatCell, escapeControls } from '../output/index.js';
import { fitColumns, GAP } from '../output/table.js';
import { padEndWidth, truncateWidth, displayWidth } from '../output/width.js';
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
}

/** Columns to show: the resource's, else the first row's keys. */
export function columnsFor(rows: Row[], preferred?: string[]): string[] {
  if (preferred && preferred.length) return preferred;
  const first = rows.find((r) => r && typeof r === 'object');
  return first ? Object.keys(first) : [];
}

/** A cell as one terminal line. */
export function cellText(row: Row, column: string): string {
  return escapeControls(formatCell(getPath(row, column), { tty: true }));
}

/** Cells cut and padded to their widths, GAP apart, trailing spaces trimmed. */
export function joinCells(cells: string[], widths: number[]): string {
  let out = '';
  for (let i = 0; i < widths.length; i++) {
    const c = truncateWidth(cells[i] ?? '', widths[i]);
    out += i === widths.length - 1 ? c : padEndWidth(c, widths[i]) + ' '.repeat(GAP);
  }
  return out.trimEnd();
}

/**
 * Lays out a page of rows in `width` columns.
 * `layoutTable([{id: 1, name: 'Alpha'}], ['id', 'name'], 80).lines -> ['1   Alpha']`.
 */
export function layoutTable(rows: Row[], columns: string[], width: number): TableLayout {
  const cells = rows.map((r) => columns.map((c) => cellText(r, c)));
  const content = columns.map((_c, i) => {
    let w = 0;
    for (const r of cells) {
      const cw = displayWidth(r[i]);
      if (cw > w) w = cw;
    }
    return w;
  });
  const natural = columns.map((c, i) => Math.max(displayWidth(c), content[i]));
  const fit = fitColumns(natural, Math.max(1, width), content);
  const shown = columns.slice(0, fit.shown);
  return {
    columns: shown,
    hidden: columns.slice(fit.shown),
    widths: fit.widths,
    header: joinCells(shown, fit.widths),
    lines: cells.map((r) => joinCells(r, fit.widths)),
  };
}
