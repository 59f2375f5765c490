/**
 * `-o wide`: every column, nothing cut. On a terminal the columns share its width and a cell
 * too long for its column wraps onto the next lines (at a space where it can); a table too wide
 * for even that prints each row as a block of `key  value` lines, values wrapped. Off a
 * terminal, tab-separated lines, whole. Columns: `--fields`, else the command's columns then
 * every other field of the first rows, in their order.
 */
import type { Encoder, Row } from './encoders.js';
import { escapeControls, formatCell, getPath } from './format.js';
import { headerStyle, keyStyle } from './style.js';
import { displayWidth, padEndWidth } from './width.js';
import { capWidths, GAP, lineWidth, LAYOUT_ROWS } from './table.js';
import { wrapWidth } from './wrap.js';

/** A column is not made narrower than this when the terminal is shared out. */
const MIN_WIDE_COLUMN = 8;

/** The wide columns: the given ones first, then every other key of `rows`, in order of first appearance. */
function wideColumns(lead: string[] | undefined, rows: Row[]): string[] {
  const seen = new Set(lead ?? []);
  const out = [...seen];
  for (const r of rows) {
    for (const k of Object.keys(r)) {
      if (!seen.has(k)) {
        seen.add(k);
        out.push(k);
      }
    }
  }
  return out;
}

/** Draws one row of cells at `widths`, each cell wrapped; lines carry no trailing spaces. */
function drawWrapped(cells: string[], widths: number[], style: (s: string) => string = (s) => s): string {
  const wrapped = cells.map((c, i) => wrapWidth(c, widths[i]).map((l) => style(l)));
  const height = Math.max(...wrapped.map((l) => l.length));
  const out: string[] = [];
  for (let y = 0; y < height; y++) {
    const parts = wrapped.map((l, i) => padEndWidth(l[y] ?? '', widths[i]));
    out.push(parts.join(' '.repeat(GAP)).trimEnd());
  }
  return out.join('\n') + '\n';
}

export class WideEncoder implements Encoder {
  private pending: Row[] = [];
  private columns: string[] | undefined;
  private widths: number[] | undefined;
  /** Rows as blocks of key/value lines: the columns do not fit side by side. */
  private blocks = false;
  private buf = '';
  private count = 0;

  constructor(
    private readonly fields: string[] | undefined,
    private readonly lead: string[] | undefined,
    private readonly tty: boolean,
    private readonly width: number,
    private readonly color: boolean,
  ) {}

  add(row: Row): void {
    if (this.columns) this.emit(row);
    else {
      this.pending.push(row);
      if (this.pending.length >= LAYOUT_ROWS) this.layout();
    }
  }

  private cells(row: Row): string[] {
    return this.columns!.map((c) => escapeControls(formatCell(getPath(row, c), { tty: this.tty })));
  }

  private layout(): void {
    const rows = this.pending;
    this.pending = [];
    this.columns = this.fields && this.fields.length ? this.fields : wideColumns(this.lead, rows);
    const header = this.columns.map(escapeControls);
    if (!this.tty) {
      this.buf += header.map((h) => headerStyle(h, this.color)).join('\t') + '\n';
    } else {
      const natural = header.map((h) => displayWidth(h));
      for (const r of rows) this.cells(r).forEach((c, i) => (natural[i] = Math.max(natural[i], displayWidth(c))));
      const floors = natural.map((w) => Math.min(w, MIN_WIDE_COLUMN));
      if (lineWidth(natural) <= this.width) this.widths = natural;
      else if (lineWidth(floors) <= this.width) this.widths = capWidths(natural, floors, this.width - GAP * (natural.length - 1));
      else this.blocks = true;
      if (this.widths) this.buf += drawWrapped(header, this.widths, (h) => headerStyle(h, this.color));
    }
    for (const r of rows) this.emit(r);
  }

  private emit(row: Row): void {
    const cells = this.cells(row);
    this.count++;
    if (!this.tty) this.buf += cells.join('\t') + '\n';
    else if (this.widths) this.buf += drawWrapped(cells, this.widths);
    else this.buf += this.block(cells);
  }

  /** One row as `key  value` lines, values wrapped under themselves, a blank line after. */
  private block(cells: string[]): string {
    const keys = this.columns!.map(escapeControls);
    const keyWidth = Math.min(Math.max(...keys.map(displayWidth)), Math.floor(this.width / 3));
    const valueWidth = Math.max(10, this.width - keyWidth - GAP);
    let out = '';
    keys.forEach((k, i) => {
      const lines = wrapWidth(cells[i], valueWidth);
      out += `${keyStyle(padEndWidth(k, keyWidth), this.color)}${' '.repeat(GAP)}${lines[0]}`.trimEnd() + '\n';
      for (const l of lines.slice(1)) out += `${' '.repeat(keyWidth + GAP)}${l}`.trimEnd() + '\n';
    });
    return out + '\n';
  }

  full(): boolean {
    return this.buf.length >= 4096;
  }

  take(): { text: string; rows: number } {
    const out = { text: this.buf, rows: this.count };
    this.buf = '';
    this.count = 0;
    return out;
  }

  finish(): { text: string; rows: number } {
    if (!this.columns && this.pending.length > 0) this.layout();
    return this.take();
  }
}
