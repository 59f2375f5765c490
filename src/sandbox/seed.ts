/**
 * Seeding the sandbox: deterministic (mulberry32 from `seed`), once per database (only when
 * the users table is empty), the user area first and then the admin area, in one transaction.
 */
import { rmSync } from 'node:fs';
import { openDatabase } from './db.js';
import { seedAdmin } from './seed-admin.js';
import { seedUsers } from './seed-user.js';
import type { DB } from './types.js';

export interface SeedOptions {
  /** Multiplies the big tables (subscriptions, transactions, codes, audit); 100 = a million wallet transactions. */
  scale?: number;
  /** PRNG seed: the same seed and clock give the same data. */
  seed?: number;
  /** The clock the data is laid out around (default: now). */
  now?: Date;
  /**
   * false: accounts and their history, but no catalog (no services, plans, links or custom
   * roles, and so no subscriptions or usage codes): the target of a `catalog apply` round trip.
   */
  catalog?: boolean;
}

/** Takes the catalog out of a seeded database, with what hangs on it. */
function dropCatalog(db: DB): void {
  for (const table of ['usage_logs', 'usage_codes', 'subscriptions', 'service_plans', 'services', 'subscription_plans'])
    db.exec(`DELETE FROM ${table}`);
  const custom = 'SELECT role_name FROM roles WHERE is_system_role = 0';
  db.exec(`DELETE FROM role_permissions WHERE role_name IN (${custom})`);
  db.exec(`DELETE FROM user_roles WHERE role_name IN (${custom})`);
  db.exec('DELETE FROM roles WHERE is_system_role = 0');
}

/** Tables the seeders fill by the thousand (by the million at scale 100). */
const BULK_TABLES = ['subscriptions', 'usage_codes', 'wallet_transactions', 'usage_logs', 'audit_logs'];

/** A small, fast, deterministic PRNG: numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Seeds `db` unless it already holds users. Returns whether it seeded and how long it took.
 * Safe when two processes start on the same new file: the check runs inside the write
 * transaction (BEGIN IMMEDIATE), so the second process sees the first one's users.
 */
export function seedDatabase(db: DB, opts: SeedOptions = {}): { seeded: boolean; ms: number } {
  const scale = opts.scale ?? 1;
  if (!(scale > 0)) throw new Error(`scale must be a positive number, got ${scale}`);
  const now = opts.now ?? new Date();
  const rng = mulberry32(opts.seed ?? 42);
  // Date.now: the global `performance` loads perf_hooks on first use, and this
  // runs at every start of the embedded sandbox.
  const t0 = Date.now();
  const run = db.transaction(() => {
    const n = (db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
    if (n > 0) return false;
    // Building an index once over a filled table is faster than keeping it
    // up to date row by row: drop the secondary indexes of the big tables, put them back after.
    const indexes = db
      .prepare(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${BULK_TABLES.map(() => '?').join(', ')})`,
      )
      .all(...BULK_TABLES) as Array<{ name: string; sql: string }>;
    for (const i of indexes) db.exec(`DROP INDEX "${i.name}"`);
    seedUsers(db, { scale, rng, now });
    seedAdmin(db, { scale, rng, now });
    if (opts.catalog === false) dropCatalog(db);
    for (const i of indexes) db.exec(i.sql);
    return true;
  });
  const seeded = run.immediate();
  // A full ANALYZE, slow as it is on a large seed: the sampling of `PRAGMA optimize` misjudges how
  // many rows share a value in the large tables, and the planner then chooses scans.
  if (seeded) db.exec('ANALYZE');
  return { seeded, ms: Date.now() - t0 };
}

/**
 * Deletes the data file (with its -wal and -shm companions), then creates and seeds it again.
 * The caller checks first that the file is one to delete (`checkDataFile`, for a file the user
 * named: `sandbox reset --data`).
 */
export function resetDatabase(file: string, opts: SeedOptions = {}): DB {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  const db = openDatabase(file);
  seedDatabase(db, opts);
  return db;
}
