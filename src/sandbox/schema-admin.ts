/**
 * Tables of the administrator area (the API documents' administrator area): services, subscription plans, the
 * links between them, user subscriptions, usage codes, wallet transactions and usage logs.
 * The end-user area (schema-user.ts, handlers/user.ts) reads and writes the same tables.
 *
 * Conventions: dates are ISO-8601 UTC text (`2025-03-01T10:00:00.000Z`), so text comparison
 * is time order and a `YYYY-MM-DD` filter compares as a prefix; booleans are 0/1; codes are
 * unique without regard to case. Every filter and sort of the admin lists has an index.
 *
 * References: deleting a user removes everything of theirs (as the user area's tables do);
 * deleting a service or plan removes its links, and leaves subscriptions and codes as history
 * with the reference set to NULL; wallet transactions are financial history and keep
 * `related_subscription_id` as a plain number (no foreign key), as usage logs keep theirs.
 */
import type { Migration } from './types.js';

export const adminMigrations: Migration[] = [
  {
    id: 'admin-001',
    sql: `
CREATE TABLE services (
  service_id INTEGER PRIMARY KEY AUTOINCREMENT,
  service_code TEXT NOT NULL UNIQUE COLLATE NOCASE,
  service_name TEXT NOT NULL,
  service_type TEXT NOT NULL CHECK (service_type IN ('TIME_BASED', 'USAGE_BASED', 'HYBRID')),
  provider_name TEXT NOT NULL,
  description TEXT,
  base_service_url TEXT NOT NULL,
  access_pattern TEXT NOT NULL,
  credit_reset_cycle TEXT NOT NULL CHECK (credit_reset_cycle IN ('daily', 'weekly', 'monthly', 'yearly')),
  is_active INTEGER NOT NULL DEFAULT 1,
  requires_auth INTEGER NOT NULL DEFAULT 1,
  -- The service report's type filter (api, webhook, integration, external) is a different
  -- vocabulary from service_type; the sandbox keeps it as its own column.
  report_type TEXT NOT NULL DEFAULT 'api' CHECK (report_type IN ('api', 'webhook', 'integration', 'external')),
  created_by INTEGER REFERENCES users(user_id) ON DELETE SET NULL,
  updated_by INTEGER REFERENCES users(user_id) ON DELETE SET NULL,
  created_date TEXT NOT NULL,
  last_updated TEXT NOT NULL
);
CREATE INDEX services_type ON services(service_type);
CREATE INDEX services_created ON services(created_date);
CREATE INDEX services_name ON services(service_name);
CREATE INDEX services_provider ON services(provider_name);

CREATE TABLE subscription_plans (
  plan_id INTEGER PRIMARY KEY AUTOINCREMENT,
  plan_code TEXT NOT NULL UNIQUE COLLATE NOCASE,
  plan_name TEXT NOT NULL,
  description TEXT,
  price REAL NOT NULL CHECK (price >= 0),
  currency TEXT NOT NULL DEFAULT 'USD',
  duration INTEGER NOT NULL,
  duration_unit TEXT NOT NULL CHECK (duration_unit IN ('days', 'months', 'years')),
  credit_amount INTEGER NOT NULL DEFAULT 0,
  credit_unit TEXT NOT NULL CHECK (credit_unit IN ('requests', 'tokens', 'minutes', 'hours')),
  max_usage_per_day INTEGER,
  auto_renewal INTEGER NOT NULL DEFAULT 0,
  is_active INTEGER NOT NULL DEFAULT 1,
  created_by INTEGER REFERENCES users(user_id) ON DELETE SET NULL,
  updated_by INTEGER REFERENCES users(user_id) ON DELETE SET NULL,
  created_date TEXT NOT NULL,
  last_updated TEXT NOT NULL
);
CREATE INDEX plans_created ON subscription_plans(created_date);
CREATE INDEX plans_name ON subscription_plans(plan_name);
CREATE INDEX plans_price ON subscription_plans(price);

CREATE TABLE service_plans (
  service_plan_id INTEGER PRIMARY KEY AUTOINCREMENT,
  service_id INTEGER NOT NULL REFERENCES services(service_id) ON DELETE CASCADE,
  plan_id INTEGER NOT NULL REFERENCES subscription_plans(plan_id) ON DELETE CASCADE,
  is_available INTEGER NOT NULL DEFAULT 1,
  created_by INTEGER REFERENCES users(user_id) ON DELETE SET NULL,
  created_date TEXT NOT NULL,
  last_updated TEXT NOT NULL,
  UNIQUE (service_id, plan_id)
);
CREATE INDEX service_plans_plan ON service_plans(plan_id);
CREATE INDEX service_plans_created ON service_plans(created_date);

CREATE TABLE subscriptions (
  subscription_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  service_id INTEGER REFERENCES services(service_id) ON DELETE SET NULL,
  plan_id INTEGER REFERENCES subscription_plans(plan_id) ON DELETE SET NULL,
  service_plan_id INTEGER REFERENCES service_plans(service_plan_id) ON DELETE SET NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'expired', 'cancelled', 'paused')),
  start_date TEXT NOT NULL,
  end_date TEXT NOT NULL,
  auto_renewal INTEGER NOT NULL DEFAULT 0,
  payment_method TEXT,
  price REAL NOT NULL DEFAULT 0,
  currency TEXT NOT NULL DEFAULT 'USD',
  total_credits INTEGER NOT NULL DEFAULT 0,
  used_credits INTEGER NOT NULL DEFAULT 0 CHECK (used_credits >= 0),
  renewal_count INTEGER NOT NULL DEFAULT 0,
  activation_code TEXT,
  activation_batch TEXT,
  total_usage_count INTEGER NOT NULL DEFAULT 0,
  last_usage_date TEXT,
  last_reset_date TEXT,
  next_reset_date TEXT,
  created_date TEXT NOT NULL,
  last_updated TEXT NOT NULL
);
CREATE INDEX subscriptions_created ON subscriptions(created_date);
CREATE INDEX subscriptions_status_created ON subscriptions(status, created_date);
CREATE INDEX subscriptions_status_end ON subscriptions(status, end_date);
CREATE INDEX subscriptions_start ON subscriptions(start_date);
CREATE INDEX subscriptions_end ON subscriptions(end_date);
CREATE INDEX subscriptions_user ON subscriptions(user_id, created_date);
CREATE INDEX subscriptions_service ON subscriptions(service_id, status);
CREATE INDEX subscriptions_plan ON subscriptions(plan_id, status);
CREATE INDEX subscriptions_service_plan ON subscriptions(service_plan_id);
CREATE INDEX subscriptions_payment ON subscriptions(payment_method, created_date);

CREATE TABLE usage_codes (
  code_id INTEGER PRIMARY KEY AUTOINCREMENT,
  code_value TEXT NOT NULL UNIQUE COLLATE NOCASE,
  batch_id TEXT NOT NULL,
  service_plan_id INTEGER REFERENCES service_plans(service_plan_id) ON DELETE SET NULL,
  credit_amount INTEGER NOT NULL DEFAULT 0,
  price REAL NOT NULL DEFAULT 0,
  is_used INTEGER NOT NULL DEFAULT 0,
  used_by INTEGER REFERENCES users(user_id) ON DELETE SET NULL,
  used_date TEXT,
  used_in_subscription INTEGER REFERENCES subscriptions(subscription_id) ON DELETE SET NULL,
  expiry_date TEXT NOT NULL,
  created_by INTEGER REFERENCES users(user_id) ON DELETE SET NULL,
  created_date TEXT NOT NULL
);
CREATE INDEX usage_codes_batch ON usage_codes(batch_id);
CREATE INDEX usage_codes_link ON usage_codes(service_plan_id, is_used);
CREATE INDEX usage_codes_created ON usage_codes(created_date);
CREATE INDEX usage_codes_used_date ON usage_codes(used_date);
CREATE INDEX usage_codes_expiry ON usage_codes(expiry_date);
CREATE INDEX usage_codes_used_by ON usage_codes(used_by);
CREATE INDEX usage_codes_subscription ON usage_codes(used_in_subscription);

CREATE TABLE wallet_transactions (
  transaction_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  transaction_type TEXT NOT NULL CHECK (transaction_type IN ('topup', 'deduct', 'refund', 'auto_renewal')),
  amount REAL NOT NULL CHECK (amount >= 0),
  balance_before REAL NOT NULL CHECK (balance_before >= 0),
  balance_after REAL NOT NULL CHECK (balance_after >= 0),
  currency TEXT NOT NULL DEFAULT 'USD',
  payment_method TEXT,
  status TEXT NOT NULL DEFAULT 'completed',
  description TEXT,
  transaction_reference TEXT,
  related_subscription_id INTEGER,
  transaction_date TEXT NOT NULL,
  created_date TEXT NOT NULL
);
CREATE INDEX wallet_date ON wallet_transactions(transaction_date);
CREATE INDEX wallet_user ON wallet_transactions(user_id, transaction_date);
CREATE INDEX wallet_type ON wallet_transactions(transaction_type, transaction_date);
CREATE INDEX wallet_payment ON wallet_transactions(payment_method, transaction_date);
CREATE INDEX wallet_amount ON wallet_transactions(amount);
-- Covers the summary: one GROUP BY over this index instead of a scan of the table.
CREATE INDEX wallet_summary ON wallet_transactions(transaction_type, payment_method, status, amount, transaction_date);

CREATE TABLE usage_logs (
  usage_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
  subscription_id INTEGER,
  service_id INTEGER,
  usage_amount INTEGER NOT NULL DEFAULT 1,
  usage_type TEXT NOT NULL DEFAULT 'api_call',
  response_time REAL,
  used_at TEXT NOT NULL
);
CREATE INDEX usage_logs_used_at ON usage_logs(used_at);
CREATE INDEX usage_logs_service ON usage_logs(service_id, used_at);
CREATE INDEX usage_logs_subscription ON usage_logs(subscription_id, used_at);
CREATE INDEX usage_logs_user ON usage_logs(user_id, used_at);

-- The audit list filters by module and action, newest first.
CREATE INDEX audit_logs_module ON audit_logs(module, id);
CREATE INDEX audit_logs_action ON audit_logs(action, id);
`,
  },
  {
    // Usage-code batch ids are codes, matched without regard to case like service_code and
    // plan_code (README-decisions.md): the list filter and generate's "batch exists" check
    // compare with COLLATE NOCASE, which this index serves. (The column keeps its binary
    // collation, and usage_codes_batch stays for the BatchID sort: changing a column's collation
    // means rebuilding the table.)
    id: 'admin-002',
    sql: `
CREATE INDEX usage_codes_batch_nocase ON usage_codes(batch_id COLLATE NOCASE);
`,
  },
];
