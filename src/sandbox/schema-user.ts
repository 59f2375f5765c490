/**
 * Tables of the user / auth / CMS area of the sandbox (the API documents' user, auth and CMS area): roles and
 * permissions, role assignments, profiles, devices, login history, verification codes,
 * password resets, referral codes and their uses, and payment orders of end-user purchases.
 *
 * Accounts themselves (users, tokens, audit_logs) are in schema-core.ts. The six system roles
 * and their permissions are part of the schema (inserted by the migration), so a database that
 * was never seeded still knows them.
 */
import type { Migration } from './types.js';

/** System roles with their priority (higher outranks lower) and display data. */
export const SYSTEM_ROLES = [
  {
    role_name: 'superadmin',
    display_name: 'Super Admin',
    priority: 100,
    description: 'Full control of the platform, including every account and password',
  },
  {
    role_name: 'admin',
    display_name: 'Administrator',
    priority: 80,
    description: 'Manages users, roles, services, plans, subscriptions and referrals',
  },
  {
    role_name: 'manager',
    display_name: 'Manager',
    priority: 60,
    description: 'Reads the administration lists, reports, the dashboard and the audit log',
  },
  { role_name: 'support', display_name: 'Support', priority: 40, description: 'Helps customers: reads roles and referral codes' },
  { role_name: 'agent', display_name: 'Agent', priority: 20, description: 'Front-line staff: reads roles and referral codes' },
  { role_name: 'user', display_name: 'User', priority: 10, description: 'End user: buys subscriptions, uses services, holds a wallet' },
] as const;

/**
 * Permission strings (the specification does not list them). Each stands for endpoints the
 * server lets its holders call (PERMISSION_ENDPOINTS), and a system role is reported to hold a
 * permission exactly when the server's access rule (`roleAllows` in auth.ts) lets it call every
 * one of them, so that the lists the sandbox reports (CMS login, profile, users.get) never
 * promise what the server refuses. tests/sandbox/permissions.test.ts holds the two together.
 */
export const PERMISSIONS: Record<string, string> = {
  'profile.self': "Read and update one's own profile, devices, password and sessions",
  'services.use': 'Browse, buy and use services',
  'wallet.self': "Read and top up one's own wallet",
  'referrals.self': 'Generate, share and use referral codes',
  'roles.read': "List roles, their holders and users' roles",
  'referrals.read': "Search usable referral codes and read a user's referral info",
  'users.read': 'Read user accounts',
  'subscriptions.read': 'Read subscriptions, usage codes and wallet transactions',
  'services.read': 'Read services, plans and their links, with reports',
  'referrals.report': 'Read every referral code, referral and referral statistics',
  'audit.read': 'Read the audit log',
  'dashboard.read': 'Read the dashboard',
  'services.manage': 'Create, change and delete services, plans and links',
  'users.write': 'Create and update user accounts',
  'users.delete': 'Delete user accounts',
  'roles.manage': 'Create, update and delete roles',
  'roles.assign': 'Assign, promote, demote and remove roles',
  'subscriptions.manage': 'Manage and delete subscriptions, generate usage codes, run the cleanup',
  'referrals.admin': "Update and deactivate anyone's referral code",
  'superadmin.users': 'List every account with statistics',
  'superadmin.passwords': "Set any account's password",
};

/**
 * The endpoints (contract names) each permission stands for. Every endpoint that needs an
 * account is under exactly one permission; `referrals.admin` is the one permission that stands
 * for no endpoint of its own: anyone may update and deactivate their own codes
 * (`referrals.self`), and the handlers let admins (`isAdminRole`) do it to anyone's.
 */
export const PERMISSION_ENDPOINTS: Record<string, readonly string[]> = {
  'profile.self': [
    'profile.get',
    'profile.update',
    'devices.list',
    'devices.remove',
    'auth.logout',
    'auth.change-password',
    'cms.auth.logout',
    'cms.auth.change-password',
    'cms.verification.generate',
    'cms.verification.verify',
  ],
  'services.use': [
    'me.services',
    'me.plans',
    'me.access',
    'me.subscriptions',
    'me.buy',
    'me.generate-access',
    'me.use',
    'me.activate',
    'me.auto-renewal',
  ],
  'wallet.self': ['me.wallet', 'me.topup'],
  'referrals.self': [
    'referrals.generate',
    'referrals.use',
    'referrals.update',
    'referrals.deactivate',
    'referrals.mine',
    'referrals.stats',
    'referrals.referred',
  ],
  'roles.read': ['roles.list', 'roles.members', 'roles.assignments', 'roles.of'],
  'referrals.read': ['referrals.search', 'referrals.info'],
  'users.read': ['users.list', 'users.get'],
  'subscriptions.read': ['subscriptions.list', 'subscriptions.list-alt', 'usage-codes.list', 'wallet.list'],
  'services.read': [
    'services.list',
    'services.list-alt',
    'services.detail',
    'services.report',
    'service-plans.list',
    'service-plans.list-alt',
    'service-plans.detail',
    'plans.list',
    'plans.list-alt',
    'plans.report',
  ],
  'referrals.report': [
    'referrals.admin-search',
    'referrals.admin-list',
    'referrals.admin-referred',
    'referrals.admin-user-referred',
    'referrals.admin-user-stats',
  ],
  'audit.read': ['audit.list', 'audit.user'],
  'dashboard.read': ['dashboard.get'],
  'services.manage': [
    'services.create',
    'services.update',
    'services.delete',
    'service-plans.create',
    'service-plans.update',
    'service-plans.manage',
    'service-plans.delete',
    'plans.create',
    'plans.update',
    'plans.delete',
  ],
  'users.write': ['users.create', 'users.update'],
  'users.delete': ['users.delete'],
  'roles.manage': ['roles.create', 'roles.update', 'roles.delete'],
  'roles.assign': ['roles.assign', 'roles.promote', 'roles.demote', 'roles.remove'],
  'subscriptions.manage': ['subscriptions.manage', 'subscriptions.delete', 'cleanup.run', 'usage-codes.generate'],
  'referrals.admin': [],
  'superadmin.users': ['users.search'],
  'superadmin.passwords': ['cms.superadmin.change-password'],
};

// Every account: its own things. Agent and support: the staff reads (roles.read, referrals.read);
// the access rule gives support nothing more than an agent. Manager: the administrator area's
// reads (GET). Admin: the writes. Superadmin: its own two endpoints.
const BASE = ['profile.self', 'services.use', 'wallet.self', 'referrals.self'];
const AGENT = [...BASE, 'roles.read', 'referrals.read'];
const SUPPORT = [...AGENT];
const MANAGER = [...SUPPORT, 'users.read', 'subscriptions.read', 'services.read', 'referrals.report', 'audit.read', 'dashboard.read'];
const ADMIN = [
  ...MANAGER,
  'users.write',
  'users.delete',
  'roles.manage',
  'roles.assign',
  'services.manage',
  'subscriptions.manage',
  'referrals.admin',
];
const SUPERADMIN = [...ADMIN, 'superadmin.users', 'superadmin.passwords'];

export const ROLE_PERMISSIONS: Record<string, string[]> = {
  superadmin: SUPERADMIN,
  admin: ADMIN,
  manager: MANAGER,
  support: SUPPORT,
  agent: AGENT,
  user: BASE,
};

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
// Fixed creation date of the built-in rows: the schema is the same whenever it is created.
const EPOCH = '2024-01-01T00:00:00.000Z';

/** The system roles' grants as ROLE_PERMISSIONS has them (fixed date, granted by nobody). */
const systemGrants = Object.entries(ROLE_PERMISSIONS).flatMap(([role, perms]) =>
  perms.map(
    (p) =>
      `INSERT INTO role_permissions (role_name, permission_name, granted_by, granted_date) VALUES (${q(role)}, ${q(p)}, NULL, ${q(EPOCH)});`,
  ),
);

const systemRows = [
  ...SYSTEM_ROLES.map(
    (r) =>
      `INSERT INTO roles (role_name, display_name, description, priority, is_system_role, is_active, created_by_user, created_date) VALUES (${q(r.role_name)}, ${q(r.display_name)}, ${q(r.description)}, ${r.priority}, 1, 1, NULL, ${q(EPOCH)});`,
  ),
  ...Object.entries(PERMISSIONS).map(
    ([name, description]) =>
      `INSERT INTO permissions (permission_name, description, created_date) VALUES (${q(name)}, ${q(description)}, ${q(EPOCH)});`,
  ),
  ...systemGrants,
].join('\n');

export const userMigrations: Migration[] = [
  {
    id: 'user-001',
    sql: `
CREATE TABLE roles (
  role_id INTEGER PRIMARY KEY AUTOINCREMENT,
  role_name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  display_name TEXT NOT NULL,
  description TEXT,
  priority INTEGER NOT NULL DEFAULT 0,
  is_system_role INTEGER NOT NULL DEFAULT 0,
  is_active INTEGER NOT NULL DEFAULT 1,
  created_by_user INTEGER REFERENCES users(user_id),
  created_date TEXT NOT NULL,
  modified_by_user INTEGER REFERENCES users(user_id),
  modified_date TEXT
);

CREATE TABLE user_roles (
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  role_name TEXT NOT NULL COLLATE NOCASE,
  assigned_by INTEGER REFERENCES users(user_id),
  assigned_at TEXT NOT NULL,
  PRIMARY KEY (user_id, role_name)
);
CREATE INDEX user_roles_role ON user_roles(role_name);

CREATE TABLE permissions (
  permission_id INTEGER PRIMARY KEY AUTOINCREMENT,
  permission_name TEXT NOT NULL UNIQUE,
  description TEXT,
  created_date TEXT NOT NULL
);

CREATE TABLE role_permissions (
  role_name TEXT NOT NULL COLLATE NOCASE,
  permission_name TEXT NOT NULL,
  granted_by INTEGER REFERENCES users(user_id),
  granted_date TEXT NOT NULL,
  PRIMARY KEY (role_name, permission_name)
);

CREATE TABLE profiles (
  user_id INTEGER PRIMARY KEY REFERENCES users(user_id) ON DELETE CASCADE,
  address TEXT,
  city TEXT,
  country TEXT,
  postal_code TEXT,
  profile_picture_url TEXT,
  phone_number TEXT,
  gender TEXT CHECK (gender IS NULL OR gender IN ('Male', 'Female', 'Other')),
  date_of_birth TEXT,
  modified_date TEXT
);

CREATE TABLE devices (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  device_id TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  device_name TEXT,
  device_type TEXT,
  device_token TEXT,
  ip_address TEXT,
  user_agent TEXT,
  is_active INTEGER NOT NULL DEFAULT 1,
  session_id TEXT,
  login_time TEXT,
  logout_time TEXT,
  last_activity_time TEXT,
  created_date TEXT NOT NULL,
  UNIQUE (device_id, user_id)
);
CREATE INDEX devices_user ON devices(user_id);

CREATE TABLE login_history (
  login_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER REFERENCES users(user_id) ON DELETE CASCADE,
  username TEXT,
  login_status TEXT NOT NULL,
  ip_address TEXT,
  user_agent TEXT,
  device_id TEXT,
  login_time TEXT NOT NULL
);
CREATE INDEX login_history_user ON login_history(user_id, login_time);

CREATE TABLE verification_codes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('email', 'sms', 'phone')),
  code TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX verification_codes_user ON verification_codes(user_id, type);

CREATE TABLE password_resets (
  reset_token TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX password_resets_user ON password_resets(user_id);

CREATE TABLE referral_codes (
  referral_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  referral_code TEXT NOT NULL UNIQUE COLLATE NOCASE,
  description TEXT,
  usage_limit INTEGER NOT NULL DEFAULT 10 CHECK (usage_limit >= 1),
  used_count INTEGER NOT NULL DEFAULT 0 CHECK (used_count >= 0 AND used_count <= usage_limit),
  expiry_date TEXT,
  is_active INTEGER NOT NULL DEFAULT 1,
  deactivated_reason TEXT,
  deactivated_date TEXT,
  created_date TEXT NOT NULL,
  modified_date TEXT
);
CREATE INDEX referral_codes_user ON referral_codes(user_id);

CREATE TABLE referral_uses (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  referral_id INTEGER NOT NULL REFERENCES referral_codes(referral_id) ON DELETE CASCADE,
  referrer_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  new_user_id INTEGER NOT NULL UNIQUE REFERENCES users(user_id) ON DELETE CASCADE,
  used_date TEXT NOT NULL
);
CREATE INDEX referral_uses_referrer ON referral_uses(referrer_id);
CREATE INDEX referral_uses_code ON referral_uses(referral_id);

CREATE TABLE payment_orders (
  order_id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  service_plan_id INTEGER,
  plan_code TEXT,
  service_code TEXT,
  gateway_name TEXT NOT NULL,
  amount REAL NOT NULL,
  currency TEXT NOT NULL,
  auto_renewal INTEGER NOT NULL DEFAULT 0,
  payment_status TEXT NOT NULL DEFAULT 'PENDING',
  payment_url TEXT NOT NULL,
  created_date TEXT NOT NULL
);
CREATE INDEX payment_orders_user ON payment_orders(user_id);

${systemRows}
`,
  },
  {
    // The permissions reported for the system roles follow the access rule (see PERMISSIONS), so
    // none promises access the server refuses (an agent's users.read, a support's audit.read, a
    // manager's services.manage). A data file gets the current descriptions and the system
    // roles' current grants; custom roles keep theirs. On a new file this rewrites what user-001
    // just wrote, to the same rows.
    id: 'user-002',
    sql: `
${Object.entries(PERMISSIONS)
  .map(
    ([name, description]) =>
      `INSERT INTO permissions (permission_name, description, created_date) VALUES (${q(name)}, ${q(description)}, ${q(EPOCH)}) ON CONFLICT (permission_name) DO UPDATE SET description = excluded.description;`,
  )
  .join('\n')}
DELETE FROM role_permissions WHERE role_name IN (${SYSTEM_ROLES.map((r) => q(r.role_name)).join(', ')});
${systemGrants.join('\n')}
`,
  },
  {
    // The system roles' descriptions say what the server lets them do (none says that agent or
    // support reads accounts and subscriptions, or that manager manages services and plans: all 403).
    id: 'user-003',
    sql: SYSTEM_ROLES.map(
      (r) => `UPDATE roles SET description = ${q(r.description)} WHERE role_name = ${q(r.role_name)} AND is_system_role = 1;`,
    ).join('\n'),
  },
];
