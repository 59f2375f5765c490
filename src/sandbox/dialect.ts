/**
 * The sandbox's dialects: how its answers are written, at the answer boundary only.
 *
 * `default` is the sandbox's own reading of the two API documents. `alt` answers the same data
 * in another reading a platform could plausibly give of the same documents, so that a client
 * can be tested against both: decimals (money) as strings, booleans as 0/1, ids as numeric
 * strings, date-times without milliseconds or zone, a role as an object, end-user and referral
 * lists under other keys or as bare lists, pagination under other names with its numbers as
 * strings, and `error_code` / `error.code` as numbers. Handlers know nothing of it: handle.ts
 * passes every answer's `data` (and every error envelope) through here.
 */
export const DIALECTS = ['default', 'alt'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The environment variable the embedded sandbox reads its dialect from. */
export const DIALECT_ENV = 'SUBCTL_SANDBOX_DIALECT';

export const isDialect = (value: unknown): value is Dialect => (DIALECTS as readonly unknown[]).includes(value);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a list endpoint's rows go in `alt`: under another key, or `data` itself (a bare list). */
type ListMove = { from: string; to: string } | { from: string; bare: true } | { wrap: string };

/**
 * Per endpoint, the list moves of `alt`. Bare lists are given only where the default has no
 * paging information beside the rows, so nothing a client needs to page is lost.
 */
const LIST_MOVES: Record<string, ListMove> = {
  'me.services': { wrap: 'available_services' },
  'me.plans': { wrap: 'plans' },
  'me.subscriptions': { wrap: 'items' },
  'me.test-services': { wrap: 'services' },
  'devices.list': { from: 'devices', bare: true },
  'referrals.mine': { from: 'codes', to: 'my_codes' },
  'referrals.referred': { from: 'referred_users', to: 'users' },
  'referrals.search': { from: 'referral_codes', to: 'codes' },
  'referrals.admin-search': { from: 'referral_codes', to: 'items' },
  'referrals.admin-list': { from: 'referrals', to: 'results' },
  'referrals.admin-referred': { from: 'referred_users', to: 'referred' },
  'referrals.admin-user-referred': { from: 'referred_users', to: 'referred' },
};

/** Money: numbers under these keys are answered as strings with two decimals ("19.99"); credits are counts, not money. */
const MONEY = /^(?!credit)(.*_)?(price|amount|balance|revenue|cost)(_.*)?$/;
/** Ids: whole numbers under these keys are answered as numeric strings. */
const ID = /(^|_)id$/;
/** An ISO date-time as the sandbox writes it: answered as `YYYY-MM-DD HH:MM:SS` (UTC, no zone). */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/;

/** Flat paging fields of the lists that carry them beside the rows, renamed in `alt`. */
const FLAT_PAGING: Record<string, string> = {
  total_count: 'total_items',
  total_items: 'totalRecords',
  total_rows: 'total_count',
  total_pages: 'totalPages',
};
const PAGING_NUMBERS = new Set([
  'page',
  'page_size',
  'limit',
  'current_page',
  'total_pages',
  'total_count',
  'total_items',
  'total_rows',
  'total_records',
]);

/** The `pagination` block: its totals under other names, its numbers as strings. */
function altPagination(p: Json, referral: boolean): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(p)) {
    const name = k === 'total_records' ? (referral ? 'totalRecords' : 'total_count') : k === 'total_pages' ? 'totalPages' : k;
    out[name] = typeof v === 'number' ? String(v) : typeof v === 'boolean' ? (v ? 1 : 0) : v;
  }
  return out;
}

/** One value under `key`, written the `alt` way (a deep copy: rows may be shared by requests). */
function altValue(key: string, v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') {
    if (MONEY.test(key)) return v.toFixed(2);
    if (ID.test(key) && Number.isInteger(v)) return String(v);
    return v;
  }
  if (typeof v === 'string') {
    if (key === 'error_code') return errorNumber(v);
    if (key === 'role') return { role_name: v };
    const t = ISO_TIME.exec(v);
    return t ? `${t[1]} ${t[2]}` : v;
  }
  if (Array.isArray(v)) return v.map((x) => altValue(key, x));
  if (isObject(v)) {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) out[k] = altValue(k, x);
    return out;
  }
  return v;
}

/** `data` of a successful answer to endpoint `name`, as the `alt` dialect writes it. */
export function altData(name: string, data: unknown): unknown {
  const move = LIST_MOVES[name];
  const referral = name.startsWith('referrals.');
  if (Array.isArray(data)) {
    const rows = altValue('', data);
    return move && 'wrap' in move ? { [move.wrap]: rows } : rows;
  }
  if (!isObject(data)) return altValue('', data);
  if (move && 'bare' in move && Array.isArray(data[move.from])) return altValue('', data[move.from]);
  const out: Json = {};
  for (const [k, v] of Object.entries(data)) {
    if (k === 'pagination' && isObject(v)) out[k] = altPagination(v, referral);
    else if (move && 'to' in move && k === move.from) out[move.to] = altValue(k, v);
    else if (PAGING_NUMBERS.has(k) && typeof v === 'number') out[FLAT_PAGING[k] ?? k] = String(v);
    else out[k] = altValue(k, v);
  }
  return out;
}

/** Error codes as numbers, as a platform with numbered errors would send them. */
const ERROR_NUMBERS: Record<string, number> = {
  BAD_REQUEST: 1000,
  VALIDATION_ERROR: 1001,
  INVALID_JSON: 1002,
  UNAUTHORIZED: 1401,
  FORBIDDEN: 1403,
  NOT_FOUND: 1404,
  METHOD_NOT_ALLOWED: 1405,
  CONFLICT: 1409,
  PAYLOAD_TOO_LARGE: 1413,
  UNPROCESSABLE: 1422,
  RATE_LIMITED: 1429,
  SERVER_ERROR: 1500,
  NOT_IMPLEMENTED: 1501,
  SERVICE_UNAVAILABLE: 1503,
};

/** A code's number: from the table, else a stable number of 2000 and up derived from its text. */
function errorNumber(code: string): number {
  const known = ERROR_NUMBERS[code];
  if (known !== undefined) return known;
  let h = 0;
  for (let i = 0; i < code.length; i++) h = (h * 31 + code.charCodeAt(i)) % 8000;
  return 2000 + h;
}

/** An error envelope as `alt` writes it: `error.code` and `data.error_code` as numbers. */
export function altError(envelope: Json): Json {
  const error = isObject(envelope.error) ? { ...envelope.error, code: errorNumber(String(envelope.error.code)) } : envelope.error;
  const data = isObject(envelope.data) ? altValue('', envelope.data) : envelope.data;
  return { ...envelope, data, error };
}
