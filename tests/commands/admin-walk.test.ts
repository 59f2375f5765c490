/**
 * The administrator area end to end against the real sandbox: the exact forms of the command-line specification, a
 * scripted walk through the whole area, the cron run of cleanup, and a CSV export read back by
 * Python's csv module.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processStart } from '../../src/config/lock.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/subctl.js');
const DAY = 86_400_000;
let sb: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await startTestSandbox();
  env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin') };
});
afterAll(() => sb?.close());

const json = (s: string) => JSON.parse(s);

describe('exact forms of the command-line specification (administrator area)', () => {
  it.each([
    'services list --service-type HYBRID --is-active true --page-size 50 --sort-by ServiceName --sort-order ASC -o json',
    'subscriptions list --status active --service-code GPT4 --all -o csv',
    'wallet list --transaction-type refund --date-from 2026-01-01 --date-to 2026-01-31 -o ndjson',
    'audit list --module subscriptions --action manage --start-date 2026-11-01 --page-size 100',
    'cleanup --cleanup-expired-days 90 --cleanup-usage-logs-days 180 --dry-run -o json',
    'api GET /admin/services -f page_size=5',
    'api endpoints -o json',
    'dashboard',
    'plans report --include-stats',
    'usage-codes list --is-used false --page-size 5',
  ])('%s', async (line) => {
    const r = await runCli(line, { env });
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
  });

  it('services list with the exact form returns only HYBRID active services, sorted by name', async () => {
    const r = await runCli(
      'services list --service-type HYBRID --is-active true --page-size 50 --sort-by ServiceName --sort-order ASC -o json',
      { env },
    );
    const rows = json(r.stdout) as Array<{ service_type: string; is_active: boolean; service_name: string }>;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((s) => s.service_type === 'HYBRID' && s.is_active === true)).toBe(true);
    const names = rows.map((s) => s.service_name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
  });

  it('api endpoints lists all 95 endpoints, and nothing else', async () => {
    const r = await runCli('api endpoints -o json', { env });
    const rows = json(r.stdout) as Array<{ method: string; path: string; name: string }>;
    expect(rows).toHaveLength(95);
    expect(new Set(rows.map((e) => `${e.method} ${e.path}`)).size).toBe(95);
  });
});

describe('api --input', () => {
  const body = (name: Buffer) =>
    Buffer.concat([
      Buffer.from('{"service_code":"ENC1","service_name":"'),
      name,
      Buffer.from(
        '","service_type":"USAGE_BASED","provider_name":"OpenAI","base_service_url":"https://api.example.com","access_pattern":"/v1/*","credit_reset_cycle":"monthly"}\n',
      ),
    ]);
  const held = () =>
    sb.db.prepare("SELECT service_name FROM services WHERE service_code = 'ENC1'").all() as Array<{ service_name: string }>;

  it('a body that is not UTF-8 is refused before sending (exit 2, line and byte named); the same body in UTF-8 is created as written', async () => {
    const latin1 = await runCli(['api', 'POST', '/admin/services', '--input', '-'], {
      env,
      stdin: body(Buffer.from([0x43, 0x61, 0x66, 0xe9])),
    });
    expect(latin1.code).toBe(2);
    expect(latin1.stderr).toContain('error: --input -: line 1: not valid UTF-8 (byte 0xE9 at byte 43 of the line)\n');
    expect(held()).toEqual([]);
    const utf8 = await runCli(['api', 'POST', '/admin/services', '--input', '-', '-o', 'json'], {
      env,
      stdin: body(Buffer.from('Café 中')),
    });
    expect(utf8.code, utf8.stderr).toBe(0);
    expect(held()).toEqual([{ service_name: 'Café 中' }]);
  });
});

describe('a walk through the whole administrator area', () => {
  it('service, plan, link, 500 codes, extend/pause/resume, cleanup dry-run then real, all in the audit log', async () => {
    const started = new Date(Date.now() - 1000).toISOString().slice(0, 10);
    // A service and a plan, linked.
    let r = await runCli(
      'services create --service-code WALK1 --service-name "Walk, the service" --service-type USAGE_BASED --provider-name OpenAI --base-service-url https://api.example.com --access-pattern "/v1/*" --credit-reset-cycle monthly -o json',
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout).service_id).toBeGreaterThan(0);
    r = await runCli(
      'plans create --plan-code WALK-M --plan-name "Walk monthly" --price 19.99 --currency USD --duration 1 --duration-unit months --credit-amount 1000 --credit-unit requests -o json',
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    r = await runCli('service-plans create --service-code WALK1 --plan-code WALK-M -o json', { env });
    expect(r.code, r.stderr).toBe(0);
    const linkId = json(r.stdout).service_plan_id as number;
    expect(linkId).toBeGreaterThan(0);

    // 500 codes, printed to stdout, then listed back: 500, all unused.
    r = await runCli(
      `usage-codes generate --batch-id WALK26 --code-count 500 --expiration-days 90 --service-plan-id ${linkId} --code-prefix WLK -o csv`,
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const generated = r.stdout.trim().split('\n');
    expect(generated[0]).toBe('code_value,batch_id,expiry_date,code_id');
    expect(generated).toHaveLength(501);
    expect(generated.slice(1).every((l) => l.startsWith('WLK'))).toBe(true);
    r = await runCli('usage-codes list --batch-id WALK26 --all -o json', { env });
    const codes = json(r.stdout) as Array<{ is_used: boolean; code_value: string }>;
    expect(codes).toHaveLength(500);
    expect(codes.every((c) => c.is_used === false)).toBe(true);
    expect(new Set(codes.map((c) => c.code_value)).size).toBe(500);

    // Extend an active subscription by 30 days, then pause and resume it.
    const sub = sb.db
      .prepare(
        "SELECT subscription_id, end_date FROM subscriptions WHERE status = 'active' AND end_date > ? ORDER BY subscription_id LIMIT 1",
      )
      .get(new Date().toISOString()) as {
      subscription_id: number;
      end_date: string;
    };
    r = await runCli(`subscriptions manage ${sub.subscription_id} --action extend --reason "support ticket 981" --extend-days 30 -o json`, {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const after = sb.db.prepare('SELECT end_date, status FROM subscriptions WHERE subscription_id = ?').get(sub.subscription_id) as {
      end_date: string;
      status: string;
    };
    expect(Date.parse(after.end_date) - Date.parse(sub.end_date)).toBe(30 * DAY);
    r = await runCli(`subscriptions manage ${sub.subscription_id} --action pause --reason "walk pause"`, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(
      (sb.db.prepare('SELECT status FROM subscriptions WHERE subscription_id = ?').get(sub.subscription_id) as { status: string }).status,
    ).toBe('paused');
    r = await runCli(`subscriptions manage ${sub.subscription_id} --action resume --reason "walk resume"`, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(
      (sb.db.prepare('SELECT status FROM subscriptions WHERE subscription_id = ?').get(sub.subscription_id) as { status: string }).status,
    ).toBe('active');
    // A forbidden transition is a clear rejection, exit 5.
    r = await runCli(`subscriptions manage ${sub.subscription_id} --action resume --reason "again"`, { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/cannot resume/);

    // Cleanup: the dry run removes nothing; the real run removes exactly what it announced.
    const counts = () => ({
      subs: (sb.db.prepare('SELECT COUNT(*) AS n FROM subscriptions').get() as { n: number }).n,
      tokens: (sb.db.prepare('SELECT COUNT(*) AS n FROM tokens').get() as { n: number }).n,
      logs: (sb.db.prepare('SELECT COUNT(*) AS n FROM usage_logs').get() as { n: number }).n,
    });
    const c0 = counts();
    r = await runCli('cleanup --cleanup-expired-days 90 --cleanup-inactive-tokens-days 0 --cleanup-usage-logs-days 180 --dry-run -o json', {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const dry = json(r.stdout);
    expect(dry.dry_run).toBe(true);
    expect(counts()).toEqual(c0);
    const summary = dry.cleanup_summary as Record<string, number>;
    expect(summary.expired_subscriptions + summary.usage_logs).toBeGreaterThan(0);
    r = await runCli('cleanup --cleanup-expired-days 90 --cleanup-inactive-tokens-days 0 --cleanup-usage-logs-days 180 --yes -o json', {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const real = json(r.stdout);
    expect(real.dry_run).toBe(false);
    expect(real.cleanup_summary.expired_subscriptions).toBe(summary.expired_subscriptions);
    expect(real.cleanup_summary.usage_logs).toBe(summary.usage_logs);
    const c1 = counts();
    expect(c0.subs - c1.subs).toBe(summary.expired_subscriptions);
    expect(c0.logs - c1.logs).toBe(summary.usage_logs);
    expect(c0.tokens - c1.tokens).toBe(summary.inactive_tokens);

    // Every one of those actions is in the audit log.
    r = await runCli(`audit list --start-date ${started} --page-size 100 -o json`, { env });
    expect(r.code, r.stderr).toBe(0);
    const seen = (json(r.stdout) as Array<{ module: string; action: string }>).map((e) => `${e.module}.${e.action}`);
    for (const want of [
      'services.create',
      'subscription-plans.create',
      'service-plans.create',
      'usage-codes.generate',
      'subscriptions.manage',
      'maintenance.cleanup',
    ]) {
      expect(seen, want).toContain(want);
    }
    expect(seen.filter((s) => s === 'subscriptions.manage').length).toBeGreaterThanOrEqual(3);
  });
});

describe('cron', () => {
  function cron(args: string[], cfg: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((done) => {
      const child = spawn(
        'env',
        [
          '-i',
          `PATH=${process.env.PATH}`,
          `HOME=${cfg}`,
          `SUBCTL_CONFIG_DIR=${cfg}`,
          `SUBCTL_BASE_URL=${sb.url}`,
          `SUBCTL_TOKEN=${env.SUBCTL_TOKEN}`,
          process.execPath,
          bin,
          ...args,
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => done({ code, stdout, stderr }));
    });
  }

  it('env -i ... cleanup -q --yes </dev/null prints nothing, exits 0, writes no escape code', async () => {
    const cfg = tempDir('subctl-cron-');
    const r = await cron(['cleanup', '--cleanup-expired-days', '400', '-q', '--yes'], cfg);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
  });

  it("after a reboot, a lock left by a killed run whose pid is now another live process does not stop the next night's run", async () => {
    const cfg = tempDir('subctl-cron-');
    // The killed run's lock, from before the reboot: its pid is now init's (pid 1, alive).
    // The lock of this platform's cleanup: profile "default" on the sandbox's address (cleanup.ts).
    const file = join(cfg, 'state', `cleanup-${createHash('sha256').update(`default\0${sb.url}`).digest('hex').slice(0, 16)}.lock`);
    mkdirSync(join(cfg, 'state'), { recursive: true, mode: 0o700 });
    writeFileSync(
      file,
      JSON.stringify({
        pid: 1,
        started_at: '2026-11-20T02:00:00.000Z',
        command: 'cleanup',
        host: hostname(),
        nonce: 'x',
        pid_start: '00000000-0000-0000-0000-000000000000/42',
      }) + '\n',
      { mode: 0o600 },
    );
    const r = await cron(['cleanup', '--cleanup-expired-days', '400', '-q', '--yes'], cfg);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    // The same lock said to be pid 1 as it is now: still held, as before.
    writeFileSync(
      file,
      JSON.stringify({
        pid: 1,
        started_at: '2026-11-20T02:00:00.000Z',
        command: 'cleanup',
        host: hostname(),
        nonce: 'x',
        pid_start: processStart(1),
      }) + '\n',
      { mode: 0o600 },
    );
    const held = await cron(['cleanup', '--cleanup-expired-days', '400', '-q', '--yes'], cfg);
    expect(held.code).toBe(5);
    expect(held.stderr).toContain('another subctl cleanup is running (pid 1');
  });

  it('two started together: one runs, the other exits non-zero at once naming the lock and its pid', async () => {
    const cfg = tempDir('subctl-cron-');
    // A slow server makes the overlap certain: the sandbox answers cleanup after 1.5 s.
    const slow = await startTestSandbox({ chaos: { latencyMs: [1500, 1500] } });
    const envSlow = { SUBCTL_BASE_URL: slow.url, SUBCTL_TOKEN: slow.tokenFor('admin') };
    const run = () =>
      new Promise<{ code: number | null; stderr: string; ms: number }>((done) => {
        const t = Date.now();
        const child = spawn(process.execPath, [bin, 'cleanup', '--cleanup-expired-days', '400', '-q', '--yes'], {
          env: { PATH: process.env.PATH, HOME: cfg, SUBCTL_CONFIG_DIR: cfg, ...envSlow },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('exit', (code) => done({ code, stderr, ms: Date.now() - t }));
      });
    const [a, b] = await Promise.all([run(), run()]);
    await slow.close();
    const loser = a.code === 0 ? b : a;
    const winner = a.code === 0 ? a : b;
    expect(winner.code).toBe(0);
    expect(loser.code).not.toBe(0);
    expect(loser.stderr).toMatch(/cleanup-[0-9a-f]{16}\.lock/);
    expect(loser.stderr).toContain(`another subctl cleanup of profile "default" on ${slow.url} is running`);
    expect(loser.stderr).toMatch(/pid \d+/);
    expect(loser.ms).toBeLessThan(winner.ms);
  });
});

describe('CSV export read back by Python', () => {
  it('-o csv without --fields: every field, the table columns first (the id leads)', async () => {
    const table = await runCli('wallet list --page-size 3', { env });
    const csv = await runCli('wallet list --page-size 3 -o csv', { env });
    expect(csv.code, csv.stderr).toBe(0);
    const tableHeader = table.stdout.split('\n')[0].split('\t');
    const csvHeader = csv.stdout.split('\n')[0].split(',');
    expect(tableHeader[0]).toBe('transaction_id');
    expect(csvHeader.slice(0, tableHeader.length)).toEqual(tableHeader);
    // ... and every other field after them.
    const full = json((await runCli('wallet list --page-size 3 -o json', { env })).stdout) as Array<Record<string, unknown>>;
    expect([...csvHeader].sort()).toEqual(Object.keys(full[0]).sort());
  });

  it('subscriptions list --all -o csv equals the rows the sandbox holds, text intact', async () => {
    // Text with commas, quotes and newlines in the data itself.
    sb.db
      .prepare('UPDATE users SET full_name = ? WHERE user_id = (SELECT user_id FROM subscriptions ORDER BY subscription_id LIMIT 1)')
      .run('Zoë "Zed" Müller,\nsecond line');
    const r = await runCli('subscriptions list --all -o csv', { env });
    expect(r.code, r.stderr).toBe(0);
    const dir = tempDir('subctl-csv-');
    const f = join(dir, 'subs.csv');
    writeFileSync(f, r.stdout);
    const py = spawnSync(
      'python3',
      ['-c', 'import csv,json,sys; rows=list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8"))); print(json.dumps(rows))', f],
      { encoding: 'utf8', maxBuffer: 1 << 28 },
    );
    expect(py.status, py.stderr).toBe(0);
    const rows = JSON.parse(py.stdout) as Array<Record<string, string>>;
    const held = sb.db
      .prepare(
        'SELECT s.subscription_id, u.full_name FROM subscriptions s JOIN users u ON u.user_id = s.user_id ORDER BY s.subscription_id',
      )
      .all() as Array<{
      subscription_id: number;
      full_name: string;
    }>;
    expect(rows).toHaveLength(held.length);
    const byId = new Map(rows.map((x) => [Number(x.subscription_id), x]));
    for (const h of held) {
      const row = byId.get(h.subscription_id);
      expect(row, String(h.subscription_id)).toBeDefined();
      if (row!.full_name !== undefined) expect(row!.full_name).toBe(h.full_name);
    }
    expect(rows.some((x) => x.full_name === 'Zoë "Zed" Müller,\nsecond line')).toBe(true);
  });
});
