/**
 * The admin-area contract beyond services (the API documents' administrator area, points 5, 7 and 9): endpoint
 * lists, and for every validation rule one failing and one passing input.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { AnyEndpoint } from '../../src/api/contract/common.js';
import * as sp from '../../src/api/contract/admin-service-plans.js';
import * as pl from '../../src/api/contract/admin-plans.js';
import * as su from '../../src/api/contract/admin-subscriptions.js';
import * as mi from '../../src/api/contract/admin-misc.js';

/** safeParse must fail, with an issue whose path starts at `field`. */
function rejects(schema: z.ZodType | undefined, input: unknown, field: string) {
  expect(schema, 'schema exists').toBeDefined();
  const r = schema!.safeParse(input);
  expect(r.success, `expected ${JSON.stringify(input)} to be rejected`).toBe(false);
  if (!r.success) expect(r.error.issues.map((i) => i.path[0])).toContain(field);
}
/** safeParse must succeed; returns the parsed value. */
function accepts(schema: z.ZodType | undefined, input: unknown): Record<string, unknown> {
  expect(schema, 'schema exists').toBeDefined();
  const r = schema!.safeParse(input);
  if (!r.success) throw new Error(`expected ${JSON.stringify(input)} to pass: ${r.error.message}`);
  return r.data as Record<string, unknown>;
}
const routes = (list: readonly AnyEndpoint[]) => list.map((e) => `${e.method} ${e.path}`);

describe('endpoint lists', () => {
  it('service-plan links: 7 endpoints', () => {
    expect(routes(sp.servicePlanEndpoints)).toEqual([
      'GET /admin/service-plans',
      'GET /admin/service-plans/list',
      'GET /admin/service-plans/{id}/detail',
      'POST /admin/service-plans',
      'PUT /admin/service-plans',
      'PUT /admin/service-plans/manage',
      'DELETE /admin/service-plans',
    ]);
    expect(sp.servicePlanEndpoints.map((e) => e.name)).toEqual([
      'service-plans.list',
      'service-plans.list-alt',
      'service-plans.detail',
      'service-plans.create',
      'service-plans.update',
      'service-plans.manage',
      'service-plans.delete',
    ]);
  });
  it('subscription plans: 6 endpoints', () => {
    expect(routes(pl.planEndpoints)).toEqual([
      'GET /admin/subscription-plans',
      'GET /admin/subscription-plans/list',
      'GET /admin/subscription-plans/report',
      'POST /admin/subscription-plans',
      'PUT /admin/subscription-plans/{id}',
      'DELETE /admin/subscription-plans',
    ]);
    expect(pl.planEndpoints.map((e) => e.name)).toEqual([
      'plans.list',
      'plans.list-alt',
      'plans.report',
      'plans.create',
      'plans.update',
      'plans.delete',
    ]);
  });
  it('subscriptions and maintenance: 5 endpoints', () => {
    expect(routes(su.subscriptionEndpoints)).toEqual([
      'GET /admin/subscriptions',
      'GET /admin/subscriptions/list',
      'PUT /admin/subscriptions/{id}/manage',
      'DELETE /admin/subscriptions',
      'POST /admin/maintenance/cleanup-subscription-data',
    ]);
    expect(su.subscriptionEndpoints.map((e) => e.name)).toEqual([
      'subscriptions.list',
      'subscriptions.list-alt',
      'subscriptions.manage',
      'subscriptions.delete',
      'cleanup.run',
    ]);
  });
  it('usage codes, wallet, dashboard, audit: 6 endpoints', () => {
    expect(routes(mi.adminMiscEndpoints)).toEqual([
      'GET /admin/usage-codes/list',
      'POST /admin/usage-codes/generate',
      'GET /admin/wallet-transactions/list',
      'GET /admin/dashboard',
      'GET /audit',
      'GET /audit/users/{id}',
    ]);
    expect(mi.adminMiscEndpoints.map((e) => e.name)).toEqual([
      'usage-codes.list',
      'usage-codes.generate',
      'wallet.list',
      'dashboard.get',
      'audit.list',
      'audit.user',
    ]);
  });
  it('all admin, unique names, each with a summary; lists page, reports do not', () => {
    const all: AnyEndpoint[] = [...sp.servicePlanEndpoints, ...pl.planEndpoints, ...su.subscriptionEndpoints, ...mi.adminMiscEndpoints];
    expect(all).toHaveLength(24);
    expect(new Set(all.map((e) => e.name)).size).toBe(24);
    for (const e of all) {
      expect(e.area).toBe('admin');
      expect(e.access).toBe('admin');
      expect(e.summary.length).toBeGreaterThan(0);
    }
    const paged = Object.fromEntries(all.filter((e) => e.paging).map((e) => [e.name, e.paging!.items]));
    expect(paged).toEqual({
      'service-plans.list': 'service_plans',
      'service-plans.list-alt': 'service_plans',
      'plans.list': 'subscription_plans',
      'plans.list-alt': 'subscription_plans',
      'subscriptions.list': 'subscriptions',
      'subscriptions.list-alt': 'subscriptions',
      'usage-codes.list': 'usage_codes',
      'wallet.list': 'transactions',
      'audit.list': 'logs',
      'audit.user': 'logs',
    });
    expect(sp.servicePlansList.paging).toEqual({
      page: 'page_number',
      size: 'page_size',
      items: 'service_plans',
      info: 'pagination',
      defaultSize: 20,
      maxSize: 100,
    });
    expect(mi.auditList.paging).toEqual({ page: 'page', size: 'page_size', items: 'logs', info: '', defaultSize: 20, maxSize: 100 });
    expect(pl.plansReport.paging).toBeUndefined();
  });
});

/** Paging bounds and sort enums shared by every admin list (point 9). */
function listRules(e: AnyEndpoint, sortFields: string[], defaultSort: string) {
  const Q = e.query;
  it(`${e.name}: defaults page_number 1, page_size 20, sort_by ${defaultSort}, sort_order DESC`, () => {
    expect(accepts(Q, {})).toMatchObject({ page_number: 1, page_size: 20, sort_by: defaultSort, sort_order: 'DESC' });
  });
  it(`${e.name}: page_number >= 1, integer, coerced`, () => {
    rejects(Q, { page_number: 0 }, 'page_number');
    rejects(Q, { page_number: '1.5' }, 'page_number');
    expect(accepts(Q, { page_number: '3' }).page_number).toBe(3);
  });
  it(`${e.name}: page_size 1..100`, () => {
    rejects(Q, { page_size: 101 }, 'page_size');
    rejects(Q, { page_size: 0 }, 'page_size');
    expect(accepts(Q, { page_size: '100' }).page_size).toBe(100);
  });
  it(`${e.name}: sort_by is one of ${sortFields.join(', ')}; sort_order ASC or DESC`, () => {
    for (const f of sortFields) expect(accepts(Q, { sort_by: f }).sort_by).toBe(f);
    rejects(Q, { sort_by: 'Nope' }, 'sort_by');
    rejects(Q, { sort_order: 'desc' }, 'sort_order');
    expect(accepts(Q, { sort_order: 'ASC' }).sort_order).toBe('ASC');
  });
}

describe('service-plan links', () => {
  for (const e of [sp.servicePlansList, sp.servicePlansListAlt]) {
    listRules(e, ['ServiceCode', 'PlanCode', 'CreatedDate'], 'CreatedDate');
    it(`${e.name}: filters`, () => {
      rejects(e.query, { service_code: 'x'.repeat(51) }, 'service_code');
      rejects(e.query, { plan_code: 'x'.repeat(51) }, 'plan_code');
      rejects(e.query, { service_type: 'api' }, 'service_type');
      rejects(e.query, { is_available: 'maybe' }, 'is_available');
      rejects(e.query, { has_unused_codes: 'maybe' }, 'has_unused_codes');
      expect(
        accepts(e.query, {
          service_code: 'x'.repeat(50),
          plan_code: 'P',
          service_type: 'HYBRID',
          is_available: 'true',
          has_unused_codes: '0',
        }),
      ).toMatchObject({ is_available: true, has_unused_codes: false, service_type: 'HYBRID' });
    });
  }
  it('detail: path id coerced to an integer', () => {
    expect(accepts(sp.servicePlansDetail.params, { id: '7' }).id).toBe(7);
    rejects(sp.servicePlansDetail.params, { id: 'abc' }, 'id');
    rejects(sp.servicePlansDetail.params, {}, 'id');
  });
  it('detail: response holds service_plan_info, subscriptions, usage_codes', () => {
    const d = accepts(sp.servicePlansDetail.response, {
      service_plan_info: { service_plan_id: 1, base_service_url: 'https://x', last_code_generated_date: null, extra: 1 },
      subscriptions: [{ subscription_id: 1, status: 'active' }],
      usage_codes: [{ code_id: 1, code_value: 'ABC' }],
    });
    expect((d.service_plan_info as Record<string, unknown>).extra).toBe(1);
  });
  it('create: service_code and plan_code required, max 50; is_available optional boolean', () => {
    const B = sp.servicePlansCreate.body;
    accepts(B, { service_code: 'GPT4', plan_code: 'PRO-M' });
    accepts(B, { service_code: 'x'.repeat(50), plan_code: 'x'.repeat(50), is_available: false });
    rejects(B, { plan_code: 'PRO-M' }, 'service_code');
    rejects(B, { service_code: 'GPT4' }, 'plan_code');
    rejects(B, { service_code: 'x'.repeat(51), plan_code: 'P' }, 'service_code');
    rejects(B, { service_code: 'S', plan_code: 'x'.repeat(51) }, 'plan_code');
    rejects(B, { service_code: 'S', plan_code: 'P', is_available: 'true' }, 'is_available');
  });
  it('update: every field optional, bounded', () => {
    const B = sp.servicePlansUpdate.body;
    accepts(B, {});
    accepts(B, { service_plan_id: 1, new_plan_id: 2, new_service_id: 3, plan_code: 'x'.repeat(50), service_code: 'S', is_available: true });
    rejects(B, { plan_code: 'x'.repeat(51) }, 'plan_code');
    rejects(B, { service_code: 'x'.repeat(51) }, 'service_code');
    rejects(B, { new_plan_id: 1.5 }, 'new_plan_id');
    rejects(B, { new_service_id: '3' }, 'new_service_id');
    rejects(B, { service_plan_id: 'a' }, 'service_plan_id');
    rejects(B, { is_available: 'yes' }, 'is_available');
  });
  it('manage: action enum; codes max 50; service_plan_id optional integer', () => {
    const B = sp.servicePlansManage.body;
    for (const action of ['activate', 'deactivate', 'update', 'delete']) accepts(B, { action, service_code: 'S', plan_code: 'P' });
    accepts(B, { action: 'activate', service_code: 'S', plan_code: 'P', service_plan_id: 4 });
    rejects(B, { service_code: 'S', plan_code: 'P' }, 'action');
    rejects(B, { action: 'pause', service_code: 'S', plan_code: 'P' }, 'action');
    rejects(B, { action: 'activate', service_code: 'x'.repeat(51), plan_code: 'P' }, 'service_code');
    rejects(B, { action: 'activate', service_code: 'S', plan_code: 'x'.repeat(51) }, 'plan_code');
    rejects(B, { action: 'activate', service_code: 'S', plan_code: 'P', service_plan_id: 1.5 }, 'service_plan_id');
  });
  it('delete: optional identifiers and flags', () => {
    const B = sp.servicePlansDelete.body;
    accepts(B, {});
    accepts(B, { service_plan_id: 1, plan_id: 2, service_id: 3, force_delete: true, delete_related_data: false });
    rejects(B, { service_plan_id: '1' }, 'service_plan_id');
    rejects(B, { plan_id: 1.5 }, 'plan_id');
    rejects(B, { service_id: 'x' }, 'service_id');
    rejects(B, { force_delete: 'true' }, 'force_delete');
    rejects(B, { delete_related_data: 1 }, 'delete_related_data');
  });
});

describe('subscription plans', () => {
  for (const e of [pl.plansList, pl.plansListAlt]) {
    listRules(e, ['PlanCode', 'PlanName', 'Price', 'CreatedDate'], 'CreatedDate');
    it(`${e.name}: filters (credit_unit only requests, tokens, minutes)`, () => {
      for (const u of ['requests', 'tokens', 'minutes']) accepts(e.query, { credit_unit: u });
      rejects(e.query, { credit_unit: 'hours' }, 'credit_unit');
      for (const u of ['days', 'months', 'years']) accepts(e.query, { duration_unit: u });
      rejects(e.query, { duration_unit: 'weeks' }, 'duration_unit');
      rejects(e.query, { price_from: 'cheap' }, 'price_from');
      rejects(e.query, { price_to: '-1' }, 'price_to');
      rejects(e.query, { has_credits: 'maybe' }, 'has_credits');
      rejects(e.query, { is_active: 'maybe' }, 'is_active');
      rejects(e.query, { plan_code: 'x'.repeat(51) }, 'plan_code');
      rejects(e.query, { plan_name: 'x'.repeat(201) }, 'plan_name');
      expect(accepts(e.query, { price_from: '9.5', price_to: 20, has_credits: 'true', is_active: false })).toMatchObject({
        price_from: 9.5,
        price_to: 20,
        has_credits: true,
        is_active: false,
      });
    });
  }
  it('report: include_stats defaults to false; filters bounded', () => {
    const Q = pl.plansReport.query;
    expect(accepts(Q, {}).include_stats).toBe(false);
    expect(accepts(Q, { include_stats: 'true', duration_unit: 'months', is_active: '1', plan_code: 'P' })).toMatchObject({
      include_stats: true,
      is_active: true,
    });
    rejects(Q, { include_stats: 'sure' }, 'include_stats');
    rejects(Q, { duration_unit: 'hours' }, 'duration_unit');
    rejects(Q, { plan_code: 'x'.repeat(51) }, 'plan_code');
    expect(Array.isArray(accepts(pl.plansReport.response, [{ plan_id: 1, auto_renewal: true, max_usage_per_day: 5 }]))).toBe(true);
  });
  const plan = {
    plan_code: 'PRO-M',
    plan_name: 'Pro monthly',
    price: 19.99,
    currency: 'USD',
    duration: 1,
    duration_unit: 'months',
    credit_amount: 1000,
    credit_unit: 'hours',
  };
  it('create: every rule', () => {
    const B = pl.plansCreate.body;
    accepts(B, plan);
    accepts(B, { ...plan, price: 0, auto_renewal: true, is_active: false, max_usage_per_day: 50 });
    for (const k of Object.keys(plan)) {
      const { [k]: _, ...rest } = plan as Record<string, unknown>;
      rejects(B, rest, k);
    }
    rejects(B, { ...plan, plan_code: 'x'.repeat(51) }, 'plan_code');
    accepts(B, { ...plan, plan_code: 'x'.repeat(50), plan_name: 'x'.repeat(200) });
    rejects(B, { ...plan, plan_name: 'x'.repeat(201) }, 'plan_name');
    rejects(B, { ...plan, price: -0.01 }, 'price');
    rejects(B, { ...plan, price: '19.99' }, 'price');
    rejects(B, { ...plan, currency: 1 }, 'currency');
    rejects(B, { ...plan, duration: 1.5 }, 'duration');
    rejects(B, { ...plan, duration_unit: 'weeks' }, 'duration_unit');
    rejects(B, { ...plan, credit_amount: 10.5 }, 'credit_amount');
    rejects(B, { ...plan, credit_unit: 'seconds' }, 'credit_unit');
    rejects(B, { ...plan, auto_renewal: 'yes' }, 'auto_renewal');
    rejects(B, { ...plan, is_active: 1 }, 'is_active');
    rejects(B, { ...plan, max_usage_per_day: 2.5 }, 'max_usage_per_day');
  });
  it('update: path id integer; plan_id a required integer (the spec: "plan_id required"), the rest optional with the create bounds', () => {
    const E = pl.plansUpdate;
    expect(accepts(E.params, { id: '12' }).id).toBe(12);
    rejects(E.params, { id: 'x' }, 'id');
    rejects(E.body, {}, 'plan_id');
    accepts(E.body, { plan_id: 12 });
    accepts(E.body, { plan_id: 12, price: 5 });
    rejects(E.body, { plan_id: '12' }, 'plan_id');
    rejects(E.body, { price: -1 }, 'price');
    rejects(E.body, { plan_code: 'x'.repeat(51) }, 'plan_code');
    rejects(E.body, { plan_name: 'x'.repeat(201) }, 'plan_name');
    rejects(E.body, { duration: 0.5 }, 'duration');
    rejects(E.body, { duration_unit: 'weeks' }, 'duration_unit');
    rejects(E.body, { credit_amount: 1.5 }, 'credit_amount');
    rejects(E.body, { credit_unit: 'seconds' }, 'credit_unit');
    rejects(E.body, { max_usage_per_day: 'x' }, 'max_usage_per_day');
  });
  it('delete: plan_id, plan_code max 50, flags', () => {
    const B = pl.plansDelete.body;
    accepts(B, {});
    accepts(B, { plan_id: 1, plan_code: 'x'.repeat(50), force_delete: true, delete_related_data: true });
    rejects(B, { plan_code: 'x'.repeat(51) }, 'plan_code');
    rejects(B, { plan_id: '1' }, 'plan_id');
    rejects(B, { force_delete: 'yes' }, 'force_delete');
  });
});

describe('subscriptions and maintenance', () => {
  for (const e of [su.subscriptionsList, su.subscriptionsListAlt]) {
    listRules(e, ['Username', 'ServiceCode', 'StartDate', 'EndDate', 'CreatedDate'], 'CreatedDate');
    it(`${e.name}: status, payment_method, dates, booleans`, () => {
      for (const s of ['active', 'expired', 'cancelled', 'paused']) accepts(e.query, { status: s });
      rejects(e.query, { status: 'pending' }, 'status');
      for (const m of ['card', 'bank', 'paypal', 'crypto']) accepts(e.query, { payment_method: m });
      rejects(e.query, { payment_method: 'cash' }, 'payment_method');
      for (const f of ['start_date_from', 'start_date_to', 'end_date_from', 'end_date_to']) {
        rejects(e.query, { [f]: '2026/01/01' }, f);
        rejects(e.query, { [f]: '2026-02-30' }, f);
        expect(accepts(e.query, { [f]: '2026-01-31' })[f]).toBe('2026-01-31');
      }
      rejects(e.query, { user_id: 'bob' }, 'user_id');
      rejects(e.query, { auto_renewal: 'maybe' }, 'auto_renewal');
      rejects(e.query, { is_expired: 'maybe' }, 'is_expired');
      rejects(e.query, { service_code: 'x'.repeat(51) }, 'service_code');
      rejects(e.query, { plan_code: 'x'.repeat(51) }, 'plan_code');
      expect(accepts(e.query, { user_id: '17', username: 'bob', auto_renewal: 'true', is_expired: 'false' })).toMatchObject({
        user_id: 17,
        auto_renewal: true,
        is_expired: false,
      });
    });
  }
  it('manage: path id; action enum; reason required max 500; extend_* optional integers', () => {
    const E = su.subscriptionsManage;
    expect(accepts(E.params, { id: '42' }).id).toBe(42);
    rejects(E.params, { id: '4x' }, 'id');
    for (const action of ['extend', 'pause', 'resume', 'cancel', 'add_credits']) accepts(E.body, { action, reason: 'ticket 981' });
    accepts(E.body, { action: 'extend', reason: 'x'.repeat(500), extend_days: 30, extend_credits: 100 });
    rejects(E.body, { reason: 'r' }, 'action');
    rejects(E.body, { action: 'activate', reason: 'r' }, 'action');
    rejects(E.body, { action: 'pause' }, 'reason');
    rejects(E.body, { action: 'pause', reason: 'x'.repeat(501) }, 'reason');
    rejects(E.body, { action: 'extend', reason: 'r', extend_days: 1.5 }, 'extend_days');
    rejects(E.body, { action: 'extend', reason: 'r', extend_days: '30' }, 'extend_days');
    rejects(E.body, { action: 'add_credits', reason: 'r', extend_credits: 2.5 }, 'extend_credits');
    expect(
      accepts(E.response, { subscription_id: 42, action: 'extend', message: 'ok', status: 'active', remaining_credits: 5 }),
    ).toMatchObject({ status: 'active' });
  });
  it('delete: subscription_id, user_id, service_id, flags', () => {
    const B = su.subscriptionsDelete.body;
    accepts(B, {});
    accepts(B, { subscription_id: 1, user_id: 2, service_id: 3, force_delete: false, delete_related_data: true });
    rejects(B, { subscription_id: '1' }, 'subscription_id');
    rejects(B, { user_id: 1.5 }, 'user_id');
    rejects(B, { service_id: 'x' }, 'service_id');
    rejects(B, { delete_related_data: 'no' }, 'delete_related_data');
  });
  it('cleanup: *_days optional integers >= 0; dry_run optional boolean', () => {
    const B = su.cleanupRun.body;
    accepts(B, {});
    accepts(B, { cleanup_expired_days: 0, cleanup_inactive_tokens_days: 30, cleanup_usage_logs_days: 180, dry_run: true });
    for (const f of ['cleanup_expired_days', 'cleanup_inactive_tokens_days', 'cleanup_usage_logs_days']) {
      rejects(B, { [f]: -1 }, f);
      rejects(B, { [f]: 1.5 }, f);
      rejects(B, { [f]: '90' }, f);
    }
    rejects(B, { dry_run: 'true' }, 'dry_run');
    accepts(su.cleanupRun.response, { cleanup_summary: { expired: 3 }, message: 'done' });
  });
});

describe('usage codes, wallet, dashboard, audit', () => {
  listRules(mi.usageCodesList, ['CodeValue', 'BatchID', 'ServiceCode', 'UsedDate', 'CreatedDate'], 'CreatedDate');
  it('usage-codes.list: include_summary defaults to true; filters', () => {
    const Q = mi.usageCodesList.query;
    expect(accepts(Q, {}).include_summary).toBe(true);
    expect(accepts(Q, { include_summary: 'false' }).include_summary).toBe(false);
    rejects(Q, { include_summary: 'nah' }, 'include_summary');
    rejects(Q, { is_used: 'nah' }, 'is_used');
    rejects(Q, { is_expired: 'nah' }, 'is_expired');
    for (const f of ['created_date_from', 'created_date_to', 'used_date_from', 'used_date_to']) {
      rejects(Q, { [f]: '01-02-2026' }, f);
      accepts(Q, { [f]: '2026-02-01' });
    }
    rejects(Q, { batch_id: 'x'.repeat(51) }, 'batch_id');
    rejects(Q, { service_code: 'x'.repeat(51) }, 'service_code');
    rejects(Q, { plan_code: 'x'.repeat(51) }, 'plan_code');
    expect(
      accepts(Q, { batch_id: 'SPRING26', service_code: 'S', plan_code: 'P', code_value: 'ABC', is_used: '1', is_expired: false }),
    ).toMatchObject({
      is_used: true,
      is_expired: false,
    });
  });
  const gen = { batch_id: 'SPRING26', code_count: 500, expiration_days: 90, service_plan_id: 3 };
  it('usage-codes.generate: batch_id 3-50; code_count 1..1000; expiration_days 1..365; code_prefix max 20', () => {
    const B = mi.usageCodesGenerate.body;
    accepts(B, gen);
    accepts(B, { ...gen, batch_id: 'abc', code_count: 1000, expiration_days: 365, code_prefix: 'x'.repeat(20) });
    accepts(B, { ...gen, batch_id: 'x'.repeat(50), code_count: 1, expiration_days: 1 });
    for (const k of Object.keys(gen)) {
      const { [k]: _, ...rest } = gen as Record<string, unknown>;
      rejects(B, rest, k);
    }
    rejects(B, { ...gen, batch_id: 'ab' }, 'batch_id');
    rejects(B, { ...gen, batch_id: 'x'.repeat(51) }, 'batch_id');
    rejects(B, { ...gen, code_count: 1001 }, 'code_count');
    rejects(B, { ...gen, code_count: 0 }, 'code_count');
    rejects(B, { ...gen, code_count: 2.5 }, 'code_count');
    rejects(B, { ...gen, expiration_days: 366 }, 'expiration_days');
    rejects(B, { ...gen, expiration_days: 0 }, 'expiration_days');
    rejects(B, { ...gen, expiration_days: 1.5 }, 'expiration_days');
    rejects(B, { ...gen, code_prefix: 'x'.repeat(21) }, 'code_prefix');
    rejects(B, { ...gen, service_plan_id: 1.5 }, 'service_plan_id');
    rejects(B, { ...gen, service_plan_id: '3' }, 'service_plan_id');
    accepts(mi.usageCodesGenerate.response, {
      batch_id: 'SPRING26',
      generated_count: 1,
      expiry_date: '2026-05-01',
      codes: [{ code_id: 1, code_value: 'SPR-1' }],
    });
  });
  listRules(mi.walletList, ['Username', 'TransactionType', 'Amount', 'TransactionDate'], 'TransactionDate');
  it('wallet.list: filters', () => {
    const Q = mi.walletList.query;
    for (const t of ['topup', 'deduct', 'refund', 'auto_renewal']) accepts(Q, { transaction_type: t });
    rejects(Q, { transaction_type: 'payout' }, 'transaction_type');
    for (const m of ['card', 'bank', 'paypal', 'crypto']) accepts(Q, { payment_method: m });
    rejects(Q, { payment_method: 'cash' }, 'payment_method');
    rejects(Q, { amount_from: 'lots' }, 'amount_from');
    rejects(Q, { amount_to: 'lots' }, 'amount_to');
    rejects(Q, { user_id: '1.5' }, 'user_id');
    rejects(Q, { date_from: '2026-1-1' }, 'date_from');
    rejects(Q, { date_to: '2026-13-01' }, 'date_to');
    expect(
      accepts(Q, { amount_from: '10.5', amount_to: 99, date_from: '2026-01-01', date_to: '2026-01-31', user_id: '3', username: 'bob' }),
    ).toMatchObject({
      amount_from: 10.5,
      amount_to: 99,
      user_id: 3,
    });
    const data = accepts(mi.walletList.response, {
      pagination: { current_page: 1 },
      transactions: [{ transaction_id: 1, amount: 5 }],
      summary: { net_amount: 5 },
    });
    expect(data.transactions).toHaveLength(1);
  });
  it('dashboard.get: no input, any answer', () => {
    expect(mi.dashboardGet.query).toBeUndefined();
    expect(mi.dashboardGet.params).toBeUndefined();
    accepts(mi.dashboardGet.response, { anything: [1, 2] });
  });
  for (const e of [mi.auditList, mi.auditUser]) {
    it(`${e.name}: page >= 1 default 1, page_size 1..100 default 20, dates`, () => {
      const Q = e.query;
      expect(accepts(Q, {})).toMatchObject({ page: 1, page_size: 20 });
      rejects(Q, { page: 0 }, 'page');
      rejects(Q, { page: 'one' }, 'page');
      rejects(Q, { page_size: 101 }, 'page_size');
      expect(accepts(Q, { page: '2', page_size: '100', action: 'manage', module: 'subscriptions' })).toMatchObject({
        page: 2,
        page_size: 100,
      });
      rejects(Q, { start_date: '2026-11-1' }, 'start_date');
      rejects(Q, { end_date: 'yesterday' }, 'end_date');
      accepts(Q, { start_date: '2026-11-01', end_date: '2026-11-30' });
      const page = accepts(e.response, {
        logs: [{ id: 1, action: 'manage', details: { a: 1 } }],
        page: 1,
        page_size: 20,
        total_items: 1,
        total_pages: 1,
      });
      expect(page.logs).toHaveLength(1);
    });
  }
  it('audit.list: user_id an integer; audit.user: path id an integer', () => {
    rejects(mi.auditList.query, { user_id: 'bob' }, 'user_id');
    expect(accepts(mi.auditList.query, { user_id: '17' }).user_id).toBe(17);
    expect(accepts(mi.auditUser.params, { id: '17' }).id).toBe(17);
    rejects(mi.auditUser.params, { id: 'bob' }, 'id');
  });
});
