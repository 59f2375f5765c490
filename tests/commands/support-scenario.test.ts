/**
 * A support engineer's day, scripted against the real sandbox (startTestSandbox): every step is
 * one `subctl` invocation in process, sharing one config directory (profiles `admin` and
 * `alice`, tokens stored by `auth login --password-stdin`), with the base URL from
 * SUBCTL_BASE_URL.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir, type RunResult } from '../support/run-cli.js';
import { closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
let configDir: string;

async function run(line: string, opts: { stdin?: string } = {}): Promise<RunResult> {
  return runCli(line, { env: { SUBCTL_BASE_URL: sb.url, SUBCTL_CONFIG_DIR: configDir }, stdin: opts.stdin });
}
/** Runs a step that must succeed, and parses its JSON stdout. */
async function json(line: string, opts: { stdin?: string } = {}): Promise<any> {
  const r = await run(`${line} -o json`, opts);
  expect(r.code, `${line}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  sb = await startTestSandbox();
  configDir = tempConfigDir();
});
afterAll(async () => {
  await closeAllTestSandboxes();
});

describe('a support engineer follows a new user from sign-up to the daily limit', () => {
  // What the steps learn and later steps use.
  const S = {} as {
    servicePlanId: number;
    referralCode: string;
    referrerId: number;
    aliceId: number;
    verificationCode: string;
    subscriptionId: number;
    credits: number;
    usageCode: string;
  };

  it('the administrator signs in (profile admin, password on stdin)', async () => {
    const r = await run('auth login --profile admin --username admin --password-stdin', { stdin: 'sandbox-admin\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/signed in as admin \(admin\) on profile 'admin'/);
    expect(r.stdout).toBe('');
  });

  it('as admin: a plan capped at 5 uses a day, offered for GPT4', async () => {
    const plan = await json(
      'plans create --profile admin --plan-code SCN-DAILY --plan-name "Scenario daily-capped" --price 25 --currency USD --duration 1 --duration-unit months --credit-amount 1000 --credit-unit requests --max-usage-per-day 5',
    );
    expect(plan.plan_id).toEqual(expect.any(Number));
    const link = await json('service-plans create --profile admin --service-code GPT4 --plan-code SCN-DAILY');
    S.servicePlanId = link.service_plan_id;
    expect(S.servicePlanId).toEqual(expect.any(Number));
  });

  it('as admin: a referral code for the partner campaign (the exact form of the command-line specification)', async () => {
    const gen = await json('referrals generate --profile admin --description "partners" --expiry-days 30 --usage-limit 100');
    expect(gen).toMatchObject({ success: true, usage_limit: 100, description: 'partners' });
    S.referralCode = gen.referral_code;
    const check = await json(`referrals validate ${S.referralCode} --profile admin`);
    expect(check).toMatchObject({ is_valid: true, remaining_uses: 100 });
  });

  it('alice registers with the referral code; her profile device id travels as X-Device-ID', async () => {
    const reg = await json(
      `auth register --profile alice --username alice --email alice@example.com --full-name "Alice Liddell" --referral-code ${S.referralCode} --password-stdin`,
      { stdin: 'alice-pass-1\n' },
    );
    expect(reg).toMatchObject({ success: true, status: 'Pending' });
    S.aliceId = reg.user_id;
    S.referrerId = reg.referral?.referrer_id;
    expect(S.aliceId).toEqual(expect.any(Number));
  });

  it('alice signs in (profile alice); the registered device is hers and is the current one', async () => {
    const r = await run('auth login --profile alice --username alice --password-stdin', { stdin: 'alice-pass-1\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/signed in as alice \(user\) on profile 'alice'/);
    const deviceId = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.alice.device_id;
    const devices = await json('devices list --include-inactive --profile alice');
    expect(devices.map((d: { device_id: string }) => d.device_id)).toContain(deviceId);
    const table = await run('devices list --include-inactive --profile alice --fields current,device_id');
    expect(table.stdout).toContain(`*\t${deviceId}\n`);
  });

  it('alice verifies her account with the code the sandbox returns', async () => {
    const send = await json('auth verify --send --type email --profile alice');
    expect(send).toMatchObject({ success: true, type: 'email' });
    S.verificationCode = send.code;
    expect(S.verificationCode).toMatch(/^\d{6}$/);
    const wrong = await run('auth verify --code 0000 --type email --profile alice');
    expect(wrong.code).toBe(5);
    const ok = await json(`auth verify --code ${S.verificationCode} --type email --profile alice`);
    expect(ok).toMatchObject({ success: true, status: 'Active' });
    const seen = await json(`users get ${S.aliceId} --profile admin`);
    expect(seen.user ?? seen).toMatchObject({ username: 'alice', status: 'Active' });
  });

  it('alice tops up her wallet', async () => {
    expect(await json('me wallet --profile alice')).toMatchObject({ balance: 0, currency: 'USD' });
    const top = await json('me topup --amount 100 --payment-method card --profile alice');
    expect(top).toMatchObject({ success: true, new_balance: 100 });
    expect(await json('me wallet --profile alice')).toMatchObject({ balance: 100 });
  });

  it('alice buys the plan with WALLET: the balance falls by its price', async () => {
    const plans = await json('me plans GPT4 --profile alice');
    const offer = plans.find((p: { plan_code: string }) => p.plan_code === 'SCN-DAILY');
    expect(offer).toMatchObject({ service_plan_id: S.servicePlanId, price: 25, currency: 'USD', max_usage_per_day: 5 });
    const buy = await json(`me buy --service-plan-id ${S.servicePlanId} --payment-method WALLET --profile alice`);
    expect(buy).toMatchObject({ success: true, total_cost: 25, credits_granted: 1000 });
    S.subscriptionId = buy.subscription_id;
    expect(await json('me wallet --profile alice')).toMatchObject({ balance: 75 });
    const subs = await json('me subscriptions --service-code GPT4 --profile alice');
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ subscription_id: S.subscriptionId, status: 'active', remaining_credits: 1000 });
    S.credits = subs[0].remaining_credits;
  });

  it('as admin: usage codes for the offer; alice activates one and her credits rise', async () => {
    const codes = await json(
      `usage-codes generate --profile admin --batch-id SCN1 --code-count 2 --expiration-days 30 --service-plan-id ${S.servicePlanId}`,
    );
    expect(codes).toHaveLength(2);
    S.usageCode = codes[0].code_value;
    const act = await json(`me activate ${S.usageCode} --service-code GPT4 --profile alice`);
    expect(act).toMatchObject({ success: true, subscription_id: S.subscriptionId, credits_added: 1000 });
    const subs = await json('me subscriptions --service-code GPT4 --profile alice');
    expect(subs[0].remaining_credits).toBe(S.credits + 1000);
    const again = await run(`me activate ${S.usageCode} --profile alice`);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/already used/);
  });

  it('alice uses the service until the daily limit stops her: a clear error, exit 5', async () => {
    const used: number[] = [];
    let last = await run('me use GPT4 --usage-amount 1 --usage-type api_call --profile alice -o json');
    while (last.code === 0 && used.length < 20) {
      used.push(JSON.parse(last.stdout).daily_limit_remaining);
      last = await run('me use GPT4 --usage-amount 1 --usage-type api_call --profile alice -o json');
    }
    expect(used).toEqual([4, 3, 2, 1, 0]);
    expect(last.code).toBe(5);
    expect(last.stdout).toBe('');
    // -o json: one JSON object on stderr, the hint inside.
    const err = JSON.parse(last.stderr);
    expect(err.error).toMatchObject({
      type: 'rejected',
      message: 'daily usage limit reached',
      status: 400,
      code: 'DAILY_LIMIT_REACHED',
      hint: 'the plan allows 5 a day and 5 were used today; `subctl me access GPT4` shows what remains',
    });
    const access = await run('me access GPT4 --profile alice -o json');
    expect(access.code).toBe(5);
    expect(JSON.parse(access.stdout)).toMatchObject({
      has_access: false,
      access_reason: 'DAILY_LIMIT_REACHED',
      remaining_credits: S.credits + 1000 - 5,
    });
  });

  it('as admin: the audit log shows all of it', async () => {
    const mine = await json(`audit list --profile admin --user-id ${S.aliceId} --all`);
    const actions = mine
      .map((e: { module: string; action: string }) => `${e.module}.${e.action}`)
      .reverse()
      // The wrong code's `verify_failed` entry is written inside the sandbox transaction that the
      // 422 rolls back, so it may be missing (reported); it is not what this scenario checks.
      .filter((a: string) => a !== 'auth.verify_failed');
    expect(actions).toEqual([
      'auth.generate_verification',
      'auth.verify',
      'user.topup',
      'user.buy',
      'user.activate_code',
      'user.use',
      'user.use',
      'user.use',
      'user.use',
      'user.use',
    ]);
    expect(mine.every((e: { username: string }) => e.username === 'alice')).toBe(true);
    // Registration and sign-in happen before alice has a token: their entries name her in details.
    const reg = await json('audit list --profile admin --module auth --action register');
    expect(
      reg.some(
        (e: { details: { user_id?: number; referral_code?: string } }) =>
          e.details?.user_id === S.aliceId && e.details?.referral_code === S.referralCode,
      ),
    ).toBe(true);
    const table = await run(`audit list --profile admin --user-id ${S.aliceId} --action buy`);
    expect(table.code).toBe(0);
    // A table reads each entry: module.action, the target and the change from its details.
    expect(table.stdout.split('\n')[0]).toBe('id\tcreated_at\tusername\taction\ttarget\tchange');
    expect(table.stdout).toMatch(/\talice\tuser\.buy\tsubscription \d+ \(GPT4 SCN-DAILY\)\tpayment_method=WALLET /);
  });

  it('as admin: the wallet transactions of alice, with their summary', async () => {
    const r = await run('wallet list --profile admin --username alice -o json');
    expect(r.code, r.stderr).toBe(0);
    const tx = JSON.parse(r.stdout);
    expect(tx.map((t: { transaction_type: string; amount: number }) => [t.transaction_type, t.amount])).toEqual([
      ['deduct', 25],
      ['topup', 100],
    ]);
    const summary = JSON.parse(r.stderr.trim()).summary;
    expect(summary).toMatchObject({ total_topup_amount: 100, total_deduct_amount: 25, net_amount: 75, transaction_count: 2 });
  });

  it('as admin: the referral statistics count alice', async () => {
    const list = await json('referrals admin-list --profile admin --search-keyword alice');
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ referral_code: S.referralCode, username: 'alice', referrer_username: 'admin' });
    const stats = await json(`referrals user-stats ${S.referrerId} --profile admin --stats-period 7`);
    const usage = stats.code_usage.find((c: { referral_code: string }) => c.referral_code === S.referralCode);
    expect(usage).toMatchObject({ used_count: 1, usage_limit: 100 });
    const referred = await json(`referrals user-referred ${S.referrerId} --profile admin`);
    expect(referred.map((u: { username: string }) => u.username)).toContain('alice');
    const check = await json(`referrals validate ${S.referralCode} --profile admin`);
    expect(check).toMatchObject({ is_valid: true, remaining_uses: 99, used_count: 1 });
  });
});
