/**
 * Every exact form of the command-line specification, as written, against the real sandbox (in an order that makes each
 * one meaningful: the seeded GPT4 and PRO-M are removed before the forms that create them).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

let sb: Sandbox;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin') };
  dir = tempDir('subctl-forms-');
});
afterAll(() => sb?.close());

async function form(line: string) {
  return runCli(line, { env });
}

describe("the command-line specification's exact forms against the sandbox", () => {
  it('runs each form as written', async () => {
    const ok = async (line: string) => {
      const r = await form(line);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      return r;
    };
    const sub42 = sb.db.prepare('SELECT end_date FROM subscriptions WHERE subscription_id = 42').get() as { end_date: string };
    await ok('subscriptions manage 42 --action extend --reason "support ticket 981" --extend-days 30');
    const after42 = sb.db.prepare('SELECT end_date FROM subscriptions WHERE subscription_id = 42').get() as { end_date: string };
    expect(Date.parse(after42.end_date) - Date.parse(sub42.end_date)).toBe(30 * 86_400_000);

    const csv = join(dir, 'actions.csv');
    const ids = (
      sb.db.prepare("SELECT subscription_id FROM subscriptions WHERE status = 'active' ORDER BY subscription_id LIMIT 20").all() as Array<{
        subscription_id: number;
      }>
    ).map((x) => x.subscription_id);
    writeFileSync(csv, `subscription_id,action,reason,extend_days\n${ids.map((id) => `${id},extend,"bulk, from CSV",5`).join('\n')}\n`);
    await ok(`subscriptions manage --from-csv ${csv} --concurrency 8 --yes`);

    const gen = await ok(
      'usage-codes generate --batch-id SPRING26 --code-count 500 --expiration-days 90 --service-plan-id 3 --code-prefix SPR',
    );
    expect(gen.stdout.trim().split('\n')).toHaveLength(501);
    expect((sb.db.prepare("SELECT COUNT(*) AS n FROM usage_codes WHERE batch_id = 'SPRING26'").get() as { n: number }).n).toBe(500);

    await ok('services list --service-type HYBRID --is-active true --page-size 50 --sort-by ServiceName --sort-order ASC -o json');
    await ok('services get --service-code GPT4');
    await ok('services delete --service-code GPT4 --force-delete --yes');
    await ok(
      'services create --service-code GPT4 --service-name "GPT-4 access" --service-type USAGE_BASED --provider-name OpenAI --base-service-url https://api.example.com --access-pattern "/v1/*" --credit-reset-cycle monthly',
    );
    await ok('services update 12 --service-name "GPT-4 Turbo"');
    expect((sb.db.prepare('SELECT service_name FROM services WHERE service_id = 12').get() as { service_name: string }).service_name).toBe(
      'GPT-4 Turbo',
    );

    await ok('plans delete --plan-code PRO-M --force-delete --delete-related-data --yes');
    await ok(
      'plans create --plan-code PRO-M --plan-name "Pro monthly" --price 19.99 --currency USD --duration 1 --duration-unit months --credit-amount 1000 --credit-unit requests',
    );
    await ok('service-plans create --service-code GPT4 --plan-code PRO-M');
    await ok('service-plans manage --action deactivate --service-code GPT4 --plan-code PRO-M');

    await ok('subscriptions list --status active --service-code GPT4 --all -o csv');
    await ok('wallet list --transaction-type refund --date-from 2026-01-01 --date-to 2026-01-31 -o ndjson');
    await ok('audit list --module subscriptions --action manage --start-date 2026-11-01 --page-size 100');
    await ok('cleanup --cleanup-expired-days 90 --cleanup-usage-logs-days 180 --dry-run -o json');
    await ok('users list --role admin --status Active');
    await ok('roles assign 17 --new-roles support,agent --reason "rota"');
    await ok('referrals generate --description "partners" --expiry-days 30 --usage-limit 100');
    await ok('api GET /admin/services -f page_size=5');
    await ok('api endpoints -o json');

    // Ctrl-C once the first entry is out.
    const ac = new AbortController();
    const follow = await runCli('audit user 17 --follow', { env, signal: ac.signal, onOutput: (out) => out.includes('\n') && ac.abort() });
    expect(follow.code).toBe(130);
    // /audit/users/17 lists what user 17 did (the seeded history), one line each.
    // Off a terminal the time as the server sent it (ISO, UTC).
    expect(follow.stdout).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z {2}siobhan\.anderson {2}/m);
  }, 60_000);
});
