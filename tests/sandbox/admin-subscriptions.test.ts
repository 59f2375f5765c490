/**
 * Subscriptions over HTTP: list filters, sorts and paging; manage transitions (allowed and
 * forbidden); delete; the maintenance cleanup (dry run, then for real).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call, closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(closeAllTestSandboxes);

const get = (query: Record<string, unknown> = {}) => call(sb, 'GET', '/admin/subscriptions', { as: 'admin', query });
const manage = (id: number, body: Record<string, unknown>) =>
  call(sb, 'PUT', `/admin/subscriptions/${id}/manage`, { as: 'admin', body: { reason: 'test, "quoted"', ...body } });
const anyWith = (status: string): number =>
  (
    sb.db
      .prepare('SELECT subscription_id FROM subscriptions WHERE status = ? ORDER BY subscription_id LIMIT 1 OFFSET ?')
      .get(status, Math.floor(Math.random() * 20)) as { subscription_id: number }
  ).subscription_id;
const fresh = (status: string, end: string): number => {
  const row = sb.db.prepare('SELECT * FROM subscriptions WHERE status = ? LIMIT 1').get('active') as Record<string, unknown>;
  const r = sb.db
    .prepare(
      `INSERT INTO subscriptions (user_id, service_id, plan_id, service_plan_id, status, start_date, end_date, total_credits, used_credits, created_date, last_updated)
       VALUES (?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', ?, 100, 40, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    )
    .run(row.user_id, row.service_id, row.plan_id, row.service_plan_id, status, end);
  return Number(r.lastInsertRowid);
};
const future = () => new Date(Date.now() + 20 * 86_400_000).toISOString();
const past = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

describe('GET /admin/subscriptions', () => {
  it('answers every list field, pages, and counts in SQL', async () => {
    const r = await get({ page_size: 100 });
    expect(r.status).toBe(200);
    const p = r.json.data.pagination;
    const total = (sb.db.prepare('SELECT COUNT(*) AS n FROM subscriptions').get() as { n: number }).n;
    expect(p).toEqual({
      current_page: 1,
      page_size: 100,
      total_pages: Math.ceil(total / 100),
      total_records: total,
      has_next_page: true,
      has_previous_page: false,
    });
    const s = r.json.data.subscriptions[0];
    for (const k of [
      'subscription_id',
      'user_id',
      'username',
      'full_name',
      'email',
      'service_code',
      'service_name',
      'plan_code',
      'plan_name',
      'status',
      'start_date',
      'end_date',
      'is_expired',
      'auto_renewal',
      'payment_method',
      'price',
      'currency',
      'total_credits',
      'used_credits',
      'remaining_credits',
      'renewal_count',
      'activation_code',
      'activation_batch',
      'created_date',
      'last_updated',
    ]) {
      expect(s).toHaveProperty(k);
    }
    expect(s.remaining_credits).toBe(s.total_credits - s.used_credits);
    const dates = r.json.data.subscriptions.map((x: { created_date: string }) => x.created_date);
    expect(dates).toEqual([...dates].sort().reverse());
    const last = await get({ page_size: 100, page_number: p.total_pages });
    expect(last.json.data.subscriptions).toHaveLength(total - 100 * (p.total_pages - 1));
    expect(last.json.data.pagination.has_next_page).toBe(false);
  });

  it('filters by status, payment method, service, plan, user, renewal, expiry and dates', async () => {
    for (const status of ['active', 'expired', 'cancelled', 'paused']) {
      const r = await get({ status, page_size: 100 });
      expect(r.json.data.pagination.total_records).toBeGreaterThan(50);
      expect(r.json.data.subscriptions.every((x: { status: string }) => x.status === status)).toBe(true);
    }
    const mix = await get({ status: 'active', payment_method: 'paypal', service_code: 'GPT4', auto_renewal: true, page_size: 100 });
    expect(mix.json.data.subscriptions.length).toBeGreaterThan(0);
    expect(
      mix.json.data.subscriptions.every(
        (x: Record<string, unknown>) =>
          x.status === 'active' && x.payment_method === 'paypal' && x.service_code === 'GPT4' && x.auto_renewal === true,
      ),
    ).toBe(true);
    const plan = await get({ plan_code: 'PRO-Y', page_size: 100 });
    expect(plan.json.data.subscriptions.every((x: { plan_code: string }) => x.plan_code === 'PRO-Y')).toBe(true);
    const uid = mix.json.data.subscriptions[0].user_id;
    const byUser = await get({ user_id: uid, page_size: 100 });
    expect(byUser.json.data.subscriptions.every((x: { user_id: number }) => x.user_id === uid)).toBe(true);
    const uname = mix.json.data.subscriptions[0].username as string;
    const byName = await get({ username: uname.slice(0, 5).toUpperCase(), page_size: 100 });
    expect(
      byName.json.data.subscriptions.every((x: { username: string }) => x.username.toLowerCase().includes(uname.slice(0, 5).toLowerCase())),
    ).toBe(true);
    const expired = await get({ is_expired: true, page_size: 100 });
    expect(
      expired.json.data.subscriptions.every(
        (x: { is_expired: boolean; end_date: string }) => x.is_expired && x.end_date < new Date().toISOString(),
      ),
    ).toBe(true);
    const running = await get({ is_expired: false, status: 'expired' });
    expect(running.json.data.pagination.total_records).toBe(0);
    const d = await get({ start_date_from: '2025-03-01', start_date_to: '2025-03-31', end_date_from: '2025-04-01', page_size: 100 });
    expect(d.json.data.subscriptions.length).toBeGreaterThan(0);
    expect(
      d.json.data.subscriptions.every(
        (x: { start_date: string; end_date: string }) =>
          x.start_date >= '2025-03-01' && x.start_date < '2025-04-01' && x.end_date >= '2025-04-01',
      ),
    ).toBe(true);
    expect((await get({ status: 'gone' })).status).toBe(400);
    expect((await get({ payment_method: 'cash' })).status).toBe(400);
  });

  it('/admin/subscriptions/list answers the same', async () => {
    const q = { status: 'paused', sort_by: 'EndDate', sort_order: 'ASC', page_size: 30 };
    const a = await get(q);
    const b = await call(sb, 'GET', '/admin/subscriptions/list', { as: 'admin', query: q });
    expect(b.status).toBe(200);
    expect(b.json.data).toEqual(a.json.data);
  });

  it('sorts by every sort field', async () => {
    for (const [sortBy, key] of [
      ['Username', 'username'],
      ['ServiceCode', 'service_code'],
      ['StartDate', 'start_date'],
      ['EndDate', 'end_date'],
      ['CreatedDate', 'created_date'],
    ]) {
      const r = await get({ sort_by: sortBy, sort_order: 'ASC', page_size: 100, status: 'paused' });
      const fold = (x: string) => x.replace(/[A-Z]/g, (c) => c.toLowerCase());
      const vals = r.json.data.subscriptions.map((x: Record<string, string>) => fold(x[key]));
      expect(vals).toEqual([...vals].sort());
    }
  });

  it('pages never overlap, whatever the sort', async () => {
    const seen = new Set<number>();
    for (let page = 1; page <= 5; page++) {
      const r = await get({ sort_by: 'ServiceCode', sort_order: 'DESC', page_size: 37, page_number: page });
      for (const x of r.json.data.subscriptions) {
        expect(seen.has(x.subscription_id)).toBe(false);
        seen.add(x.subscription_id);
      }
    }
    expect(seen.size).toBe(185);
  });
});

describe('PUT /admin/subscriptions/{id}/manage', () => {
  it('pause, resume, add credits, extend, cancel: each allowed from the right state', async () => {
    const id = fresh('active', future());
    const p = await manage(id, { action: 'pause' });
    expect(p.status).toBe(200);
    expect(p.json.data).toMatchObject({
      subscription_id: id,
      action: 'pause',
      status: 'paused',
      total_credits: 100,
      remaining_credits: 60,
    });
    expect((await manage(id, { action: 'resume' })).json.data.status).toBe('active');
    const add = await manage(id, { action: 'add_credits', extend_credits: 50 });
    expect(add.json.data).toMatchObject({ status: 'active', total_credits: 150, remaining_credits: 110 });
    const before = (sb.db.prepare('SELECT end_date FROM subscriptions WHERE subscription_id = ?').get(id) as { end_date: string }).end_date;
    const ext = await manage(id, { action: 'extend', extend_days: 10 });
    expect(Date.parse(ext.json.data.end_date) - Date.parse(before)).toBe(10 * 86_400_000);
    const c = await manage(id, { action: 'cancel' });
    expect(c.json.data.status).toBe('cancelled');
    expect(Object.keys(c.json.data).sort()).toEqual(
      [
        'action',
        'end_date',
        'message',
        'previous_status',
        'remaining_credits',
        'start_date',
        'status',
        'subscription_id',
        'total_credits',
      ].sort(),
    );
  });

  it('forbidden transitions are 400 with a clear message', async () => {
    const cancelled = fresh('cancelled', future());
    for (const [action, extra, msg] of [
      ['extend', { extend_days: 5 }, 'cannot extend a cancelled subscription'],
      ['pause', {}, 'cannot pause a subscription that is cancelled'],
      ['resume', {}, 'cannot resume a subscription that is cancelled'],
      ['cancel', {}, 'cannot cancel a subscription that is cancelled'],
      ['add_credits', { extend_credits: 5 }, 'cannot add credits to a subscription that is cancelled'],
    ] as const) {
      const r = await manage(cancelled, { action, ...extra });
      expect(r.status).toBe(400);
      expect(r.json.message).toBe(msg);
      expect(r.json.error.code).toBe('INVALID_TRANSITION');
    }
    const active = fresh('active', future());
    expect((await manage(active, { action: 'resume' })).json.message).toBe('cannot resume a subscription that is active');
    const paused = fresh('paused', future());
    expect((await manage(paused, { action: 'pause' })).json.message).toBe('cannot pause a subscription that is paused');
    const expired = fresh('expired', past(3));
    expect((await manage(expired, { action: 'pause' })).json.message).toBe('cannot pause a subscription that is expired');
    expect((await manage(expired, { action: 'cancel' })).status).toBe(400);
    const ended = fresh('paused', past(1));
    expect((await manage(ended, { action: 'resume' })).json.message).toMatch(/extend it first/);
  });

  it('extend brings an expired subscription back when the new end is in the future', async () => {
    const id = fresh('expired', past(3));
    const short = await manage(id, { action: 'extend', extend_days: 1 });
    expect(short.json.data.status).toBe('expired');
    const long = await manage(id, { action: 'extend', extend_days: 30 });
    expect(long.json.data).toMatchObject({ status: 'active', previous_status: 'expired' });
    expect(long.json.data.message).toMatch(/active again/);
  });

  it('validates extend_days, extend_credits and reason; 404 for an unknown id', async () => {
    const id = fresh('active', future());
    const no = await manage(id, { action: 'extend' });
    expect(no.status).toBe(400);
    expect(no.json.error.fields).toEqual([{ field: 'extend_days', message: expect.stringMatching(/extend_days/) }]);
    expect((await manage(id, { action: 'extend', extend_days: 0 })).status).toBe(400);
    expect((await manage(id, { action: 'add_credits', extend_credits: -5 })).status).toBe(400);
    expect((await manage(id, { action: 'extend', extend_days: 1.5 })).status).toBe(400);
    const noReason = await call(sb, 'PUT', `/admin/subscriptions/${id}/manage`, { as: 'admin', body: { action: 'pause' } });
    expect(noReason.status).toBe(400);
    expect(noReason.json.error.fields[0].field).toBe('reason');
    expect((await manage(id, { action: 'pause', reason: 'x'.repeat(501) })).status).toBe(400);
    expect((await manage(id, { action: 'renew' })).status).toBe(400);
    expect((await manage(999_999, { action: 'pause' })).status).toBe(404);
  });

  it('writes one audit entry per manage with the reason and the days', async () => {
    const id = fresh('active', future());
    await manage(id, { action: 'extend', extend_days: 7, reason: 'Goodwill, "outage"\nsecond line' });
    const rows = sb.db
      .prepare(
        "SELECT * FROM audit_logs WHERE module = 'subscriptions' AND action = 'manage' AND json_extract(details, '$.subscription_id') = ?",
      )
      .all(id) as Array<{
      details: string;
      username: string;
    }>;
    expect(rows).toHaveLength(1);
    expect(rows[0].username).toBe('admin');
    expect(JSON.parse(rows[0].details)).toMatchObject({
      subscription_id: id,
      action: 'extend',
      reason: 'Goodwill, "outage"\nsecond line',
      extend_days: 7,
    });
  });
});

describe('DELETE /admin/subscriptions', () => {
  it('deletes an ended one; a running one needs force_delete; 404 and 400', async () => {
    const ended = anyWith('expired');
    const r = await call(sb, 'DELETE', '/admin/subscriptions', { as: 'admin', body: { subscription_id: ended } });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ affected_records: 1, deleted_subscription_ids: [ended] });
    expect((await call(sb, 'DELETE', '/admin/subscriptions', { as: 'admin', body: { subscription_id: ended } })).status).toBe(404);
    const running = fresh('active', future());
    expect((await call(sb, 'DELETE', '/admin/subscriptions', { as: 'admin', body: { subscription_id: running } })).status).toBe(409);
    const f = await call(sb, 'DELETE', '/admin/subscriptions', { as: 'admin', body: { subscription_id: running, force_delete: true } });
    expect(f.status).toBe(200);
    expect((await call(sb, 'DELETE', '/admin/subscriptions', { as: 'admin', body: { user_id: 5 } })).status).toBe(400);
  });

  it('subscription_id with a user_id or service_id it does not have is 400 naming the field; nothing deleted', async () => {
    const sub = sb.db
      .prepare("SELECT subscription_id, user_id, service_id FROM subscriptions WHERE status = 'expired' AND service_id IS NOT NULL LIMIT 1")
      .get() as {
      subscription_id: number;
      user_id: number;
      service_id: number;
    };
    const otherUser = (sb.db.prepare('SELECT user_id FROM users WHERE user_id <> ? LIMIT 1').get(sub.user_id) as { user_id: number })
      .user_id;
    const otherService = (
      sb.db.prepare('SELECT service_id FROM services WHERE service_id <> ? LIMIT 1').get(sub.service_id) as { service_id: number }
    ).service_id;
    const del = (body: Record<string, unknown>) =>
      call(sb, 'DELETE', '/admin/subscriptions', { as: 'admin', body: { subscription_id: sub.subscription_id, ...body } });
    const exists = () => sb.db.prepare('SELECT 1 FROM subscriptions WHERE subscription_id = ?').get(sub.subscription_id) !== undefined;
    for (const [body, field] of [
      [{ user_id: otherUser, service_id: sub.service_id }, 'user_id'],
      [{ user_id: sub.user_id, service_id: otherService }, 'service_id'],
      [{ user_id: otherUser }, 'user_id'],
      [{ service_id: otherService }, 'service_id'],
    ] as const) {
      const r = await del(body);
      expect(r.status).toBe(400);
      expect(r.json.error.fields[0].field).toBe(field);
      expect(r.json.error.message).toContain(String(sub.subscription_id));
      expect(exists()).toBe(true);
    }
    // Agreeing values are fine.
    const ok = await del({ user_id: sub.user_id, service_id: sub.service_id });
    expect(ok.status).toBe(200);
    expect(ok.json.data.deleted_subscription_ids).toEqual([sub.subscription_id]);
    expect(exists()).toBe(false);
  });

  it('by user and service; delete_related_data removes usage logs', async () => {
    const row = sb.db
      .prepare(
        'SELECT x.user_id, x.service_id, COUNT(*) AS n FROM subscriptions x JOIN usage_logs l ON l.subscription_id = x.subscription_id GROUP BY x.user_id, x.service_id LIMIT 1',
      )
      .get() as {
      user_id: number;
      service_id: number;
    };
    const ids = (
      sb.db
        .prepare('SELECT subscription_id FROM subscriptions WHERE user_id = ? AND service_id = ?')
        .all(row.user_id, row.service_id) as Array<{ subscription_id: number }>
    ).map((x) => x.subscription_id);
    const logs = (sb.db.prepare(`SELECT COUNT(*) AS n FROM usage_logs WHERE subscription_id IN (${ids.join(',')})`).get() as { n: number })
      .n;
    const r = await call(sb, 'DELETE', '/admin/subscriptions', {
      as: 'admin',
      body: { ...row, n: undefined, force_delete: true, delete_related_data: true },
    });
    expect(r.status).toBe(200);
    expect(r.json.data.affected_records).toBe(ids.length + logs);
    expect(
      (sb.db.prepare(`SELECT COUNT(*) AS n FROM usage_logs WHERE subscription_id IN (${ids.join(',')})`).get() as { n: number }).n,
    ).toBe(0);
  });
});

describe('POST /admin/maintenance/cleanup-subscription-data', () => {
  it('dry run counts; the real run deletes exactly those rows', async () => {
    const local = await startTestSandbox();
    const body = { cleanup_expired_days: 60, cleanup_inactive_tokens_days: 10, cleanup_usage_logs_days: 90 };
    const count = (sql: string, ...a: unknown[]) => (local.db.prepare(sql).get(...a) as { n: number }).n;
    const cut = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
    const dry = await call(local, 'POST', '/admin/maintenance/cleanup-subscription-data', {
      as: 'admin',
      body: { ...body, dry_run: true },
    });
    expect(dry.status).toBe(200);
    const s = dry.json.data.cleanup_summary;
    expect(Object.keys(s).sort()).toEqual(['dry_run', 'expired_subscriptions', 'inactive_tokens', 'usage_logs']);
    expect(s.dry_run).toBe(true);
    expect(s.expired_subscriptions).toBeGreaterThan(0);
    expect(s.inactive_tokens).toBeGreaterThan(0);
    expect(s.usage_logs).toBeGreaterThan(0);
    expect(dry.json.data.message).toMatch(/^dry run: would delete/);
    const subsBefore = count('SELECT COUNT(*) AS n FROM subscriptions');
    expect(count("SELECT COUNT(*) AS n FROM subscriptions WHERE status IN ('expired','cancelled') AND end_date < ?", cut(60))).toBe(
      s.expired_subscriptions,
    );

    const real = await call(local, 'POST', '/admin/maintenance/cleanup-subscription-data', { as: 'admin', body });
    expect(real.json.data.cleanup_summary).toEqual({ ...s, dry_run: false });
    expect(count('SELECT COUNT(*) AS n FROM subscriptions')).toBe(subsBefore - s.expired_subscriptions);
    expect(count("SELECT COUNT(*) AS n FROM subscriptions WHERE status IN ('expired','cancelled') AND end_date < ?", cut(60))).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM usage_logs WHERE used_at < ?', cut(90))).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM tokens WHERE expires_at < ?', cut(10))).toBe(0);

    const again = await call(local, 'POST', '/admin/maintenance/cleanup-subscription-data', {
      as: 'admin',
      body: { ...body, dry_run: true },
    });
    expect(again.json.data.cleanup_summary).toEqual({ expired_subscriptions: 0, inactive_tokens: 0, usage_logs: 0, dry_run: true });
    const audit = local.db.prepare("SELECT details FROM audit_logs WHERE module = 'maintenance' ORDER BY id DESC LIMIT 3").all() as Array<{
      details: string;
    }>;
    expect(audit.map((a) => JSON.parse(a.details).dry_run)).toEqual([true, false, true]);
    expect(
      (await call(local, 'POST', '/admin/maintenance/cleanup-subscription-data', { as: 'admin', body: { cleanup_expired_days: -1 } }))
        .status,
    ).toBe(400);
    await local.close();
  });
});
