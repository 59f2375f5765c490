/**
 * The sandbox's HTTP framework: routing, authentication and rights, validation envelopes,
 * the device header, handler errors, and automatic audit entries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { endpoints } from '../../src/api/contract/index.js';
import { adminHandlers } from '../../src/sandbox/handlers/admin.js';
import { missingHandlers } from '../../src/sandbox/server.js';
import { auditNames } from '../../src/sandbox/request.js';
import { parseQuery } from '../../src/sandbox/routing.js';
import { mulberry32 } from '../../src/sandbox/seed.js';
import { SandboxError } from '../../src/sandbox/types.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call, closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(closeAllTestSandboxes);

describe('routing', () => {
  it('answers an unknown path 404 with the envelope', async () => {
    const r = await call(sb, 'GET', '/admin/nope', { as: 'admin' });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      status: false,
      message: 'no such endpoint: GET /admin/nope',
      data: null,
      error: { code: 'NOT_FOUND', message: 'no such endpoint: GET /admin/nope' },
      meta: null,
    });
  });

  it('answers a known path with the wrong method 405 and names the allowed ones', async () => {
    const r = await call(sb, 'PATCH', '/admin/services', { as: 'admin' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, POST, DELETE');
    expect(r.json.error.code).toBe('METHOD_NOT_ALLOWED');
    const r2 = await call(sb, 'GET', '/admin/services/5', { as: 'admin' });
    expect(r2.status).toBe(405);
    expect(r2.headers.allow).toBe('PUT');
  });

  it('answers a malformed path 400, not 500', async () => {
    const r = await call(sb, 'PUT', '/admin/subscriptions/%E0%A4%A/manage', { as: 'admin', body: {} });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('BAD_REQUEST');
  });

  it('ignores a trailing slash and answers the success envelope', async () => {
    const r = await call(sb, 'GET', '/admin/services/', { as: 'admin', query: { page_size: 1 } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: true, message: 'Success', error: null, meta: null });
    expect(r.json.data.services).toHaveLength(1);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('authentication and rights', () => {
  it('401 without a token, with a bad token and with a malformed header', async () => {
    for (const headers of [{}, { authorization: 'Bearer sbx_nope' }, { authorization: 'Basic abc' }] as Array<Record<string, string>>) {
      const r = await call(sb, 'GET', '/admin/services', { headers });
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ status: false, data: null, error: { code: 'UNAUTHORIZED' } });
    }
  });

  it('401 with an expired or revoked token', async () => {
    const t = sb.tokenFor('admin');
    sb.db.prepare('UPDATE tokens SET revoked_at = ? WHERE token = ?').run(new Date().toISOString(), t);
    expect((await call(sb, 'GET', '/admin/services', { token: t })).status).toBe(401);
    const t2 = sb.tokenFor('admin');
    sb.db.prepare('UPDATE tokens SET expires_at = ? WHERE token = ?').run('2000-01-01T00:00:00.000Z', t2);
    expect((await call(sb, 'GET', '/admin/services', { token: t2 })).status).toBe(401);
  });

  it('a token remembered for reads still expires by the clock, to the millisecond', async () => {
    let at = new Date('2026-06-01T00:00:00.000Z');
    const s = await startTestSandbox({ now: () => at });
    const t = s.tokenFor('admin');
    const expires = Date.parse((s.db.prepare('SELECT expires_at FROM tokens WHERE token = ?').get(t) as { expires_at: string }).expires_at);
    expect((await call(s, 'GET', '/admin/services', { token: t })).status).toBe(200);
    at = new Date(expires - 1);
    expect((await call(s, 'GET', '/admin/services', { token: t })).status).toBe(200);
    at = new Date(expires);
    expect((await call(s, 'GET', '/admin/services', { token: t })).status).toBe(401);
    // The same answer from the path that reads the row each time (a write).
    expect((await call(s, 'POST', '/admin/services', { token: t, body: {} })).status).toBe(401);
  });

  it('403 for a support account on admin endpoints; manager reads but may not write', async () => {
    const r = await call(sb, 'GET', '/admin/subscriptions', { as: 'support' });
    expect(r.status).toBe(403);
    expect(r.json.error).toEqual({ code: 'FORBIDDEN', message: 'role support may not call subscriptions.list (GET /admin/subscriptions)' });
    expect((await call(sb, 'GET', '/admin/subscriptions', { as: 'manager', query: { page_size: 1 } })).status).toBe(200);
    const w = await call(sb, 'POST', '/admin/maintenance/cleanup-subscription-data', { as: 'manager', body: { dry_run: true } });
    expect(w.status).toBe(403);
    expect((await call(sb, 'GET', '/admin/dashboard', { as: 'enduser' })).status).toBe(403);
    expect((await call(sb, 'GET', '/admin/dashboard', { as: 'superadmin' })).status).toBe(200);
  });

  it('checks rights before validating input', async () => {
    const r = await call(sb, 'GET', '/admin/services', { as: 'support', query: { page_size: 'lots' } });
    expect(r.status).toBe(403);
  });
});

describe('input validation', () => {
  it('answers 400 VALIDATION_ERROR naming each field with the zod message', async () => {
    const r = await call(sb, 'GET', '/admin/services', { as: 'admin', query: { page_size: 500, service_type: 'FREE' } });
    expect(r.status).toBe(400);
    expect(r.json.status).toBe(false);
    expect(r.json.data).toBeNull();
    expect(r.json.error.code).toBe('VALIDATION_ERROR');
    const fields = r.json.error.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(['page_size', 'service_type']);
    expect(r.json.message).toMatch(/^Validation failed: page_size: .+; service_type: .+/);
    expect(r.json.error.message).toBe(r.json.message);
  });

  it("words its messages as the spec says the platform's validation library does (Required; Expected X, received Y; String must contain at most N character(s); Invalid enum value), a schema's own message kept", async () => {
    const b = await call(sb, 'POST', '/admin/services', {
      as: 'admin',
      body: {
        service_code: 'x'.repeat(51),
        service_name: 5,
        service_type: 'FREE',
        base_service_url: 'u',
        access_pattern: 'a',
        credit_reset_cycle: 'daily',
      },
    });
    expect(b.status).toBe(400);
    const by = Object.fromEntries(b.json.error.fields.map((f: { field: string; message: string }) => [f.field, f.message]));
    expect(by).toEqual({
      service_code: 'String must contain at most 50 character(s)',
      service_name: 'Expected string, received number',
      service_type: "Invalid enum value. Expected 'TIME_BASED' | 'USAGE_BASED' | 'HYBRID', received 'FREE'",
      provider_name: 'Required',
    });
    const q = await call(sb, 'GET', '/admin/services', { as: 'admin', query: { page_size: 500, page_number: 0 } });
    expect(q.json.message).toBe(
      'Validation failed: page_number: Number must be greater than or equal to 1; page_size: Number must be less than or equal to 100',
    );
    const f = await call(sb, 'PUT', '/admin/subscriptions/1/manage', {
      as: 'admin',
      body: { action: 'extend', reason: 'x', extend_days: 1.5 },
    });
    expect(f.json.error.fields).toEqual([{ field: 'extend_days', message: 'Expected integer, received float' }]);
    // A schema's own message stays its own.
    const d = await call(sb, 'GET', '/admin/services', { as: 'admin', query: { created_date_from: '2024-13-45' } });
    expect(d.json.error.fields).toEqual([{ field: 'created_date_from', message: 'Invalid date: expected YYYY-MM-DD' }]);
  });

  it('names body fields, path params and dates', async () => {
    const b = await call(sb, 'POST', '/admin/services', { as: 'admin', body: { service_code: 'X'.repeat(51) } });
    expect(b.status).toBe(400);
    const names = b.json.error.fields.map((f: { field: string }) => f.field);
    expect(names).toContain('service_code');
    expect(names).toContain('service_name');
    expect(b.json.error.fields.find((f: { field: string }) => f.field === 'service_code').message).toMatch(/50/);
    const p = await call(sb, 'PUT', '/admin/services/abc', { as: 'admin', body: {} });
    expect(p.status).toBe(400);
    expect(p.json.error.fields[0].field).toBe('id');
    const d = await call(sb, 'GET', '/admin/services', { as: 'admin', query: { created_date_from: '2024-13-45' } });
    expect(d.status).toBe(400);
    expect(d.json.message).toBe('Validation failed: created_date_from: Invalid date: expected YYYY-MM-DD');
  });

  it('reads query and path numbers only from decimal text: 0x10, 0b11 and 1e400 are refused, not read as 16, 3 and Infinity', async () => {
    // Whole numbers in digits only (`1e1` and `5.0` are refused as the command line refuses them).
    for (const [field, text] of [
      ['page_size', '0x10'],
      ['page_size', '0b11'],
      ['page_number', '0o7'],
      ['price_from', '0x10'],
      ['price_to', '1e400'],
      ['page_size', '1e1'],
      ['page_number', '5.0'],
    ]) {
      const r = await call(sb, 'GET', '/admin/subscription-plans', { as: 'admin', query: { [field]: text } });
      expect(r.status, `${field}=${text}`).toBe(400);
      expect(r.json.error.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    }
    const p = await call(sb, 'PUT', '/admin/subscriptions/0x10/manage', { as: 'admin', body: { action: 'pause', reason: 'x' } });
    expect(p.status).toBe(400);
    expect(p.json.error.fields[0].field).toBe('id');
    // Decimal text, white space around it, a sign and exponents are numbers as before.
    const ok = await call(sb, 'GET', '/admin/subscription-plans', {
      as: 'admin',
      query: { page_size: ' 5 ', price_from: '1e1', price_to: '+250.50' },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.data.pagination.page_size).toBe(5);
  });
  it('answers invalid JSON 400 INVALID_JSON', async () => {
    const r = await call(sb, 'POST', '/admin/services', { as: 'admin', body: '{"service_code": ' });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('INVALID_JSON');
    expect(r.json.message).toMatch(/^Invalid JSON body/);
  });

  it('a body that is not an object is a validation error', async () => {
    const r = await call(sb, 'POST', '/admin/services', { as: 'admin', body: '[1,2]' });
    expect(r.status).toBe(400);
    expect(r.json.error.fields[0].field).toBe('body');
  });

  it('requires X-Device-ID where the endpoint says so', async () => {
    const ep = endpoints.find((e) => e.deviceId);
    expect(ep).toBeDefined();
    const r = await call(sb, ep!.method, ep!.path, { body: {} });
    expect(r.status).toBe(400);
    expect(r.json.error.fields).toEqual([{ field: 'X-Device-ID', message: 'header is required' }]);
    expect(r.json.message).toBe('Validation failed: X-Device-ID: header is required');
  });
});

describe('query strings', () => {
  /** What parseQuery answered before its fast path: every pair through URLSearchParams. */
  function reference(qs: string, lists: Set<string>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(qs)) {
      if (lists.has(k))
        out[k] = ((out[k] as string[] | undefined) ?? []).concat(
          v
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
        );
      else if (v !== '') out[k] = v;
    }
    return out;
  }
  it('reads every query string as URLSearchParams does, with and without anything to decode', () => {
    const rng = mulberry32(7);
    const alphabet = [
      'a',
      'b',
      'page_size',
      'status',
      '=',
      '&',
      '&&',
      '==',
      ',',
      ' ',
      '1',
      'é',
      '%20',
      '%',
      '+',
      '%zz',
      '?',
      '#',
      ';',
      'ids',
    ];
    const lists = new Set(['ids', 'a']);
    let plain = 0;
    for (let i = 0; i < 3000; i++) {
      const n = Math.floor(rng() * 12);
      let qs = '';
      for (let j = 0; j < n; j++) qs += alphabet[Math.floor(rng() * alphabet.length)];
      if (!qs.includes('%') && !qs.includes('+')) plain++;
      expect(parseQuery(qs, lists), JSON.stringify(qs)).toEqual(reference(qs, lists));
    }
    expect(plain).toBeGreaterThan(1000);
    expect(parseQuery('page_size=100&status=active&sort_by=EndDate&status=paused&x=', new Set())).toEqual({
      page_size: '100',
      status: 'paused',
      sort_by: 'EndDate',
    });
  });
});

describe('handlers', () => {
  it('every admin endpoint of the contract has a handler', () => {
    const admin = endpoints.filter((e) => e.area === 'admin').map((e) => e.name);
    expect(admin.filter((n) => !adminHandlers[n])).toEqual([]);
    expect(missingHandlers(adminHandlers).every((n) => endpoints.find((e) => e.name === n)!.area === 'user')).toBe(true);
  });

  it('501 for an endpoint without a handler, 500 envelope for a crash, SandboxError statuses and extras', async () => {
    const local = await startTestSandbox({
      handlers: {
        'services.list': () => {
          throw new Error('boom');
        },
        'services.report': () => {
          throw new SandboxError(422, 'cannot do that', 'UNPROCESSABLE', [{ field: 'x', message: 'bad' }], { hint: 'try again' });
        },
        'services.create': (ctx) => ({ status: 201, message: 'made', data: { got: ctx.body.service_code } }),
      },
    });
    const crash = await call(local, 'GET', '/admin/services', { as: 'admin' });
    expect(crash.status).toBe(500);
    expect(crash.json).toEqual({
      status: false,
      message: 'internal error: boom',
      data: null,
      error: { code: 'SERVER_ERROR', message: 'internal error: boom' },
      meta: null,
    });
    const none = await call(local, 'GET', '/admin/dashboard', { as: 'admin' });
    expect(none.status).toBe(501);
    expect(none.json.message).toBe('endpoint dashboard.get (GET /admin/dashboard) has no sandbox handler yet');
    const e = await call(local, 'GET', '/admin/services/report', { as: 'admin' });
    expect(e.status).toBe(422);
    expect(e.json.error).toEqual({
      code: 'UNPROCESSABLE',
      message: 'cannot do that',
      fields: [{ field: 'x', message: 'bad' }],
      hint: 'try again',
    });
    const body = {
      service_code: 'NEWSVC',
      service_name: 'New',
      service_type: 'HYBRID',
      provider_name: 'P',
      base_service_url: 'https://x',
      access_pattern: '/x',
      credit_reset_cycle: 'daily',
      password: 'should-be-masked',
    };
    const c = await call(local, 'POST', '/admin/services', { as: 'admin', body });
    expect(c.status).toBe(201);
    expect(c.json).toMatchObject({ status: true, message: 'made', data: { got: 'NEWSVC' } });
    // The handler wrote no audit entry: the framework did, for the mutation.
    const a = local.db.prepare('SELECT * FROM audit_logs ORDER BY id DESC LIMIT 1').get() as Record<string, any>;
    expect(a).toMatchObject({ module: 'services', action: 'create', username: 'admin' });
    expect(JSON.parse(a.details)).toMatchObject({ endpoint: 'services.create', body: { service_code: 'NEWSVC' } });
    expect(a.details).not.toContain('should-be-masked');
    await local.close();
  });

  it('audit names: /admin/<module> or the name group, and the verb', () => {
    const byName = (n: string) => endpoints.find((e) => e.name === n)!;
    expect(auditNames(byName('subscriptions.manage'))).toEqual({ module: 'subscriptions', action: 'manage' });
    expect(auditNames(byName('cleanup.run'))).toEqual({ module: 'maintenance', action: 'run' });
    expect(auditNames(byName('plans.create'))).toEqual({ module: 'subscription-plans', action: 'create' });
    const cms = endpoints.find((e) => e.name.startsWith('cms.auth.'));
    if (cms) expect(auditNames(cms).module).toBe('auth');
  });
});

describe('connections', () => {
  it('keeps connections alive and serves many requests on one', async () => {
    const agent = new Agent({ connections: 1 });
    let connects = 0;
    agent.on('connect', () => connects++);
    const token = sb.tokenFor('admin');
    for (let i = 0; i < 20; i++) {
      const r = await request(`${sb.url}/admin/services?page_size=1`, { headers: { authorization: `Bearer ${token}` }, dispatcher: agent });
      expect(r.statusCode).toBe(200);
      expect(r.headers.connection).toBe('keep-alive');
      await r.body.json();
    }
    // Errors keep the connection too.
    const r = await request(`${sb.url}/admin/services`, { dispatcher: agent });
    expect(r.statusCode).toBe(401);
    await r.body.json();
    expect(connects).toBe(1);
    await agent.close();
  });

  it('close() ends open connections and the data file stays usable', async () => {
    const local = await startTestSandbox();
    const r = await call(local, 'GET', '/admin/dashboard', { as: 'admin' });
    expect(r.status).toBe(200);
    await local.close();
    await local.close();
    await expect(call(local, 'GET', '/admin/dashboard', { as: 'admin' })).rejects.toThrow();
  });
});
