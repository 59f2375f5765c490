/**
 * The sandbox's SQLite file: opened in WAL mode so that several processes (a `sandbox serve`,
 * the CLI's in-process sandbox, a test) can share it, with the schema migrated on open.
 */
import { closeSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LocalError, localError, UsageError } from '../api/errors.js';
import { builtin } from '../builtin.js';
import { openKept, prep } from './keep.js';
import { coreMigrations } from './schema-core.js';
import { userMigrations } from './schema-user.js';
import { adminMigrations } from './schema-admin.js';
import type { DB, Migration } from './types.js';

/** Every migration, in the order they apply: core, then the user area, then the admin area. */
export function allMigrations(): Migration[] {
  return [...coreMigrations, ...userMigrations, ...adminMigrations];
}

/**
 * The compiled addon, named outright. Without it better-sqlite3 asks the `bindings` package to
 * find the file, which walks a list of candidate paths and reads a stack trace to learn where
 * it is called from: slow on every open, and wrong inside a bundle (the CLI bundles
 * better-sqlite3's JavaScript, see tsup.config.ts).
 */
let nativeBinding: string | undefined;

/**
 * A `require` for this file: the CLI bundle's own (CommonJS), else one made for the ES module
 * build. node:module is loaded only in the second case: loading it also loads Node's ES module
 * loader and source-map support, a cost on every embedded start.
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

/** Why a file cannot be opened as the sandbox's data file. */
type DataFileProblem = 'no-directory' | 'directory' | 'not-sqlite' | 'foreign' | 'damaged';

/**
 * The file named for the sandbox's data cannot be it, found before anything is written into it:
 * its directory is missing, it is a directory, it is not an SQLite database (a CSV named by
 * mistake), it is the database of something else, or it is damaged. The message follows the
 * file's name: `is not an SQLite database`.
 */
class DataFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: DataFileProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** SQLite's damaged-file result codes: the file is not a database, or its pages do not hold together. */
function isDamage(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/** `err` as a DataFileError when SQLite found `file` damaged, else `err`. */
export function damageError(err: unknown, file: string): unknown {
  return isDamage(err) ? new DataFileError(file, 'damaged', `is damaged (${(err as Error).message})`, { cause: err }) : err;
}

/**
 * Checks what is at `file` before SQLite opens it (SQLite would create the file, or write its
 * journal mode into any database): a new file in a directory that exists, an empty file, or a
 * file that starts with SQLite's header. Costs a stat and a 16-byte read. Answers the file's
 * size (0 when there is none yet).
 */
function preflight(file: string): number {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    const dir = dirname(resolve(file));
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      throw new DataFileError(file, 'no-directory', `is in a directory that does not exist (${dir})`);
    return 0;
  }
  if (st.isDirectory()) throw new DataFileError(file, 'directory', 'is a directory');
  if (!st.isFile()) throw new DataFileError(file, 'not-sqlite', 'is not a regular file');
  if (st.size === 0) return 0;
  const head = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== 'SQLite format 3\0') throw new DataFileError(file, 'not-sqlite', 'is not an SQLite database');
  return st.size;
}

/**
 * An SQLite file with tables must be a sandbox's: its `schema_migrations` holds the first
 * migration. Anything else (another program's database) is left untouched.
 */
function checkOwnTables(db: DB, file: string): void {
  const names = retryBusy(
    () =>
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY name")
        .pluck()
        .all() as string[],
  );
  if (names.length === 0) return;
  if (names.includes('schema_migrations')) {
    try {
      if (retryBusy(() => db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').pluck().get(allMigrations()[0]!.id)) !== undefined)
        return;
    } catch (err) {
      if (isDamage(err) || String((err as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw err;
      // Another program's schema_migrations (Rails has one, without an `id`).
    }
  }
  const shown = names.slice(0, 4).join(', ') + (names.length > 4 ? `, ... (${names.length} tables)` : '');
  throw new DataFileError(file, 'foreign', `is the SQLite database of something else (tables: ${shown}), not a sandbox's`);
}

/**
 * Checks that `file` can be taken for a sandbox data file (written into, or deleted by `sandbox
 * reset`) without writing anything: see preflight and checkOwnTables. Throws a DataFileError.
 */
export function checkDataFile(file: string): void {
  if (preflight(file) > 0) {
    let db: DB | undefined;
    try {
      db = openKept(file, { nativeBinding: addonPath(), fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      checkOwnTables(db, file);
    } catch (err) {
      throw damageError(err, file);
    } finally {
      db?.close();
    }
  }
}

/**
 * A failure to open, seed or reset the data file, for the user. `flag` is how the user named the
 * file (`--data`): what is wrong with it is a usage error (exit 2), nothing written; without
 * it, the file is subctl's own, in its data directory, and `subctl sandbox reset` replaces it.
 * A damaged file is exit 1. `reset`: the user asked to delete the file.
 */
export function dataFileFailure(err: unknown, file: string, flag?: string, reset = false): unknown {
  if (!(err instanceof DataFileError)) return localError(err, `the sandbox data file ${file}`) ?? err;
  const code = err.problem === 'damaged' ? 'SQLITE_CORRUPT' : 'SANDBOX_DATA';
  if (flag === undefined) {
    return new LocalError(
      `the sandbox data file ${file} ${err.message}`,
      code,
      err,
      "`subctl sandbox reset` deletes it and seeds a new one (the sandbox's data only)",
    );
  }
  const named = `${flag} ${file} ${err.message}`;
  switch (err.problem) {
    case 'no-directory':
      return new UsageError(named, {
        hint: `create the directory first (mkdir -p ${dirname(resolve(file))}), or name a file in one that exists`,
      });
    case 'directory':
      return new UsageError(named, { hint: `name a file, e.g. ${flag} ${resolve(file, 'sandbox.db')} (created and seeded when new)` });
    case 'damaged':
      if (reset)
        return new UsageError(`${named}; subctl cannot tell whether a sandbox made it, and does not delete it`, {
          hint: `if a sandbox made it, delete it yourself (rm ${file} ${file}-wal ${file}-shm)`,
        });
      return new LocalError(
        named,
        code,
        err,
        `if a sandbox made it, delete it (rm ${file} ${file}-wal ${file}-shm) and run again to seed a new one; or name another file`,
      );
    default:
      return new UsageError(`${named}; subctl writes into, and deletes, only files a sandbox made`, {
        hint: `name a new file (created and seeded), or a data file a sandbox made`,
      });
  }
}

/**
 * Opens (creating if needed) the sandbox database and applies pending migrations; throws a
 * DataFileError, having written nothing, when `file` cannot be a sandbox data file.
 *
 * Two processes opening the same new file at once is safe: the migration check and the
 * migrations run under `BEGIN IMMEDIATE`, so the second waits (busy_timeout) and then finds
 * them applied.
 */
export function openDatabase(file: string): DB {
  // A new data file is private (0600), as every file of subctl's: SQLite would create it, and
  // its -wal and -shm after it, with the umask's 0644. (Taken with O_EXCL: another process
  // creating it meanwhile is no error.)
  if (preflight(file) === 0) {
    try {
      closeSync(openSync(file, 'wx', 0o600));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw localError(e, `the sandbox data file ${file}`) ?? e;
    }
  }
  let db: DB;
  try {
    db = openKept(file, { nativeBinding: addonPath() });
  } catch (err) {
    throw damageError(err, file);
  }
  try {
    db.pragma('busy_timeout = 5000');
    checkOwnTables(db, file);
    // Switching a new file to WAL needs a moment alone with it; another process doing the
    // same answers SQLITE_BUSY despite busy_timeout on some paths, so retry briefly.
    // Asked first: switching costs more than asking, and the file is WAL already
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
    throw damageError(err, file);
  }
}

/**
 * SQL functions the handlers use: `fold(text)` lower-cases every letter (SQLite's own
 * LIKE and lower() fold ASCII only, and names here carry É, Ü, Ñ).
 */
function registerFunctions(db: DB): void {
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

export { prep } from './keep.js';

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
 * asking the database: a page request would ask three times (its token, its count, its page),
 * and `PRAGMA data_version` is not free under load. Only for code that does not write (the
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
