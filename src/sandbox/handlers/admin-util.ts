/**
 * Helpers shared by the administrator handlers: WHERE-clause building, sort mapping, the
 * pagination block, 0/1 to booleans, and a count/summary cache that stays exact. List pages
 * read from known page boundaries: admin-pages.ts.
 */
import { dataRolledBack, dataStamp, prep, releaseDataStamp } from '../db.js';
import { DAY_MS, nextDayStart } from '../limits.js';
import { SandboxError, type DB, type HandlerContext } from '../types.js';

export { DAY_MS };

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
function dayStart(d: string): string {
  return `${d}T00:00:00.000Z`;
}

/**
 * Start of the day after a YYYY-MM-DD day: `x < dayAfter(to)` makes a `to` date inclusive.
 * Undefined after 9999-12-31, the last day there is (`+010000-01-01...` would sort before every date).
 */
function dayAfter(d: string): string | undefined {
  return nextDayStart(d);
}

/** Adds the `from`/`to` day filters on a date-time column (both inclusive days). */
export function dateRange(w: Where, column: string, from: string | undefined, to: string | undefined): void {
  if (from) w.add(`${column} >= ?`, dayStart(from));
  const end = to ? dayAfter(to) : undefined;
  if (end) w.add(`${column} < ?`, end);
}

/**
 * A sort column: its SQL expression (with its collation, if the sort needs one) and whether it
 * can be NULL (a nullable column, or any column of a LEFT JOIN). Deep paging (`pageRows`, admin-pages.ts)
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
  if (!cols)
    throw new SandboxError(400, `cannot sort by ${sortBy}`, 'VALIDATION_ERROR', [
      { field: 'sort_by', message: `unknown sort field ${sortBy}` },
    ]);
  return (Array.isArray(cols) ? cols : [cols]).map((c) => (typeof c === 'string' ? { expr: c } : c));
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

const stampCaches = new WeakMap<DB, { stamp: string; entries: Map<string, unknown> }>();

/**
 * `compute()`, remembered under `key` until the database changes. Counts and summaries over a
 * million rows are slow, and paging through a list asks the same ones again and again.
 */
export function cachedUntilChange<T>(db: DB, key: string, compute: () => T): T {
  const stamp = dataStamp(db);
  let c = stampCaches.get(db);
  if (!c || c.stamp !== stamp) {
    c = { stamp, entries: new Map() };
    stampCaches.set(db, c);
  }
  if (c.entries.has(key)) {
    // Most recently used last: a walk through thousands of pages pushes out old pages, not the
    // count and summary every page asks for.
    const hit = c.entries.get(key) as T;
    c.entries.delete(key);
    c.entries.set(key, hit);
    return hit;
  }
  const v = compute();
  // A few hundred pages of 100 rows stay small in memory (bench/README.md has a page's size).
  if (c.entries.size >= 300) c.entries.delete(c.entries.keys().next().value as string);
  c.entries.set(key, v);
  return v;
}

/** `SELECT COUNT(*) ...`, cached until the database changes. */
export function count(db: DB, sql: string, args: unknown[]): number {
  return cachedUntilChange(db, `count\u0000${sql}\u0000${JSON.stringify(args)}`, () => prep(db, sql, 'pluck').get(...args) as number);
}

/**
 * Runs `fn` in a write transaction (BEGIN IMMEDIATE: no lock upgrade failures between
 * processes), or in a savepoint inside the one already open (a batch of writes, see
 * batch.ts): all of it or none of it. What better-sqlite3's `db.transaction(fn).immediate()`
 * does, without building the four wrapper functions it builds on every call.
 */
export function inTransaction<T>(db: DB, fn: () => T): T {
  const nested = db.inTransaction;
  releaseDataStamp(db);
  prep(db, nested ? 'SAVEPOINT sandbox_tx' : 'BEGIN IMMEDIATE').run();
  try {
    const result = fn();
    if (result && typeof (result as { then?: unknown }).then === 'function')
      throw new TypeError('Transaction function cannot return a promise');
    prep(db, nested ? 'RELEASE sandbox_tx' : 'COMMIT').run();
    return result;
  } catch (err) {
    if (db.inTransaction) {
      prep(db, nested ? 'ROLLBACK TO sandbox_tx' : 'ROLLBACK').run();
      if (nested) prep(db, 'RELEASE sandbox_tx').run();
    }
    // Rolled back: what was cached inside it must go (see dataStamp).
    dataRolledBack(db);
    throw err;
  }
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
