/**
 * A record as lines for the detail screen: key/values (nested objects as dotted keys, lists of
 * objects as sub-tables), sections with titles, every line fitted to the width.
 */
import { escapeControls, formatCell } from '../output/index.js';
import { displayWidth, padEndWidth, truncateWidth } from '../output/width.js';
import { wrapWidth } from '../output/wrap.js';
import { drawable } from './drawable.js';
import type { DetailSection, Row } from './resources.js';
import { columnsFor, layoutTable } from './table-layout.js';

export interface DetailLine {
  text: string;
  title?: boolean;
}

const isObj = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v);

function flatten(obj: Row, prefix: string, out: Array<[string, unknown]>): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObj(v) && Object.keys(v).length) flatten(v, key, out);
    else out.push([key, v]);
  }
}

function kvLines(obj: Row, width: number, indent: string): DetailLine[] {
  const pairs: Array<[string, unknown]> = [];
  const tables: Array<[string, Row[]]> = [];
  for (const [k, v] of Object.entries(obj)) {
    if (Array.isArray(v) && v.length && v.every(isObj)) tables.push([k, v as Row[]]);
    else if (isObj(v) && Object.keys(v).length) flatten(v, k, pairs);
    else pairs.push([k, v]);
  }
  const keyWidth = Math.min(32, Math.max(0, ...pairs.map(([k]) => displayWidth(drawable(k)))));
  // A value longer than its room wraps under itself rather than being cut: the detail scrolls,
  // and it is the one place the console shows a whole value (a description, a permissions list).
  const lead = `${indent}${' '.repeat(keyWidth)}  `;
  const room = width - displayWidth(lead);
  const lines: DetailLine[] = pairs.flatMap(([k, v]) => {
    const value = drawable(escapeControls(formatCell(v, { tty: true })));
    const [first, ...rest] = room >= 10 ? wrapWidth(value, room) : [value];
    return [
      { text: truncateWidth(`${indent}${padEndWidth(drawable(k), keyWidth)}  ${first}`, width) },
      ...rest.map((l) => ({ text: truncateWidth(lead + l, width) })),
    ];
  });
  for (const [k, rows] of tables) lines.push(...tableLines({ kind: 'table', title: k, rows }, width, indent));
  return lines;
}

function tableLines(s: Extract<DetailSection, { kind: 'table' }>, width: number, indent: string): DetailLine[] {
  const lines: DetailLine[] = [{ text: '' }, { text: `${indent}${s.title} (${s.rows.length})`, title: true }];
  if (!s.rows.length) return lines;
  // A sub-table shows the columns the server filled: an empty column only takes room.
  const columns = columnsFor(s.rows, s.columns).filter((c) => s.rows.some((r) => r[c] !== undefined && r[c] !== null && r[c] !== ''));
  const layout = layoutTable(s.rows, columns, width - indent.length - 2);
  lines.push({ text: `${indent}  ${layout.header}`, title: true });
  for (const l of layout.lines) lines.push({ text: `${indent}  ${l}` });
  return lines;
}

/** The lines of a detail's sections. */
export function detailLines(sections: DetailSection[], width: number): DetailLine[] {
  const lines: DetailLine[] = [];
  for (const s of sections) {
    if (s.kind === 'kv') {
      if (s.title) lines.push({ text: s.title, title: true });
      lines.push(...kvLines(s.value, width, s.title ? '  ' : ''));
    } else if (s.kind === 'table') lines.push(...tableLines(s, width, ''));
    else {
      lines.push({ text: '' }, { text: s.title, title: true });
      for (const l of s.lines) lines.push({ text: truncateWidth(drawable(`  ${l}`), width) });
    }
  }
  return lines;
}
