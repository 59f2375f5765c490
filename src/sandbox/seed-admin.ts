/**
 * Seed data of the administrator area: services of each type, plans in every duration and
 * credit unit, their links, and — multiplied by `scale` — subscriptions in every status,
 * usage codes (used, unused, expired), wallet transactions of every type, usage logs, old
 * tokens for the cleanup, and audit history. Text fields carry commas, double quotes,
 * accents, CJK and embedded newlines, so exports and tables get exercised.
 *
 * At scale 1: 3,000 subscriptions, 2,000 usage codes, 10,000 wallet transactions, 1,000
 * audit rows, 6,000 usage logs (usage logs stop growing past scale 10). Everything goes through prepared statements in the caller's
 * transaction, so that scale 100 (a million wallet transactions) stays quick to seed.
 *
 * The stages draw from one PRNG in a fixed order (catalog, sales, wallets, tokens, audit): the
 * same seed and clock give the same data. Fixed data: seed-admin-data.ts.
 */
import { SEEDED_ACCOUNTS } from './schema-core.js';
import { hashPassword } from './auth.js';
import { seedCatalog } from './seed-admin-catalog.js';
import { seedAudit, seedOldTokens, seedWallets } from './seed-admin-history.js';
import { DAY, draws, iso, type People } from './seed-admin-model.js';
import { generateSales, insertSales } from './seed-admin-sales.js';
import type { DB, Seeder } from './types.js';

export const seedAdmin: Seeder = (db: DB, { scale, rng, now }) => {
  const d = draws(rng, scale, now.getTime());
  // Accounts: the user area seeds them; a database without them (the user seeder not there
  // yet) gets the well-known accounts and some customers here, so the admin area stands alone.
  ensureUsers(db, rng, d.nowMs);
  const people = peopleOf(db);
  const catalog = seedCatalog(db, d, people.admins);
  const sales = generateSales(d, scale, people, catalog);
  const endUserAudit = insertSales(db, sales, catalog.serviceIds);
  seedWallets(db, d, people, sales, endUserAudit);
  seedOldTokens(db, d, people);
  seedAudit(db, d, people, sales, endUserAudit);
};

/** The accounts, by the parts they play in the seed. */
function peopleOf(db: DB): People {
  const allUsers = db.prepare('SELECT user_id, role, wallet_balance, created_date FROM users ORDER BY user_id').all() as Array<{
    user_id: number;
    role: string;
    wallet_balance: number;
    created_date: string;
  }>;
  const staff = allUsers.filter((u) => u.role === 'admin' || u.role === 'superadmin' || u.role === 'manager').map((u) => u.user_id);
  const auditors = allUsers.filter((u) => u.role !== 'user').map((u) => u.user_id);
  const customers = allUsers.filter((u) => u.role === 'user').map((u) => u.user_id);
  if (customers.length === 0) customers.push(...allUsers.map((u) => u.user_id));
  const admins = staff.length ? staff : [allUsers[0].user_id];
  return { allUsers, auditors, customers, admins, walletUsers: allUsers.map((u) => u.user_id) };
}

/**
 * The well-known accounts plus a few hundred customers, when the users table is empty (the
 * user area's seeder normally creates them, with more detail).
 */
function ensureUsers(db: DB, rng: () => number, nowMs: number): void {
  const count = (db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  if (count > 0) return;
  const ins = db.prepare(
    `INSERT INTO users (username, email, full_name, password_hash, role, status, is_verified, created_date, last_login_date, wallet_balance)
     VALUES (?, ?, ?, ?, ?, 'Active', 1, ?, ?, 0)`,
  );
  for (const a of SEEDED_ACCOUNTS)
    ins.run(a.username, a.email, a.full_name, hashPassword(a.password), a.role, iso(nowMs - 400 * DAY), iso(nowMs - DAY));
  const shared = hashPassword('sandbox-user');
  const first = ['José', 'Zoë', 'Chloé', 'Jürgen', 'Iñaki', 'Seán', 'Mia', 'Noah', '山田', 'Léa'];
  const last = ['Núñez', 'Müller', "O'Brien", 'García', 'Lefèvre', 'Smith', '太郎', 'Kowalski'];
  for (let i = 0; i < 300; i++) {
    const f = first[Math.floor(rng() * first.length)];
    const l = last[Math.floor(rng() * last.length)];
    const full = rng() < 0.1 ? `${l}, ${f}` : rng() < 0.05 ? `${f} "Ace"\n${l}` : `${f} ${l}`;
    ins.run(
      `customer${i + 1}`,
      `customer${i + 1}@example.com`,
      full,
      shared,
      'user',
      iso(nowMs - Math.floor(rng() * 700) * DAY - DAY),
      null,
    );
  }
}
