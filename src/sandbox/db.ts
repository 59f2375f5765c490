/**
 * The sandbox's SQLite file: opened in WAL mode so that several processes (a `sandbox serve`,
 * the CLI's in-process sandbox, a test) can share it, with the schema migrated on open.
 */
import Database from 'better-sqlite3';
import { builtin } from '../builtin.js';
import { coreMigrations } from './schema-core.js';
import { userMigrations } from './schema-user.js';
import { adminMigrations } from './schema-admin.js';
import type { DB, Migration } from './types.js';

/** Every migration, in the order they apply: core, then the user area, then the admin area. */
export function allMigrations(): Migration[] {
  return [...coreMigrations, ...userMigrations, ...adminMigrations];
}

/**
 * Opens (creating if needed) the sandbox database and applies pending migrations.
 *
 * Two processes opening the same new file at once is safe: the migration check and the
 * migrations run under `BEGIN IMMEDIATE`, so the second waits (busy_timeout) and then finds
 * them applied.
 */
/**
 * The compiled addon, named outright. Without it better-sqlite3 asks the `bindings` package to
 * find the file, which walks a list of candidate paths and reads a stack trace to learn where
 * it was called from: about 2 ms per open, and wrong inside a bundle (the CLI bundles
 * better-sqlite3's JavaScript, see tsup.config.ts).
 */
let nativeBinding: string | undefined;

/**
 * A `require` for this file: the CLI bundle's own (CommonJS), else one made for the ES module
 * build. node:module is loaded only in the second case: loading it also loads Node's ES module
 * loader and source-map support, about 0.3 ms of every embedded start.
 */
function localRequire(): NodeJS.Require {
  if (typeof require === 'function' && typeof require.resolve === 'function') return require;
  return builtin('node:module').createRequire(import.meta.url ?? __filename);
}
function addonPath(): string {
  // import.meta.url, or __filename where this file was bundled as CommonJS without a shim.
  nativeBinding ??= localRequire().resolve('better-sqlite3/build/Release/better_sqlite3.node');
  return nativeBinding;
}

export function openDatabase(file: string): DB {
  const db = new Database(file, { nativeBinding: addonPath() });
  try {
    db.pragma('busy_timeout = 5000');
    // Switching a new file to WAL needs a moment alone with it; another process doing the
    // same answers SQLITE_BUSY despite busy_timeout on some paths, so retry briefly.
    // Asked first: switching costs about twice as much as asking, and the file is WAL already
    // on every open but its first.
    if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') retryBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    // A checkpoint leaves the WAL file at most this size: seeding a large sandbox writes one
    // transaction of hundreds of MB, which would otherwise stay on disk beside the data file
    // for as long as any process holds it open (a killed server never closes it).
    db.pragma('journal_size_limit = 67108864');
    registerFunctions(db);
    migrate(db, allMigrations());
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * SQL functions the handlers use: `fold(text)` lower-cases every letter (SQLite's own
 * LIKE and lower() fold ASCII only, and names here carry É, Ü, Ñ).
 */
export function registerFunctions(db: DB): void {
  db.function('fold', { deterministic: true }, (v: unknown) => (v === null || v === undefined ? null : String(v).toLowerCase()));
}

function retryBusy<T>(fn: () => T, tries = 50): T {
  for (let i = 0; ; i++) {
    try {
      return fn();
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || i >= tries) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/** Applies each migration not yet recorded in schema_migrations, in order, in one transaction. */
export function migrate(db: DB, migrations: Migration[]): string[] {
  const applied: string[] = [];
  retryBusy(() => db.exec('BEGIN IMMEDIATE'));
  try {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
    const done = new Set((db.prepare('SELECT id FROM schema_migrations').all() as Array<{ id: string }>).map((r) => r.id));
    const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      db.exec(m.sql);
      record.run(m.id, new Date().toISOString());
      applied.push(m.id);
    }
    db.exec('COMMIT');
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
  return applied;
}

const caches = new WeakMap<DB, Map<string, Database.Statement>>();

/**
 * A prepared statement for `sql`, prepared once per connection and reused: preparing costs
 * more than running most of the sandbox's queries. `mode: 'pluck'` answers the first column
 * of each row, `mode: 'raw'` arrays of values, instead of row objects (each mode its own
 * statement, so they never mix).
 */
export function prep(db: DB, sql: string, mode: 'rows' | 'pluck' | 'raw' = 'rows'): Database.Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  const key = mode === 'rows' ? sql : `\u0000${mode}\u0000${sql}`;
  let st = cache.get(key);
  if (!st) {
    st = db.prepare(sql);
    if (mode === 'pluck') st.pluck();
    else if (mode === 'raw') st.raw(true);
    // Dynamic SQL (filters combine) could grow the cache without bound; the combinations
    // actually used stay few, but keep a ceiling anyway.
    if (cache.size > 2000) cache.clear();
    cache.set(key, st);
  }
  return st;
}

const epochs = new WeakMap<DB, number>();

/**
 * A stamp that changes whenever the database does: `data_version` moves when another
 * connection commits, `total_changes()` when this one writes, and the epoch when this one
 * rolls back (`dataRolledBack`: a rollback leaves `total_changes()` where it was, so what was
 * read inside the transaction must not outlive it). Results computed under the same stamp are
 * still exact, so caching them under it never serves stale data.
 */
export function dataStamp(db: DB): string {
  return held.get(db) ?? currentDataStamp(db);
}

/** `dataStamp` as the database says it is now, even inside `holdingDataStamp`. */
export function currentDataStamp(db: DB): string {
  const v = prep(db, 'PRAGMA data_version', 'pluck').get() as number;
  const c = prep(db, 'SELECT total_changes()', 'pluck').get() as number;
  return `${v}:${c}:${epochs.get(db) ?? 0}`;
}

const held = new WeakMap<DB, string>();

/**
 * Runs `fn` with `dataStamp(db)` answering `stamp` (read by the caller just before) instead of
 * asking the database: a page request asked three times (its token, its count, its page), and
 * `PRAGMA data_version` costs about 8 us under load. Only for code that does not write (the
 * sandbox's GET handlers; a test checks that none writes), and only for its synchronous part.
 *
 * Why it is safe: what `fn` reads is at least as new as `stamp`, so anything it remembers under
 * `stamp` is dropped by the next request's fresh stamp if the data moved meanwhile; it never
 * serves a value older than its stamp. A write on this connection (`inTransaction`, a rollback)
 * ends the hold all the same. `readPage`, whose remembered row positions must match the data
 * exactly, reads `currentDataStamp` itself.
 */
export function holdingDataStamp<T>(db: DB, stamp: string, fn: () => T): T {
  held.set(db, stamp);
  try {
    return fn();
  } finally {
    held.delete(db);
  }
}

/** Ends a `holdingDataStamp` early: this connection is about to write. */
export function releaseDataStamp(db: DB): void {
  held.delete(db);
}

/** Moves `dataStamp` on: called after a rollback on this connection. */
export function dataRolledBack(db: DB): void {
  held.delete(db);
  epochs.set(db, (epochs.get(db) ?? 0) + 1);
}
