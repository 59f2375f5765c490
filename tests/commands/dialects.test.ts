/**
 * The read commands of every group against the sandbox in both of its dialects (src/sandbox/dialect.ts):
 * the default one, and `alt`, which answers the same data in another reading of the API
 * documents (decimals and ids as strings, booleans as 0/1, lists under other keys or bare,
 * pagination under other names). Each command runs with `-o json`, must exit 0 and print the
 * rows the sandbox holds, compared by id (as text: `alt` sends ids as strings):
 * - every list with `--all`: the ids the sandbox's SQLite database holds for it;
 * - every list without `--all`: the ids the default dialect answers to the very request the
 *   command sent (read from `--verbose`), the same data in both sandboxes;
 * - every get, detail, report, stats and info: the identifying values the database holds.
 * Both sandboxes start from copies of the same seeded file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/sandbox/dialect.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli, type RunResult } from '../support/run-cli.js';

const sandboxes = {} as Record<Dialect, Sandbox>;
/** The seeded referrer with the most referred users (a `user`), for the self-service referral reads. */
let referrer: { user_id: number; username: string };

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

/** Every JSON value printed on `text`, in order (a command may print more than one). */
function jsonValues(text: string): unknown[] {
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
function printedRows(r: RunResult): Array<Record<string, unknown>> {
  const arrays = jsonValues(r.stdout).filter(Array.isArray);
  expect(arrays, `one JSON array on stdout, got: ${r.stdout.slice(0, 300)}`).toHaveLength(1);
  return arrays[0] as Array<Record<string, unknown>>;
}

const ids = (rows: Array<Record<string, unknown>>, key: string) => rows.map((row) => String(row[key]));
const sorted = (xs: string[]) => [...xs].sort();

/** Every value under `key` anywhere in `v`, as text. */
function valuesOf(v: unknown, key: string, out: string[] = []): string[] {
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
const said = (r: RunResult) =>
  r.stderr
    .split('\n')
    .filter((l) => !/^[<>]/.test(l))
    .slice(0, 2)
    .join('\n');

type Who = 'superadmin' | 'enduser' | 'referrer';
const accountName = (who: Who) => (who === 'referrer' ? referrer.username : who);

async function run(dialect: Dialect, line: string, who: Who, verbose = false): Promise<RunResult> {
  const sb = sandboxes[dialect];
  const env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor(accountName(who)) };
  return runCli(`${line} -o json${verbose ? ' --verbose' : ''}`, { env });
}

/** Ids of the database of the default sandbox (both hold the same data). */
const sqlIds = (sql: string, ...args: unknown[]) =>
  (
    sandboxes.default.db
      .prepare(sql)
      .raw(true)
      .all(...args) as unknown[][]
  ).map((r) => String(r[0]));

/**
 * The rows the default dialect answers to the first GET of `path` that run `r` sent (read from
 * its --verbose log), asked again of the default sandbox as `who`.
 */
async function defaultAnswerRows(dialect: Dialect, r: RunResult, path: string, who: Who, key: string): Promise<string[]> {
  const base = sandboxes[dialect].url;
  const sent = r.stderr
    .split('\n')
    .map((l) => /^> GET (\S+) \(attempt 1\//.exec(l)?.[1])
    .find((u) => u !== undefined && u.startsWith(base) && new URL(u).pathname === path);
  expect(sent, `the command sent GET ${path}; its log: ${r.stderr.slice(0, 300)}`).toBeDefined();
  const u = new URL(sent!);
  const res = await fetch(`${sandboxes.default.url}${u.pathname}${u.search}`, {
    headers: { authorization: `Bearer ${sandboxes.default.tokenFor(accountName(who))}`, 'x-device-id': 'dialects-test' },
  });
  const data = ((await res.json()) as { data: unknown }).data;
  const rows = Array.isArray(data)
    ? data
    : Object.values(data as Record<string, unknown>).find(
        (v) => Array.isArray(v) && (v.length === 0 || (v[0] as Record<string, unknown>)[key] !== undefined),
      );
  expect(Array.isArray(rows), `rows with ${key} in the default answer to ${u.pathname}`).toBe(true);
  return ids(rows as Array<Record<string, unknown>>, key);
}

interface ListCase {
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
const lists: ListCase[] = [
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
const fill = (s: string) => s.replace('{referrer}', String(referrer.user_id));

interface OneCase {
  line: string;
  who: Who;
  /** Identifying values the answer must carry: field name to the values the database holds. */
  expect: () => Record<string, string[]>;
  /** One of the values is enough (an answer that picks one row of several). */
  oneOf?: boolean;
}

const userId = (username: string) => sqlIds('SELECT user_id FROM users WHERE username = ?', username);
const ones: OneCase[] = [
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

describe.each(['default', 'alt'] as const)('the %s dialect', (dialect) => {
  describe('every list, first page', () => {
    it.each(lists.map((c) => [c.line, c] as const))(
      '%s',
      async (_, c) => {
        const r = await run(dialect, fill(c.line), c.who, true);
        expect(r.code, said(r)).toBe(0);
        const expected = await defaultAnswerRows(dialect, r, fill(c.path), c.who, c.id);
        expect(ids(printedRows(r), c.id)).toEqual(expected);
      },
      120_000,
    );
  });

  describe('every list with --all', () => {
    it.each(lists.map((c) => [c.line, c] as const))(
      '%s --all',
      async (_, c) => {
        const r = await run(dialect, `${fill(c.line)} --all`, c.who);
        expect(r.code, said(r)).toBe(0);
        const expected = c.all();
        expect(expected.length, 'the seeded data holds rows for this list').toBeGreaterThan(0);
        expect(sorted(ids(printedRows(r), c.id))).toEqual(sorted(expected));
      },
      300_000,
    );
  });

  describe('every get, detail, report, stats and info', () => {
    it.each(ones.map((c) => [c.line, c] as const))(
      '%s',
      async (_, c) => {
        const line = fill(c.line);
        const r = await run(dialect, line, c.who);
        expect(r.code, said(r)).toBe(0);
        const printed = jsonValues(r.stdout);
        expect(printed.length, `JSON on stdout, got: ${r.stdout.slice(0, 300)}`).toBeGreaterThan(0);
        for (const [key, values] of Object.entries(c.expect())) {
          expect(values.length, `the database holds ${key} for ${line}`).toBeGreaterThan(0);
          const found = new Set(valuesOf(printed, key));
          if (c.oneOf)
            expect(
              values.some((v) => found.has(v)),
              `one of ${key} ${values.join(', ')} in the output of ${line}`,
            ).toBe(true);
          else for (const v of values) expect(found.has(v), `${key} ${v} in the output of ${line}`).toBe(true);
        }
      },
      120_000,
    );
  });
});
