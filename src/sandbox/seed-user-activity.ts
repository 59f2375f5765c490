/**
 * What the user area's seeded accounts have done (seed-user.ts): profiles, devices, login
 * history, pending verification codes, and referral codes with their uses.
 */
import type Database from 'better-sqlite3';
import { SEEDED_ACCOUNTS } from './schema-core.js';
import { CITIES, DAY, DEVICES, iso, REFERRAL_DESCRIPTIONS, STREETS, type Seeded, type UserDraw } from './seed-user-data.js';
import type { DB } from './types.js';

/** The statements of seedActivity. */
interface ActivityStatements {
  insertProfile: Database.Statement;
  insertDevice: Database.Statement;
  insertLogin: Database.Statement;
  insertVerification: Database.Statement;
}

function seedProfile(d: UserDraw, u: Seeded, insertProfile: Database.Statement): void {
  const { rng, pick, int } = d;
  const [city, country, postal] = pick(CITIES);
  insertProfile.run(
    u.id,
    `${int(1, 250)} ${pick(STREETS)}`,
    city,
    country,
    postal,
    rng() < 0.4 ? `https://cdn.example.com/avatars/${u.id}.png` : null,
    rng() < 0.7 ? `+${int(1, 99)}${int(100000000, 999999999)}` : null,
    rng() < 0.1 ? null : pick(['Male', 'Female', 'Other']),
    rng() < 0.8 ? iso(Date.UTC(int(1955, 2005), int(0, 11), int(1, 28))).slice(0, 10) : null,
    iso(u.created + DAY),
  );
}

/** Devices for accounts that logged in: staff more often than end users. */
function seedDevices(d: UserDraw, u: Seeded, insertDevice: Database.Statement): void {
  const { rng, pick, int, hex, ip } = d;
  const staff = u.role !== 'user';
  const nDevices = u.lastLogin === null ? 0 : staff ? int(1, 3) : rng() < 0.3 ? int(1, 2) : 0;
  for (let k = 0; k < nDevices; k++) {
    const [name, type, ua] = pick(DEVICES);
    const login = u.lastLogin! - k * int(1, 20) * DAY;
    const active = k === 0 && rng() < 0.6 ? 1 : 0;
    insertDevice.run(
      `dev-${hex(12)}`,
      u.id,
      name,
      type,
      rng() < 0.5 ? `push-${hex(24)}` : null,
      ip(),
      ua,
      active,
      `sess-${hex(16)}`,
      iso(login),
      active ? null : iso(login + int(5, 600) * 60_000),
      iso(login + int(1, 300) * 60_000),
      iso(Math.max(u.created, login - DAY)),
    );
  }
}

function seedUserActivity(d: UserDraw, u: Seeded, st: ActivityStatements): void {
  const { rng, nowMs, pick, int, ip } = d;
  const seeded = u.id <= SEEDED_ACCOUNTS.length;
  if (seeded || rng() < 0.6) seedProfile(d, u, st.insertProfile);
  seedDevices(d, u, st.insertDevice);
  if (u.lastLogin !== null) {
    const n = seeded ? 5 : int(1, 4);
    for (let k = n - 1; k >= 0; k--) {
      const at = k === 0 ? u.lastLogin : Math.max(u.created, u.lastLogin - k * int(1, 30) * DAY);
      if (rng() < 0.15) st.insertLogin.run(u.id, u.username, 'FAILED', ip(), pick(DEVICES)[2], null, iso(at - 120_000));
      st.insertLogin.run(u.id, u.username, 'SUCCESS', ip(), pick(DEVICES)[2], null, iso(at));
    }
  }
  if (u.status === 'Pending') {
    // Most codes have lapsed; a few were sent minutes ago and still work.
    const at = rng() < 0.2 ? nowMs - int(1, 9) * 60_000 : nowMs - int(1, 72) * 3_600_000;
    st.insertVerification.run(u.id, pick(['email', 'sms', 'phone']), String(int(100000, 999999)), iso(at), iso(at + 10 * 60_000), null);
  }
}

/** Profiles, devices, login history and verification codes, account by account. */
export function seedActivity(db: DB, d: UserDraw, users: Seeded[]): void {
  const insertProfile = db.prepare(
    `INSERT OR REPLACE INTO profiles (user_id, address, city, country, postal_code, profile_picture_url, phone_number, gender, date_of_birth, modified_date)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertDevice = db.prepare(
    `INSERT OR IGNORE INTO devices (device_id, user_id, device_name, device_type, device_token, ip_address, user_agent, is_active, session_id,
                                    login_time, logout_time, last_activity_time, created_date)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertLogin = db.prepare(
    'INSERT INTO login_history (user_id, username, login_status, ip_address, user_agent, device_id, login_time) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertVerification = db.prepare(
    'INSERT INTO verification_codes (user_id, type, code, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const st = { insertProfile, insertDevice, insertLogin, insertVerification };
  for (const u of users) seedUserActivity(d, u, st);
}

type SeededCode = { id: number; owner: number; created: number; expiry: number; limit: number; used: number; active: boolean };

/**
 * Referral codes: `enduserCode` for the seeded `enduser` account (user 6), a few for some other
 * accounts; then uses, each user referred at most once, by a code created before they joined.
 */
export function seedReferrals(db: DB, d: UserDraw, users: Seeded[], enduserCode: string): void {
  const { rng, nowMs, pick, int, codeChars } = d;
  const insertCode = db.prepare(
    `INSERT INTO referral_codes (user_id, referral_code, description, usage_limit, used_count, expiry_date, is_active, deactivated_reason,
                                 deactivated_date, created_date)
     VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
  );
  const codes: SeededCode[] = [];
  const usedCodes = new Set<string>();
  const newCode = () => {
    let c: string;
    do c = `REF-${codeChars(6)}`;
    while (usedCodes.has(c) || c === enduserCode);
    usedCodes.add(c);
    return c;
  };
  const addCode = (
    owner: number,
    created: number,
    opts: { code?: string; limit?: number; expiryDays?: number; deactivated?: string | null } = {},
  ) => {
    const limit = opts.limit ?? pick([1, 5, 10, 10, 20, 50, 100]);
    const expiry = created + (opts.expiryDays ?? pick([7, 30, 90, 180, 365])) * DAY;
    const deact = opts.deactivated ?? null;
    const r = insertCode.run(
      owner,
      opts.code ?? newCode(),
      pick(REFERRAL_DESCRIPTIONS),
      limit,
      iso(expiry),
      deact ? 0 : 1,
      deact,
      deact ? iso(Math.min(nowMs, created + 5 * DAY)) : null,
      iso(created),
    );
    codes.push({ id: Number(r.lastInsertRowid), owner, created, expiry, limit, used: 0, active: !deact });
  };
  addCode(6, nowMs - 20 * DAY, { code: enduserCode, limit: 50, expiryDays: 365 });
  for (const u of users) {
    if (u.id === 6) continue;
    if (u.status === 'Banned' || u.status === 'Pending') continue;
    if (rng() >= (u.role === 'user' ? 0.15 : 0.3)) continue;
    const n = int(1, 3);
    for (let k = 0; k < n; k++) {
      const created = u.created + Math.floor(rng() * Math.max(DAY, nowMs - u.created - DAY));
      const deactivated = rng() < 0.1 ? pick(['Campaign ended', 'Shared publicly, abused', 'Replaced by a new code']) : null;
      addCode(u.id, created, { deactivated });
    }
  }
  seedReferralUses(db, d, users, codes);
}

/** Each user is referred at most once: by a code created before they joined. */
function seedReferralUses(db: DB, d: UserDraw, users: Seeded[], codes: SeededCode[]): void {
  const insertUse = db.prepare('INSERT INTO referral_uses (referral_id, referrer_id, new_user_id, used_date) VALUES (?, ?, ?, ?)');
  const bumpCode = db.prepare('UPDATE referral_codes SET used_count = used_count + 1 WHERE referral_id = ?');
  for (const u of users) {
    if (u.id <= SEEDED_ACCOUNTS.length || d.rng() >= 0.3) continue;
    const fits = codes.filter((c) => c.owner !== u.id && c.created < u.created && u.created < c.expiry && c.used < c.limit);
    if (fits.length === 0) continue;
    const c = d.pick(fits);
    insertUse.run(c.id, c.owner, u.id, iso(u.created));
    bumpCode.run(c.id);
    c.used++;
  }
}
