/**
 * Usage codes, wallet transactions, the dashboard and the audit log over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call, closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(closeAllTestSandboxes);

const get = (path: string, query: Record<string, unknown> = {}) => call(sb, 'GET', path, { as: 'admin', query });
const gen = (body: Record<string, unknown>) => call(sb, 'POST', '/admin/usage-codes/generate', { as: 'admin', body });
const linkId = (service: string, plan: string) =>
  (
    sb.db
      .prepare(
        'SELECT sp.service_plan_id AS id FROM service_plans sp JOIN services s USING (service_id) JOIN subscription_plans p USING (plan_id) WHERE s.service_code = ? AND p.plan_code = ?',
      )
      .get(service, plan) as { id: number }
  ).id;

describe('usage codes', () => {
  it('lists with a summary whose parts add up', async () => {
    const r = await get('/admin/usage-codes/list', { page_size: 50 });
    expect(r.status).toBe(200);
    const { summary, pagination, usage_codes } = r.json.data;
    expect(pagination.total_records).toBe(summary.total_codes);
    expect(summary.active_codes + summary.expired_codes + summary.used_codes).toBe(summary.total_codes);
    expect(summary.usage_rate).toBeCloseTo((summary.used_codes / summary.total_codes) * 100, 1);
    expect(summary.top_plan_code).toEqual(expect.any(String));
    expect(summary.top_service_code).toEqual(expect.any(String));
    expect(summary.total_revenue).toBeGreaterThan(0);
    expect(summary.average_usage_time).toBeGreaterThan(0);
    for (const k of [
      'batch_id',
      'code_id',
      'code_value',
      'created_date',
      'credit_amount',
      'expiry_date',
      'is_expired',
      'is_used',
      'plan_code',
      'service_code',
      'used_by',
      'used_by_username',
      'used_date',
      'used_in_subscription',
    ]) {
      expect(usage_codes[0]).toHaveProperty(k);
    }
    const noSummary = await get('/admin/usage-codes/list', { include_summary: false });
    expect(noSummary.json.data).not.toHaveProperty('summary');
  });

  it('filters: used, expired, batch, service, plan, value, dates', async () => {
    const used = await get('/admin/usage-codes/list', { is_used: true, page_size: 100 });
    expect(used.json.data.usage_codes.every((c: { is_used: boolean; used_date: string }) => c.is_used && c.used_date)).toBe(true);
    expect(used.json.data.summary.used_codes).toBe(used.json.data.summary.total_codes);
    const exp = await get('/admin/usage-codes/list', { is_expired: true, is_used: false, page_size: 100 });
    expect(
      exp.json.data.usage_codes.every(
        (c: { is_expired: boolean; expiry_date: string }) => c.is_expired && c.expiry_date < new Date().toISOString(),
      ),
    ).toBe(true);
    const live = await get('/admin/usage-codes/list', { is_expired: false, is_used: false });
    expect(live.json.data.summary.active_codes).toBe(live.json.data.pagination.total_records);
    const batch = used.json.data.usage_codes[0].batch_id;
    const b = await get('/admin/usage-codes/list', { batch_id: batch, page_size: 100 });
    expect(b.json.data.usage_codes.every((c: { batch_id: string }) => c.batch_id === batch)).toBe(true);
    const svc = await get('/admin/usage-codes/list', { service_code: 'GPT4', plan_code: 'PRO-M', page_size: 100 });
    expect(
      svc.json.data.usage_codes.every(
        (c: { service_code: string; plan_code: string }) => c.service_code === 'GPT4' && c.plan_code === 'PRO-M',
      ),
    ).toBe(true);
    const part = (used.json.data.usage_codes[0].code_value as string).slice(-4).toLowerCase();
    const v = await get('/admin/usage-codes/list', { code_value: part });
    expect(v.json.data.usage_codes.every((c: { code_value: string }) => c.code_value.toLowerCase().includes(part))).toBe(true);
    const day = (used.json.data.usage_codes[0].used_date as string).slice(0, 10);
    const ud = await get('/admin/usage-codes/list', { used_date_from: day, used_date_to: day, page_size: 100 });
    expect(ud.json.data.usage_codes.length).toBeGreaterThan(0);
    expect(ud.json.data.usage_codes.every((c: { used_date: string }) => c.used_date.startsWith(day))).toBe(true);
    const cd = await get('/admin/usage-codes/list', { created_date_from: '2026-01-01', created_date_to: '2026-06-30', page_size: 100 });
    expect(
      cd.json.data.usage_codes.every((c: { created_date: string }) => c.created_date >= '2026-01-01' && c.created_date < '2026-07-01'),
    ).toBe(true);
  });

  it('sorts by code value, batch, service, used date', async () => {
    for (const [sortBy, key] of [
      ['CodeValue', 'code_value'],
      ['BatchID', 'batch_id'],
      ['ServiceCode', 'service_code'],
      ['UsedDate', 'used_date'],
    ]) {
      const r = await get('/admin/usage-codes/list', {
        sort_by: sortBy,
        sort_order: 'ASC',
        is_used: true,
        page_size: 100,
        include_summary: false,
      });
      const vals = r.json.data.usage_codes.map((c: Record<string, string>) => c[key].toLowerCase());
      expect(vals).toEqual([...vals].sort());
    }
  });

  it('generates unique codes with a prefix and expiry; 409 for a batch that exists; 404 unknown link', async () => {
    const id = linkId('GPT4', 'PRO-M');
    const r = await gen({ batch_id: 'TEST-BATCH-1', code_count: 250, code_prefix: 'PROMO', expiration_days: 30, service_plan_id: id });
    expect(r.status).toBe(200);
    const d = r.json.data;
    expect(d).toMatchObject({
      batch_id: 'TEST-BATCH-1',
      generated_count: 250,
      service_plan_id: id,
      service_code: 'GPT4',
      plan_code: 'PRO-M',
    });
    expect(new Set(d.codes.map((c: { code_value: string }) => c.code_value)).size).toBe(250);
    expect(d.codes.every((c: { code_value: string }) => /^PROMO-[A-Z2-9]{4}-[A-Z2-9]{4}$/.test(c.code_value))).toBe(true);
    expect(Math.round((Date.parse(d.expiry_date) - Date.now()) / 86_400_000)).toBe(30);
    const listed = await get('/admin/usage-codes/list', { batch_id: 'TEST-BATCH-1' });
    expect(listed.json.data.summary).toMatchObject({ total_codes: 250, active_codes: 250, used_codes: 0, usage_rate: 0 });
    expect((await gen({ batch_id: 'TEST-BATCH-1', code_count: 1, expiration_days: 30, service_plan_id: id })).status).toBe(409);
    expect((await gen({ batch_id: 'TEST-BATCH-2', code_count: 1, expiration_days: 30, service_plan_id: 99999 })).status).toBe(404);
    const plain = await gen({ batch_id: 'TEST-BATCH-3', code_count: 2, expiration_days: 1, service_plan_id: id });
    expect(plain.json.data.codes[0].code_value).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  });

  it('batch_id ignores case, as the other code filters do: the list finds it, generate is 409 for it', async () => {
    const id = linkId('GPT4', 'PRO-M');
    const made = await gen({ batch_id: 'CASE-202611-905', code_count: 3, expiration_days: 30, service_plan_id: id });
    expect(made.status).toBe(200);
    for (const q of ['case-202611-905', 'Case-202611-905', 'CASE-202611-905']) {
      const r = await get('/admin/usage-codes/list', { batch_id: q, page_size: 100 });
      expect(r.json.data.pagination.total_records).toBe(3);
      expect(r.json.data.usage_codes.every((c: { batch_id: string }) => c.batch_id === 'CASE-202611-905')).toBe(true);
    }
    // The whole code, not a part of it.
    expect((await get('/admin/usage-codes/list', { batch_id: 'case-202611' })).json.data.pagination.total_records).toBe(0);
    const again = await gen({ batch_id: 'case-202611-905', code_count: 1, expiration_days: 30, service_plan_id: id });
    expect(again.status).toBe(409);
    expect(again.json.error.fields[0].field).toBe('batch_id');
    expect(sb.db.prepare("SELECT COUNT(*) AS n FROM usage_codes WHERE batch_id = 'case-202611-905'").get()).toEqual({ n: 0 });
    // The lookup uses an index that ignores case (schema migration admin-002).
    const plan = sb.db.prepare('EXPLAIN QUERY PLAN SELECT 1 FROM usage_codes WHERE batch_id = ? COLLATE NOCASE LIMIT 1').all('x') as Array<{
      detail: string;
    }>;
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING (COVERING )?INDEX usage_codes_batch_nocase/);
  });

  it('validates the generate bounds', async () => {
    const id = linkId('GPT4', 'PRO-M');
    const base = { batch_id: 'TEST-B', code_count: 1, expiration_days: 1, service_plan_id: id };
    for (const bad of [
      { code_count: 1001 },
      { expiration_days: 366 },
      { batch_id: 'ab' },
      { batch_id: 'x'.repeat(51) },
      { code_prefix: 'x'.repeat(21) },
      { code_prefix: 'a b' },
    ]) {
      const r = await gen({ ...base, ...bad });
      expect(r.status).toBe(400);
      expect(r.json.error.fields[0].field).toBe(Object.keys(bad)[0]);
    }
  });
});

describe('wallet transactions', () => {
  it('pages newest first with a summary over the filtered set', async () => {
    const r = await get('/admin/wallet-transactions/list', { page_size: 100 });
    expect(r.status).toBe(200);
    const { pagination, transactions, summary } = r.json.data;
    const total = (sb.db.prepare('SELECT COUNT(*) AS n FROM wallet_transactions').get() as { n: number }).n;
    expect(total).toBeGreaterThanOrEqual(10_000);
    expect(pagination.total_records).toBe(total);
    expect(summary.transaction_count).toBe(total);
    const dates = transactions.map((t: { transaction_date: string }) => t.transaction_date);
    expect(dates).toEqual([...dates].sort().reverse());
    for (const k of [
      'amount',
      'balance_after',
      'balance_before',
      'created_date',
      'currency',
      'description',
      'email',
      'payment_method',
      'related_subscription_id',
      'status',
      'transaction_date',
      'transaction_id',
      'transaction_reference',
      'transaction_type',
      'user_id',
      'username',
    ]) {
      expect(transactions[0]).toHaveProperty(k);
    }
    expect(summary.net_amount).toBeCloseTo(
      summary.total_topup_amount + summary.total_refund_amount - summary.total_deduct_amount - summary.total_auto_renewal_amount,
      1,
    );
    expect(['card', 'bank', 'paypal', 'crypto']).toContain(summary.top_payment_method);
    expect(['topup', 'deduct', 'refund', 'auto_renewal']).toContain(summary.top_transaction_type);
    expect(summary.date_range_analyzed.from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('filters by type, method, amount, dates, user and username', async () => {
    const r = await get('/admin/wallet-transactions/list', {
      transaction_type: 'refund',
      payment_method: 'paypal',
      amount_from: 10,
      amount_to: 30,
      date_from: '2025-06-01',
      date_to: '2025-12-31',
      page_size: 100,
    });
    const t = r.json.data.transactions;
    expect(t.length).toBeGreaterThan(0);
    expect(
      t.every(
        (x: Record<string, any>) =>
          x.transaction_type === 'refund' &&
          x.payment_method === 'paypal' &&
          x.amount >= 10 &&
          x.amount <= 30 &&
          x.transaction_date >= '2025-06-01' &&
          x.transaction_date < '2026-01-01',
      ),
    ).toBe(true);
    expect(r.json.data.summary).toMatchObject({
      total_topup_amount: 0,
      total_deduct_amount: 0,
      top_transaction_type: 'refund',
      top_payment_method: 'paypal',
      date_range_analyzed: { from: '2025-06-01', to: '2025-12-31' },
    });
    const u = t[0].user_id;
    const byUser = await get('/admin/wallet-transactions/list', {
      user_id: u,
      page_size: 100,
      sort_by: 'TransactionDate',
      sort_order: 'ASC',
    });
    const rows = byUser.json.data.transactions as Array<{ user_id: number; balance_before: number; balance_after: number }>;
    expect(rows.every((x) => x.user_id === u)).toBe(true);
    // One wallet's history chains: each balance_before is the previous balance_after, never negative.
    for (let i = 1; i < rows.length; i++) expect(rows[i].balance_before).toBeCloseTo(rows[i - 1].balance_after, 2);
    expect(rows.every((x) => x.balance_after >= 0)).toBe(true);
    const name = await get('/admin/wallet-transactions/list', { username: t[0].username.toUpperCase() });
    expect(
      name.json.data.transactions.every((x: { username: string }) => x.username.toLowerCase().includes(t[0].username.toLowerCase())),
    ).toBe(true);
    expect((await get('/admin/wallet-transactions/list', { transaction_type: 'gift' })).status).toBe(400);
  });

  it('sorts by username, type and amount', async () => {
    for (const [sortBy, key, numeric] of [
      ['Username', 'username', false],
      ['TransactionType', 'transaction_type', false],
      ['Amount', 'amount', true],
    ] as const) {
      const r = await get('/admin/wallet-transactions/list', { sort_by: sortBy, sort_order: 'DESC', page_size: 100 });
      const vals = r.json.data.transactions.map((x: Record<string, unknown>) => (numeric ? x[key] : String(x[key]).toLowerCase()));
      const sorted = [...vals].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
      expect(vals).toEqual(sorted);
    }
  });

  it('the summary follows writes at once', async () => {
    const before = (await get('/admin/wallet-transactions/list', { user_id: 6 })).json.data.summary;
    sb.db
      .prepare(
        `INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, payment_method, status, transaction_date, created_date)
         VALUES (6, 'topup', 10, 0, 10, 'card', 'completed', ?, ?)`,
      )
      .run(new Date().toISOString(), new Date().toISOString());
    const after = (await get('/admin/wallet-transactions/list', { user_id: 6 })).json.data.summary;
    expect(after.transaction_count).toBe(before.transaction_count + 1);
    expect(after.total_topup_amount).toBeCloseTo(before.total_topup_amount + 10, 2);
  });
});

describe('dashboard', () => {
  it('answers totals, statuses, 30 days of revenue and sign-ups, top services, recent activity', async () => {
    const r = await get('/admin/dashboard');
    expect(r.status).toBe(200);
    const d = r.json.data;
    expect(d.totals).toMatchObject({
      services: expect.any(Number),
      active_subscriptions: expect.any(Number),
      users: expect.any(Number),
      revenue_30_days: expect.any(Number),
    });
    expect(Object.keys(d.subscriptions_by_status).sort()).toEqual(['active', 'cancelled', 'expired', 'paused']);
    expect(d.totals.subscriptions).toBe(Object.values(d.subscriptions_by_status as Record<string, number>).reduce((a, b) => a + b, 0));
    expect(d.revenue_by_day).toHaveLength(30);
    expect(d.new_subscriptions_by_day).toHaveLength(30);
    expect(d.revenue_by_day[29].date).toBe(new Date().toISOString().slice(0, 10));
    expect(d.totals.revenue_30_days).toBeCloseTo(
      d.revenue_by_day.reduce((s: number, x: { amount: number }) => s + x.amount, 0),
      1,
    );
    expect(d.top_services).toHaveLength(5);
    expect(d.recent_activity).toHaveLength(10);
    expect(d.recent_activity[0].id).toBeGreaterThan(d.recent_activity[9].id);
  });
});

describe('audit', () => {
  it('pages newest first with filters; details come back as objects', async () => {
    const r = await get('/audit', { page_size: 25 });
    expect(r.status).toBe(200);
    const d = r.json.data;
    expect(Object.keys(d).sort()).toEqual(['logs', 'page', 'page_size', 'total_items', 'total_pages']);
    expect(d.total_items).toBeGreaterThanOrEqual(1000);
    expect(d.total_pages).toBe(Math.ceil(d.total_items / 25));
    const ids = d.logs.map((l: { id: number }) => l.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(typeof d.logs.find((l: { details: unknown }) => l.details !== null).details).toBe('object');
    for (const k of ['id', 'user_id', 'username', 'module', 'action', 'details', 'ip_address', 'user_agent', 'created_at'])
      expect(d.logs[0]).toHaveProperty(k);
    const p2 = await get('/audit', { page_size: 25, page: 2 });
    expect(p2.json.data.logs[0].id).toBeLessThan(ids[24]);
    const m = await get('/audit', {
      module: 'subscriptions',
      action: 'manage',
      start_date: '2025-01-01',
      end_date: '2025-12-31',
      page_size: 100,
    });
    expect(m.json.data.logs.length).toBeGreaterThan(0);
    expect(
      m.json.data.logs.every(
        (l: Record<string, string>) => l.module === 'subscriptions' && l.action === 'manage' && l.created_at.startsWith('2025'),
      ),
    ).toBe(true);
    const u = await get('/audit', { user_id: 2, page_size: 100 });
    expect(u.json.data.logs.every((l: { user_id: number }) => l.user_id === 2)).toBe(true);
    expect((await get('/audit', { page_size: 101 })).status).toBe(400);
  });

  it('a mutation shows up first, under the caller; /audit/users/{id} lists one user', async () => {
    await call(sb, 'POST', '/admin/maintenance/cleanup-subscription-data', { as: 'superadmin', body: { dry_run: true } });
    const top = (await get('/audit', { page_size: 1 })).json.data.logs[0];
    expect(top).toMatchObject({ username: 'superadmin', module: 'maintenance', action: 'cleanup', details: { dry_run: true } });
    const mine = await get(`/audit/users/${top.user_id}`, { page_size: 100 });
    expect(mine.status).toBe(200);
    expect(mine.json.data.logs[0].id).toBe(top.id);
    expect(mine.json.data.logs.every((l: { user_id: number }) => l.user_id === top.user_id)).toBe(true);
    expect((await get('/audit/users/999999')).status).toBe(404);
  });
});
