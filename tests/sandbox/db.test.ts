/**
 * The data file: migrations, pragmas, deterministic seeding, reset, and several processes
 * sharing one WAL file (creating it at once; writing while the server reads).
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMigrations, currentDataStamp, dataStamp, holdingDataStamp, openDatabase } from '../../src/sandbox/db.js';
import { count, inTransaction } from '../../src/sandbox/handlers/admin-util.js';
import { resetDatabase, seedDatabase } from '../../src/sandbox/seed.js';
import { SEEDED_ACCOUNTS } from '../../src/sandbox/schema-core.js';
import { call, closeAllTestSandboxes, startTestSandbox, tempDataFile } from '../support/sandbox.js';
import { bundleChild, runChild } from '../support/child-script.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
let dir: string;
let child: string;

/** Bundles a small CommonJS script over the sandbox sources, so a plain `node` child can run it. */
beforeAll(async () => {
  dir = tempDir('subctl-db-test-');
  child = await bundleChild(
    dir,
    `
import { openDatabase } from ${JSON.stringify(join(root, 'src/sandbox/db.ts'))};
import { seedDatabase } from ${JSON.stringify(join(root, 'src/sandbox/seed.ts'))};
const [mode, file, arg] = process.argv.slice(2);
const db = openDatabase(file);
if (mode === 'seed') {
  const r = seedDatabase(db, { scale: Number(arg), seed: 42, now: new Date('2026-01-15T00:00:00Z') });
  process.stdout.write(JSON.stringify(r));
} else if (mode === 'write') {
  // Many small write transactions over about a second, as another process would.
  const ins = db.prepare("INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, payment_method, status, description, transaction_date, created_date) VALUES (6, 'topup', 1, 0, 1, 'card', 'completed', 'from the child process', ?, ?)");
  const n = Number(arg);
  const t0 = Date.now();
  for (let i = 0; i < n; i++) {
    const at = new Date().toISOString();
    ins.run(at, at);
    if (i % 10 === 0) { const until = Date.now() + 5; while (Date.now() < until) {} }
  }
  db.prepare("UPDATE services SET service_name = 'Renamed by the child' WHERE service_code = 'DALLE'").run();
  process.stdout.write(JSON.stringify({ wrote: n, ms: Date.now() - t0 }));
}
db.close();
`,
  );
});
afterAll(async () => {
  await closeAllTestSandboxes();
  rmSync(dir, { recursive: true, force: true });
});

describe('openDatabase', () => {
  it('leaves a WAL of at most 64 MB behind a transaction larger than that', () => {
    const f = tempDataFile('wal-limit');
    const db = openDatabase(f);
    db.exec('CREATE TABLE big (b BLOB)');
    db.prepare('INSERT INTO big VALUES (randomblob(?))').run(80 * 1024 * 1024);
    expect(statSync(`${f}-wal`).size).toBeGreaterThan(80 * 1024 * 1024);
    // The next write starts the log again from its beginning and cuts the file to the limit.
    db.prepare('INSERT INTO big VALUES (1)').run();
    expect(statSync(`${f}-wal`).size).toBeLessThanOrEqual(64 * 1024 * 1024);
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${f}${suffix}`, { force: true });
  });

  it('sets the pragmas and applies each migration once', () => {
    const f = tempDataFile('pragmas');
    const db = openDatabase(f);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    const ids = (db.prepare('SELECT id FROM schema_migrations ORDER BY rowid').all() as Array<{ id: string }>).map((r) => r.id);
    expect(ids).toEqual(allMigrations().map((m) => m.id));
    expect(ids[0]).toBe('core-001');
    db.close();
    const again = openDatabase(f);
    expect((again.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(ids.length);
    again.close();
  });

  it('two processes creating and seeding the same new file at once: one schema, one seeding', async () => {
    const f = join(dir, 'race.db');
    const results = await Promise.all([
      runChild(child, 'seed', f, '0.2'),
      runChild(child, 'seed', f, '0.2'),
      runChild(child, 'seed', f, '0.2'),
    ]);
    for (const r of results) expect(r.code, r.err).toBe(0);
    const seeded = results.map((r) => JSON.parse(r.out).seeded as boolean);
    expect(seeded.filter(Boolean)).toHaveLength(1);
    const db = openDatabase(f);
    expect((db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(allMigrations().length);
    const users = (db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
    expect((db.prepare('SELECT COUNT(*) AS n FROM users WHERE username = ?').get('admin') as { n: number }).n).toBe(1);
    db.close();
    // The same as a single seeding.
    const alone = openDatabase(join(dir, 'alone.db'));
    seedDatabase(alone, { scale: 0.2, seed: 42, now: new Date('2026-01-15T00:00:00Z') });
    expect((alone.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n).toBe(users);
    alone.close();
  });

  it('another process writes while the server reads', async () => {
    const sb = await startTestSandbox();
    const before = (await call(sb, 'GET', '/admin/wallet-transactions/list', { as: 'admin', query: { user_id: 6 } })).json.data.summary
      .transaction_count;
    const writer = runChild(child, 'write', join(sb.db.name), '300');
    let reads = 0;
    let done = false;
    void writer.then(() => (done = true));
    while (!done) {
      const r = await call(sb, 'GET', '/admin/subscriptions', {
        as: 'admin',
        query: { page_size: 50, status: 'active', sort_by: 'EndDate' },
      });
      expect(r.status).toBe(200);
      reads++;
    }
    const w = await writer;
    expect(w.code, w.err).toBe(0);
    expect(JSON.parse(w.out).wrote).toBe(300);
    expect(reads).toBeGreaterThan(3);
    // The server sees the other process's commits at once (cached counts and summaries included).
    const after = (await call(sb, 'GET', '/admin/wallet-transactions/list', { as: 'admin', query: { user_id: 6 } })).json.data.summary
      .transaction_count;
    expect(after).toBe(before + 300);
    const d = await call(sb, 'GET', '/admin/services/detail', { as: 'admin', query: { service_code: 'DALLE' } });
    expect(d.json.data.service_info.service_name).toBe('Renamed by the child');
  });
});

describe('holdingDataStamp (one stamp per GET)', () => {
  it("answers the held stamp inside and the database's own outside; a write or a rollback ends the hold", () => {
    const file = join(dir, 'hold.db');
    const db = openDatabase(file);
    const other = openDatabase(file);
    db.exec('CREATE TABLE t (x INTEGER)');
    const s0 = currentDataStamp(db);
    holdingDataStamp(db, s0, () => {
      other.exec('INSERT INTO t VALUES (1)');
      expect(dataStamp(db)).toBe(s0);
      expect(currentDataStamp(db)).not.toBe(s0);
      inTransaction(db, () => db.prepare('INSERT INTO t VALUES (2)').run());
      expect(dataStamp(db)).toBe(currentDataStamp(db));
    });
    const s1 = currentDataStamp(db);
    expect(() =>
      holdingDataStamp(db, s1, () =>
        inTransaction(db, () => {
          db.prepare('INSERT INTO t VALUES (3)').run();
          throw new Error('rolled back');
        }),
      ),
    ).toThrow('rolled back');
    // The rollback moved the stamp on and the hold is over.
    expect(dataStamp(db)).not.toBe(s1);
    expect(dataStamp(db)).toBe(currentDataStamp(db));
    db.close();
    other.close();
  });

  it('never serves a value older than the data a later request starts from', () => {
    const file = join(dir, 'hold-cache.db');
    const db = openDatabase(file);
    const other = openDatabase(file);
    db.exec('CREATE TABLE t (x INTEGER)');
    const n = () => count(db, 'SELECT COUNT(*) FROM t', []);
    // Remembered under the held stamp, then another connection commits during the same request:
    // that request may still answer what it read (it began before the commit)...
    holdingDataStamp(db, currentDataStamp(db), () => {
      expect(n()).toBe(0);
      other.exec('INSERT INTO t VALUES (1)');
      expect(n()).toBe(0);
    });
    // ...and the next request, holding the stamp it reads first, counts again.
    holdingDataStamp(db, currentDataStamp(db), () => expect(n()).toBe(1));
    // A value first read after a commit is remembered under the older stamp the request holds:
    // the next request's stamp differs, so it is read again.
    const m = () => count(db, 'SELECT COUNT(*) FROM t WHERE x > 0', []);
    holdingDataStamp(db, currentDataStamp(db), () => {
      other.exec('INSERT INTO t VALUES (2)');
      expect(n()).toBe(1);
      expect(m()).toBe(2);
    });
    other.exec('DELETE FROM t WHERE x = 2');
    holdingDataStamp(db, currentDataStamp(db), () => {
      expect(n()).toBe(1);
      expect(m()).toBe(1);
    });
    db.close();
    other.close();
  });
});

describe('seeding', () => {
  it('is deterministic for a seed and a clock, and differs for another seed', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const fingerprint = (seed: number) => {
      const db = openDatabase(tempDataFile('det'));
      seedDatabase(db, { scale: 0.1, seed, now });
      const fp = db
        .prepare(
          `SELECT (SELECT COUNT(*) FROM subscriptions) AS subs, (SELECT ROUND(SUM(amount), 2) FROM wallet_transactions) AS amount,
             (SELECT GROUP_CONCAT(status) FROM (SELECT status FROM subscriptions ORDER BY subscription_id LIMIT 50)) AS statuses,
             (SELECT GROUP_CONCAT(code_value) FROM (SELECT code_value FROM usage_codes ORDER BY code_id LIMIT 20)) AS codes`,
        )
        .get();
      db.close();
      return fp;
    };
    expect(fingerprint(7)).toEqual(fingerprint(7));
    expect(fingerprint(7)).not.toEqual(fingerprint(8));
  });

  it('scale 1: the seeded accounts, every status, type and unit; text that tests exports; seeded in seconds, not minutes', () => {
    const db = openDatabase(tempDataFile('scale1'));
    const r = seedDatabase(db, { scale: 1 });
    expect(r.seeded).toBe(true);
    // A margin for a loaded machine: what this
    // catches is seeding gone quadratic, not a slow neighbour.
    expect(r.ms).toBeLessThan(30_000);
    expect(seedDatabase(db, { scale: 1 }).seeded).toBe(false);
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    for (const a of SEEDED_ACCOUNTS)
      expect(n(`SELECT COUNT(*) AS n FROM users WHERE username = '${a.username}' AND role = '${a.role}'`)).toBe(1);
    expect(n('SELECT COUNT(*) AS n FROM users')).toBeGreaterThanOrEqual(300);
    expect(n('SELECT COUNT(*) AS n FROM subscriptions')).toBe(3000);
    expect(n('SELECT COUNT(*) AS n FROM usage_codes')).toBe(2000);
    expect(n('SELECT COUNT(*) AS n FROM wallet_transactions')).toBeGreaterThanOrEqual(10_000);
    expect(n('SELECT COUNT(*) AS n FROM audit_logs')).toBeGreaterThanOrEqual(1000);
    expect(n('SELECT COUNT(DISTINCT status) AS n FROM subscriptions')).toBe(4);
    expect(n('SELECT COUNT(DISTINCT transaction_type) AS n FROM wallet_transactions')).toBe(4);
    expect(n('SELECT COUNT(DISTINCT service_type) AS n FROM services')).toBe(3);
    expect(n('SELECT COUNT(DISTINCT duration_unit) AS n FROM subscription_plans')).toBe(3);
    expect(n('SELECT COUNT(DISTINCT credit_unit) AS n FROM subscription_plans')).toBe(4);
    expect(n("SELECT COUNT(*) AS n FROM subscriptions WHERE status = 'active' AND end_date <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")).toBe(
      0,
    );
    expect(
      n("SELECT COUNT(*) AS n FROM subscriptions WHERE created_date < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-700 days')"),
    ).toBeGreaterThan(0);
    expect(
      n("SELECT COUNT(*) AS n FROM usage_codes WHERE is_used = 0 AND expiry_date < strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"),
    ).toBeGreaterThan(0);
    expect(n('SELECT COUNT(*) AS n FROM wallet_transactions WHERE balance_after < 0 OR balance_before < 0')).toBe(0);
    const text = db
      .prepare(
        `SELECT GROUP_CONCAT(t, '|') AS t FROM (SELECT description AS t FROM services UNION ALL SELECT plan_name FROM subscription_plans
           UNION ALL SELECT DISTINCT description FROM wallet_transactions UNION ALL SELECT full_name FROM users)`,
      )
      .get() as { t: string };
    for (const s of [',', '"', '\n', 'é', 'ü', 'ñ', '日本']) expect(text.t).toContain(s);
    db.close();
  });

  it('resetDatabase deletes the file and its WAL companions, then seeds again', () => {
    const f = tempDataFile('reset');
    const db = openDatabase(f);
    seedDatabase(db, { scale: 0.05 });
    db.prepare("DELETE FROM services WHERE service_code = 'GPT4'").run();
    expect(existsSync(`${f}-wal`)).toBe(true);
    db.close();
    const fresh = resetDatabase(f, { scale: 0.05 });
    expect((fresh.prepare("SELECT COUNT(*) AS n FROM services WHERE service_code = 'GPT4'").get() as { n: number }).n).toBe(1);
    fresh.close();
  });
});
