/**
 * Seed data of the user area: the accounts of SEEDED_ACCOUNTS (user_ids 1..6, in that order),
 * then a few hundred more users over every role and status with realistic names (accents,
 * CJK, commas and quotes), their role assignments, profiles, devices, login history, pending
 * verification codes, a couple of custom roles, and referral codes with their uses
 * (seed-user-activity.ts).
 *
 * Big tables (subscriptions, wallet transactions, usage logs) belong to the admin seeder.
 */
import type Database from 'better-sqlite3';
import { hashPassword } from './auth.js';
import { SEEDED_ACCOUNTS } from './schema-core.js';
import { seedActivity, seedReferrals } from './seed-user-activity.js';
import { CJK, DAY, FIRST, iso, LAST, slug, userDraws, type Seeded, type UserDraw } from './seed-user-data.js';
import type { DB, Seeder } from './types.js';

/** Password of every seeded account that is not in SEEDED_ACCOUNTS. */
const EXTRA_USER_PASSWORD = 'sandbox-user';

/** Referral code owned by the seeded `enduser` account (active, unexpired, room left). */
export const ENDUSER_REFERRAL_CODE = 'REF-EVE001';

export const seedUsers: Seeder = (db: DB, { scale, rng, now }) => {
  const d = userDraws(rng, now.getTime());
  const insertUser = db.prepare(
    `INSERT INTO users (username, email, full_name, password_hash, role, status, chatgpt_user_id, phone_number, address, is_verified,
                        created_by, created_date, last_login_date, wallet_balance, wallet_currency, last_topup_date)
     VALUES (@username, @email, @full_name, @password_hash, @role, @status, @chatgpt_user_id, @phone_number, @address, @is_verified,
             @created_by, @created_date, @last_login_date, @wallet_balance, 'USD', @last_topup_date)`,
  );
  const insertUserRole = db.prepare('INSERT OR IGNORE INTO user_roles (user_id, role_name, assigned_by, assigned_at) VALUES (?, ?, ?, ?)');
  const users: Seeded[] = [];

  db.transaction(() => {
    // 1. The well-known accounts, in order, so they get user_ids 1..6.
    const baseCreated = d.nowMs - 400 * DAY;
    seedWellKnown(d, baseCreated, insertUser, insertUserRole, users);
    // 2. Custom (non-system) roles.
    seedCustomRoles(db, d.nowMs);
    // 3. Extra users: one shared hash keeps seeding fast.
    const sharedHash = hashPassword(EXTRA_USER_PASSWORD, d.hex(16));
    const extra = Math.max(0, Math.round(Math.min(400 * scale, 400 + 50 * (scale - 1))));
    const taken = new Set<string>(SEEDED_ACCOUNTS.map((a) => a.username));
    for (let i = 0; i < extra; i++) users.push(seedExtraUser(d, i, taken, sharedHash, insertUser, insertUserRole));
    // 4. Secondary roles.
    seedSecondaryRoles(d, users, insertUserRole);
    // The seeded manager holds the auditor role, so deleting it conflicts (409) deterministically.
    insertUserRole.run(3, 'auditor', 1, iso(baseCreated + DAY));
    // 5. Profiles, devices, login history, verification codes.
    seedActivity(db, d, users);
    // 6. Referral codes and their uses.
    seedReferrals(db, d, users, ENDUSER_REFERRAL_CODE);
  })();
};

function seedWellKnown(
  d: UserDraw,
  baseCreated: number,
  insertUser: Database.Statement,
  insertUserRole: Database.Statement,
  users: Seeded[],
): void {
  const { nowMs, hex } = d;
  SEEDED_ACCOUNTS.forEach((a, i) => {
    const created = baseCreated + i * 60_000;
    const lastLogin = nowMs - (i + 1) * 3_600_000;
    const balance = a.role === 'user' ? 500 : 100;
    const r = insertUser.run({
      username: a.username,
      email: a.email,
      full_name: a.full_name,
      // Salts from the seeded PRNG: the same seed gives the same file.
      password_hash: hashPassword(a.password, hex(16)),
      role: a.role,
      status: 'Active',
      chatgpt_user_id: null,
      phone_number: null,
      address: null,
      is_verified: 1,
      created_by: i === 0 ? null : 1,
      created_date: iso(created),
      last_login_date: iso(lastLogin),
      wallet_balance: balance,
      last_topup_date: iso(nowMs - 30 * DAY),
    });
    const id = Number(r.lastInsertRowid);
    insertUserRole.run(id, a.role, i === 0 ? null : 1, iso(created));
    users.push({ id, username: a.username, role: a.role, status: 'Active', created, lastLogin });
  });
}

function seedCustomRoles(db: DB, nowMs: number): void {
  const insertRole = db.prepare(
    `INSERT OR IGNORE INTO roles (role_name, display_name, description, priority, is_system_role, is_active, created_by_user, created_date)
     VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
  );
  const insertRolePerm = db.prepare(
    'INSERT OR IGNORE INTO role_permissions (role_name, permission_name, granted_by, granted_date) VALUES (?, ?, ?, ?)',
  );
  const customCreated = iso(nowMs - 200 * DAY);
  insertRole.run('auditor', 'Auditor', 'Reads the audit log and statistics; held alongside a staff role', 45, 1, 1, customCreated);
  insertRole.run('beta-tester', 'Beta tester', 'Sees services before they are published', 15, 1, 2, customCreated);
  insertRole.run('moderator', 'Moderator (legacy)', 'Old community moderator role, kept for history', 50, 0, 1, customCreated);
  for (const p of ['audit.read', 'dashboard.read', 'users.read']) insertRolePerm.run('auditor', p, 1, customCreated);
  insertRolePerm.run('beta-tester', 'services.use', 2, customCreated);
}

const FORCED_ROLES = ['superadmin', 'admin', 'manager', 'support', 'agent'];
const FORCED_STATUSES = ['Inactive', 'Banned', 'Pending'];

/** The `i`th extra user's role and status: the first ones cover every role and status, the rest are drawn. */
function roleAndStatus(d: UserDraw, i: number): { role: string; status: string } {
  let role: string;
  if (i < FORCED_ROLES.length) role = FORCED_ROLES[i];
  else {
    const x = d.rng();
    role = x < 0.82 ? 'user' : x < 0.9 ? 'agent' : x < 0.95 ? 'support' : x < 0.98 ? 'manager' : x < 0.995 ? 'admin' : 'superadmin';
  }
  let status: string;
  if (i >= 5 && i < 5 + FORCED_STATUSES.length) status = FORCED_STATUSES[i - 5];
  else {
    const x = d.rng();
    status = x < 0.74 ? 'Active' : x < 0.85 ? 'Inactive' : x < 0.91 ? 'Banned' : 'Pending';
  }
  return { role, status };
}

/** The `i`th extra user's full name and a username not `taken` yet (the first four are fixed: accents, CJK, quotes). */
function nameOf(d: UserDraw, i: number, taken: Set<string>): { fullName: string; username: string } {
  const { rng, pick } = d;
  let first = pick(FIRST);
  let last = pick(LAST);
  if (i === 0) [first, last] = ['José', 'Núñez'];
  if (i === 1) [first, last] = ['Zoë', 'Müller'];
  if (i === 3) [first, last] = ['Seán', "O'Brien"];
  let fullName: string;
  const style = rng();
  if (style < 0.07) fullName = pick(CJK);
  else if (style < 0.12) fullName = `${last}, ${first}`;
  else if (style < 0.16) fullName = `${first} "${pick(['Jo', 'Bea', 'Max', 'Kiki', 'Ace'])}" ${last}`;
  else if (style < 0.18) fullName = `${first} ${last}, Jr.`;
  else fullName = `${first} ${last}`;
  if (i < 2) fullName = `${first} ${last}`;
  if (i === 2) fullName = '山田太郎';
  if (i === 3) fullName = `${last}, ${first} "Shaun"`;
  let base =
    slug(
      CJK.includes(fullName)
        ? `${pick(['yamada', 'sato', 'wang', 'li', 'kim', 'tanaka'])}.${pick(['t', 'h', 'm', 'n'])}`
        : `${first}.${last}`,
    ) || 'user';
  if (i === 2) base = 'yamada.taro';
  let username = base;
  for (let n = 2; taken.has(username); n++) username = `${base}${n}`;
  taken.add(username);
  return { fullName, username };
}

function seedExtraUser(
  d: UserDraw,
  i: number,
  taken: Set<string>,
  sharedHash: string,
  insertUser: Database.Statement,
  insertUserRole: Database.Statement,
): Seeded {
  const { rng, nowMs, pick, int, codeChars } = d;
  const { role, status } = roleAndStatus(d, i);
  const { fullName, username } = nameOf(d, i, taken);
  const domain = pick(['example.com', 'example.org', 'mail.example.net', 'corp.example.com']);
  const created = nowMs - Math.floor(rng() * 720 * DAY) - DAY;
  const neverLogged = status === 'Pending' ? rng() < 0.8 : rng() < 0.12;
  const lastLogin = neverLogged ? null : Math.min(nowMs - 60_000, created + Math.floor(rng() * (nowMs - created)));
  // A few very recent logins so "today / this week" statistics are not empty.
  const recentLogin = lastLogin !== null && rng() < 0.15 ? nowMs - Math.floor(rng() * 3 * DAY) - 60_000 : lastLogin;
  const balance = rng() < 0.3 ? 0 : Math.round(rng() * 50_000) / 100;
  const createdBy = rng() < 0.35 ? pick([1, 2]) : null;
  const r = insertUser.run({
    username,
    email: `${username}@${domain}`,
    full_name: fullName,
    password_hash: sharedHash,
    role,
    status,
    chatgpt_user_id: rng() < 0.25 ? `user-${codeChars(16).toLowerCase()}` : null,
    phone_number: rng() < 0.5 ? `+${int(1, 99)} ${int(100, 999)} ${int(100, 999)} ${int(1000, 9999)}` : null,
    address: null,
    is_verified: status === 'Pending' ? 0 : rng() < 0.95 ? 1 : 0,
    created_by: createdBy,
    created_date: iso(created),
    last_login_date: recentLogin === null ? null : iso(Math.max(recentLogin, created)),
    wallet_balance: balance,
    last_topup_date: balance > 0 ? iso(created + Math.floor(rng() * (nowMs - created))) : null,
  });
  const id = Number(r.lastInsertRowid);
  insertUserRole.run(id, role, createdBy, iso(created));
  return { id, username, role, status, created, lastLogin: recentLogin === null ? null : Math.max(recentLogin, created) };
}

/**
 * Secondary roles: a user's primary role (users.role) stays the highest priority held. The
 * well-known accounts stay predictable: only the manager holds a second role (seedUsers).
 */
function seedSecondaryRoles(d: UserDraw, users: Seeded[], insertUserRole: Database.Statement): void {
  const { rng } = d;
  for (const u of users) {
    if (u.id <= SEEDED_ACCOUNTS.length) continue;
    if (u.role === 'manager' || u.role === 'admin') {
      if (rng() < 0.5) insertUserRole.run(u.id, 'auditor', 1, iso(u.created + DAY));
    }
    if (u.role === 'support' || u.role === 'agent' || u.role === 'admin') {
      if (rng() < 0.4) insertUserRole.run(u.id, 'beta-tester', 2, iso(u.created + DAY));
    }
    if (u.role !== 'user' && u.role !== 'superadmin' && rng() < 0.3) insertUserRole.run(u.id, 'user', 1, iso(u.created));
  }
}
