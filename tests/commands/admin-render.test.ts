/**
 * What the administrator sees: default columns on an 80-column terminal, every format on every
 * list, summaries, the dashboard and service detail drawn on a terminal and plain off one, and
 * the manage preview.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli } from '../support/run-cli.js';

let sb: Sandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sb = await startTestSandbox();
  env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin'), FORCE_COLOR: '0' };
});
afterAll(() => sb?.close());

const LISTS = [
  'services list',
  'service-plans list',
  'service-plans list-alt',
  'plans list',
  'subscriptions list',
  'usage-codes list',
  'wallet list',
  'audit list',
  'users list',
  'roles list',
  'referrals admin-list',
];

describe('every list', () => {
  it.each(LISTS)('%s: default columns fit an 80-column terminal', async (line) => {
    const r = await runCli(line, { env, tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80);
  });

  it.each(LISTS)('%s: table, json, ndjson and csv all work', async (line) => {
    const json = await runCli(`${line} -o json --page-size 3`, { env });
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as unknown[];
    expect(rows.length).toBeGreaterThan(0);
    const nd = await runCli(`${line} -o ndjson --page-size 3`, { env });
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(rows);
    const csv = await runCli(`${line} -o csv --page-size 3`, { env });
    expect(csv.code).toBe(0);
    expect(csv.stdout.split('\n')[0].split(',').length).toBeGreaterThan(1);
    const table = await runCli(`${line} --page-size 3`, { env });
    expect(table.code).toBe(0);
    expect(table.stdout.trim().split('\n')).toHaveLength(rows.length + 1);
  });
});

describe('summaries', () => {
  it('usage-codes list: the summary on stderr under a table, its own object under json', async () => {
    const t = await runCli('usage-codes list --page-size 2', { env });
    expect(t.stderr).toMatch(/^Summary$/m);
    expect(t.stderr).toMatch(/^ {2}total_codes +\d+$/m);
    const j = await runCli('usage-codes list --page-size 2 -o json', { env });
    expect(JSON.parse(j.stdout)).toHaveLength(2);
    expect(JSON.parse(j.stderr.trim()).summary.total_codes).toBeGreaterThan(0);
  });

  it('wallet list: the summary block too', async () => {
    const t = await runCli('wallet list --transaction-type topup --page-size 2', { env });
    expect(t.stderr).toMatch(/total_topup_amount/);
  });
});

describe('dashboard and service detail', () => {
  it('dashboard on a terminal draws series as sparklines; off one, plain values', async () => {
    const tty = await runCli('dashboard', { env, tty: true, columns: 100 });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toMatch(/[▁▂▃▄▅▆▇█]{5,}/);
    const plain = await runCli('dashboard', { env });
    expect(plain.stdout).not.toMatch(/[▁▂▃▄▅▆▇█]/);
    expect(plain.stdout.length).toBeGreaterThan(100);
    const json = await runCli('dashboard -o json', { env });
    expect(typeof JSON.parse(json.stdout)).toBe('object');
    // Piped, every item of every list (30 days of revenue), none cut off as "… 10 more".
    const data = JSON.parse(json.stdout) as { revenue_by_day: unknown[] };
    expect(data.revenue_by_day.length).toBeGreaterThan(20);
    expect(plain.stdout).not.toContain('more');
    // Ids are never grouped with separators (an id is copied as it is); other numbers are, on a terminal.
    expect(tty.stdout).toMatch(/\bid: \d{4,}/);
    // Times as every time on a terminal: local YYYY-MM-DD HH:mm:ss, not the locale's "11/23/2026, 4:54:17 AM".
    // A time on a terminal: to the second, with its zone (src/output/time.ts).
    expect(tty.stdout).toMatch(/^generated_at: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{2}:\d{2}$/m);
    expect(tty.stdout).not.toMatch(/\bid: \d{1,3},\d{3}/);
  });

  it('--fields on a detail picks the same paths from the answer in every format (no sections around them)', async () => {
    const fields = '--fields service_info.service_code,service_info.service_name';
    const plain = await runCli(`services get GPT4 ${fields}`, { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('service_info.service_code\tGPT4\nservice_info.service_name\tGPT-4 Chat\n');
    const json = await runCli(`services get GPT4 ${fields} -o json`, { env });
    expect(JSON.parse(json.stdout)).toEqual({ 'service_info.service_code': 'GPT4', 'service_info.service_name': 'GPT-4 Chat' });
    const csv = await runCli(`services get GPT4 ${fields} -o csv`, { env });
    expect(csv.stdout).toBe('service_info.service_code,service_info.service_name\nGPT4,GPT-4 Chat\n');
    for (const r of [plain, json, csv]) expect(r.stderr).not.toContain('warning');
  });

  it('services get shows the five parts; usage drawn as a chart on a terminal', async () => {
    const tty = await runCli('services get --service-code GPT4', { env, tty: true, columns: 120 });
    expect(tty.code, tty.stderr).toBe(0);
    for (const part of ['GPT4', 'Plans (', 'Active subscriptions (', 'Top users (']) expect(tty.stdout).toContain(part);
    expect(tty.stdout).toMatch(/usage +[▁▂▃▄▅▆▇█]+/);
    expect(tty.stdout).toMatch(/unique users +[▁▂▃▄▅▆▇█]+/);
    const plain = await runCli('services get GPT4', { env });
    expect(plain.stdout).toContain('Usage statistics (');
    const json = JSON.parse((await runCli('services get GPT4 -o json', { env })).stdout);
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining(['service_info', 'service_plans', 'active_subscriptions', 'top_users', 'usage_statistics']),
    );
  });

  it('service-plans get shows info, subscriptions and codes', async () => {
    const id = (
      sb.db.prepare('SELECT service_plan_id FROM service_plans ORDER BY service_plan_id LIMIT 1').get() as { service_plan_id: number }
    ).service_plan_id;
    const r = await runCli(`service-plans get ${id}`, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Subscriptions (');
    expect(r.stdout).toContain('Usage codes (');
  });
});

describe('subscriptions manage on a terminal', () => {
  it('shows the current state and the change, asks, then sends', async () => {
    const sub = sb.db
      .prepare(
        "SELECT s.subscription_id, u.username, s.end_date FROM subscriptions s JOIN users u ON u.user_id = s.user_id WHERE s.status = 'active' ORDER BY s.subscription_id LIMIT 1",
      )
      .get() as {
      subscription_id: number;
      username: string;
      end_date: string;
    };
    const r = await runCli(
      `subscriptions manage ${sub.subscription_id} --action extend --reason "ticket" --extend-days 10 --username ${sub.username}`,
      { env, tty: true, answers: ['y'] },
    );
    expect(r.code, r.stderr).toBe(0);
    const newEnd = new Date(Date.parse(sub.end_date) + 10 * 86_400_000).toISOString().slice(0, 10);
    expect(r.stderr).toContain(`subscription ${sub.subscription_id}: ${sub.username}`);
    expect(r.stderr).toContain(`end_date: ${sub.end_date.slice(0, 10)} -> ${newEnd}`);
    expect(r.stderr).toMatch(/Proceed\? \[y\/N\]/);
    const after = sb.db.prepare('SELECT end_date FROM subscriptions WHERE subscription_id = ?').get(sub.subscription_id) as {
      end_date: string;
    };
    expect(after.end_date.slice(0, 10)).toBe(newEnd);
  });

  it('answering no sends nothing', async () => {
    const sub = sb.db
      .prepare("SELECT subscription_id, status FROM subscriptions WHERE status = 'active' ORDER BY subscription_id DESC LIMIT 1")
      .get() as { subscription_id: number };
    const r = await runCli(`subscriptions manage ${sub.subscription_id} --action pause --reason "no"`, { env, tty: true, answers: ['n'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/status: active -> paused/);
    expect(
      (sb.db.prepare('SELECT status FROM subscriptions WHERE subscription_id = ?').get(sub.subscription_id) as { status: string }).status,
    ).toBe('active');
  });
});

describe('cleanup on a terminal', () => {
  it('a dry run says so once, in its heading, then the counts', async () => {
    const r = await runCli('cleanup --dry-run', { env, tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Would remove (dry run, nothing removed):');
    expect(lines.slice(1, 4).map((l) => l.trim().split(/\s+/)[0])).toEqual(['expired_subscriptions', 'inactive_tokens', 'usage_logs']);
    // Then the thresholds and cutoffs the platform says it used.
    expect(lines[4]).toBe('thresholds:');
    expect(lines[5]).toMatch(/^ {2}cleanup_expired_days +90$/);
    expect(r.stdout).toMatch(/\ncutoffs:\n {2}expired_subscriptions_before +\d{4}-/);
    expect(r.stdout).not.toContain('dry_run');
  });

  it('a real run asks with what will go: each threshold as given or the platform default, and the counts of a dry run made just before', async () => {
    const expired = () =>
      (sb.db.prepare("SELECT COUNT(*) AS n FROM subscriptions WHERE status IN ('expired', 'cancelled')").get() as { n: number }).n;
    const before = expired();
    const r = await runCli('cleanup --cleanup-usage-logs-days 3650', { env, tty: true, columns: 100, answers: ['n'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('remove subscription data for real:\n');
    expect(r.stderr).toContain(
      "  expired subscriptions: --cleanup-expired-days not given, the platform's default applies (it says 90 days)\n",
    );
    expect(r.stderr).toContain(
      "  inactive tokens: --cleanup-inactive-tokens-days not given, the platform's default applies (it says 30 days)\n",
    );
    expect(r.stderr).toContain('  usage logs older than 3650 days\n');
    expect(r.stderr).toMatch(/ {2}a dry run of the same counts: expired_subscriptions \d+, inactive_tokens \d+, usage_logs 0\n/);
    expect(r.stderr).toContain('cancelled: nothing was changed');
    expect(expired()).toBe(before);
  });

  it('-q: a real run prints nothing, a dry run still prints its counts (its result)', async () => {
    const dry = await runCli('-q cleanup --dry-run --cleanup-expired-days 400', { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^Would remove \(dry run, nothing removed\):\n {2}expired_subscriptions +\d+\n/);
    expect(dry.stderr).toBe('');
    const real = await runCli(
      '-q cleanup --cleanup-expired-days 4000 --cleanup-inactive-tokens-days 4000 --cleanup-usage-logs-days 4000 --yes',
      { env },
    );
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout + real.stderr).toBe('');
  });

  it('-o json carries the thresholds and cutoffs; --fields picks from the record', async () => {
    const r = await runCli('cleanup --cleanup-expired-days 400 --dry-run -o json', { env });
    expect(r.code, r.stderr).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(Object.keys(o).slice(0, 4)).toEqual(['dry_run', 'cleanup_summary', 'thresholds', 'cutoffs']);
    expect(o.thresholds).toEqual({ cleanup_expired_days: 400, cleanup_inactive_tokens_days: 30, cleanup_usage_logs_days: 180 });
    const f = await runCli(
      'cleanup --cleanup-expired-days 400 --dry-run -o json --fields thresholds.cleanup_inactive_tokens_days,cleanup_summary.usage_logs',
      { env },
    );
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toMatch(/^\{"thresholds.cleanup_inactive_tokens_days":30,"cleanup_summary.usage_logs":\d+\}\n$/);
  });
});

describe('csv of the report lists carries every field', () => {
  it('services report and plans report: the table columns first, then every other field of the answer (7 of 14 were dropped)', async () => {
    for (const [line, lead] of [
      [
        'services report',
        ['service_id', 'service_code', 'service_name', 'service_type', 'is_active', 'active_subscriptions_count', 'today_usage_count'],
      ],
      ['plans report', ['plan_id', 'plan_code', 'plan_name']],
    ] as Array<[string, string[]]>) {
      const json = await runCli(`${line} -o json`, { env });
      const csv = await runCli(`${line} -o csv`, { env });
      expect(csv.code, csv.stderr).toBe(0);
      const header = csv.stdout.split('\n')[0].split(',');
      const first = (JSON.parse(json.stdout) as Array<Record<string, unknown>>)[0];
      expect([...header].sort(), line).toEqual(Object.keys(first).sort());
      expect(header.slice(0, lead.length), line).toEqual(lead);
    }
    // An empty report: the contract's item fields, the table's columns first.
    const empty = await runCli('services report --service-code NO-SUCH-SERVICE -o csv', { env });
    expect(empty.code, empty.stderr).toBe(0);
    const header = empty.stdout.trimEnd().split(',');
    expect(empty.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(header.slice(0, 2)).toEqual(['service_id', 'service_code']);
    expect(header).toContain('provider_name');
    expect(header).toContain('last_usage_date');
  });
});
