/**
 * Subscription plans and service-plan links over HTTP.
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
const send = (method: string, path: string, body: unknown) => call(sb, method, path, { as: 'admin', body });

const plan = (code: string, extra: Record<string, unknown> = {}) => ({
  plan_code: code,
  plan_name: `Plan ${code}, "spécial"`,
  price: 15.5,
  currency: 'usd',
  duration: 3,
  duration_unit: 'months',
  credit_amount: 500,
  credit_unit: 'minutes',
  ...extra,
});

describe('subscription plans', () => {
  it('lists with every filter', async () => {
    const all = await get('/admin/subscription-plans', { page_size: 100 });
    expect(all.json.data.pagination.total_records).toBe(15);
    const item = all.json.data.subscription_plans[0];
    for (const k of [
      'plan_id',
      'plan_code',
      'plan_name',
      'price',
      'currency',
      'duration',
      'duration_unit',
      'credit_amount',
      'credit_unit',
      'is_active',
      'linked_services_count',
      'active_subscriptions_count',
      'revenue_30_days',
      'created_date',
      'last_updated',
    ]) {
      expect(item).toHaveProperty(k);
    }
    const codes = async (q: Record<string, unknown>) =>
      ((await get('/admin/subscription-plans', { page_size: 100, ...q })).json.data.subscription_plans as Array<{ plan_code: string }>)
        .map((p) => p.plan_code)
        .sort();
    expect(await codes({ duration_unit: 'years' })).toEqual(['ENTERPRISE-Y', 'HOURS-200', 'PRO-Y']);
    expect(await codes({ credit_unit: 'minutes' })).toEqual(['MINUTES-100', 'MINUTES-1000']);
    expect(await codes({ price_from: 100, price_to: 1000 })).toEqual(['HOURS-200', 'PRO-Y']);
    expect(await codes({ is_active: false })).toEqual(['LEGACY-M']);
    expect(await codes({ plan_name: 'básico' })).toEqual(['BASIC-M']);
    expect(await codes({ plan_code: 'pro-m' })).toEqual(['PRO-M']);
    expect((await codes({ has_credits: true })).length).toBe(15);
    expect(await codes({ has_credits: false })).toEqual([]);
    expect((await get('/admin/subscription-plans', { credit_unit: 'hours' })).status).toBe(400);
  });

  it('sorts by price and name', async () => {
    const r = await get('/admin/subscription-plans', { sort_by: 'Price', sort_order: 'ASC', page_size: 100 });
    const prices = r.json.data.subscription_plans.map((p: { price: number }) => p.price);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    const d = await get('/admin/subscription-plans/list', { sort_by: 'PlanCode', sort_order: 'DESC', page_size: 3 });
    expect(d.json.data.subscription_plans.map((p: { plan_code: string }) => p.plan_code)).toEqual(['WEEK-TOKENS', 'TRIAL-7D', 'TOKENS-1M']);
  });

  it('report: plan items with auto_renewal and max_usage_per_day; stats on demand', async () => {
    const r = await get('/admin/subscription-plans/report', { duration_unit: 'days' });
    expect(r.json.data.map((p: { plan_code: string }) => p.plan_code)).toEqual(['DAY-PASS', 'TRIAL-7D', 'WEEK-TOKENS']);
    expect(r.json.data[0]).toMatchObject({ auto_renewal: false, max_usage_per_day: 200 });
    expect(r.json.data[0]).not.toHaveProperty('total_revenue');
    const s = await get('/admin/subscription-plans/report', { include_stats: true, plan_code: 'PRO-M' });
    expect(s.json.data[0]).toMatchObject({
      plan_code: 'PRO-M',
      total_subscriptions_count: expect.any(Number),
      total_revenue: expect.any(Number),
    });
  });

  it('creates (409 on a duplicate code), updates (409 on a taken code, 400 on a mismatched plan_id), deletes', async () => {
    const c = await send('POST', '/admin/subscription-plans', plan('T-PLAN'));
    expect(c.status).toBe(200);
    const id = c.json.data.plan_id;
    expect((await send('POST', '/admin/subscription-plans', plan('T-PLAN'))).status).toBe(409);
    expect((await send('POST', '/admin/subscription-plans', plan('T-NEG', { price: -1 }))).status).toBe(400);
    expect((await send('POST', '/admin/subscription-plans', plan('T-ZERO', { duration: 0 }))).json.error.fields[0].field).toBe('duration');
    const u = await send('PUT', `/admin/subscription-plans/${id}`, { plan_id: id, price: 20, is_active: false, plan_name: 'Renamed' });
    expect(u.status).toBe(200);
    expect(u.json.data.subscription_plan).toMatchObject({
      plan_id: id,
      price: 20,
      is_active: false,
      plan_name: 'Renamed',
      currency: 'USD',
    });
    expect((await send('PUT', `/admin/subscription-plans/${id}`, { plan_id: id, plan_code: 'PRO-M' })).status).toBe(409);
    expect((await send('PUT', `/admin/subscription-plans/${id}`, { plan_id: id + 1 })).status).toBe(400);
    // plan_id is required (the spec's "plan_id required"), the path id notwithstanding.
    const none = await send('PUT', `/admin/subscription-plans/${id}`, { price: 5 });
    expect(none.status).toBe(400);
    expect(none.json.error.fields.map((f: { field: string }) => f.field)).toEqual(['plan_id']);
    expect((await send('PUT', '/admin/subscription-plans/99999', { plan_id: 99999, price: 1 })).status).toBe(404);
    const del = await send('DELETE', '/admin/subscription-plans', { plan_code: 'T-PLAN' });
    expect(del.status).toBe(200);
    expect(del.json.data.affected_records).toBe(1);
    expect((await send('DELETE', '/admin/subscription-plans', { plan_id: id })).status).toBe(404);
    expect((await send('DELETE', '/admin/subscription-plans', {})).status).toBe(400);
  });

  it('refuses to delete a plan in use without force_delete', async () => {
    const r = await send('DELETE', '/admin/subscription-plans', { plan_code: 'HOURS-10' });
    expect(r.status).toBe(409);
    const f = await send('DELETE', '/admin/subscription-plans', { plan_code: 'HOURS-10', force_delete: true });
    expect(f.status).toBe(200);
    const left = sb.db
      .prepare("SELECT COUNT(*) AS n FROM service_plans sp JOIN subscription_plans p USING (plan_id) WHERE p.plan_code = 'HOURS-10'")
      .get() as { n: number };
    expect(left.n).toBe(0);
  });
});

describe('service-plan links', () => {
  it('lists with filters and sorting', async () => {
    const r = await get('/admin/service-plans', { service_code: 'GPT4', sort_by: 'PlanCode', sort_order: 'ASC' });
    const links = r.json.data.service_plans;
    expect(links.length).toBe(7);
    expect(links.map((l: { plan_code: string }) => l.plan_code)).toEqual([
      'BASIC-M',
      'ENTERPRISE-Y',
      'PRO-M',
      'PRO-Q',
      'PRO-Y',
      'STARTER-JP',
      'TRIAL-7D',
    ]);
    for (const k of [
      'service_plan_id',
      'service_code',
      'service_name',
      'service_type',
      'plan_code',
      'plan_name',
      'plan_description',
      'is_available',
      'total_codes_count',
      'unused_codes_count',
      'active_subscriptions_count',
      'created_date',
      'last_updated',
    ]) {
      expect(links[0]).toHaveProperty(k);
    }
    const unused = await get('/admin/service-plans/list', { has_unused_codes: true, page_size: 100 });
    expect(unused.json.data.service_plans.every((l: { unused_codes_count: number }) => l.unused_codes_count > 0)).toBe(true);
    const none = await get('/admin/service-plans', { has_unused_codes: false, page_size: 100 });
    expect(none.json.data.service_plans.every((l: { unused_codes_count: number }) => l.unused_codes_count === 0)).toBe(true);
    const total = (await get('/admin/service-plans')).json.data.pagination.total_records;
    expect(unused.json.data.pagination.total_records + none.json.data.pagination.total_records).toBe(total);
    const hyb = await get('/admin/service-plans', { service_type: 'HYBRID', is_available: true, page_size: 100 });
    expect(
      hyb.json.data.service_plans.every(
        (l: { service_type: string; is_available: boolean }) => l.service_type === 'HYBRID' && l.is_available,
      ),
    ).toBe(true);
    const bySvc = await get('/admin/service-plans', { sort_by: 'ServiceCode', sort_order: 'ASC', page_size: 100 });
    const svcs = bySvc.json.data.service_plans.map((l: { service_code: string }) => l.service_code);
    expect(svcs).toEqual([...svcs].sort());
  });

  it('detail: info, subscriptions and codes; 404 for an unknown id', async () => {
    const id = (await get('/admin/service-plans', { service_code: 'GPT4', plan_code: 'PRO-M' })).json.data.service_plans[0].service_plan_id;
    const d = await get(`/admin/service-plans/${id}/detail`);
    expect(d.status).toBe(200);
    expect(d.json.data.service_plan_info).toMatchObject({
      service_plan_id: id,
      service_code: 'GPT4',
      plan_code: 'PRO-M',
      base_service_url: expect.any(String),
      requires_auth: true,
    });
    expect(d.json.data.service_plan_info).toHaveProperty('last_subscription_date');
    expect(d.json.data.subscriptions.length).toBeGreaterThan(0);
    expect(d.json.data.subscriptions[0]).toHaveProperty('username');
    expect(d.json.data.usage_codes.every((c: { is_used: unknown }) => typeof c.is_used === 'boolean')).toBe(true);
    expect((await get('/admin/service-plans/99999/detail')).status).toBe(404);
  });

  it('creates (404 unknown codes, 409 existing link), manages and deletes', async () => {
    expect((await send('POST', '/admin/service-plans', { service_code: 'NOPE', plan_code: 'PRO-M' })).status).toBe(404);
    expect((await send('POST', '/admin/service-plans', { service_code: 'GPT4', plan_code: 'PRO-M' })).status).toBe(409);
    const c = await send('POST', '/admin/service-plans', { service_code: 'WHISPER', plan_code: 'PRO-M', is_available: false });
    expect(c.status).toBe(200);
    const id = c.json.data.service_plan_id;

    const act = await send('PUT', '/admin/service-plans/manage', { action: 'activate', service_code: 'WHISPER', plan_code: 'PRO-M' });
    expect(act.status).toBe(200);
    expect(act.json.data.service_plan.is_available).toBe(true);
    const again = await send('PUT', '/admin/service-plans/manage', { action: 'activate', service_code: 'WHISPER', plan_code: 'PRO-M' });
    expect(again.json.message).toMatch(/already available/);
    const deact = await send('PUT', '/admin/service-plans/manage', { action: 'deactivate', service_code: 'WHISPER', plan_code: 'PRO-M' });
    expect(deact.json.data.service_plan.is_available).toBe(false);
    expect(
      (
        await send('PUT', '/admin/service-plans/manage', {
          action: 'activate',
          service_code: 'WHISPER',
          plan_code: 'PRO-M',
          service_plan_id: id + 1000,
        })
      ).status,
    ).toBe(400);
    expect(
      (await send('PUT', '/admin/service-plans/manage', { action: 'update', service_code: 'WHISPER', plan_code: 'PRO-Y' })).status,
    ).toBe(400);
    const moved = await send('PUT', '/admin/service-plans/manage', {
      action: 'update',
      service_code: 'WHISPER',
      plan_code: 'PRO-Y',
      service_plan_id: id,
    });
    expect(moved.status).toBe(200);
    expect(moved.json.data.service_plan).toMatchObject({ service_code: 'WHISPER', plan_code: 'PRO-Y' });
    expect(
      (
        await send('PUT', '/admin/service-plans/manage', {
          action: 'update',
          service_code: 'GPT4',
          plan_code: 'PRO-M',
          service_plan_id: id,
        })
      ).status,
    ).toBe(409);

    const up = await send('PUT', '/admin/service-plans', { service_plan_id: id, is_available: true });
    expect(up.json.data.service_plan.is_available).toBe(true);
    expect((await send('PUT', '/admin/service-plans', { is_available: true })).status).toBe(400);
    expect((await send('PUT', '/admin/service-plans', { service_plan_id: id, new_plan_id: 99999 })).status).toBe(404);

    const gone = await send('PUT', '/admin/service-plans/manage', { action: 'delete', service_code: 'WHISPER', plan_code: 'PRO-Y' });
    expect(gone.status).toBe(200);
    expect(gone.json.data.affected_records).toBe(1);
    expect((await get(`/admin/service-plans/${id}/detail`)).status).toBe(404);
  });

  it('deleting a link in use needs force_delete; delete_related_data removes its subscriptions and codes', async () => {
    const link = (await get('/admin/service-plans', { service_code: 'DALLE', plan_code: 'BASIC-M' })).json.data.service_plans[0];
    const r = await send('DELETE', '/admin/service-plans', { service_plan_id: link.service_plan_id });
    expect(r.status).toBe(409);
    expect((await send('DELETE', '/admin/service-plans', {})).status).toBe(400);
    const subs = (
      sb.db.prepare('SELECT COUNT(*) AS n FROM subscriptions WHERE service_plan_id = ?').get(link.service_plan_id) as { n: number }
    ).n;
    const codes = link.total_codes_count;
    const f = await send('DELETE', '/admin/service-plans', { service_plan_id: link.service_plan_id, delete_related_data: true });
    expect(f.status).toBe(200);
    expect(f.json.data.affected_records).toBeGreaterThanOrEqual(subs + codes + 1);
    expect(
      (sb.db.prepare('SELECT COUNT(*) AS n FROM usage_codes WHERE service_plan_id = ?').get(link.service_plan_id) as { n: number }).n,
    ).toBe(0);
  });
});
