/**
 * `users show` against the real sandbox: a user is created, buys a subscription, tops up,
 * activates a code and is extended by an admin; the view by username, email and id shows each
 * of those in its section, as a table at 80 columns and as JSON (field by field). Also the
 * look-up's ambiguity (exit 2) and the same look-up in `audit user`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir, type RunResult } from '../support/run-cli.js';
import { closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
let configDir: string;
const S = {} as { userId: number; subscriptionId: number; code: string; activatedSub: number; topupTx: number };

function run(line: string, opts: { stdin?: string; tty?: boolean; env?: Record<string, string> } = {}): Promise<RunResult> {
  return runCli(line, {
    env: { SUBCTL_BASE_URL: sb.url, SUBCTL_CONFIG_DIR: configDir, TZ: 'UTC', ...opts.env },
    stdin: opts.stdin,
    tty: opts.tty,
    columns: 80,
  });
}
async function json(line: string, opts: { stdin?: string } = {}): Promise<any> {
  const r = await run(`${line} -o json`, opts);
  expect(r.code, `${line}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  sb = await startTestSandbox();
  configDir = tempConfigDir();
  expect((await run('auth login --profile admin --username admin --password-stdin', { stdin: 'sandbox-admin\n' })).code).toBe(0);
  const created = await json(
    'users create --profile admin --username zoe.support --email zoe.support@example.com --full-name "Zoë Support" --role user --password-stdin',
    { stdin: 'zoe-pass-1234\n' },
  );
  S.userId = created.user_id;
  expect((await run('auth login --profile zoe --username zoe.support --password-stdin', { stdin: 'zoe-pass-1234\n' })).code).toBe(0);
  const top = await json('me topup --amount 120 --payment-method card --profile zoe');
  S.topupTx = top.transaction_id;
  const plans = await json('me plans GPT4 --profile zoe');
  const paid = (plans.plans ?? plans).find((p: any) => p.price > 0 && p.price <= 120);
  const buy = await json(`me buy --service-plan-id ${paid.service_plan_id} --payment-method WALLET --profile zoe`);
  S.subscriptionId = buy.subscription_id;
  const codes = await json(
    `usage-codes generate --profile admin --batch-id SHOW1 --code-count 1 --expiration-days 30 --service-plan-id ${paid.service_plan_id}`,
  );
  S.code = (codes.codes ?? codes)[0].code_value ?? (codes.codes ?? codes)[0];
  const act = await json(`me activate ${S.code} --service-code GPT4 --profile zoe`);
  S.activatedSub = act.subscription_id;
  await json(`subscriptions manage ${S.subscriptionId} --profile admin --action extend --extend-days 30 --reason "ticket 4711"`);
}, 60_000);
afterAll(async () => {
  await closeAllTestSandboxes();
});

describe('users show', () => {
  it('as JSON: one object, a key per section, each step in its section', async () => {
    const v = await json('users show zoe.support --profile admin');
    expect(Object.keys(v)).toEqual(['account', 'subscriptions', 'wallet', 'referrals', 'devices', 'audit']);
    expect(v.account).toMatchObject({ user_id: S.userId, username: 'zoe.support', email: 'zoe.support@example.com', role: 'user' });
    expect(typeof v.account.created_date).toBe('string');
    // Times exactly as the platform sent them (ISO, not the terminal's form).
    expect(v.account.created_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    const subIds = v.subscriptions.map((s: any) => s.subscription_id);
    expect(subIds).toContain(S.subscriptionId);
    expect(v.wallet.transactions.map((t: any) => t.transaction_type)).toEqual(expect.arrayContaining(['topup']));
    expect(v.wallet.transactions.some((t: any) => t.transaction_type === 'topup' && t.amount === 120)).toBe(true);
    expect(v.wallet.summary).toEqual(expect.any(Object));
    expect(v.referrals).toHaveProperty('info');
    // The admin is not zoe: the platform lists devices to their owner only.
    expect(v.devices.unavailable).toMatch(/owner/);
    const by = v.audit.by_them.map((e: any) => `${e.module}.${e.action}`);
    expect(by).toEqual(expect.arrayContaining(['user.topup', 'user.buy', 'user.activate_code']));
    expect(v.audit.by_them.every((e: any) => e.user_id === S.userId)).toBe(true);
    const extend = v.audit.about_them.find((e: any) => e.module === 'subscriptions' && e.action === 'manage');
    expect(extend.details).toMatchObject({ subscription_id: S.subscriptionId, action: 'extend', extend_days: 30 });
    expect(extend.username).toBe('admin');
  });

  it('the same view by email and by id', async () => {
    const byName = await json('users show zoe.support --profile admin');
    const byEmail = await json('users show ZOE.SUPPORT@example.com --profile admin');
    const byId = await json(`users show ${S.userId} --profile admin`);
    expect(byEmail.account).toEqual(byName.account);
    expect(byId.account).toEqual(byName.account);
    expect(byId.subscriptions).toEqual(byName.subscriptions);
  });

  it('on an 80-column terminal: every section, no line wider than 80, the audit entries read', async () => {
    const r = await run('users show zoe.support --profile admin --no-color', { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    for (const h of ['account', 'wallet', 'referrals', 'devices', 'audit']) expect(lines).toContain(h);
    expect(lines).toContain(`subscriptions (${new Set([S.subscriptionId, S.activatedSub]).size})`);
    expect(r.stdout).toMatch(new RegExp(`^  ${S.subscriptionId} +GPT4 `, 'm'));
    // Times with seconds and zone (TZ=UTC here).
    expect(r.stdout).toMatch(/created_date +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+00:00/);
    // An entry wider than the terminal goes on under it, indented: joined again here.
    const flat = r.stdout.replace(/\n {8}/g, ' ');
    expect(flat).toMatch(/zoe\.support +user\.topup +transaction \d+ +amount=120 /);
    expect(flat).toMatch(/zoe\.support +user\.activate_code +subscription \d+/);
    expect(flat).toMatch(
      new RegExp(`admin +subscriptions\\.manage +subscription ${S.subscriptionId}\\s+extend reason=ticket 4711 extend_days=30`),
    );
    expect(r.stderr).toMatch(/unavailable to this account: devices/);
  });

  it('as zoe herself: her devices are shown; sections she may not read are said, not fatal', async () => {
    const r = await run('users show zoe.support --profile zoe -o json');
    // An end user may not read the account of /users/{id}: that ends the view (the account is the view).
    if (r.code !== 0) {
      expect(r.code).toBe(3);
      return;
    }
    const v = JSON.parse(r.stdout);
    expect(Array.isArray(v.devices)).toBe(true);
  });

  it('a name matching several users lists them and exits 2, nothing more sent', async () => {
    const r = await run('users show emma --profile admin');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/'emma' matches \d+ users/);
    expect(r.stderr).toMatch(/emma\.zak/);
  });

  it('no such user: exit 4', async () => {
    const r = await run('users show nobody.here@example.com --profile admin');
    expect(r.code).toBe(4);
  });

  it('audit user, roles of and referrals info take the username too', async () => {
    const a = await json('audit user zoe.support --profile admin');
    expect(a.length).toBeGreaterThan(0);
    expect(a.every((e: any) => e.user_id === S.userId)).toBe(true);
    const roles = await run('roles of zoe.support --profile admin -o json');
    expect(roles.code, roles.stderr).toBe(0);
    const info = await run('referrals info zoe.support@example.com --profile admin -o json');
    expect(info.code, info.stderr).toBe(0);
  });

  it('audit list --subscription-id keeps the entries naming it; the table reads the change', async () => {
    const r = await run(`audit list --profile admin --subscription-id ${S.subscriptionId} --all -o json`);
    expect(r.code, r.stderr).toBe(0);
    const entries = JSON.parse(r.stdout);
    // The code's credits went to the subscription bought (same plan): its activation names it too.
    const expected = ['subscriptions.manage', ...(S.activatedSub === S.subscriptionId ? ['user.activate_code'] : []), 'user.buy'];
    expect(entries.map((e: any) => `${e.module}.${e.action}`).sort()).toEqual(expected);
    expect(entries.every((e: any) => e.details.subscription_id === S.subscriptionId)).toBe(true);
    const t = await run(`audit list --profile admin --subscription-id ${S.subscriptionId}`);
    expect(t.stdout.split('\n')[0]).toBe('id\tcreated_at\tusername\taction\ttarget\tchange');
    expect(t.stdout).toMatch(
      new RegExp(
        `\\tadmin\\tsubscriptions\\.manage\\tsubscription ${S.subscriptionId}\\textend reason=ticket 4711 extend_days=30 from_status=active to_status=active\\n`,
      ),
    );
    const svc = await run('audit list --profile admin --service GPT4 --limit 5 -o json');
    expect(JSON.parse(svc.stdout).every((e: any) => e.details.service_code === 'GPT4')).toBe(true);
  });
});
