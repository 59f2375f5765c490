/**
 * Every better-sqlite3 Database and Statement this process makes stays reachable until it exits.
 *
 * Why: on Node 24 (from 24.19), better-sqlite3 12 aborts the whole process (`Assertion failed:
 * (env) != nullptr` in `RemoveEnvironmentCleanupHook`, exit 134) when the garbage collector
 * frees one of its Statement or Database objects: node::ObjectWrap's destructor, run from the
 * collector, finds no current Node environment (nodejs/node issue 65446, better-sqlite3 issue
 * 1515). better-sqlite3 13 mends it but needs Node 22, and subctl still runs on Node 20.
 * So nothing is ever left for the collector: each database is
 * kept in `kept` (after `close()` too), and each statement is prepared once per database per
 * SQL text and kept in that database's map, which also spares preparing it again. The cost is
 * memory that grows with the distinct SQL texts a process prepares (docs/decisions.md, "Help,
 * reference and conventions").
 *
 * The database `openKept` answers has its own `prepare` and `pragma`, so that every caller (the
 * handlers, `sb.db` in tests) goes through the kept statements. `exec` and `transaction` need
 * nothing: `exec` runs SQLite's statements without making Statement objects, and the statements
 * of `transaction` are kept by better-sqlite3 for as long as their database is reachable.
 * `iterate()` and `backup()` make objects of the same kind: nothing in this repository uses them.
 */
import Database from 'better-sqlite3';
import type { DB } from './types.js';

type Statement = Database.Statement;

/** Every database of the process, with its statements by key (see `statementKey`). */
const kept = new Map<DB, Map<string, Statement>>();

/** better-sqlite3's own `prepare`, which makes a new Statement on every call. */
const prepareNew = Database.prototype.prepare as (this: DB, sql: string) => Statement;

function statementsOf(db: DB): Map<string, Statement> {
  let statements = kept.get(db);
  if (!statements) {
    statements = new Map();
    kept.set(db, statements);
  }
  return statements;
}

/** How a statement is handed out: `db.prepare` (modes reset on each hand-out) or `prep` in one fixed mode. */
type Use = 'prepare' | 'rows' | 'pluck' | 'raw';

function statementKey(use: Use, sql: string): string {
  return use === 'prepare' ? sql : `\u0000${use}\u0000${sql}`;
}

/** The kept statement for `sql` and `use` on `db`, prepared the first time it is asked for. */
function keptStatement(db: DB, sql: string, use: Use): Statement {
  const statements = statementsOf(db);
  const key = statementKey(use, sql);
  let st = statements.get(key);
  if (!st) {
    st = prepareNew.call(db, sql);
    if (use === 'pluck') st.pluck();
    else if (use === 'raw') st.raw(true);
    statements.set(key, st);
  }
  return st;
}

/**
 * `db.prepare(sql)` on a kept database: the statement prepared for `sql` before, with its row
 * shape back to objects (a caller may have called `.pluck()` or `.raw()` on it). Callers share
 * it, so `.bind()` (which fixes the parameters for good) is not for these statements.
 */
function keptPrepare(db: DB, sql: string): Statement {
  const st = keptStatement(db, sql, 'prepare');
  if (st.reader) st.raw(false).pluck(false).expand(false);
  return st;
}

/**
 * `db.pragma(source, { simple })` on a kept statement, answering what better-sqlite3's own
 * does: the rows, or the first column of the first row with `simple`; a pragma that sets a
 * value and answers nothing (`foreign_keys = ON`) gives no rows.
 */
function keptPragma(db: DB, source: string, options: Database.PragmaOptions = {}): unknown {
  const st = keptStatement(db, `PRAGMA ${source}`, 'prepare');
  if (!st.reader) {
    st.run();
    return options.simple ? undefined : [];
  }
  return options.simple ? st.pluck(true).get() : st.pluck(false).raw(false).expand(false).all();
}

/**
 * Opens `file` with better-sqlite3 and keeps the database for the life of the process, with a
 * `prepare` and a `pragma` that hand out kept statements. Every database of subctl and of its
 * tests is opened here.
 */
export function openKept(file: string, options?: Database.Options): DB {
  const db = new Database(file, options);
  statementsOf(db);
  Object.defineProperties(db, {
    prepare: { value: (sql: string) => keptPrepare(db, sql), configurable: true, writable: true },
    pragma: {
      value: (source: string, options?: Database.PragmaOptions) => keptPragma(db, source, options),
      configurable: true,
      writable: true,
    },
  });
  return db;
}

/**
 * A prepared statement for `sql`, prepared once per connection and kept: preparing costs more
 * than running most of the sandbox's queries. `mode: 'pluck'` answers the first column of each
 * row, `mode: 'raw'` arrays of values, instead of row objects (each mode its own statement, so
 * they never mix, nor with the statements of `db.prepare`).
 */
export function prep(db: DB, sql: string, mode: 'rows' | 'pluck' | 'raw' = 'rows'): Statement {
  return keptStatement(db, sql, mode);
}

/** How many databases and statements this process keeps (for measuring what keeping costs). */
export function keptCount(): { databases: number; statements: number } {
  let statements = 0;
  for (const m of kept.values()) statements += m.size;
  return { databases: kept.size, statements };
}
