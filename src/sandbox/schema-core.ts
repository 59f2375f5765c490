/**
 * Tables every area of the sandbox needs: accounts, their roles and bearer tokens, and the
 * audit log. Area tables live in schema-admin.ts and schema-user.ts.
 */
import type { Migration } from './types.js';

/** Roles, highest first. `priority` orders promotion and demotion. */
export const ROLES = ['superadmin', 'admin', 'manager', 'support', 'agent', 'user'] as const;
export type Role = (typeof ROLES)[number];
export const USER_STATUSES = ['Active', 'Inactive', 'Banned', 'Pending'] as const;

export const coreMigrations: Migration[] = [
  {
    id: 'core-001',
    sql: `
CREATE TABLE users (
  user_id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE COLLATE NOCASE,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  full_name TEXT,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL DEFAULT 'user',
  status TEXT NOT NULL DEFAULT 'Active',
  chatgpt_user_id TEXT,
  phone_number TEXT,
  address TEXT,
  is_verified INTEGER NOT NULL DEFAULT 0,
  created_by INTEGER REFERENCES users(user_id),
  created_date TEXT NOT NULL,
  last_login_date TEXT,
  wallet_balance REAL NOT NULL DEFAULT 0 CHECK (wallet_balance >= 0),
  wallet_currency TEXT NOT NULL DEFAULT 'USD',
  last_topup_date TEXT
);
CREATE INDEX users_role ON users(role);
CREATE INDEX users_status ON users(status);

CREATE TABLE tokens (
  token TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(user_id),
  session_id TEXT,
  device_id TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX tokens_user ON tokens(user_id);

CREATE TABLE audit_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER,
  username TEXT,
  module TEXT NOT NULL,
  action TEXT NOT NULL,
  details TEXT,
  ip_address TEXT,
  user_agent TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX audit_logs_user ON audit_logs(user_id, id);
CREATE INDEX audit_logs_created ON audit_logs(created_at);
`,
  },
];

/**
 * Accounts every seeded sandbox has, printed by `subctl sandbox serve`. Passwords are for a
 * local sandbox only.
 */
export const SEEDED_ACCOUNTS = [
  {
    username: 'superadmin',
    password: 'sandbox-superadmin',
    role: 'superadmin' as Role,
    email: 'superadmin@sandbox.local',
    full_name: 'Sandbox Superadmin',
  },
  { username: 'admin', password: 'sandbox-admin', role: 'admin' as Role, email: 'admin@sandbox.local', full_name: 'Sandbox Admin' },
  {
    username: 'manager',
    password: 'sandbox-manager',
    role: 'manager' as Role,
    email: 'manager@sandbox.local',
    full_name: 'Sandbox Manager',
  },
  {
    username: 'support',
    password: 'sandbox-support',
    role: 'support' as Role,
    email: 'support@sandbox.local',
    full_name: 'Sandbox Support',
  },
  { username: 'agent', password: 'sandbox-agent', role: 'agent' as Role, email: 'agent@sandbox.local', full_name: 'Sandbox Agent' },
  { username: 'enduser', password: 'sandbox-enduser', role: 'user' as Role, email: 'enduser@sandbox.local', full_name: 'Eve Enduser' },
];
