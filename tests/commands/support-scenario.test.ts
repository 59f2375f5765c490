/**
 * A support engineer's day, scripted against the real sandbox (startTestSandbox): every step is
 * one `subctl` invocation in process, sharing one config directory (profiles `admin` and
 * `alice`, tokens stored by `auth login --password-stdin`), with the base URL from
 * SUBCTL_BASE_URL.
 */
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

describe('scratch', () => {
  it('explores', async () => {
    await run('auth login --profile admin --username admin --password-stdin', { stdin: 'sandbox-admin\n' });
    console.log(await run('plans create --profile admin --plan-code SCN-DAILY --plan-name "Scenario" --price 25 --currency USD --duration 1 --duration-unit months --credit-amount 1000 --credit-unit requests --max-usage-per-day 5 -o json'));
    const link = await json('service-plans create --profile admin --service-code GPT4 --plan-code SCN-DAILY');
    console.log(link);
    const gen = await json('referrals generate --profile admin --description "partners" --expiry-days 30 --usage-limit 100');
    const reg = await json(`auth register --profile alice --username alice --email alice@example.com --full-name "Alice Liddell" --referral-code ${gen.referral_code} --password-stdin`, { stdin: 'alice-pass-1\n' });
    await run('auth login --profile alice --username alice --password-stdin', { stdin: 'alice-pass-1\n' });
    console.log(await run('devices list --include-inactive --profile alice'));
    const send = await json('auth verify --send --type email --profile alice');
    await run(`auth verify --code ${send.code} --type email --profile alice`);
    await json('me topup --amount 100 --payment-method card --profile alice');
    console.log(await run('me plans GPT4 --profile alice --fields service_plan_id,plan_code,price,currency,max_usage_per_day'));
    const buy = await json(`me buy --service-plan-id ${link.service_plan_id} --payment-method WALLET --profile alice`);
    console.log(buy);
    const codes = await json(`usage-codes generate --profile admin --batch-id SCN1 --code-count 2 --expiration-days 30 --service-plan-id ${link.service_plan_id}`);
    console.log(codes);
    console.log(await json('me subscriptions --service-code GPT4 --profile alice'));
    console.log(await json(`me activate ${codes[0].code_value} --service-code GPT4 --profile alice`));
    for (let i = 0; i < 7; i++) console.log(await run('me use GPT4 --usage-amount 1 --usage-type api_call --profile alice'));
    console.log(await run('me access GPT4 --profile alice'));
    console.log(JSON.stringify(await json(`audit list --profile admin --user-id ${reg.user_id} --all`)));
    console.log(await run('wallet list --profile admin --username alice'));
    console.log(await run('referrals admin-list --profile admin --search-keyword alice'));
  });
});
