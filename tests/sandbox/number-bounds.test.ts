/**
 * Large numbers the contract accepts (README-decisions.md, "Dates and numbers at their limits"):
 * a change whose date would fall after 9999-12-31 is a 400 naming its field and writes nothing;
 * a threshold further back than any date matches nothing older (its cutoff is clamped to the
 * earliest date); credits never pass Number.MAX_SAFE_INTEGER. Never a 500.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes } from '../support/sandbox.js';
import { fixture, Harness } from './user-harness.js';

afterAll(closeAllTestSandboxes);

const EARLIEST = '0000-01-01T00:00:00.000Z';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const planBody = (code: string, duration: number, duration_unit = 'months') => ({
  plan_code: code,
  plan_name: `Plan ${code}`,
  price: 1,
  currency: 'USD',
  duration,
  duration_unit,
  credit_amount: 10,
  credit_unit: 'requests',
});

/** A plan lasting `duration` months, sold by the fixture's service, written straight to the database (as an older sandbox could have). */
function longPlan(h: Harness, serviceId: number, duration: number) {
  const at = '2025-01-01T00:00:00.000Z';
  const p = h.db
    .prepare(
      `INSERT INTO subscription_plans (plan_code, plan_name, price, currency, duration, duration_unit, credit_amount, credit_unit, auto_renewal, created_date, last_updated)
       VALUES ('FOREVER', 'Forever', 5, 'USD', ?, 'months', 10, 'requests', 0, ?, ?)`,
    )
    .run(duration, at, at);
  const l = h.db
    .prepare('INSERT INTO service_plans (service_id, plan_id, is_available, created_date, last_updated) VALUES (?, ?, 1, ?, ?)')
    .run(serviceId, Number(p.lastInsertRowid), at, at);
  return { planId: Number(p.lastInsertRowid), linkId: Number(l.lastInsertRowid) };
}

const count = (h: Harness, sql: string, ...args: unknown[]) => (h.db.prepare(sql).get(...args) as { n: number }).n;

describe('plan durations past 9999-12-31', () => {
  it('create and update refuse them (400 naming duration); nothing written', async () => {
    const h = await Harness.create();
    for (const [d, unit] of [
      [2147483648, 'months'],
      [9007199254740991, 'days'],
      [8000, 'years'],
    ] as const) {
      const r = await h.call('plans.create', { as: 'admin', body: planBody(`BIG-${unit}`, d, unit) });
      expect(r.status).toBe(400);
      expect(r.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'duration' }] });
      expect(r.error!.message).toContain('9999-12-31');
    }
    expect(count(h, "SELECT COUNT(*) AS n FROM subscription_plans WHERE plan_code LIKE 'BIG-%'")).toBe(0);
    // A long but writable plan is fine; changing its unit or length past the limit is not.
    const ok = await h.call('plans.create', { as: 'admin', body: planBody('LONG', 9000, 'months') });
    expect(ok.status).toBe(200);
    const id = ok.data.plan_id;
    const unit = await h.call('plans.update', { as: 'admin', params: { id }, body: { plan_id: id, duration_unit: 'years' } });
    expect(unit.status).toBe(400);
    expect(unit.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'duration' }] });
    const len = await h.call('plans.update', { as: 'admin', params: { id }, body: { plan_id: id, duration: 2147483648 } });
    expect(len.status).toBe(400);
    expect(h.db.prepare('SELECT duration, duration_unit FROM subscription_plans WHERE plan_id = ?').get(id)).toEqual({
      duration: 9000,
      duration_unit: 'months',
    });
  });

  it('buying (WALLET) or activating a code of such a plan is 400 naming the plan: no debit, no subscription, the code unused', async () => {
    const h = await Harness.create();
    const fx = fixture(h);
    const forever = longPlan(h, fx.serviceId, 2147483648);
    const eve = h.userId('enduser');
    const wallet = () => (h.db.prepare('SELECT wallet_balance AS b FROM users WHERE user_id = ?').get(eve) as { b: number }).b;
    const balance = wallet();
    const subs = count(h, 'SELECT COUNT(*) AS n FROM subscriptions WHERE user_id = ?', eve);
    const txs = count(h, 'SELECT COUNT(*) AS n FROM wallet_transactions WHERE user_id = ?', eve);

    const buy = await h.call('me.buy', { as: 'enduser', body: { service_plan_id: forever.linkId, payment_method: 'WALLET' } });
    expect(buy.status).toBe(400);
    expect(buy.error!.code).toBe('PLAN_DURATION_OUT_OF_RANGE');
    expect(buy.error!.message).toContain('FOREVER');
    expect(buy.error!.message).toContain('9999-12-31');
    expect(wallet()).toBe(balance);
    expect(count(h, 'SELECT COUNT(*) AS n FROM subscriptions WHERE user_id = ?', eve)).toBe(subs);
    expect(count(h, 'SELECT COUNT(*) AS n FROM wallet_transactions WHERE user_id = ?', eve)).toBe(txs);

    fx.code('FOREVER-CODE', forever.linkId, 3);
    const act = await h.call('me.activate', { as: 'enduser', body: { activation_code: 'FOREVER-CODE' } });
    expect(act.status).toBe(400);
    expect(act.error!.code).toBe('PLAN_DURATION_OUT_OF_RANGE');
    expect(act.error!.message).toContain('FOREVER');
    expect(h.db.prepare("SELECT is_used, used_by FROM usage_codes WHERE code_value = 'FOREVER-CODE'").get()).toEqual({
      is_used: 0,
      used_by: null,
    });
    expect(count(h, 'SELECT COUNT(*) AS n FROM subscriptions WHERE user_id = ?', eve)).toBe(subs);
  });
});

describe('PUT /admin/subscriptions/{id}/manage at the limits', () => {
  it('extend past 9999-12-31 is 400 naming extend_days; the subscription is unchanged', async () => {
    const h = await Harness.create();
    const sub = h.db.prepare("SELECT subscription_id, end_date, status FROM subscriptions WHERE status = 'active' LIMIT 1").get() as {
      subscription_id: number;
      end_date: string;
      status: string;
    };
    for (const days of [100000000, 9007199254740991, 3_000_000]) {
      const r = await h.call('subscriptions.manage', {
        as: 'admin',
        params: { id: sub.subscription_id },
        body: { action: 'extend', extend_days: days, reason: 'far' },
      });
      expect(r.status).toBe(400);
      expect(r.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'extend_days' }] });
      expect(r.error!.message).toContain('9999-12-31');
    }
    expect(h.db.prepare('SELECT end_date, status FROM subscriptions WHERE subscription_id = ?').get(sub.subscription_id)).toEqual({
      end_date: sub.end_date,
      status: sub.status,
    });
    // Up to the last day is fine.
    const room = Math.floor((Date.parse('9999-12-31T00:00:00.000Z') - Date.parse(sub.end_date)) / 86_400_000);
    const ok = await h.call('subscriptions.manage', {
      as: 'admin',
      params: { id: sub.subscription_id },
      body: { action: 'extend', extend_days: room, reason: 'far' },
    });
    expect(ok.status).toBe(200);
    expect(ok.data.end_date.slice(0, 10)).toMatch(/^9999-12-3/);
  });

  it('add_credits past Number.MAX_SAFE_INTEGER is 400 naming extend_credits; the credits are unchanged', async () => {
    const h = await Harness.create();
    const sub = h.db
      .prepare("SELECT subscription_id, total_credits FROM subscriptions WHERE status = 'active' AND total_credits > 0 LIMIT 1")
      .get() as { subscription_id: number; total_credits: number };
    const r = await h.call('subscriptions.manage', {
      as: 'admin',
      params: { id: sub.subscription_id },
      body: { action: 'add_credits', extend_credits: Number.MAX_SAFE_INTEGER, reason: 'lots' },
    });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'extend_credits' }] });
    expect(
      (h.db.prepare('SELECT total_credits AS n FROM subscriptions WHERE subscription_id = ?').get(sub.subscription_id) as { n: number }).n,
    ).toBe(sub.total_credits);
    const exact = await h.call('subscriptions.manage', {
      as: 'admin',
      params: { id: sub.subscription_id },
      body: { action: 'add_credits', extend_credits: Number.MAX_SAFE_INTEGER - sub.total_credits, reason: 'all' },
    });
    expect(exact.status).toBe(200);
    expect(exact.data.total_credits).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('a code whose credits would take a running subscription past Number.MAX_SAFE_INTEGER is 400; the code stays unused', async () => {
    const h = await Harness.create();
    const fx = fixture(h);
    const bought = await h.call('me.buy', { as: 'enduser', body: { service_plan_id: fx.free.linkId, payment_method: 'FREE' } });
    expect(bought.status).toBe(200);
    h.db
      .prepare('UPDATE subscriptions SET total_credits = ? WHERE subscription_id = ?')
      .run(Number.MAX_SAFE_INTEGER - 1, bought.data.subscription_id);
    fx.code('HUGE-CODE', fx.free.linkId, 2);
    const r = await h.call('me.activate', { as: 'enduser', body: { activation_code: 'HUGE-CODE' } });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'activation_code' }] });
    expect(h.db.prepare("SELECT is_used FROM usage_codes WHERE code_value = 'HUGE-CODE'").get()).toEqual({ is_used: 0 });
    expect(
      (
        h.db.prepare('SELECT total_credits AS n FROM subscriptions WHERE subscription_id = ?').get(bought.data.subscription_id) as {
          n: number;
        }
      ).n,
    ).toBe(Number.MAX_SAFE_INTEGER - 1);
  });
});

describe('wallet balances', () => {
  it('a top-up that would take the balance past 10,000,000,000,000 is 400 naming amount; nothing written', async () => {
    const h = await Harness.create();
    const eve = h.userId('enduser');
    h.db.prepare('UPDATE users SET wallet_balance = ? WHERE user_id = ?').run(9_999_999_999_500, eve);
    const txs = count(h, 'SELECT COUNT(*) AS n FROM wallet_transactions WHERE user_id = ?', eve);
    const r = await h.call('me.topup', { as: 'enduser', body: { amount: 1000, payment_method: 'card' } });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({ code: 'INVALID_AMOUNT', fields: [{ field: 'amount' }] });
    expect(h.db.prepare('SELECT wallet_balance AS b FROM users WHERE user_id = ?').get(eve)).toEqual({ b: 9_999_999_999_500 });
    expect(count(h, 'SELECT COUNT(*) AS n FROM wallet_transactions WHERE user_id = ?', eve)).toBe(txs);
    const ok = await h.call('me.topup', { as: 'enduser', body: { amount: 500, payment_method: 'card' } });
    expect(ok.status).toBe(200);
    expect(ok.data.new_balance).toBe(10_000_000_000_000);
  });
});

describe('thresholds further back than any date', () => {
  it('cleanup: the cutoff is clamped to the earliest date, nothing older matches, the answer is normal', async () => {
    const h = await Harness.create();
    h.tokenFor('admin');
    const tokens = count(h, 'SELECT COUNT(*) AS n FROM tokens');
    const subs = count(h, 'SELECT COUNT(*) AS n FROM subscriptions');
    for (const body of [
      { cleanup_inactive_tokens_days: 99999999999, dry_run: true },
      { cleanup_expired_days: 1e15, dry_run: true },
      { cleanup_expired_days: 9007199254740991, cleanup_inactive_tokens_days: 1_000_000, cleanup_usage_logs_days: 800_000 },
    ]) {
      const r = await h.call('cleanup.run', { as: 'admin', body });
      expect(r.status).toBe(200);
      for (const v of Object.values(r.data.cutoffs)) expect(v).toMatch(ISO);
      const far = Object.entries(body)
        .filter(([k]) => k !== 'dry_run')
        .map(
          ([k]) =>
            ({
              cleanup_expired_days: 'expired_subscriptions_before',
              cleanup_inactive_tokens_days: 'inactive_tokens_before',
              cleanup_usage_logs_days: 'usage_logs_before',
            })[k]!,
        );
      for (const k of far) expect(r.data.cutoffs[k]).toBe(EARLIEST);
    }
    const last = await h.call('cleanup.run', {
      as: 'admin',
      body: { cleanup_expired_days: 1e15, cleanup_inactive_tokens_days: 1e15, cleanup_usage_logs_days: 1e15, dry_run: true },
    });
    expect(last.data.cleanup_summary).toEqual({ expired_subscriptions: 0, inactive_tokens: 0, usage_logs: 0, dry_run: true });
    expect(count(h, 'SELECT COUNT(*) AS n FROM tokens')).toBe(tokens);
    expect(count(h, 'SELECT COUNT(*) AS n FROM subscriptions')).toBe(subs);
  });

  it('superadmin user search: last_login_days of any size keeps everyone who ever signed in', async () => {
    const h = await Harness.create();
    const signedIn = count(h, 'SELECT COUNT(*) AS n FROM users WHERE last_login_date IS NOT NULL');
    for (const days of ['9007199254740991', '3000000']) {
      const r = await h.call('users.search', { as: 'superadmin', query: { last_login_days: days, page_size: 10 } });
      expect(r.status).toBe(200);
      expect(r.data.page_info.total_count).toBe(signedIn);
    }
  });

  it('a date filter ending on 9999-12-31 keeps every row (the day after it is no date)', async () => {
    const h = await Harness.create();
    const all = count(h, 'SELECT COUNT(*) AS n FROM subscriptions');
    const r = await h.call('subscriptions.list', { as: 'admin', query: { start_date_to: '9999-12-31', page_size: 1 } });
    expect(r.status).toBe(200);
    expect(r.data.pagination.total_records).toBe(all);
  });
});
