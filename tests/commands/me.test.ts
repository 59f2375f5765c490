/**
 * `subctl me`: the end-user area against a real loopback server. Bare-array answers print as
 * lists; actions send typed bodies.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
const TOKEN = 'tok-me-test';
const env = (extra: Record<string, string> = {}) => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: TOKEN, ...extra });
const body = (i = 0) => server.requests[i].body as Record<string, unknown>;

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(() => ok({ success: true }));
});

describe('reads', () => {
  it('services: GET /user/services/available, the bare array as a list', async () => {
    const services = [
      {
        service_id: 1,
        service_code: 'GPT4',
        service_name: 'GPT-4',
        service_type: 'HYBRID',
        min_price: 9.99,
        max_price: 19.99,
        has_active_subscription: true,
        current_plan_name: 'Pro',
      },
    ];
    server.setHandler(() => ok(services));
    const r = await runCli('me services --service-type HYBRID --no-show-subscribed', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/user/services/available');
    expect(server.requests[0].query).toEqual({ service_type: 'HYBRID', show_subscribed: 'false' });
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(r.stdout).toBe(
      'service_id\tservice_code\tservice_name\tservice_type\tmin_price\tmax_price\thas_active_subscription\tcurrent_plan_name\n1\tGPT4\tGPT-4\tHYBRID\t9.99\t19.99\ttrue\tPro\n',
    );
    const j = await runCli('me services -o json', { env: env() });
    expect(JSON.parse(j.stdout)).toEqual(services);
  });

  it('--limit N of a list the server answers whole stops after N rows, in every format (it printed all 37)', async () => {
    server.setHandler(() => ok(Array.from({ length: 37 }, (_, i) => ({ plan_code: `P${i}`, price: i }))));
    for (const [format, count] of [
      ['json', (t: string) => JSON.parse(t).length],
      ['ndjson', (t: string) => t.trim().split('\n').length],
      ['csv', (t: string) => t.trim().split('\n').length - 1],
      ['table', (t: string) => t.trim().split('\n').length - 1],
    ] as Array<[string, (t: string) => number]>) {
      const r = await runCli(`me plans --limit 5 -o ${format}`, { env: env() });
      expect(r.code, format).toBe(0);
      expect(count(r.stdout), format).toBe(5);
    }
    expect(JSON.parse((await runCli('me plans -o json', { env: env() })).stdout)).toHaveLength(37);
  });

  it('plans [service_code]: GET /user/plans/available?service_code=', async () => {
    server.setHandler(() => ok([{ plan_code: 'PRO-M', price: 19.99 }]));
    const r = await runCli('me plans GPT4 -o ndjson', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].query).toEqual({ service_code: 'GPT4' });
    expect(r.stdout).toBe('{"plan_code":"PRO-M","price":19.99}\n');
  });

  it('access: exit 0 with access, 5 without (the answer is printed either way)', async () => {
    server.setHandler(() => ok({ has_access: true, access_reason: 'ACTIVE_SUBSCRIPTION', remaining_credits: 10 }));
    const r = await runCli('me access GPT4 --requested-usage 2 -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/user/services/access');
    expect(server.requests[0].query).toEqual({ service_code: 'GPT4', requested_usage: '2' });
    server.setHandler(() => ok({ has_access: false, access_reason: 'DAILY_LIMIT_REACHED', remaining_credits: 10 }));
    const r2 = await runCli('me access --service-code GPT4 -o json', { env: env() });
    expect(r2.code).toBe(5);
    expect(JSON.parse(r2.stdout)).toMatchObject({ has_access: false });
    expect(r2.stderr).toContain('no access to GPT4 (DAILY_LIMIT_REACHED)');
  });

  it('access: another platform\'s spelling of false (0, "false") is no access: exit 5', async () => {
    for (const has_access of [0, 'false']) {
      server.setHandler(() => ok({ has_access, access_reason: 'NO_SUBSCRIPTION' }));
      const r = await runCli('me access GPT4', { env: env() });
      expect(r.code, String(has_access)).toBe(5);
      expect(r.stderr).toContain('no access to GPT4 (NO_SUBSCRIPTION)');
    }
  });

  it('access without a service code exits 2 naming the flag', async () => {
    const r = await runCli('me access', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/service_code \(--service-code\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('subscriptions: --status and --service-code; default columns', async () => {
    server.setHandler(() =>
      ok([{ subscription_id: 3, service_code: 'GPT4', plan_code: 'PRO-M', status: 'active', remaining_credits: 900, auto_renewal: false }]),
    );
    const r = await runCli('me subscriptions --status all --service-code GPT4', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/user/subscriptions');
    expect(server.requests[0].query).toEqual({ status: 'all', service_code: 'GPT4' });
    expect(r.stdout.split('\n')[0].split('\t')).toEqual([
      'subscription_id',
      'service_code',
      'plan_code',
      'status',
      'start_date',
      'end_date',
      'remaining_credits',
      'usage_today',
      'auto_renewal',
    ]);
    const bad = await runCli('me subscriptions --status gone', { env: env() });
    expect(bad.code).toBe(2);
  });

  it('wallet: one object', async () => {
    server.setHandler(() => ok({ balance: 42.5, currency: 'USD', last_topup_date: null }));
    const r = await runCli('me wallet -o json', { env: env() });
    expect(server.requests[0].path).toBe('/user/wallet');
    expect(JSON.parse(r.stdout)).toEqual({ balance: 42.5, currency: 'USD', last_topup_date: null });
  });

  it('test-services: GET /test/services, a list when the answer is one', async () => {
    server.setHandler(() => ok([{ service_code: 'GPT4', service_name: 'GPT-4' }]));
    const r = await runCli('me test-services', { env: env() });
    expect(server.requests[0].path).toBe('/test/services');
    expect(r.stdout).toBe('service_code\tservice_name\nGPT4\tGPT-4\n');
  });
});

describe('actions', () => {
  it('buy: POST /user/subscriptions/buy with a typed body', async () => {
    server.setHandler(() => ok({ success: true, subscription_id: 9, total_cost: 19.99, payment_status: 'PAID' }));
    const r = await runCli('me buy PRO-M --service-code GPT4 --payment-method WALLET --auto-renewal false -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('POST');
    expect(server.requests[0].path).toBe('/user/subscriptions/buy');
    expect(body()).toEqual({ plan_code: 'PRO-M', service_code: 'GPT4', payment_method: 'WALLET', auto_renewal: false });
    expect(JSON.parse(r.stdout)).toMatchObject({ subscription_id: 9 });
  });

  it('buy by payment needs a known gateway; unknown methods exit 2', async () => {
    await runCli('me buy --service-plan-id 3 --payment-method PAYMENT --gateway-name STRIPE', { env: env() });
    expect(body()).toEqual({ service_plan_id: 3, payment_method: 'PAYMENT', gateway_name: 'STRIPE' });
    const r = await runCli('me buy --service-plan-id 3 --payment-method CASH --gateway-name BANK', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/payment_method \(--payment-method\)/);
    expect(r.stderr).toMatch(/gateway_name \(--gateway-name\)/);
    expect(server.requests).toHaveLength(1);
  });

  it('generate-access, activate', async () => {
    await runCli('me generate-access GPT4', { env: env() });
    await runCli('me activate SPR-1234 --service-code GPT4', { env: env() });
    expect(server.requests.map((q) => [q.method, q.path, q.body])).toEqual([
      ['POST', '/user/services/generate-access', { service_code: 'GPT4' }],
      ['POST', '/user/codes/activate', { activation_code: 'SPR-1234', service_code: 'GPT4' }],
    ]);
  });

  it('use: typed amount and type; the daily limit is the server message, exit 5', async () => {
    server.setHandler(() => ok({ success: true, remaining_credits: 99, usage_id: 5 }));
    const r = await runCli('me use GPT4 --usage-amount 1 --usage-type api_call --response-time 0.25', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/user/services/use');
    expect(body()).toEqual({ service_code: 'GPT4', usage_amount: 1, usage_type: 'api_call', response_time: 0.25 });
    server.setHandler(() => fail(400, 'daily usage limit reached', { code: 'DAILY_LIMIT_REACHED', daily_limit: 5, usage_today: 5 }));
    const r2 = await runCli('me use GPT4 --usage-amount 1 --usage-type api_call', { env: env() });
    expect(r2.code).toBe(5);
    expect(r2.stdout).toBe('');
    expect(r2.stderr).toBe(
      'error: daily usage limit reached (HTTP 400)\nhint: the plan allows 5 a day and 5 were used today; `subctl me access GPT4` shows what remains\n',
    );
  });

  it('topup: amount as a number, --payment-data as a JSON object', async () => {
    server.setHandler(() => ok({ success: true, new_balance: 150, transaction_id: 77 }));
    const r = await runCli(
      `me topup --amount 100.5 --payment-method card --transaction-reference T-1 --payment-data '{"card_last4":"4242"}' -o json`,
      { env: env() },
    );
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/user/wallet/topup');
    expect(body()).toEqual({ amount: 100.5, payment_method: 'card', transaction_reference: 'T-1', payment_data: { card_last4: '4242' } });
    expect(JSON.parse(r.stdout)).toEqual({ success: true, new_balance: 150, transaction_id: 77 });
    const bad = await runCli('me topup --amount 10 --payment-method card --payment-data nope', { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--payment-data/);
    const neg = await runCli('me topup --amount -5 --payment-method cash', { env: env() });
    expect(neg.code).toBe(2);
    expect(server.requests).toHaveLength(1);
  });

  it('auto-renewal <subscription_id>: PUT with a boolean', async () => {
    await runCli('me auto-renewal 9 --no-auto-renewal', { env: env() });
    await runCli('me auto-renewal --subscription-id 9 --auto-renewal --payment-method paypal', { env: env() });
    expect(server.requests.map((q) => [q.method, q.path, q.body])).toEqual([
      ['PUT', '/user/subscriptions/auto-renewal', { subscription_id: 9, auto_renewal: false }],
      ['PUT', '/user/subscriptions/auto-renewal', { subscription_id: 9, auto_renewal: true, payment_method: 'paypal' }],
    ]);
  });
});
