/**
 * Finding the rows of a list answer, never losing them silently. The rows are taken from the
 * contract's key; failing that from `data` itself when it is a list; failing that from the single
 * list-valued field of `data`, whatever its name. Paging information is read under the contract's
 * names and the common alternatives, numbers as text included.
 */
import type { AnyEndpoint } from './contract/common.js';
import { readBoolean, readWhole } from './read-values.js';

type Row = Record<string, unknown>;

export interface FoundRows {
  /** The rows; undefined when none could be found in a `data` that is not empty. */
  rows: Row[] | undefined;
  /** Where they came from (`data.services`, `data`), or where they were looked for. */
  from: string;
  /**
   * Set when the rows came from elsewhere than the contract says, or could not be found: one
   * line for stderr naming where they were read or what the answer held.
   */
  note?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keys of `data` that carry paging information rather than rows (an answer with only these is an empty list). */
const PAGING_KEYS = new Set([
  'pagination',
  'paging',
  'page_info',
  'pageInfo',
  'meta',
  'page',
  'page_number',
  'page_size',
  'limit',
  'offset',
]);

const PAGES = ['total_pages', 'totalPages', 'page_count', 'pageCount'];
const RECORDS = ['total_records', 'total_count', 'total_items', 'total_rows', 'totalRecords', 'totalCount', 'totalItems', 'totalRows'];
/** Whether a page follows, where a platform says only that. */
const NEXT = ['has_next_page', 'hasNextPage', 'has_next', 'hasNext', 'has_more', 'hasMore'];
/** The page size the platform served, where it echoes it (it may serve fewer rows than asked). */
const SIZES = ['page_size', 'pageSize', 'per_page', 'perPage', 'limit'];

/**
 * The rows of a list answer.
 * @example findRows(servicesList, { items: [{ service_id: 1 }] }) // { rows: [...], from: 'data.items', note: 'note: rows read from data.items; ...' }
 */
export function findRows(ep: AnyEndpoint, data: unknown, key: string = ep.paging?.items ?? ''): FoundRows {
  const documented = key ? `data.${key}` : 'data';
  if (data === undefined || data === null) return { rows: [], from: documented };
  if (key && isObject(data)) {
    const v = data[key];
    if (Array.isArray(v)) return { rows: v as Row[], from: documented };
    // Present and empty by the server's word: no rows, nothing lost.
    if (v === null && key in data) return { rows: [], from: documented };
  }
  if (Array.isArray(data)) {
    return key
      ? { rows: data as Row[], from: 'data', note: `note: rows read from data; the API documents name ${documented}` }
      : { rows: data as Row[], from: 'data' };
  }
  if (!isObject(data))
    return {
      rows: undefined,
      from: documented,
      note: `note: no rows found in the answer of ${ep.method} ${ep.path}: data is ${typeof data}`,
    };
  const lists = Object.keys(data).filter((k) => Array.isArray(data[k]));
  if (lists.length === 1) {
    const from = `data.${lists[0]}`;
    return { rows: data[lists[0]] as Row[], from, note: `note: rows read from ${from}; the API documents name ${documented}` };
  }
  const keys = Object.keys(data);
  if (lists.length === 0 && keys.every((k) => PAGING_KEYS.has(k) || PAGES.includes(k) || RECORDS.includes(k) || NEXT.includes(k)))
    return { rows: [], from: documented };
  const held = keys.length ? keys.join(', ') : 'nothing';
  return {
    rows: undefined,
    from: documented,
    note: `note: no rows found in the answer of ${ep.method} ${ep.path} (the API documents name ${documented}); data holds ${held}`,
  };
}

export interface Totals {
  totalPages?: number;
  totalRecords?: number;
  /** The platform's word on whether a page follows (`has_next_page`, `has_more` ...), read as a boolean. */
  hasNext?: boolean;
  /** The page size the platform says it served, a whole number above 0. */
  served?: number;
}

/** The first of `names` in `o` that reads as a whole number. */
function firstWhole(o: Record<string, unknown>, names: readonly string[]): number | undefined {
  for (const n of names) {
    const v = readWhole(o[n]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The first of `names` in `o` that reads as a boolean. */
function firstBoolean(o: Record<string, unknown>, names: readonly string[]): boolean | undefined {
  for (const n of names) {
    const v = readBoolean(o[n]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * The page count and record count of a list answer: under the contract's info key, the common
 * block names (`pagination`, `meta`, `page_info`, `paging`) or `data` itself; each under the
 * contract's name or a common alternative; numbers as text read too. Beside them, whether a page
 * follows and the page size served, where the platform says so.
 */
export function totalsOf(ep: AnyEndpoint, data: unknown): Totals {
  if (!isObject(data)) return {};
  const key = ep.paging?.info ?? '';
  const blocks: Record<string, unknown>[] = [];
  for (const k of [key, 'pagination', 'meta', 'page_info', 'pageInfo', 'paging'])
    if (k && isObject(data[k])) blocks.push(data[k] as Record<string, unknown>);
  blocks.push(data);
  const out: Totals = {};
  for (const b of blocks) {
    out.totalPages ??= firstWhole(b, PAGES);
    out.totalRecords ??= firstWhole(b, RECORDS);
    out.hasNext ??= firstBoolean(b, NEXT);
    const served = firstWhole(b, SIZES);
    if (served !== undefined && served > 0) out.served ??= served;
  }
  return out;
}
