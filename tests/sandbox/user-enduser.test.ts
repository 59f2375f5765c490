import { afterAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes } from '../support/sandbox.js';
import { PAYMENT_URL_BASE } from '../../src/sandbox/handlers/user-enduser-buy.js';
import { addDuration } from '../../src/sandbox/handlers/user-enduser-common.js';
import { fixture, Harness } from './user-harness.js';

afterAll(closeAllTestSandboxes);

const balance = (h: Harness, id = 6) =>
  (h.db.prepare('SELECT wallet_balance FROM users WHERE user_id = ?').get(id) as any).wallet_balance as number;
const count = (h: Harness, sql: string, ...a: unknown[]) => (h.db.prepare(sql).get(...a) as any).n as number;

describe('end-user browsing', () => {
  it('services: active ones with price range and current subscription; show_subscribed=false hides subscribed ones', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    const r = await h.call('me.services', { as: 'enduser' });
    const t = r.data.find((s: any) => s.service_code === 'TESTSVC');
    expect(t).toMatchObject({ available_plans_count: 3, min_price: 0, max_price: 25, has_active_subscription: false });
    expect(r.data.every((s: any) => s.service_code !== 'LEGACY-BOT')).toBe(true);
    await h.call('me.buy', { as: 'enduser', body: { payment_method: 'FREE', service_plan_id: f.free.linkId } });
    const again = await h.call('me.services', { as: 'enduser', query: { service_type: 'usage_based' } });
    expect(again.data.every((s: any) => s.service_type === 'USAGE_BASED')).toBe(true);
    expect(again.data.find((s: any) => s.service_code === 'TESTSVC')).toMatchObject({
      has_active_subscription: true,
      current_plan_name: 'Plan TEST-FREE',
    });
    const hidden = await h.call('me.services', { as: 'enduser', query: { show_subscribed: 'false' } });
    expect(hidden.data.some((s: any) => s.service_code === 'TESTSVC')).toBe(false);
  });

  it('plans: per service, with per-day figures and is_current_plan; 404 for an unknown service', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    await h.call('me.buy', { as: 'enduser', body: { payment_method: 'FREE', service_plan_id: f.free.linkId } });
    const r = await h.call('me.plans', { as: 'enduser', query: { service_code: 'testsvc' } });
    expect(r.data.map((p: any) => p.plan_code)).toEqual(['TEST-FREE', 'TEST-EUR', 'TEST-PAID']);
    expect(r.data.find((p: any) => p.plan_code === 'TEST-PAID')).toMatchObject({
      price_per_day: 0.83,
      credits_per_day: 3.33,
      max_usage_per_day: 10,
      is_current_plan: false,
    });
    expect(r.data.find((p: any) => p.plan_code === 'TEST-FREE').is_current_plan).toBe(true);
    expect((await h.call('me.plans', { as: 'enduser', query: { service_code: 'NOPE' } })).status).toBe(404);
    expect((await h.call('me.plans', { as: 'enduser' })).data.length).toBeGreaterThan(10);
  });

  it('test-services is public; wallet answers balance and currency', async () => {
    const h = await Harness.create();
    const t = await h.call('me.test-services');
    expect(t.status).toBe(200);
    expect(t.data.length).toBeGreaterThan(5);
    const w = await h.call('me.wallet', { as: 'enduser' });
    expect(w.data).toMatchObject({ balance: balance(h), currency: 'USD' });
    expect((await h.call('me.wallet')).status).toBe(401);
  });
});

describe('buying', () => {
  it('WALLET debits the price and creates the subscription and a deduct transaction together', async () => {
    const h = await Harness.create();
    fixture(h);
    h.db.prepare('UPDATE users SET wallet_balance = 100 WHERE user_id = 6').run();
    const r = await h.call('me.buy', {
      as: 'enduser',
      body: { payment_method: 'WALLET', service_code: 'TESTSVC', plan_code: 'TEST-PAID' },
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({
      success: true,
      payment_status: 'COMPLETED',
      total_cost: 25,
      credits_granted: 100,
      auto_renewal: true,
      new_balance: 75,
    });
    expect(balance(h)).toBe(75);
    const sub = h.db.prepare('SELECT * FROM subscriptions WHERE subscription_id = ?').get(r.data.subscription_id) as any;
    expect(sub).toMatchObject({
      user_id: 6,
      status: 'active',
      total_credits: 100,
      used_credits: 0,
      payment_method: 'wallet',
      price: 25,
      end_date: addDuration(h.now.toISOString(), 1, 'months'),
    });
    const tx = h.db.prepare('SELECT * FROM wallet_transactions WHERE transaction_id = ?').get(r.data.transaction_id) as any;
    expect(tx).toMatchObject({
      transaction_type: 'deduct',
      amount: 25,
      balance_before: 100,
      balance_after: 75,
      related_subscription_id: sub.subscription_id,
      status: 'completed',
    });
    expect(h.audits.find((a) => a.action === 'buy')).toMatchObject({ module: 'user' });
  });

  it('WALLET with too little money is 400 and changes nothing', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    h.db.prepare('UPDATE users SET wallet_balance = 24.99 WHERE user_id = 6').run();
    const subs = count(h, 'SELECT COUNT(*) AS n FROM subscriptions');
    const txs = count(h, 'SELECT COUNT(*) AS n FROM wallet_transactions');
    const r = await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET', service_plan_id: f.paid.linkId } });
    expect(r.status).toBe(400);
    expect(r.error!.code).toBe('INSUFFICIENT_BALANCE');
    expect(balance(h)).toBe(24.99);
    expect(count(h, 'SELECT COUNT(*) AS n FROM subscriptions')).toBe(subs);
    expect(count(h, 'SELECT COUNT(*) AS n FROM wallet_transactions')).toBe(txs);
  });

  it('a purchase that fails half-way (the transaction insert crashes) rolls everything back', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    h.db.prepare('UPDATE users SET wallet_balance = 100 WHERE user_id = 6').run();
    const subs = count(h, 'SELECT COUNT(*) AS n FROM subscriptions');
    const txs = count(h, 'SELECT COUNT(*) AS n FROM wallet_transactions');
    h.db.exec("CREATE TEMP TRIGGER crash BEFORE INSERT ON wallet_transactions BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
    const crashed = await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET', service_plan_id: f.paid.linkId } });
    expect(crashed.status).toBe(500);
    expect(crashed.error!.message).toContain('disk on fire');
    expect(h.db.inTransaction).toBe(false);
    expect(balance(h)).toBe(100);
    expect(count(h, 'SELECT COUNT(*) AS n FROM subscriptions')).toBe(subs);
    expect(count(h, 'SELECT COUNT(*) AS n FROM wallet_transactions')).toBe(txs);
    h.db.exec('DROP TRIGGER crash');
    expect((await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET', service_plan_id: f.paid.linkId } })).status).toBe(
      200,
    );
    expect(balance(h)).toBe(75);
  });

  it('a deleted or withdrawn plan cannot be bought, and nothing changes', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    h.db.prepare('UPDATE users SET wallet_balance = 100 WHERE user_id = 6').run();
    h.db.prepare('DELETE FROM subscription_plans WHERE plan_id = ?').run(f.paid.planId); // its link goes with it
    expect((await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET', service_plan_id: f.paid.linkId } })).status).toBe(
      404,
    );
    expect(
      (await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET', service_code: 'TESTSVC', plan_code: 'TEST-PAID' } }))
        .status,
    ).toBe(404);
    h.db.prepare('UPDATE service_plans SET is_available = 0 WHERE service_plan_id = ?').run(f.free.linkId);
    const off = await h.call('me.buy', { as: 'enduser', body: { payment_method: 'FREE', service_plan_id: f.free.linkId } });
    expect(off.status).toBe(400);
    expect(off.error!.code).toBe('PLAN_NOT_AVAILABLE');
    expect(balance(h)).toBe(100);
    expect(count(h, 'SELECT COUNT(*) AS n FROM subscriptions WHERE user_id = 6 AND service_id = ?', f.serviceId)).toBe(0);
  });

  it('FREE only for price 0; currency must match the wallet; an offer must be named', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    const notFree = await h.call('me.buy', { as: 'enduser', body: { payment_method: 'FREE', service_plan_id: f.paid.linkId } });
    expect(notFree.status).toBe(400);
    expect(notFree.error!.code).toBe('PLAN_NOT_FREE');
    const free = await h.call('me.buy', {
      as: 'enduser',
      body: { payment_method: 'FREE', service_plan_id: f.free.linkId, auto_renewal: false },
    });
    expect(free.data).toMatchObject({ success: true, total_cost: 0, credits_granted: 5, auto_renewal: false });
    const eur = await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET', service_plan_id: f.eur.linkId } });
    expect(eur.status).toBe(400);
    expect(eur.error!.code).toBe('CURRENCY_MISMATCH');
    expect((await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET' } })).status).toBe(400);
    expect((await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET', plan_code: 'BASIC-M' } })).error!.code).toBe(
      'AMBIGUOUS_PLAN',
    );
    expect((await h.call('me.buy', { as: 'enduser', body: { payment_method: 'BITCOIN', plan_code: 'TEST-PAID' } })).status).toBe(400);
  });

  it('PAYMENT answers a pending order and a payment URL, and creates no subscription', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    const subs = count(h, 'SELECT COUNT(*) AS n FROM subscriptions');
    const before = balance(h);
    expect((await h.call('me.buy', { as: 'enduser', body: { payment_method: 'PAYMENT', service_plan_id: f.paid.linkId } })).status).toBe(
      400,
    );
    const r = await h.call('me.buy', {
      as: 'enduser',
      body: { payment_method: 'PAYMENT', gateway_name: 'VNPAY', service_plan_id: f.paid.linkId },
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ payment_status: 'PENDING', subscription_id: null, total_cost: 25, gateway_name: 'VNPAY' });
    expect(r.data.payment_url).toBe(`${PAYMENT_URL_BASE}/vnpay/${r.data.order_id}`);
    expect(count(h, 'SELECT COUNT(*) AS n FROM subscriptions')).toBe(subs);
    expect(balance(h)).toBe(before);
    expect(h.db.prepare('SELECT payment_status FROM payment_orders WHERE order_id = ?').get(r.data.order_id)).toEqual({
      payment_status: 'PENDING',
    });
  });
});

describe('using a service', () => {
  async function subscribed(h: Harness) {
    const f = fixture(h);
    h.db.prepare('UPDATE users SET wallet_balance = 100 WHERE user_id = 6').run();
    const r = await h.call('me.buy', { as: 'enduser', body: { payment_method: 'WALLET', service_plan_id: f.paid.linkId } });
    return { f, subId: r.data.subscription_id as number };
  }

  it('use spends credits, logs usage and enforces the daily limit', async () => {
    const h = await Harness.create();
    const { subId } = await subscribed(h);
    const a = await h.call('me.use', {
      as: 'enduser',
      body: { service_code: 'TESTSVC', usage_amount: 6, usage_type: 'generate', response_time: 120.5 },
    });
    expect(a.status).toBe(200);
    expect(a.data).toMatchObject({ success: true, remaining_credits: 94, subscription_id: subId, daily_limit_remaining: 4 });
    expect(h.db.prepare('SELECT usage_amount, usage_type, response_time FROM usage_logs WHERE usage_id = ?').get(a.data.usage_id)).toEqual({
      usage_amount: 6,
      usage_type: 'generate',
      response_time: 120.5,
    });
    const over = await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 5, usage_type: 'api_call' } });
    expect(over.status).toBe(400);
    expect(over.error!.message).toBe('daily usage limit reached');
    const access = await h.call('me.access', { as: 'enduser', query: { service_code: 'TESTSVC', requested_usage: '5' } });
    expect(access.data).toMatchObject({
      has_access: false,
      access_reason: 'DAILY_LIMIT_REACHED',
      remaining_credits: 94,
      daily_limit_remaining: 4,
      subscription_status: 'active',
    });
    expect(
      (await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 4, usage_type: 'analyze' } })).status,
    ).toBe(200);
    // A new day: the limit starts over.
    h.now = new Date(Date.UTC(h.now.getUTCFullYear(), h.now.getUTCMonth(), h.now.getUTCDate() + 1, 0, 0, 1));
    const next = await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 10, usage_type: 'api_call' } });
    expect(next.data.remaining_credits).toBe(80);
    const s = h.db.prepare('SELECT used_credits, total_usage_count FROM subscriptions WHERE subscription_id = ?').get(subId);
    expect(s).toEqual({ used_credits: 20, total_usage_count: 3 });
  });

  it('a subscription at its daily limit does not stop a use another running one has room for', async () => {
    const h = await Harness.create();
    const { subId } = await subscribed(h);
    expect(
      (await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 10, usage_type: 'api_call' } })).status,
    ).toBe(200);
    // The paid subscription is at its 10 a day; a free one beside it has 5 credits and no limit.
    const free = await h.call('me.buy', {
      as: 'enduser',
      body: { payment_method: 'FREE', service_code: 'TESTSVC', plan_code: 'TEST-FREE' },
    });
    const freeId = free.data.subscription_id as number;
    const access = await h.call('me.access', { as: 'enduser', query: { service_code: 'TESTSVC', requested_usage: '3' } });
    expect(access.data).toMatchObject({ has_access: true, subscription_id: freeId });
    const use = await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 3, usage_type: 'api_call' } });
    expect(use.status).toBe(200);
    expect(use.data.subscription_id).toBe(freeId);
    // Beyond what the free one has: the paid one has the credits but no room today.
    const over = await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 4, usage_type: 'api_call' } });
    expect(over.error!.message).toBe('daily usage limit reached');
    expect(h.db.prepare('SELECT used_credits FROM subscriptions WHERE subscription_id = ?').pluck().get(subId)).toBe(10);
  });

  it('insufficient credits and no subscription are 400; access says why', async () => {
    const h = await Harness.create();
    fixture(h);
    const none = await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 1, usage_type: 'api_call' } });
    expect(none.status).toBe(400);
    expect(none.error!.code).toBe('NO_ACTIVE_SUBSCRIPTION');
    expect((await h.call('me.access', { as: 'enduser', query: { service_code: 'TESTSVC' } })).data).toMatchObject({
      has_access: false,
      access_reason: 'NO_SUBSCRIPTION',
    });
    await h.call('me.buy', { as: 'enduser', body: { payment_method: 'FREE', service_code: 'TESTSVC', plan_code: 'TEST-FREE' } });
    const ok = await h.call('me.access', { as: 'enduser', query: { service_code: 'TESTSVC' } });
    expect(ok.data).toMatchObject({
      has_access: true,
      access_reason: 'ACTIVE_SUBSCRIPTION',
      remaining_credits: 5,
      daily_limit_remaining: null,
    });
    const much = await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 6, usage_type: 'api_call' } });
    expect(much.status).toBe(400);
    expect(much.error!.message).toBe('insufficient credits');
    expect(
      (await h.call('me.access', { as: 'enduser', query: { service_code: 'TESTSVC', requested_usage: '6' } })).data.access_reason,
    ).toBe('INSUFFICIENT_CREDITS');
    expect(
      (await h.call('me.use', { as: 'enduser', body: { service_code: 'NOPE', usage_amount: 1, usage_type: 'api_call' } })).status,
    ).toBe(404);
  });

  it('generate-access needs a running subscription', async () => {
    const h = await Harness.create();
    const { subId } = await subscribed(h);
    const r = await h.call('me.generate-access', { as: 'enduser', body: { service_code: 'TESTSVC' } });
    expect(r.data).toMatchObject({ success: true, subscription_id: subId });
    expect(r.data.service_url).toMatch(/^https:\/\/api\.sandbox\.local\/v1\/testsvc\/session\//);
    expect((await h.call('me.generate-access', { as: 'agent', body: { service_code: 'TESTSVC' } })).status).toBe(400);
  });

  it('subscriptions list: status and service filters, computed fields', async () => {
    const h = await Harness.create();
    const { subId } = await subscribed(h);
    await h.call('me.use', { as: 'enduser', body: { service_code: 'TESTSVC', usage_amount: 3, usage_type: 'api_call' } });
    const r = await h.call('me.subscriptions', { as: 'enduser', query: { service_code: 'TESTSVC' } });
    expect(r.data).toHaveLength(1);
    expect(r.data[0]).toMatchObject({
      subscription_id: subId,
      is_currently_active: true,
      is_expired: false,
      remaining_credits: 97,
      usage_today: 3,
      days_remaining: 30,
      plan_code: 'TEST-PAID',
      service_name: 'Test Service, "beta"',
    });
    const all = await h.call('me.subscriptions', { as: 'enduser', query: { status: 'all' } });
    const expired = await h.call('me.subscriptions', { as: 'enduser', query: { status: 'expired' } });
    expect(expired.data.every((s: any) => s.status === 'expired')).toBe(true);
    expect(all.data.length).toBeGreaterThanOrEqual(expired.data.length + 1);
    expect(all.data.every((s: any) => s.user_id === 6)).toBe(true);
  });

  it('auto-renewal: own subscriptions only (404 otherwise)', async () => {
    const h = await Harness.create();
    const { subId } = await subscribed(h);
    const off = await h.call('me.auto-renewal', { as: 'enduser', body: { subscription_id: subId, auto_renewal: false } });
    expect(off.data).toMatchObject({ success: true, auto_renewal: false });
    const on = await h.call('me.auto-renewal', { as: 'enduser', body: { subscription_id: subId, payment_method: 'paypal' } });
    expect(on.data).toMatchObject({ auto_renewal: true, payment_method: 'paypal' });
    expect((await h.call('me.auto-renewal', { as: 'agent', body: { subscription_id: subId, auto_renewal: false } })).status).toBe(404);
    expect((await h.call('me.auto-renewal', { as: 'enduser', body: { subscription_id: 99999999 } })).status).toBe(404);
    h.db.prepare("UPDATE subscriptions SET status = 'cancelled' WHERE subscription_id = ?").run(subId);
    expect((await h.call('me.auto-renewal', { as: 'enduser', body: { subscription_id: subId } })).status).toBe(400);
  });
});

describe('wallet top-up and code activation', () => {
  it('top-up adds to the balance with a topup transaction; amount must be > 0', async () => {
    const h = await Harness.create();
    h.db.prepare('UPDATE users SET wallet_balance = 10.1 WHERE user_id = 6').run();
    const r = await h.call('me.topup', {
      as: 'enduser',
      body: { amount: 20.2, payment_method: 'card', transaction_reference: 'ref, "42"' },
    });
    expect(r.data).toMatchObject({ success: true, new_balance: 30.3 });
    expect(
      h.db
        .prepare(
          'SELECT transaction_type, amount, balance_before, balance_after, transaction_reference FROM wallet_transactions WHERE transaction_id = ?',
        )
        .get(r.data.transaction_id),
    ).toEqual({
      transaction_type: 'topup',
      amount: 20.2,
      balance_before: 10.1,
      balance_after: 30.3,
      transaction_reference: 'ref, "42"',
    });
    expect((h.db.prepare('SELECT last_topup_date FROM users WHERE user_id = 6').get() as any).last_topup_date).toBe(h.now.toISOString());
    expect((await h.call('me.topup', { as: 'enduser', body: { amount: 0, payment_method: 'card' } })).status).toBe(400);
    expect((await h.call('me.topup', { as: 'enduser', body: { amount: -5, payment_method: 'card' } })).status).toBe(400);
    expect((await h.call('me.topup', { as: 'enduser', body: { amount: 5, payment_method: 'crypto' } })).status).toBe(400);
    // Below a cent, and past the largest amount whose cents a balance keeps: refused, named.
    const tiny = await h.call('me.topup', { as: 'enduser', body: { amount: 0.001, payment_method: 'card' } });
    expect(tiny.status).toBe(400);
    expect(tiny.message).toBe('amount must be at least 0.01 (amounts are in cents)');
    const huge = await h.call('me.topup', { as: 'enduser', body: { amount: 1e20, payment_method: 'card' } });
    expect(huge.status).toBe(400);
    expect(huge.message).toBe('amount must be at most 1,000,000,000');
    // The balance the history ends with is still exact.
    const last = h.db
      .prepare('SELECT balance_after FROM wallet_transactions WHERE user_id = 6 ORDER BY transaction_id DESC LIMIT 1')
      .pluck()
      .get();
    expect(h.db.prepare('SELECT wallet_balance FROM users WHERE user_id = 6').pluck().get() as number).toBe(last);
  });

  it('activate: credits the running subscription once; 409 the second time; expired 400; unknown 404', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    f.code('TEST-AAAA-0001', f.paid.linkId, 40);
    f.code('TEST-AAAA-0002', f.paid.linkId, 0);
    f.code('TEST-OLD-0001', f.paid.linkId, 40, new Date(h.now.getTime() - 86_400_000).toISOString());
    f.code('TEST-ORPHAN-01', null, 40);
    // No subscription yet: one is created.
    const a = await h.call('me.activate', { as: 'enduser', body: { activation_code: 'test-aaaa-0001' } });
    expect(a.status).toBe(200);
    expect(a.data).toMatchObject({
      success: true,
      created_subscription: true,
      credits_added: 40,
      service_type: 'USAGE_BASED',
      service_code: 'TESTSVC',
    });
    const sub = h.db
      .prepare('SELECT total_credits, payment_method, activation_code FROM subscriptions WHERE subscription_id = ?')
      .get(a.data.subscription_id);
    expect(sub).toEqual({ total_credits: 40, payment_method: 'code', activation_code: 'TEST-AAAA-0001' });
    // Second code: credited to the same running subscription (0 credits on the code = the plan's).
    const b = await h.call('me.activate', { as: 'enduser', body: { activation_code: 'TEST-AAAA-0002', service_code: 'TESTSVC' } });
    expect(b.data).toMatchObject({ created_subscription: false, subscription_id: a.data.subscription_id, credits_added: 100 });
    expect(
      (h.db.prepare('SELECT total_credits FROM subscriptions WHERE subscription_id = ?').get(a.data.subscription_id) as any).total_credits,
    ).toBe(140);
    const again = await h.call('me.activate', { as: 'agent', body: { activation_code: 'TEST-AAAA-0001' } });
    expect(again.status).toBe(409);
    expect(again.error!.message).toBe('code already used');
    expect((await h.call('me.activate', { as: 'enduser', body: { activation_code: 'TEST-OLD-0001' } })).status).toBe(400);
    expect((await h.call('me.activate', { as: 'enduser', body: { activation_code: 'NOPE' } })).status).toBe(404);
    expect((await h.call('me.activate', { as: 'enduser', body: { activation_code: 'TEST-ORPHAN-01' } })).status).toBe(400);
    const used = h.db.prepare("SELECT is_used, used_by, used_in_subscription FROM usage_codes WHERE code_value = 'TEST-AAAA-0001'").get();
    expect(used).toEqual({ is_used: 1, used_by: 6, used_in_subscription: a.data.subscription_id });
    expect(h.db.prepare("SELECT is_used FROM usage_codes WHERE code_value = 'TEST-OLD-0001'").get()).toEqual({ is_used: 0 });
  });

  it('activate with a service_code of another service is 400 and leaves the code unused', async () => {
    const h = await Harness.create();
    const f = fixture(h);
    f.code('TEST-BBBB-0001', f.paid.linkId, 10);
    expect((await h.call('me.activate', { as: 'enduser', body: { activation_code: 'TEST-BBBB-0001', service_code: 'GPT4' } })).status).toBe(
      400,
    );
    expect(h.db.prepare("SELECT is_used FROM usage_codes WHERE code_value = 'TEST-BBBB-0001'").get()).toEqual({ is_used: 0 });
  });
});
