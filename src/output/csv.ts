/**
 * CSV (RFC 4180 quoting) with formula-injection protection, written by csv-stringify. Loaded
 * only when `-o csv` is asked for.
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
import { stringify, type Options } from 'csv-stringify/sync';
import { CHUNK_CHARS, type Encoder, type Row } from './encoders.js';
import { getPath } from './format.js';

const NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
/** Rows encoded together: one call of csv-stringify per batch, not per row. */
const BATCH_ROWS = 100;

function json(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
  } catch {
    return String(v);
  }
}

const OPTIONS: Options = {
  escape_formulas: true,
  cast: {
    boolean: (v) => (v ? 'true' : 'false'),
    date: (v) => (Number.isNaN(v.getTime()) ? '' : v.toISOString()),
    object: (v) => json(v),
    // A negative number sent as text is data; text that begins or ends with white space is
    // quoted, unless the formula quote that leads it (a TAB or CR first) already hides its start.
    string: (v) =>
      NEGATIVE_NUMBER.test(v)
        ? { value: v, escape_formulas: false }
        : /\s$/.test(v) || (/^\s/.test(v) && !/^[\t\r]/.test(v))
          ? { value: v, quoted: true }
          : v,
  },
};

/** Records, each ended by LF. */
export function csvRecords(records: unknown[][]): string {
  return records.length ? stringify(records, OPTIONS) : '';
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
  private cells: unknown[][] = [];
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
    this.buf += csvRecords([this.columns]);
    this.headerDone = true;
  }

  private encode(): void {
    this.buf += csvRecords(this.cells);
    this.cells = [];
  }

  add(row: Row): void {
    this.columns ??= leadFirst(Object.keys(row), this.lead);
    this.header();
    this.cells.push(this.columns.map((c) => getPath(row, c)));
    this.bufRows++;
    if (this.cells.length >= BATCH_ROWS) this.encode();
  }

  full(): boolean {
    return this.buf.length >= CHUNK_CHARS;
  }

  take(): { text: string; rows: number } {
    this.header();
    this.encode();
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
