/**
 * The sandboxes and the read commands tests/commands/dialects.test.ts and
 * tests/commands/dialects-forms.test.ts run in both dialects of the sandbox
 * (src/sandbox/dialect.ts), with the rows each command must print, read from the database.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { Dialect } from '../../src/sandbox/dialect.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli, type RunOptions, type RunResult } from '../support/run-cli.js';

export const sandboxes = {} as Record<Dialect, Sandbox>;
/** The seeded referrer with the most referred users (a `user`), for the self-service referral reads. */
export let referrer: { user_id: number; username: string };

/** Starts both sandboxes (copies of one seeded file) before the file's tests, and closes them after. */
export function useDialectSandboxes(): void {
  beforeAll(async () => {
    sandboxes.default = await startTestSandbox();
    sandboxes.alt = await startTestSandbox({ dialect: 'alt' });
    referrer = sandboxes.default.db
      .prepare(
        `SELECT u.user_id, u.username FROM referral_uses ru JOIN users u ON u.user_id = ru.referrer_id
        GROUP BY ru.referrer_id ORDER BY COUNT(*) DESC, u.user_id LIMIT 1`,
      )
      .get() as { user_id: number; username: string };
  }, 120_000);
  afterAll(async () => {
    await Promise.all(Object.values(sandboxes).map((s) => s.close()));
  });
}

/** Every JSON value printed on `text`, in order (a command may print more than one). */
export function jsonValues(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if ((c === '}' || c === ']') && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}

/** The rows a list command printed: its one JSON array. */
export function printedRows(r: RunResult): Array<Record<string, unknown>> {
  const arrays = jsonValues(r.stdout).filter(Array.isArray);
  expect(arrays, `one JSON array on stdout, got: ${r.stdout.slice(0, 300)}`).toHaveLength(1);
  return arrays[0] as Array<Record<string, unknown>>;
}

export const ids = (rows: Array<Record<string, unknown>>, key: string) => rows.map((row) => String(row[key]));
export const sorted = (xs: string[]) => [...xs].sort();

/** Every value under `key` anywhere in `v`, as text. */
export function valuesOf(v: unknown, key: string, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) valuesOf(x, key, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === key && (typeof x === 'number' || typeof x === 'string')) out.push(String(x));
      valuesOf(x, key, out);
    }
  }
  return out;
}

/** What a failed run said: its first lines on stderr, the --verbose exchange left out. */
export const said = (r: RunResult) =>
  r.stderr
    .split('\n')
    .filter((l) => !/^[<>]/.test(l))
    .slice(0, 2)
    .join('\n');

export type Who = 'superadmin' | 'enduser' | 'referrer';
export const accountName = (who: Who) => (who === 'referrer' ? referrer.username : who);

/** `args` run against the sandbox of `dialect`, signed in as `who`. */
export async function runAs(dialect: Dialect, args: string, who: Who, opts: RunOptions = {}): Promise<RunResult> {
  const sb = sandboxes[dialect];
  const env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor(accountName(who)), ...opts.env };
  return runCli(args, { ...opts, env });
}

export async function run(dialect: Dialect, line: string, who: Who, verbose = false): Promise<RunResult> {
  return runAs(dialect, `${line} -o json${verbose ? ' --verbose' : ''}`, who);
}

/** Ids of the database of the default sandbox (both hold the same data). */
export const sqlIds = (sql: string, ...args: unknown[]) =>
  (
    sandboxes.default.db
      .prepare(sql)
      .raw(true)
      .all(...args) as unknown[][]
  ).map((r) => String(r[0]));

export interface ListCase {
  line: string;
  /** The endpoint path the command reads its first page from. */
  path: string;
  /** The rows' id field. */
  id: string;
  who: Who;
  /** The ids of every row the list holds. */
  all: () => string[];
}

const ACTIVE_DEVICE_IDS = `SELECT device_id FROM devices WHERE user_id = ? AND is_active = 1`;
export const lists: ListCase[] = [
  {
    line: 'services list',
    path: '/admin/services',
    id: 'service_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT service_id FROM services'),
  },
  {
    line: 'services list-alt',
    path: '/admin/services/list',
    id: 'service_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT service_id FROM services'),
  },
  {
    line: 'services report',
    path: '/admin/services/report',
    id: 'service_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT service_id FROM services'),
  },
  {
    line: 'service-plans list',
    path: '/admin/service-plans',
    id: 'service_plan_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT service_plan_id FROM service_plans'),
  },
  {
    line: 'service-plans list-alt',
    path: '/admin/service-plans/list',
    id: 'service_plan_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT service_plan_id FROM service_plans'),
  },
  {
    line: 'plans list',
    path: '/admin/subscription-plans',
    id: 'plan_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT plan_id FROM subscription_plans'),
  },
  {
    line: 'plans list-alt',
    path: '/admin/subscription-plans/list',
    id: 'plan_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT plan_id FROM subscription_plans'),
  },
  {
    line: 'plans report',
    path: '/admin/subscription-plans/report',
    id: 'plan_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT plan_id FROM subscription_plans'),
  },
  {
    line: 'subscriptions list',
    path: '/admin/subscriptions',
    id: 'subscription_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT subscription_id FROM subscriptions'),
  },
  {
    line: 'subscriptions list-alt',
    path: '/admin/subscriptions/list',
    id: 'subscription_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT subscription_id FROM subscriptions'),
  },
  {
    line: 'usage-codes list',
    path: '/admin/usage-codes/list',
    id: 'code_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT code_id FROM usage_codes'),
  },
  {
    line: 'wallet list',
    path: '/admin/wallet-transactions/list',
    id: 'transaction_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT transaction_id FROM wallet_transactions'),
  },
  { line: 'audit list', path: '/audit', id: 'id', who: 'superadmin', all: () => sqlIds('SELECT id FROM audit_logs') },
  {
    line: 'audit user 1',
    path: '/audit/users/1',
    id: 'id',
    who: 'superadmin',
    all: () => sqlIds('SELECT id FROM audit_logs WHERE user_id = 1'),
  },
  { line: 'users list', path: '/users', id: 'user_id', who: 'superadmin', all: () => sqlIds('SELECT user_id FROM users') },
  { line: 'users search', path: '/cms/superadmin/users', id: 'user_id', who: 'superadmin', all: () => sqlIds('SELECT user_id FROM users') },
  { line: 'roles list', path: '/cms/roles', id: 'role_id', who: 'superadmin', all: () => sqlIds('SELECT role_id FROM roles') },
  {
    line: 'roles members admin',
    path: '/cms/roles/admin/users',
    id: 'user_id',
    who: 'superadmin',
    all: () => sqlIds(`SELECT user_id FROM user_roles WHERE role_name = 'admin'`),
  },
  { line: 'roles assignments', path: '/cms/users/roles', id: 'user_id', who: 'superadmin', all: () => sqlIds('SELECT user_id FROM users') },
  {
    line: 'referrals mine',
    path: '/cms/referral/my-codes',
    id: 'referral_id',
    who: 'referrer',
    all: () => sqlIds('SELECT referral_id FROM referral_codes WHERE user_id = ? AND is_active = 1', referrer.user_id),
  },
  {
    line: 'referrals referred',
    path: '/cms/referred-users',
    id: 'user_id',
    who: 'referrer',
    all: () => sqlIds('SELECT new_user_id FROM referral_uses WHERE referrer_id = ?', referrer.user_id),
  },
  {
    line: 'referrals search',
    path: '/cms/referral-codes/search',
    id: 'referral_id',
    who: 'superadmin',
    all: () =>
      sqlIds(
        'SELECT referral_id FROM referral_codes WHERE is_active = 1 AND (expiry_date IS NULL OR expiry_date > ?) AND used_count < usage_limit',
        new Date().toISOString(),
      ),
  },
  {
    line: 'referrals admin-search',
    path: '/cms/admin/referral-codes/search',
    id: 'referral_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT referral_id FROM referral_codes'),
  },
  {
    line: 'referrals admin-list',
    path: '/cms/admin/referrals',
    id: 'referral_use_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT id FROM referral_uses'),
  },
  {
    line: 'referrals admin-referred',
    path: '/cms/admin/referred-users',
    id: 'user_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT new_user_id FROM referral_uses'),
  },
  {
    line: 'referrals user-referred {referrer}',
    path: '/cms/admin/users/{referrer}/referred-users',
    id: 'user_id',
    who: 'superadmin',
    all: () => sqlIds('SELECT new_user_id FROM referral_uses WHERE referrer_id = ?', referrer.user_id),
  },
  { line: 'devices list', path: '/cms/users/devices', id: 'device_id', who: 'superadmin', all: () => sqlIds(ACTIVE_DEVICE_IDS, 1) },
  {
    line: 'me services',
    path: '/user/services/available',
    id: 'service_id',
    who: 'enduser',
    all: () => sqlIds('SELECT service_id FROM services WHERE is_active = 1'),
  },
  {
    line: 'me plans',
    path: '/user/plans/available',
    id: 'service_plan_id',
    who: 'enduser',
    all: () =>
      sqlIds(`SELECT sp.service_plan_id FROM service_plans sp JOIN subscription_plans p ON p.plan_id = sp.plan_id JOIN services sv ON sv.service_id = sp.service_id
               WHERE sp.is_available = 1 AND p.is_active = 1 AND sv.is_active = 1`),
  },
  {
    line: 'me plans GPT4',
    path: '/user/plans/available',
    id: 'service_plan_id',
    who: 'enduser',
    all: () =>
      sqlIds(`SELECT sp.service_plan_id FROM service_plans sp JOIN subscription_plans p ON p.plan_id = sp.plan_id JOIN services sv ON sv.service_id = sp.service_id
               WHERE sp.is_available = 1 AND p.is_active = 1 AND sv.is_active = 1 AND sv.service_code = 'GPT4'`),
  },
  {
    line: 'me subscriptions',
    path: '/user/subscriptions',
    id: 'subscription_id',
    who: 'enduser',
    all: () => sqlIds(`SELECT subscription_id FROM subscriptions WHERE user_id = (SELECT user_id FROM users WHERE username = 'enduser')`),
  },
  {
    line: 'me test-services',
    path: '/test/services',
    id: 'service_id',
    who: 'enduser',
    all: () => sqlIds('SELECT service_id FROM services WHERE is_active = 1'),
  },
];

/** `{referrer}` in a case's line or path (and test name): the seeded top referrer's user id. */
export const fill = (s: string) => s.replace('{referrer}', String(referrer.user_id));

export interface OneCase {
  line: string;
  who: Who;
  /** Identifying values the answer must carry: field name to the values the database holds. */
  expect: () => Record<string, string[]>;
  /** One of the values is enough (an answer that picks one row of several). */
  oneOf?: boolean;
}

const userId = (username: string) => sqlIds('SELECT user_id FROM users WHERE username = ?', username);
export const ones: OneCase[] = [
  {
    line: 'services get GPT4',
    who: 'superadmin',
    expect: () => ({ service_id: sqlIds(`SELECT service_id FROM services WHERE service_code = 'GPT4'`) }),
  },
  {
    line: 'service-plans get 1',
    who: 'superadmin',
    expect: () => ({ service_plan_id: ['1'], plan_id: sqlIds('SELECT plan_id FROM service_plans WHERE service_plan_id = 1') }),
  },
  { line: 'users get 1', who: 'superadmin', expect: () => ({ user_id: ['1'], username: ['superadmin'] }) },
  { line: 'roles of 1', who: 'superadmin', expect: () => ({ user_id: ['1'], role_name: ['superadmin'] }) },
  {
    line: 'referrals info 1',
    who: 'superadmin',
    expect: () => ({ user_id: ['1'], referral_id: sqlIds('SELECT referral_id FROM referral_codes WHERE user_id = 1') }),
  },
  {
    line: 'referrals stats',
    who: 'referrer',
    expect: () => ({
      user_id: [String(referrer.user_id)],
      referral_id: sqlIds('SELECT referral_id FROM referral_codes WHERE user_id = ?', referrer.user_id),
    }),
  },
  {
    line: 'referrals user-stats {referrer}',
    who: 'superadmin',
    expect: () => ({
      user_id: [String(referrer.user_id)],
      referral_id: sqlIds('SELECT referral_id FROM referral_codes WHERE user_id = ?', referrer.user_id),
    }),
  },
  {
    line: 'dashboard',
    who: 'superadmin',
    expect: () => ({ subscriptions: sqlIds('SELECT COUNT(*) FROM subscriptions'), users: sqlIds('SELECT COUNT(*) FROM users') }),
  },
  { line: 'profile get', who: 'superadmin', expect: () => ({ user_id: userId('superadmin'), username: ['superadmin'] }) },
  { line: 'auth status', who: 'superadmin', expect: () => ({ username: ['superadmin'] }) },
  { line: 'me wallet', who: 'enduser', expect: () => ({ user_id: userId('enduser') }) },
  {
    line: 'me access GPT4',
    who: 'enduser',
    expect: () => ({
      subscription_id: sqlIds(
        `SELECT subscription_id FROM subscriptions s JOIN services sv ON sv.service_id = s.service_id WHERE sv.service_code = 'GPT4' AND s.user_id = (SELECT user_id FROM users WHERE username = 'enduser') AND s.status = 'active'`,
      ),
    }),
    oneOf: true,
  },
];
