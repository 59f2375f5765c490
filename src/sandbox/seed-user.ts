/**
 * Seed data of the user area: the accounts of SEEDED_ACCOUNTS (user_ids 1..6, in that order),
 * then a few hundred more users over every role and status with realistic names (accents,
 * CJK, commas and quotes), their role assignments, profiles, devices, login history, pending
 * verification codes, a couple of custom roles, and referral codes with their uses.
 *
 * Big tables (subscriptions, wallet transactions, usage logs) belong to the admin seeder.
 */
import { hashPassword } from './auth.js';
import { SEEDED_ACCOUNTS } from './schema-core.js';
import type { DB, Seeder } from './types.js';

/** Password of every seeded account that is not in SEEDED_ACCOUNTS. */
const EXTRA_USER_PASSWORD = 'sandbox-user';

/** Referral code owned by the seeded `enduser` account (active, unexpired, room left). */
export const ENDUSER_REFERRAL_CODE = 'REF-EVE001';

const FIRST = [
  'José',
  'Zoë',
  'Ana',
  'Björn',
  'Chloé',
  'Darío',
  'Élodie',
  'François',
  'Günther',
  'Héloïse',
  'Iñaki',
  'Jürgen',
  'Kåre',
  'Léa',
  'Måns',
  'Noémie',
  'Óscar',
  'Paweł',
  'Rênê',
  'Søren',
  'Thérèse',
  'Ümit',
  'Václav',
  'Wojciech',
  'Xóchitl',
  'Yağmur',
  'Žofia',
  'Aoife',
  'Seán',
  'Siobhán',
  'Liam',
  'Olivia',
  'Noah',
  'Emma',
  'Mateo',
  'Sofía',
  'Lucas',
  'Mia',
  'Amelia',
  'Ethan',
  'Priya',
  'Arjun',
  'Fatima',
  'Omar',
  'Nguyễn',
  'Minh',
  'Thảo',
  'Kwame',
  'Amara',
  'Chidi',
  'Ingrid',
  'Lars',
  'Mikael',
  'Astrid',
];
const LAST = [
  'Núñez',
  'Müller',
  'García',
  'Pérez',
  'Østergaard',
  'Çelik',
  'Dvořák',
  'Łukasiewicz',
  'Ñúñez',
  'Lefèvre',
  'Schröder',
  'Jäger',
  'Öztürk',
  'Brontë',
  'Gonçalves',
  'Sánchez',
  'Fernández',
  'Kowalski',
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Miller',
  'Davis',
  'Wilson',
  'Anderson',
  'Taylor',
  'Thomas',
  'Moore',
  'Martin',
  'Lee',
  'Walker',
  'Hall',
  "O'Brien",
  "D'Angelo",
  'McAllister',
  'van der Berg',
  'de la Cruz',
  'Trần',
  'Phạm',
  'Lê',
  'Okafor',
  'Mensah',
  'Haddad',
  'Nakamura',
  'Sato',
  'Kim',
  'Park',
  'Singh',
  'Patel',
  'Ivanova',
  'Petrov',
  'Björklund',
  'Lindqvist',
  'Żak',
];
const CJK = [
  '山田太郎',
  '佐藤花子',
  '鈴木一郎',
  '高橋美咲',
  '王小明',
  '李娜',
  '张伟',
  '김민준',
  '이서연',
  '田中 健',
  '中村 さくら',
  '陈静',
];
const CITIES: Array<[string, string, string]> = [
  ['Lisboa', 'Portugal', '1100-148'],
  ['München', 'Germany', '80331'],
  ['São Paulo', 'Brazil', '01310-100'],
  ['Kraków', 'Poland', '31-001'],
  ['Zürich', 'Switzerland', '8001'],
  ['東京', 'Japan', '100-0001'],
  ['Hà Nội', 'Vietnam', '100000'],
  ['Reykjavík', 'Iceland', '101'],
  ['Montréal', 'Canada', 'H2X 1Y4'],
  ['Austin, TX', 'United States', '73301'],
  ['Dublin', 'Ireland', 'D02 X285'],
  ['Accra', 'Ghana', 'GA-123'],
];
const STREETS = [
  'Rua Augusta',
  'Marienplatz',
  'Avenida Paulista',
  'Rynek Główny',
  'Bahnhofstrasse',
  'Main St.',
  "King's Road",
  "Quai de l'Horloge",
];
const DEVICES: Array<[string, string, string]> = [
  [
    'MacBook Pro',
    'desktop',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  ],
  ['ThinkPad X1', 'desktop', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'],
  ['iPhone 15', 'mobile', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148'],
  [
    'Pixel 8',
    'mobile',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
  ],
  ['iPad Air', 'tablet', 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148'],
  ['subctl on build-server', 'cli', 'subctl/0.1.0 node/20.20.0 linux-x64'],
];
const REFERRAL_DESCRIPTIONS = [
  'Spring campaign',
  'Friends & family',
  'Newsletter, issue #12',
  'Partner "Acme, Inc." launch',
  'Conference booth\nHall B',
  'Programme de parrainage — été',
  'Blog post referral',
  'Team onboarding',
];

const DAY = 86_400_000;

function slug(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[łŁ]/g, 'l')
    .replace(/[øØ]/g, 'o')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.+|\.+$/g, '');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export const seedUsers: Seeder = (db: DB, { scale, rng, now }) => {
  const nowMs = now.getTime();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(rng() * 16)]).join('');
  const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const codeChars = (n: number) => Array.from({ length: n }, () => ALNUM[Math.floor(rng() * ALNUM.length)]).join('');

  const insertUser = db.prepare(
    `INSERT INTO users (username, email, full_name, password_hash, role, status, chatgpt_user_id, phone_number, address, is_verified,
                        created_by, created_date, last_login_date, wallet_balance, wallet_currency, last_topup_date)
     VALUES (@username, @email, @full_name, @password_hash, @role, @status, @chatgpt_user_id, @phone_number, @address, @is_verified,
             @created_by, @created_date, @last_login_date, @wallet_balance, 'USD', @last_topup_date)`,
  );
  const insertUserRole = db.prepare('INSERT OR IGNORE INTO user_roles (user_id, role_name, assigned_by, assigned_at) VALUES (?, ?, ?, ?)');
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
  const insertCode = db.prepare(
    `INSERT INTO referral_codes (user_id, referral_code, description, usage_limit, used_count, expiry_date, is_active, deactivated_reason,
                                 deactivated_date, created_date)
     VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
  );
  const insertUse = db.prepare('INSERT INTO referral_uses (referral_id, referrer_id, new_user_id, used_date) VALUES (?, ?, ?, ?)');
  const bumpCode = db.prepare('UPDATE referral_codes SET used_count = used_count + 1 WHERE referral_id = ?');
  const insertRole = db.prepare(
    `INSERT OR IGNORE INTO roles (role_name, display_name, description, priority, is_system_role, is_active, created_by_user, created_date)
     VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
  );
  const insertRolePerm = db.prepare(
    'INSERT OR IGNORE INTO role_permissions (role_name, permission_name, granted_by, granted_date) VALUES (?, ?, ?, ?)',
  );

  type Seeded = { id: number; username: string; role: string; status: string; created: number; lastLogin: number | null };
  const users: Seeded[] = [];
  const ip = () => (rng() < 0.5 ? `192.168.${int(0, 20)}.${int(2, 250)}` : `203.0.113.${int(1, 254)}`);

  db.transaction(() => {
    // 1. The well-known accounts, in order, so they get user_ids 1..6.
    const baseCreated = nowMs - 400 * DAY;
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

    // 2. Custom (non-system) roles.
    const customCreated = iso(nowMs - 200 * DAY);
    insertRole.run('auditor', 'Auditor', 'Reads the audit log and statistics; held alongside a staff role', 45, 1, 1, customCreated);
    insertRole.run('beta-tester', 'Beta tester', 'Sees services before they are published', 15, 1, 2, customCreated);
    insertRole.run('moderator', 'Moderator (legacy)', 'Old community moderator role, kept for history', 50, 0, 1, customCreated);
    for (const p of ['audit.read', 'dashboard.read', 'users.read']) insertRolePerm.run('auditor', p, 1, customCreated);
    insertRolePerm.run('beta-tester', 'services.use', 2, customCreated);

    // 3. Extra users: one shared hash keeps seeding fast.
    const sharedHash = hashPassword(EXTRA_USER_PASSWORD, hex(16));
    const extra = Math.max(0, Math.round(Math.min(400 * scale, 400 + 50 * (scale - 1))));
    const forcedRoles = ['superadmin', 'admin', 'manager', 'support', 'agent'];
    const forcedStatuses = ['Inactive', 'Banned', 'Pending'];
    const taken = new Set<string>(SEEDED_ACCOUNTS.map((a) => a.username));
    for (let i = 0; i < extra; i++) {
      let role: string;
      if (i < forcedRoles.length) role = forcedRoles[i];
      else {
        const x = rng();
        role = x < 0.82 ? 'user' : x < 0.9 ? 'agent' : x < 0.95 ? 'support' : x < 0.98 ? 'manager' : x < 0.995 ? 'admin' : 'superadmin';
      }
      let status: string;
      if (i >= 5 && i < 5 + forcedStatuses.length) status = forcedStatuses[i - 5];
      else {
        const x = rng();
        status = x < 0.74 ? 'Active' : x < 0.85 ? 'Inactive' : x < 0.91 ? 'Banned' : 'Pending';
      }
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
      users.push({ id, username, role, status, created, lastLogin: recentLogin === null ? null : Math.max(recentLogin, created) });
    }

    // 4. Secondary roles: a user's primary role (users.role) stays the highest priority held.
    // The well-known accounts stay predictable: only the manager holds a second role (below).
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
    // The seeded manager holds the auditor role, so deleting it conflicts (409) deterministically.
    insertUserRole.run(3, 'auditor', 1, iso(baseCreated + DAY));

    // 5. Profiles, devices, login history, verification codes.
    for (const u of users) {
      const seeded = u.id <= SEEDED_ACCOUNTS.length;
      if (seeded || rng() < 0.6) {
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
      const staff = u.role !== 'user';
      const nDevices = u.lastLogin === null ? 0 : staff ? int(1, 3) : rng() < 0.3 ? int(1, 2) : 0;
      for (let d = 0; d < nDevices; d++) {
        const [name, type, ua] = pick(DEVICES);
        const login = u.lastLogin! - d * int(1, 20) * DAY;
        const active = d === 0 && rng() < 0.6 ? 1 : 0;
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
      if (u.lastLogin !== null) {
        const n = seeded ? 5 : int(1, 4);
        for (let k = n - 1; k >= 0; k--) {
          const at = k === 0 ? u.lastLogin : Math.max(u.created, u.lastLogin - k * int(1, 30) * DAY);
          if (rng() < 0.15) insertLogin.run(u.id, u.username, 'FAILED', ip(), pick(DEVICES)[2], null, iso(at - 120_000));
          insertLogin.run(u.id, u.username, 'SUCCESS', ip(), pick(DEVICES)[2], null, iso(at));
        }
      }
      if (u.status === 'Pending') {
        // Most codes have lapsed; a few were sent minutes ago and still work.
        const at = rng() < 0.2 ? nowMs - int(1, 9) * 60_000 : nowMs - int(1, 72) * 3_600_000;
        insertVerification.run(u.id, pick(['email', 'sms', 'phone']), String(int(100000, 999999)), iso(at), iso(at + 10 * 60_000), null);
      }
    }

    // 6. Referral codes and their uses.
    const codes: Array<{ id: number; owner: number; created: number; expiry: number; limit: number; used: number; active: boolean }> = [];
    const usedCodes = new Set<string>();
    const newCode = () => {
      let c: string;
      do c = `REF-${codeChars(6)}`;
      while (usedCodes.has(c) || c === ENDUSER_REFERRAL_CODE);
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
    addCode(6, nowMs - 20 * DAY, { code: ENDUSER_REFERRAL_CODE, limit: 50, expiryDays: 365 });
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
    // Each user is referred at most once: by a code created before they joined.
    for (const u of users) {
      if (u.id <= SEEDED_ACCOUNTS.length || rng() >= 0.3) continue;
      const fits = codes.filter((c) => c.owner !== u.id && c.created < u.created && u.created < c.expiry && c.used < c.limit);
      if (fits.length === 0) continue;
      const c = pick(fits);
      insertUse.run(c.id, c.owner, u.id, iso(u.created));
      bumpCode.run(c.id);
      c.used++;
    }
  })();
};
