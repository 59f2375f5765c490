/**
 * List pages of the administrator handlers: LIMIT/OFFSET answers, read from the nearest page
 * boundary already seen (`pageRows`), and remembered until the data changes.
 */
import { currentDataStamp, prep } from '../db.js';
import type { DB } from '../types.js';
import { cachedUntilChange, type SortColumn, type Where } from './admin-util.js';

/** Column names per raw statement (`st.columns()` builds a fresh list on each call). */
const columnNames = new WeakMap<object, string[]>();

/**
 * Raw rows (arrays) of `st` as objects, 0/1 columns in `bools` as booleans; the last `drop`
 * columns are left out (pageRows reads its sort keys there).
 */
function toObjects(st: ReturnType<typeof prep>, raw: unknown[][], bools: readonly string[], drop = 0): Array<Record<string, unknown>> {
  let all = columnNames.get(st);
  if (!all) columnNames.set(st, (all = st.columns().map((c) => c.name)));
  const n = all.length - drop;
  const isBool = all.map((name) => bools.includes(name));
  const out: Array<Record<string, unknown>> = new Array(raw.length);
  for (let r = 0; r < raw.length; r++) {
    const v = raw[r];
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) o[all[i]] = isBool[i] && v[i] !== null ? v[i] === 1 : v[i];
    out[r] = o;
  }
  return out;
}

/** One page of an administrator list (see `pageRows`). */
export interface PageQuery {
  /** The item's columns; may use the named parameters in `params`. */
  select: string;
  /** Tables and joins (what follows FROM). */
  from: string;
  /**
   * The tables that decide which rows a page holds and their order, when fewer than `from`
   * (joins that add columns but never drop or repeat a row left out): the page's `tiebreak`
   * values are chosen there, and only those rows are joined. Set only when the filters and the
   * sort name no table outside it. Deep pages then skip rows without joining them, which
   * counts under writes, when the remembered boundaries do not hold (bench/README.md).
   */
  keyFrom?: string;
  where: Where;
  /** The sort's columns (`sortColumns`); `tiebreak` follows them, all in `order`. */
  sort: SortColumn[];
  /** A unique, never-NULL column (the row id), so the order is total. */
  tiebreak: string;
  /** ASC or DESC (anything else counts as DESC, as in `orderBy`). */
  order: string;
  /** 1-based page number and page size: the rows at OFFSET (page - 1) * size. */
  page: number;
  size: number;
  /** 0/1 columns answered as booleans. */
  bools?: readonly string[];
  /** Named parameters of `select` (the filters' arguments are `where.args`). */
  params?: Record<string, unknown>;
  /** Remember the page until the database changes (default true; false when `select` depends on the clock). */
  cache?: boolean;
  /** Runs once on rows just read, before they are remembered (e.g. to parse JSON columns). */
  finish?: (rows: Array<Record<string, unknown>>) => void;
}

/**
 * Sort keys remembered per list query, at most this many in all (least recently used go
 * first), so their memory stays bounded. Two per page served (its first and last row).
 */
export const MAX_PAGE_BOUNDARIES = 5000;

/** The sort keys seen at row positions of one list query (same tables, filters, arguments and order). */
interface Boundaries {
  sig: string;
  id: number;
  /** Positions (0-based row numbers in the list's order) with a known key, ascending. */
  positions: number[];
  keys: Map<number, unknown[]>;
}
interface BoundaryStore {
  /** `dataStamp` the positions hold for: a change of the data drops them all. */
  stamp: string;
  bySig: Map<string, Boundaries>;
  /** Every remembered position, least recently used first. */
  lru: Map<string, { b: Boundaries; pos: number }>;
  nextId: number;
}
const boundaryStores = new WeakMap<DB, BoundaryStore>();
const plainOffset = new WeakSet<DB>();

/**
 * Turns the boundary cache off (or back on) for a connection: every page is then read with a
 * plain OFFSET. Answers are the same either way (tests compare the two).
 */
export function setDeepPaging(db: DB, on: boolean): void {
  if (on) plainOffset.delete(db);
  else plainOffset.add(db);
}

/** Pages read since start, by how: plain OFFSET, after a known row, before a known row (tests). */
export const pageReads = { offset: 0, after: 0, before: 0 };

/** How many sort keys the boundary cache holds for `db` that still hold (tests). */
export function pageBoundaryCount(db: DB): number {
  const s = boundaryStores.get(db);
  return s && s.stamp === currentDataStamp(db) ? s.lru.size : 0;
}

function boundaryStore(db: DB, stamp: string): BoundaryStore {
  let s = boundaryStores.get(db);
  if (!s || s.stamp !== stamp) {
    s = { stamp, bySig: new Map(), lru: new Map(), nextId: 0 };
    boundaryStores.set(db, s);
  }
  return s;
}

/** Index of the first element of the ascending `a` that is >= `x`. */
function lowerBound(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function touchBoundary(s: BoundaryStore, b: Boundaries, pos: number): void {
  const k = `${b.id}:${pos}`;
  s.lru.delete(k);
  s.lru.set(k, { b, pos });
}

function rememberBoundary(s: BoundaryStore, sig: string, pos: number, key: unknown[]): void {
  let b = s.bySig.get(sig);
  if (!b) {
    b = { sig, id: s.nextId++, positions: [], keys: new Map() };
    s.bySig.set(sig, b);
  }
  if (!b.keys.has(pos)) {
    const n = b.positions.length;
    if (n === 0 || b.positions[n - 1] < pos) b.positions.push(pos);
    else b.positions.splice(lowerBound(b.positions, pos), 0, pos);
    b.keys.set(pos, key);
  }
  touchBoundary(s, b, pos);
  while (s.lru.size > MAX_PAGE_BOUNDARIES) {
    const [k, old] = s.lru.entries().next().value as [string, { b: Boundaries; pos: number }];
    s.lru.delete(k);
    old.b.keys.delete(old.pos);
    old.b.positions.splice(lowerBound(old.b.positions, old.pos), 1);
    if (old.b.keys.size === 0) s.bySig.delete(old.b.sig);
  }
}

/**
 * `WHERE` condition (and its arguments) for "comes after the row whose sort key is `key`" in
 * the order `keys` (the last one the unique tie-break), all `dir`. SQLite puts NULLs first
 * ascending and last descending. Without NULLs in the key this is a row-value comparison,
 * which SQLite turns into a range of the sort's index.
 */
function afterKey(keys: SortColumn[], dir: 'ASC' | 'DESC', key: unknown[]): { sql: string; args: unknown[] } {
  const op = dir === 'ASC' ? '>' : '<';
  if (!key.includes(null)) {
    const parts = [
      keys.length === 1 ? `${keys[0].expr} ${op} ?` : `(${keys.map((k) => k.expr).join(', ')}) ${op} (${keys.map(() => '?').join(', ')})`,
    ];
    const args = [...key];
    if (dir === 'DESC') {
      // Descending, a NULL comes after every value: rows equal on the columns before it.
      for (let i = 0; i < keys.length - 1; i++) {
        if (!keys[i].nullable) continue;
        parts.push(`(${[...keys.slice(0, i).map((k) => `${k.expr} = ?`), `${keys[i].expr} IS NULL`].join(' AND ')})`);
        args.push(...key.slice(0, i));
      }
    }
    return { sql: parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`, args };
  }
  const after = (i: number): { sql: string; args: unknown[] } => {
    const k = keys[i];
    const v = key[i];
    if (i === keys.length - 1) return { sql: `${k.expr} ${op} ?`, args: [v] };
    const rest = after(i + 1);
    if (v === null) {
      return dir === 'ASC'
        ? { sql: `(${k.expr} IS NOT NULL OR (${k.expr} IS NULL AND ${rest.sql}))`, args: rest.args }
        : { sql: `(${k.expr} IS NULL AND ${rest.sql})`, args: rest.args };
    }
    const nullsAfter = dir === 'DESC' && k.nullable ? ` OR ${k.expr} IS NULL` : '';
    return { sql: `(${k.expr} ${op} ?${nullsAfter} OR (${k.expr} = ? AND ${rest.sql}))`, args: [v, v, ...rest.args] };
  };
  return after(0);
}

/**
 * The rows of one page of a list, exactly those of `ORDER BY <sort>, <tiebreak> LIMIT size
 * OFFSET (page - 1) * size`, but without walking past every row before the page when a page
 * near it was served before (OFFSET alone makes a deep page of a million rows slow).
 *
 * Each page served leaves the sort keys (sort columns + tie-break) of its first and last rows,
 * by row position, for its query (tables, filters and their arguments, order). A later page
 * starts from the nearest remembered position before it (`WHERE key > boundary ... OFFSET
 * gap`) or after it (the reverse order from the boundary, rows turned back), or from the
 * start when that is nearer. The positions hold until the database changes (`dataStamp`,
 * checked before and after the read: a read that raced a commit leaves nothing behind and is
 * done again with a plain OFFSET). Pages are also remembered whole until the database changes
 * (unless `cache: false`).
 */
export function pageRows(db: DB, q: PageQuery): Array<Record<string, unknown>> {
  const dir = q.order === 'ASC' ? 'ASC' : 'DESC';
  const keys: SortColumn[] = [...q.sort, { expr: q.tiebreak }];
  const sig = `${textId(q.from)}\u0000${q.where.sql}\u0000${JSON.stringify(q.where.args)}\u0000${keys.map((k) => k.expr).join(', ')}\u0000${dir}`;
  const start = (q.page - 1) * q.size;
  const read = () => readPage(db, q, keys, dir, sig, start);
  if (q.cache === false) return read();
  return cachedUntilChange(
    db,
    `page\u0000${sig}\u0000${textId(q.select)}\u0000${(q.bools ?? []).join(',')}\u0000${start}\u0000${q.size}`,
    read,
  );
}

const textIds = new Map<string, number>();
let nextTextId = 0;

/**
 * A number that stands for `text` in cache keys: a list's FROM and SELECT texts run to hundreds
 * of characters, and a key built of them would be copied and hashed on every request. They are the
 * handlers' constants (a few dozen); should the map ever reach 10,000 it starts again, with new
 * numbers (they never repeat, so no key can come to mean another text).
 */
function textId(text: string): number {
  let id = textIds.get(text);
  if (id === undefined) {
    if (textIds.size >= 10_000) textIds.clear();
    id = nextTextId++;
    textIds.set(text, id);
  }
  return id;
}

/** The page's query: LIMIT/OFFSET over `from`, or over `keyFrom` with the page's rows joined afterwards. */
function pageSql(q: PageQuery, keys: SortColumn[], dir: 'ASC' | 'DESC', conds: string[]): string {
  const where = conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
  const order = `ORDER BY ${keys.map((k) => `${k.expr} ${dir}`).join(', ')}`;
  const columns = `${q.select}, ${keys.map((k, i) => `${k.expr} AS __sort_key_${i}`).join(', ')}`;
  if (!q.keyFrom) return `SELECT ${columns} FROM ${q.from}${where} ${order} LIMIT ? OFFSET ?`;
  return `SELECT ${columns} FROM ${q.from} WHERE ${q.tiebreak} IN (SELECT ${q.tiebreak} FROM ${q.keyFrom}${where} ${order} LIMIT ? OFFSET ?) ${order}`;
}

function readPage(
  db: DB,
  q: PageQuery,
  keys: SortColumn[],
  dir: 'ASC' | 'DESC',
  sig: string,
  start: number,
  useBoundaries = true,
): Array<Record<string, unknown>> {
  // The database's own stamp, before and after the read (not one held for the request: see
  // holdingDataStamp): the positions must match the data the query actually saw.
  const stamp = currentDataStamp(db);
  const store = plainOffset.has(db) ? undefined : boundaryStore(db, stamp);
  const bounds = useBoundaries ? store?.bySig.get(sig) : undefined;
  // From the start (plain OFFSET), after the nearest known row before the page, or before the
  // nearest known row after it: whichever skips fewest rows.
  let mode: 'offset' | 'after' | 'before' = 'offset';
  let offset = start;
  let from = -1;
  if (bounds) {
    const ps = bounds.positions;
    const i = lowerBound(ps, start);
    if (i > 0 && start - 1 - ps[i - 1] < offset) {
      mode = 'after';
      from = ps[i - 1];
      offset = start - 1 - from;
    }
    const j = lowerBound(ps, start + q.size);
    if (j < ps.length && ps[j] - (start + q.size) < offset) {
      mode = 'before';
      from = ps[j];
      offset = from - (start + q.size);
    }
  }
  const readDir = mode === 'before' ? (dir === 'ASC' ? 'DESC' : 'ASC') : dir;
  const conds: string[] = [];
  const args: unknown[] = q.params ? [q.params] : [];
  if (mode !== 'offset') {
    // First: of two bounds on one index column, SQLite seeks to the first one written.
    touchBoundary(store!, bounds!, from);
    const k = afterKey(keys, readDir, bounds!.keys.get(from)!);
    conds.push(k.sql);
    args.push(...k.args);
  }
  if (q.where.clauses.length) {
    conds.push(`(${q.where.clauses.join(' AND ')})`);
    args.push(...q.where.args);
  }
  args.push(q.size, offset);
  const sql = pageSql(q, keys, readDir, conds);
  const st = prep(db, sql, 'raw');
  const raw = st.all(...args) as unknown[][];
  pageReads[mode]++;
  if (store && currentDataStamp(db) !== stamp) {
    // Another process committed while the boundaries were in use: read again from the start.
    if (mode !== 'offset') return readPage(db, q, keys, dir, sig, start, false);
  } else if (store && raw.length) {
    if (mode === 'before') raw.reverse();
    const n = keys.length;
    const first = raw[0].slice(-n);
    const last = raw[raw.length - 1].slice(-n);
    if (first[n - 1] !== null && last[n - 1] !== null) {
      rememberBoundary(store, sig, start, first);
      rememberBoundary(store, sig, start + raw.length - 1, last);
    }
  } else if (mode === 'before') raw.reverse();
  const out = toObjects(st, raw, q.bools ?? [], keys.length);
  q.finish?.(out);
  return out;
}
