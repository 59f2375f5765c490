/**
 * Output formats, field selection and cell formatting: the pieces every printer shares.
 * Light on purpose (no library imports): `-o json` loads only this, pipe.ts and encoders.ts.
 */
import type { IO } from '../io.js';
import { UsageError } from '../api/errors.js';
import { readDate } from '../api/read-values.js';
import { terminalSafe } from './terminal-safe.js';
import { terminalTime } from './time.js';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface OutputOptions {
  format: OutputFormat;
  /** `--fields a,b,c`: these keys, in this order; dotted paths (`created_by.username`) allowed. */
  fields?: string[];
  /** Default table/csv columns when no `--fields` (json/ndjson print every field unless `--fields`). */
  columns?: string[];
  /**
   * csv without `--fields`: every field still, these first (the command's table columns, so
   * that an id leads), then the others in the order of the first row.
   */
  lead?: string[];
  /** `--no-color`. */
  noColor?: boolean;
  /** `-o wide` (format 'table'): every field, the columns first, nothing cut (src/output/wide.ts). */
  wide?: boolean;
  /** csv of a list with no rows and no columns given: the header's fields (the contract's item fields). */
  emptyHeader?: () => string[] | undefined;
  /** The contract's fields of the rows (or the object): `--fields` may name them even where the answer lacks them. */
  knownFields?: () => string[] | undefined;
  /** `--limit N` of a list the server does not page (it answers every row at once): the first N. */
  limit?: number;
  io: IO;
}

/**
 * `-o` / `SUBCTL_OUTPUT` value to a format, case-insensitively.
 * `parseOutputFormat('xml')` throws `invalid output format "xml": expected one of table, json, ndjson, csv`.
 */
export function parseOutputFormat(value: string): OutputFormat {
  const v = String(value ?? '')
    .trim()
    .toLowerCase();
  if ((OUTPUT_FORMATS as readonly string[]).includes(v)) return v as OutputFormat;
  throw new UsageError(`invalid output format "${value}": expected one of ${OUTPUT_FORMATS.join(', ')}`, {
    hint: 'use -o table, -o json, -o ndjson or -o csv',
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/**
 * The value at a dotted path: `getPath({ created_by: { username: 'ana' } }, 'created_by.username') === 'ana'`.
 * A key that itself contains the dot wins (`{ 'a.b': 1 }`), array indexes work (`plans.0.plan_code`).
 */
export function getPath(row: unknown, path: string): unknown {
  if (!isRecord(row)) return undefined;
  if (Object.prototype.hasOwnProperty.call(row, path)) return row[path];
  let cur: unknown = row;
  for (const part of path.split('.')) {
    if (!isRecord(cur) || !Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * `--fields` applied to one row: a new object with exactly those keys, in that order, named as
 * given (flat: `{ "created_by.username": "ana" }`). A field the row lacks is `null`, so every
 * printed object has the same keys.
 */
export function pickFields(row: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = getPath(row, f);
    out[f] = v === undefined ? null : v;
  }
  return out;
}

// Full timestamps only: a bare date ('2026-01-01') is shown as-is (turning it into local time could move the day).
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;

function compactJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
  } catch {
    return String(v);
  }
}

/**
 * One value as table text. null/undefined -> '', booleans 'true'/'false', numbers exact (no
 * thousands separators anywhere: scripts read tables too), arrays and objects compact JSON.
 * Timestamps: ISO strings kept as-is off a terminal; on one, `2026-03-01 18:30:00 +09:00`
 * (src/output/time.ts: seconds and zone, local or `--utc`).
 * `formatCell('2026-03-01T09:30:00Z', { tty: false }) === '2026-03-01T09:30:00Z'`.
 */
export function formatCell(value: unknown, opts: { tty: boolean }): string {
  if (value === null || value === undefined) return '';
  switch (typeof value) {
    case 'string':
      if (opts.tty && value.length <= 35 && ISO_TIMESTAMP.test(value)) {
        // A time without a zone is UTC, as the platform writes its times (`new Date` would take it as local).
        const ms = readDate(value);
        if (ms !== undefined) return terminalTime(new Date(ms));
      }
      return value;
    case 'number':
      return Object.is(value, -0) ? '0' : String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) return '';
        return opts.tty ? terminalTime(value) : value.toISOString();
      }
      return compactJson(value);
    default:
      return String(value);
  }
}

/**
 * Makes a cell safe for one table line: newline, carriage return and tab become the two
 * characters `\n`, `\r`, `\t`; other control characters (ESC included: server data must not
 * drive the terminal) become `\xHH`, bidi overrides `\uHHHH` (terminal-safe.ts).
 * `escapeControls('a\nb') === 'a\\nb'`.
 */
export const escapeControls = terminalSafe;

/** The columns of a table or csv: `--fields`, else the command's defaults, else the first row's keys. */
export function resolveColumns(opts: Pick<OutputOptions, 'fields' | 'columns'>, first: unknown): string[] | undefined {
  if (opts.fields && opts.fields.length > 0) return opts.fields;
  if (opts.columns && opts.columns.length > 0) return opts.columns;
  if (isRecord(first) && !Array.isArray(first)) return Object.keys(first);
  return undefined;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v) || Array.isArray(v) || v instanceof Date) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
