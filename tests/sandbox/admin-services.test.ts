/**
 * Services over HTTP: list filters, sorting and paging; detail; report; create, update, delete.
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

const newService = (code: string, extra: Record<string, unknown> = {}) => ({
  service_code: code,
  service_name: `Service ${code}, "quoted" — é`,
  service_type: 'USAGE_BASED',
  provider_name: 'Acme',
  base_service_url: `https://api.example.com/${code}`,
  access_pattern: '/v1/*',
  credit_reset_cycle: 'monthly',
  description: 'Line one\nLine two',
  ...extra,
});

describe('GET /admin/services', () => {
  it('pages with the pagination block', async () => {
    const p1 = await get('/admin/services', { page_size: 5 });
    expect(p1.status).toBe(200);
    expect(p1.json.data.pagination).toEqual({
      current_page: 1,
      page_size: 5,
      total_pages: 3,
      total_records: 13,
      has_next_page: true,
      has_previous_page: false,
    });
    const p3 = await get('/admin/services', { page_size: 5, page_number: 3 });
    expect(p3.json.data.pagination).toMatchObject({ current_page: 3, has_next_page: false, has_previous_page: true });
    expect(p3.json.data.services).toHaveLength(3);
    const ids = new Set([...p1.json.data.services, ...p3.json.data.services].map((s: { service_id: number }) => s.service_id));
    expect(ids.size).toBe(8);
    const beyond = await get('/admin/services', { page_size: 5, page_number: 9 });
    expect(beyond.json.data.services).toEqual([]);
  });

  it('has every list field with booleans and counts', async () => {
    const r = await get('/admin/services', { service_code: 'gpt4' });
    const [s] = r.json.data.services;
    expect(Object.keys(s).sort()).toEqual(
      [
        'active_subscriptions_count',
        'available_plans_count',
        'created_date',
        'is_active',
        'last_updated',
        'last_usage_date',
        'provider_name',
        'requires_auth',
        'service_code',
        'service_id',
        'service_name',
        'service_type',
      ].sort(),
    );
    expect(s).toMatchObject({ service_code: 'GPT4', is_active: true, requires_auth: true });
    expect(s.active_subscriptions_count).toBeGreaterThan(10);
    expect(s.available_plans_count).toBeGreaterThan(0);
  });

  it('filters by type, active flag, name, provider and creation dates', async () => {
    for (const t of ['TIME_BASED', 'USAGE_BASED', 'HYBRID']) {
      const r = await get('/admin/services', { service_type: t, page_size: 100 });
      expect(r.json.data.services.length).toBeGreaterThanOrEqual(3);
      expect(r.json.data.services.every((s: { service_type: string }) => s.service_type === t)).toBe(true);
    }
    const inactive = await get('/admin/services', { is_active: false });
    expect(inactive.json.data.services.map((s: { service_code: string }) => s.service_code)).toEqual(['LEGACY-BOT']);
    const name = await get('/admin/services', { service_name: 'übersetzung' });
    expect(name.json.data.services.map((s: { service_code: string }) => s.service_code)).toEqual(['TRANSLATE-API']);
    const prov = await get('/admin/services', { provider_name: 'openai', page_size: 100 });
    expect(prov.json.data.services.map((s: { service_code: string }) => s.service_code).sort()).toEqual(['DALLE', 'GPT4', 'WHISPER']);
    const all = (await get('/admin/services', { page_size: 100 })).json.data.services as Array<{ created_date: string }>;
    const day = all[5].created_date.slice(0, 10);
    const r = await get('/admin/services', { created_date_from: day, created_date_to: day });
    expect(r.json.data.services.length).toBeGreaterThanOrEqual(1);
    expect(r.json.data.services.every((s: { created_date: string }) => s.created_date.startsWith(day))).toBe(true);
  });

  it('sorts by each sort field, both ways', async () => {
    for (const [sortBy, key] of [
      ['ServiceCode', 'service_code'],
      ['ServiceName', 'service_name'],
      ['ServiceType', 'service_type'],
      ['CreatedDate', 'created_date'],
    ]) {
      for (const order of ['ASC', 'DESC']) {
        const r = await get('/admin/services', { sort_by: sortBy, sort_order: order, page_size: 100 });
        const vals = r.json.data.services.map((s: Record<string, string>) => s[key]);
        // SQLite's NOCASE folds ASCII letters only.
        const fold = (x: string) => x.replace(/[A-Z]/g, (c) => c.toLowerCase());
        const sorted = [...vals].sort((a, b) => (fold(a) < fold(b) ? -1 : fold(a) > fold(b) ? 1 : 0));
        expect(vals).toEqual(order === 'ASC' ? sorted : sorted.reverse());
      }
    }
    const bad = await get('/admin/services', { sort_by: 'Price' });
    expect(bad.status).toBe(400);
  });

  it('/admin/services/list answers the same', async () => {
    const a = await get('/admin/services', { service_type: 'HYBRID' });
    const b = await get('/admin/services/list', { service_type: 'HYBRID' });
    expect(b.json.data).toEqual(a.json.data);
  });
});

describe('GET /admin/services/detail', () => {
  it('answers the five parts by code or id', async () => {
    const r = await get('/admin/services/detail', { service_code: 'GPT4' });
    expect(r.status).toBe(200);
    const d = r.json.data;
    expect(Object.keys(d).sort()).toEqual(['active_subscriptions', 'service_info', 'service_plans', 'top_users', 'usage_statistics']);
    expect(d.service_info).toMatchObject({ service_code: 'GPT4', credit_reset_cycle: 'monthly' });
    expect(d.service_info.created_by).toMatchObject({ username: expect.any(String), full_name: expect.any(String) });
    expect(d.service_info.total_codes_generated).toBe(d.service_info.used_codes_count + d.service_info.unused_codes_count);
    expect(d.service_info.total_subscriptions_count).toBeGreaterThanOrEqual(
      d.service_info.active_subscriptions_count + d.service_info.expired_subscriptions_count + d.service_info.cancelled_subscriptions_count,
    );
    expect(d.service_plans.length).toBe(d.service_info.total_plans_count);
    expect(d.service_plans[0]).toHaveProperty('link_created_by_username');
    expect(typeof d.service_plans[0].is_available).toBe('boolean');
    expect(d.active_subscriptions.every((s: { status: string }) => s.status === 'active')).toBe(true);
    expect(d.top_users.length).toBeGreaterThan(0);
    expect(d.top_users[0].total_usage).toBeGreaterThanOrEqual(d.top_users[d.top_users.length - 1].total_usage);
    expect(d.usage_statistics).toHaveLength(30);
    expect(d.usage_statistics[0]).toMatchObject({ stat_type: 'daily', stat_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(d.usage_statistics.reduce((s: number, x: { total_usage: number }) => s + x.total_usage, 0)).toBeGreaterThan(0);
    const byId = await get('/admin/services/detail', { service_id: d.service_info.service_id });
    expect(byId.json.data.service_info.service_code).toBe('GPT4');
  });

  it('400 without an identifier, 404 for an unknown one', async () => {
    const none = await get('/admin/services/detail');
    expect(none.status).toBe(400);
    expect(none.json.error.fields[0].field).toBe('service_id');
    expect((await get('/admin/services/detail', { service_code: 'NOPE' })).status).toBe(404);
    expect((await get('/admin/services/detail', { service_id: 99999 })).status).toBe(404);
  });
});

describe('GET /admin/services/report', () => {
  it('lists every service with today_usage_count; filters by report type; stats on demand', async () => {
    const r = await get('/admin/services/report');
    expect(r.json.data).toHaveLength(13);
    expect(r.json.data.every((s: Record<string, unknown>) => typeof s.today_usage_count === 'number' && !('total_usage_count' in s))).toBe(
      true,
    );
    const wh = await get('/admin/services/report', { service_type: 'webhook' });
    expect(wh.json.data.map((s: { service_code: string }) => s.service_code).sort()).toEqual(['TTS-HD', 'VISION-OCR']);
    const st = await get('/admin/services/report', { include_stats: true, service_code: 'GPT4' });
    expect(st.json.data[0]).toMatchObject({
      service_code: 'GPT4',
      total_subscriptions_count: expect.any(Number),
      revenue_30_days: expect.any(Number),
    });
    expect((await get('/admin/services/report', { service_type: 'HYBRID' })).status).toBe(400);
  });
});

describe('create, update, delete', () => {
  it('creates a service; a second with the same code (any case) is 409', async () => {
    const c = await call(sb, 'POST', '/admin/services', { as: 'admin', body: newService('T-CREATE') });
    expect(c.status).toBe(200);
    expect(c.json.data).toEqual({ message: 'service T-CREATE created', service_id: expect.any(Number) });
    const again = await call(sb, 'POST', '/admin/services', { as: 'admin', body: newService('t-create') });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('CONFLICT');
    const d = await get('/admin/services/detail', { service_code: 'T-CREATE' });
    expect(d.json.data.service_info).toMatchObject({
      description: 'Line one\nLine two',
      is_active: true,
      created_by: { username: 'admin' },
    });
    const audit = sb.db
      .prepare("SELECT * FROM audit_logs WHERE module = 'services' AND action = 'create' ORDER BY id DESC LIMIT 1")
      .get() as { details: string };
    expect(JSON.parse(audit.details)).toMatchObject({ service_code: 'T-CREATE' });
  });

  it('updates given fields only; 404 for an unknown id', async () => {
    const c = await call(sb, 'POST', '/admin/services', { as: 'admin', body: newService('T-UPDATE') });
    const id = c.json.data.service_id;
    const u = await call(sb, 'PUT', `/admin/services/${id}`, { as: 'admin', body: { service_name: 'Renamed', is_active: false } });
    expect(u.status).toBe(200);
    expect(u.json.data.service).toMatchObject({ service_id: id, service_name: 'Renamed', is_active: false, provider_name: 'Acme' });
    const d = await get('/admin/services/detail', { service_id: id });
    expect(d.json.data.service_info.updated_by.username).toBe('admin');
    expect((await call(sb, 'PUT', '/admin/services/99999', { as: 'admin', body: { service_name: 'x' } })).status).toBe(404);
    const bad = await call(sb, 'PUT', `/admin/services/${id}`, { as: 'admin', body: { credit_reset_cycle: 'hourly' } });
    expect(bad.status).toBe(400);
  });

  it('deletes an unused service; 409 with subscriptions unless force_delete; delete_related_data removes them', async () => {
    const c = await call(sb, 'POST', '/admin/services', { as: 'admin', body: newService('T-DELETE') });
    const del = await call(sb, 'DELETE', '/admin/services', { as: 'admin', body: { service_code: 'T-DELETE' } });
    expect(del.status).toBe(200);
    expect(del.json.data).toMatchObject({ affected_records: 1, service_id: c.json.data.service_id });
    expect((await call(sb, 'DELETE', '/admin/services', { as: 'admin', body: { service_code: 'T-DELETE' } })).status).toBe(404);
    expect((await call(sb, 'DELETE', '/admin/services', { as: 'admin', body: {} })).status).toBe(400);

    const subs = (code: string) =>
      (
        sb.db
          .prepare('SELECT COUNT(*) AS n FROM subscriptions x JOIN services s USING (service_id) WHERE s.service_code = ?')
          .get(code) as { n: number }
      ).n;
    expect(subs('WHISPER')).toBeGreaterThan(0);
    const refused = await call(sb, 'DELETE', '/admin/services', { as: 'admin', body: { service_code: 'WHISPER' } });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toMatch(/force_delete/);

    // force_delete: the service and its links go; subscriptions stay as history without a service.
    const before = (sb.db.prepare('SELECT COUNT(*) AS n FROM subscriptions').get() as { n: number }).n;
    const forced = await call(sb, 'DELETE', '/admin/services', { as: 'admin', body: { service_code: 'WHISPER', force_delete: true } });
    expect(forced.status).toBe(200);
    expect(forced.json.data.affected_records).toBeGreaterThan(1);
    expect((sb.db.prepare('SELECT COUNT(*) AS n FROM subscriptions').get() as { n: number }).n).toBe(before);

    // delete_related_data: subscriptions go too.
    const n = subs('TTS-HD');
    expect(n).toBeGreaterThan(0);
    const all = await call(sb, 'DELETE', '/admin/services', {
      as: 'admin',
      body: { service_code: 'TTS-HD', force_delete: true, delete_related_data: true },
    });
    expect(all.status).toBe(200);
    expect(all.json.data.affected_records).toBeGreaterThan(n);
    expect((sb.db.prepare('SELECT COUNT(*) AS n FROM subscriptions').get() as { n: number }).n).toBe(before - n);
  });
});
