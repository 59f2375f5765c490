/**
 * src/sandbox/keep.ts: every database and statement stays reachable, each SQL text prepared
 * once per database, and `prepare` and `pragma` answer as better-sqlite3's own do.
 *
 * The child process is the case that matters on Node 24: statements and databases that the
 * code no longer holds, then a collection started by allocating. With better-sqlite3 12 and
 * nothing kept, Node 24.19 and later abort it (exit 134); on Node 20 it passes either way.
 * `.ci/run` runs this file on both.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, prep } from '../../src/sandbox/db.js';
import { keptCount, openKept } from '../../src/sandbox/keep.js';
import { bundleChild, runChild } from '../support/child-script.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
let dir: string;
let child: string;

beforeAll(async () => {
  dir = tempDir('subctl-keep-test-');
  child = await bundleChild(
    dir,
    `
import { checkDataFile, openDatabase } from ${JSON.stringify(join(root, 'src/sandbox/db.ts'))};
import { keptCount } from ${JSON.stringify(join(root, 'src/sandbox/keep.ts'))};
const file = process.argv[2];
function work(): void {
  const db = openDatabase(file);
  // Distinct SQL texts, as list filters in every combination make them, none held after use.
  for (let i = 0; i < 500; i++) db.prepare('SELECT ? + ' + i + ' AS n').get(i);
  for (let i = 0; i < 200; i++) db.pragma('busy_timeout', { simple: true });
  db.transaction(() => db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get())();
  db.close();
  checkDataFile(file);
}
work();
work();
// A collection started by allocation, in a later turn of the event loop: what aborts Node 24.
setTimeout(() => {
  let junk: object[] = [];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 1_000_000; i++) junk.push({ i });
    junk = [];
  }
  setTimeout(() => process.stdout.write(JSON.stringify(keptCount())), 50);
}, 50);
`,
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('kept databases and statements', () => {
  it('a process that dropped its statements and databases lives through a collection', async () => {
    const r = await runChild(child, join(dir, 'gc.db'));
    expect({ code: r.code, signal: r.signal }, r.err.slice(0, 2000)).toEqual({ code: 0, signal: null });
    // Two opens by openDatabase and two by checkDataFile, each kept after close; the 500
    // texts once per database that ran them.
    const counts = JSON.parse(r.out) as { databases: number; statements: number };
    expect(counts.databases).toBe(4);
    expect(counts.statements).toBeGreaterThanOrEqual(1000);
    expect(counts.statements).toBeLessThan(1100);
  });

  it('prepares each SQL text once per database, and a second database prepares its own', () => {
    const db = openKept(':memory:');
    const other = openKept(':memory:');
    const before = keptCount();
    const st = db.prepare('SELECT 1 AS one');
    expect(db.prepare('SELECT 1 AS one')).toBe(st);
    expect(db.prepare('SELECT 2 AS two')).not.toBe(st);
    expect(other.prepare('SELECT 1 AS one')).not.toBe(st);
    expect(keptCount().statements - before.statements).toBe(3);
    db.close();
    other.close();
    expect(keptCount().databases).toBe(before.databases);
  });

  it('hands a statement out as rows again after a caller plucked it or asked for raw arrays', () => {
    const db = openKept(':memory:');
    db.exec("CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y')");
    const sql = 'SELECT a, b FROM t ORDER BY a';
    expect(db.prepare(sql).pluck().all()).toEqual([1, 2]);
    expect(db.prepare(sql).all()).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
    ]);
    expect(db.prepare(sql).raw().get()).toEqual([1, 'x']);
    expect(db.prepare(sql).get()).toEqual({ a: 1, b: 'x' });
    expect(db.prepare(sql).expand().get()).toEqual({ t: { a: 1, b: 'x' } });
    expect(db.prepare(sql).get()).toEqual({ a: 1, b: 'x' });
    // prep's statements keep their own mode, apart from db.prepare's.
    expect(prep(db, sql, 'pluck').all()).toEqual([1, 2]);
    expect(prep(db, sql, 'raw').get()).toEqual([1, 'x']);
    expect(prep(db, sql).get()).toEqual({ a: 1, b: 'x' });
    expect(db.prepare(sql).get()).toEqual({ a: 1, b: 'x' });
    // Writes run again from the same statement.
    const ins = "INSERT INTO t VALUES (?, 'z')";
    expect(db.prepare(ins).run(3).changes).toBe(1);
    expect(db.prepare(ins).run(4).changes).toBe(1);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(4);
    db.close();
  });

  it('pragma answers as better-sqlite3 does: rows, a value with simple, nothing for a setting', () => {
    const f = join(dir, 'pragma.db');
    const db = openDatabase(f);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(db.pragma('foreign_keys = OFF')).toEqual([]);
    expect(db.pragma('foreign_keys = ON', { simple: true })).toBeUndefined();
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout = 1234', { simple: true })).toBe(1234);
    expect(db.pragma('busy_timeout')).toEqual([{ timeout: 1234 }]);
    expect((db.pragma('table_info(schema_migrations)') as Array<{ name: string }>).map((c) => c.name)).toEqual(['id', 'applied_at']);
    db.close();
  });
});
