/**
 * CSV (RFC 4180 quoting) with formula-injection protection, written here: the same bytes as
 * csv-stringify with the options this project used (a test holds the two together on generated
 * rows), at about a third of its cost on a million-row export. Loaded only when `-o csv` is
 * asked for.
 *
 * - null and undefined are empty cells; booleans `true`/`false`; numbers as JavaScript writes
 *   them; dates ISO 8601; objects and arrays as JSON.
 * - A text cell starting with = + - @ TAB CR (or their full-width forms) gets a leading `'`, so
 *   that a spreadsheet does not run it as a formula; a negative number sent as text ("-19.99")
 *   is data and is left alone, as real numbers are.
 * - A cell holding `,` `"` CR or LF is quoted, its quotes doubled; so is one that begins or ends
 *   with white space, which readers that trim unquoted fields (subctl's own bulk input among
 *   them) would otherwise lose. Records end with LF.
 *
 * Rows are encoded in batches and written by `pump`, with backpressure and a bounded buffer.
 */
import { CHUNK_CHARS, type Encoder, type Row } from './encoders.js';
import { getPath } from './format.js';

const NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;
const SPACE = /\s/;

/** White space as `\s` has it, by code unit (ASCII compared, the rest asked of the regex: rare). */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c >= 0x80 && SPACE.test(String.fromCharCode(c)));
}

function json(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
  } catch {
    return String(v);
  }
}

/** Would a spreadsheet read this text as a formula? */
function formulaLike(s: string): boolean {
  switch (s.charCodeAt(0)) {
    case 0x3d: // =
    case 0x2b: // +
    case 0x40: // @
    case 0x09: // TAB
    case 0x0d: // CR
    case 0xff1d: // full-width =
    case 0xff0b: // full-width +
    case 0xff0d: // full-width -
    case 0xff20: // full-width @
      return true;
    case 0x2d: // -
      return !NEGATIVE_NUMBER.test(s);
    default:
      return false;
  }
}

/** One cell, quoted and escaped as needed. */
export function csvCell(v: unknown): string {
  let s: string;
  switch (typeof v) {
    case 'string':
      if (v === '') return '';
      s = formulaLike(v) ? `'${v}` : v;
      break;
    case 'number':
    case 'bigint':
      // Numbers are data: a negative one is not a formula.
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return '';
    case 'object':
      if (v === null) return '';
      s = v instanceof Date ? (Number.isNaN(v.getTime()) ? '' : v.toISOString()) : json(v);
      // A date beyond year 9999 is written +010000-...: a formula to a spreadsheet.
      if (formulaLike(s)) s = `'${s}`;
      break;
    default:
      s = String(v);
  }
  return NEEDS_QUOTES.test(s) || isSpace(s.charCodeAt(0)) || isSpace(s.charCodeAt(s.length - 1)) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One record: cells joined by `,`, ended by LF. */
export function csvRecord(cells: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < cells.length; i++) out += i === 0 ? csvCell(cells[i]) : `,${csvCell(cells[i])}`;
  return `${out}\n`;
}

/** `keys` with those also in `lead` moved to the front, in `lead`'s order. */
function leadFirst(keys: string[], lead: string[] | undefined): string[] {
  if (!lead?.length) return keys;
  const present = new Set(keys);
  const first = lead.filter((k, i) => present.has(k) && lead.indexOf(k) === i);
  const taken = new Set(first);
  return [...first, ...keys.filter((k) => !taken.has(k))];
}

/**
 * `id,name` / `1,"Pro, monthly"` ... : header row (field names) then one record a row; nested
 * objects JSON-encoded in the cell, booleans true/false, null empty, `=SUM(A1)` written `'=SUM(A1)`.
 */
export class CsvEncoder implements Encoder {
  private buf = '';
  private bufRows = 0;
  private headerDone = false;
  /**
   * `columns`: the header; when undefined, the first row's keys, those named in `lead` first
   * (in that order).
   */
  constructor(
    private columns: string[] | undefined,
    private readonly lead?: string[],
    /** The columns of a list without rows (else it prints nothing, not even a header: csv.DictReader then has no field names). */
    private readonly emptyHeader?: () => string[] | undefined,
  ) {}

  private header(): void {
    if (this.headerDone || !this.columns) return;
    // Headers are cells like any other (a column named "=x" is written '=x).
    this.buf += csvRecord(this.columns);
    this.headerDone = true;
  }

  add(row: Row): void {
    this.columns ??= leadFirst(Object.keys(row), this.lead);
    this.header();
    const cols = this.columns;
    let line = '';
    for (let i = 0; i < cols.length; i++) line += i === 0 ? csvCell(getPath(row, cols[i])) : `,${csvCell(getPath(row, cols[i]))}`;
    this.buf += `${line}\n`;
    this.bufRows++;
  }

  full(): boolean {
    return this.buf.length >= CHUNK_CHARS;
  }

  take(): { text: string; rows: number } {
    this.header();
    const out = { text: this.buf, rows: this.bufRows };
    this.buf = '';
    this.bufRows = 0;
    return out;
  }

  /** With no rows, still the header when the columns are known (from --fields, the command or the contract). */
  finish(): { text: string; rows: number } {
    if (!this.columns && this.emptyHeader) {
      const known = this.emptyHeader();
      if (known) this.columns = leadFirst(known, this.lead);
    }
    return this.take();
  }
}

/** One object as a header and one row (printObject -o csv). */
export function csvOfObject(obj: Record<string, unknown>, columns: string[]): string {
  const enc = new CsvEncoder(columns);
  enc.add(obj);
  return enc.finish().text;
}
