/**
 * Helpers shared by the administrator handlers: WHERE-clause building, sort mapping, the
 * pagination block, 0/1 to booleans, and a count/summary cache that stays exact.
 */
import { prep } from '../db.js';
import { SandboxError, type DB, type HandlerContext } from '../types.js';

export const DAY_MS = 86_400_000;

/** Collects `AND`-ed conditions with their arguments. */
export class Where {
  readonly clauses: string[] = [];
  readonly args: unknown[] = [];
  add(sql: string, ...args: unknown[]): this {
    this.clauses.push(sql);
    this.args.push(...args);
    return this;
  }
  /** Adds `sql` only when `value` is given (not undefined). */
  opt(value: unknown, sql: string, ...args: unknown[]): this {
    if (value !== undefined && value !== null) this.add(sql, ...(args.length ? args : [value]));
    return this;
  }
  get sql(): string {
    return this.clauses.length ? `WHERE ${this.clauses.join(' AND ')}` : '';
  }
}

/** `LIKE` pattern matching `s` anywhere (use with `ESCAPE '\'`). */
export function likeAny(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Start of a YYYY-MM-DD day, as ISO text. */
export function dayStart(d: string): string {
  return `${d}T00:00:00.000Z`;
}

/** Start of the day after a YYYY-MM-DD day: `x < dayAfter(to)` makes a `to` date inclusive. */
export function dayAfter(d: string): string {
  return new Date(Date.parse(`${d}T00:00:00.000Z`) + DAY_MS).toISOString();
}

/** Adds the `from`/`to` day filters on a date-time column (both inclusive days). */
export function dateRange(w: Where, column: string, from: string | undefined, to: string | undefined): void {
  if (from) w.add(`${column} >= ?`, dayStart(from));
  if (to) w.add(`${column} < ?`, dayAfter(to));
}

/**
 * A sort column: its SQL expression (with its collation, if the sort needs one) and whether it
 * can be NULL (a nullable column, or any column of a LEFT JOIN). Deep paging (`pageRows`)
 * needs to know: SQLite puts NULLs first ascending and last descending.
 */
export interface SortColumn {
  expr: string;
  nullable?: boolean;
}

/** Contract sort names to columns; a sort may name several columns (all in the same direction). */
export type SortMap = Record<string, string | SortColumn | Array<string | SortColumn>>;

/** The columns of a contract sort name (400 for an unknown one). */
export function sortColumns(map: SortMap, sortBy: string): SortColumn[] {
  const cols = Object.prototype.hasOwnProperty.call(map, sortBy) ? map[sortBy] : undefined;
  if (!cols) throw new SandboxError(400, `cannot sort by ${sortBy}`, 'VALIDATION_ERROR', [{ field: 'sort_by', message: `unknown sort field ${sortBy}` }]);
  return (Array.isArray(cols) ? cols : [cols]).map((c) => (typeof c === 'string' ? { expr: c } : c));
}

/**
 * ORDER BY for a contract sort name, with the id as tie-break so pages never overlap. A sort
 * may name several columns (all in the same direction) so that it follows an index exactly.
 */
export function orderBy(map: SortMap, sortBy: string, sortOrder: string, tiebreak: string): string {
  const dir = sortOrder === 'ASC' ? 'ASC' : 'DESC';
  return `ORDER BY ${[...sortColumns(map, sortBy).map((c) => c.expr), tiebreak].map((c) => `${c} ${dir}`).join(', ')}`;
}

/** The admin lists' pagination block. */
export function pagination(total: number, page: number, size: number) {
  const total_pages = Math.ceil(total / size);
  return {
    current_page: page,
    page_size: size,
    total_pages,
    total_records: total,
    has_next_page: page < total_pages,
    has_previous_page: page > 1,
  };
}

type RowBuilder = (values: unknown[]) => Record<string, unknown>;
const builders = new WeakMap<object, Map<string, RowBuilder>>();

/**
 * The function turning a raw row (array) of `st` into an object: compiled once per statement
 * (one object shape, 0/1 columns in `bools` turned into booleans on the way). The last `drop`
 * columns are left out (pageRows reads its sort keys there).
 */
function rowBuilder(st: ReturnType<typeof prep>, bools: readonly string[], drop = 0): RowBuilder {
  let perStmt = builders.get(st);
  if (!perStmt) builders.set(st, (perStmt = new Map()));
  const key = `${drop}\u0000${bools.join(',')}`;
  let build = perStmt.get(key);
  if (!build) {
    const all = st.columns().map((c) => c.name);
    const names = all.slice(0, all.length - drop);
    const body = names
      .map((n, i) => `${JSON.stringify(n)}: ${bools.includes(n) ? `v[${i}] === null ? null : v[${i}] === 1` : `v[${i}]`}`)
      .join(', ');
    build = new Function('v', `return { ${body} };`) as RowBuilder;
    perStmt.set(key, build);
  }
  return build;
}

/**
 * `stmt.all()` as objects, fast: better-sqlite3 spends more time building row objects than
 * SQLite spends on a 100-row page, so rows come as arrays and a function compiled once per
 * statement (one object shape, booleans converted on the way) turns them into objects.
 */
export function rows(db: DB, sql: string, args: unknown[], bools: readonly string[] = []): Array<Record<string, unknown>> {
  const st = prep(db, sql, 'raw');
  const build = rowBuilder(st, bools);
  const raw = st.all(...args) as unknown[][];
  const out = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = build(raw[i]);
  return out;
}

/**
 * A page of rows, remembered until the database changes (see `dataStamp`): paging and
 * polling ask the same page again and again, and building rows costs most of a request. The
 * rows are shared between requests: callers may only set per-request fields (such as
 * is_expired against the clock) before serializing.
 */
export function cachedRows(db: DB, sql: string, args: unknown[], bools: readonly string[] = []): Array<Record<string, unknown>> {
  return cachedUntilChange(db, `rows\u0000${sql}\u0000${JSON.stringify(args)}\u0000${bools.join(',')}`, () => rows(db, sql, args, bools));
}

/** Turns 0/1 columns into booleans, in place. */
export function boolify<T extends Record<string, unknown>>(rows: T[], keys: readonly string[]): T[] {
  for (const r of rows) for (const k of keys) if (k in r && r[k] !== null) (r as Record<string, unknown>)[k] = r[k] === 1 || r[k] === true;
  return rows;
}

export function boolifyOne<T extends Record<string, unknown> | undefined>(row: T, keys: readonly string[]): T {
  if (row) boolify([row as Record<string, unknown>], keys);
  return row;
}

export const b01 = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);

export function nowIso(ctx: HandlerContext): string {
  return ctx.now().toISOString();
}

export function callerId(ctx: HandlerContext): number | null {
  return ctx.user?.user_id ?? null;
}

export function notFound(what: string): SandboxError {
  return new SandboxError(404, `${what} not found`, 'NOT_FOUND');
}

export function conflict(message: string, field?: string): SandboxError {
  return new SandboxError(409, message, 'CONFLICT', field ? [{ field, message }] : undefined);
}

export function badRequest(message: string, field?: string): SandboxError {
  return new SandboxError(400, message, field ? 'VALIDATION_ERROR' : 'BAD_REQUEST', field ? [{ field, message }] : undefined);
}

/**
 * A stamp that changes whenever the database does: `data_version` moves when another
 * connection commits, `total_changes()` when this one writes. Results computed under the
 * same stamp are still exact, so caching them under it never serves stale data.
 */
export function dataStamp(db: DB): string {
  const v = prep(db, 'PRAGMA data_version', 'pluck').get() as number;
  const c = prep(db, 'SELECT total_changes()', 'pluck').get() as number;
  return `${v}:${c}`;
}

const stampCaches = new WeakMap<DB, { stamp: string; entries: Map<string, unknown> }>();

/**
 * `compute()`, remembered under `key` until the database changes. Counts and summaries over a
 * million rows take a few hundred ms; paging through a list asks the same ones again and again.
 */
export function cachedUntilChange<T>(db: DB, key: string, compute: () => T): T {
  const stamp = dataStamp(db);
  let c = stampCaches.get(db);
  if (!c || c.stamp !== stamp) {
    c = { stamp, entries: new Map() };
    stampCaches.set(db, c);
  }
  if (c.entries.has(key)) return c.entries.get(key) as T;
  const v = compute();
  // Pages of 100 rows are ~50 KB: a few hundred of them stay well under 50 MB.
  if (c.entries.size > 300) c.entries.clear();
  c.entries.set(key, v);
  return v;
}

/** `SELECT COUNT(*) ...`, cached until the database changes. */
export function count(db: DB, sql: string, args: unknown[]): number {
  return cachedUntilChange(db, `count\u0000${sql}\u0000${JSON.stringify(args)}`, () => prep(db, sql, 'pluck').get(...args) as number);
}

/** Runs `fn` in a write transaction (BEGIN IMMEDIATE: no lock upgrade failures between processes). */
export function inTransaction<T>(db: DB, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/** The last 30 days (oldest first) as YYYY-MM-DD, ending today. */
export function lastDays(now: Date, n = 30): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/** Parses audit details stored as JSON text back into a value (text that is not JSON stays text). */
export function parseDetails(s: string | null): unknown {
  if (s === null) return null;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
