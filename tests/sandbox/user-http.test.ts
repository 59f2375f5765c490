/**
 * The user area through the real HTTP framework: envelopes, headers, statuses and the audit
 * log as a client sees them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call, closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox({ scale: 0.05 });
});
afterAll(closeAllTestSandboxes);

async function req(method: string, path: string, o: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return call(sb, method, path, o);
}

describe('user area over HTTP', () => {
  it('login: success envelope; wrong password is 401 INVALID_CREDENTIALS with login_result FAILED', async () => {
    const ok = await req('POST', '/auth/login', { body: { username: 'enduser', password: 'sandbox-enduser' } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ status: true, error: null, data: { user_id: 6, login_result: 'SUCCESS', error_code: null } });
    const bad = await req('POST', '/auth/login', { body: { username: 'enduser', password: 'wrong-password' } });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({
      status: false,
      message: 'invalid username or password',
      data: { login_result: 'FAILED', error_code: 'INVALID_CREDENTIALS', error_message: 'invalid username or password' },
      error: { code: 'INVALID_CREDENTIALS', message: 'invalid username or password' },
      meta: null,
    });
  });

  it('cms login reads X-Device-ID; without it the framework answers 400', async () => {
    const none = await req('POST', '/cms/auth/login', { body: { username: 'admin', password: 'sandbox-admin' } });
    expect(none.status).toBe(400);
    const r = await req('POST', '/cms/auth/login', {
      body: { username: 'admin', password: 'sandbox-admin' },
      headers: { 'X-Device-ID': 'http-dev-1', 'User-Agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5)' },
    });
    expect(r.status).toBe(200);
    const devices = await req('GET', '/cms/users/devices', { token: r.json.data.token });
    expect(devices.json.data.devices.find((d: any) => d.device_id === 'http-dev-1')).toMatchObject({
      is_current_device: true,
      device_type: 'mobile',
    });
  });

  it('POST /users answers 201; the audit log has the entry and no password', async () => {
    const admin = sb.tokenFor('admin');
    const r = await req('POST', '/users', {
      token: admin,
      body: { username: 'http.user', email: 'http.user@example.com', password: 'http-secret-pw', role: 'agent' },
    });
    expect(r.status).toBe(201);
    expect(r.json.data).toMatchObject({ username: 'http.user', role: 'agent', status: 'Active' });
    const row = sb.db
      .prepare("SELECT * FROM audit_logs WHERE module = 'users' AND action = 'create' ORDER BY id DESC LIMIT 1")
      .get() as any;
    expect(row.username).toBe('admin');
    expect(JSON.parse(row.details)).toMatchObject({ username: 'http.user' });
    const all = (sb.db.prepare('SELECT details FROM audit_logs WHERE details IS NOT NULL').all() as any[]).map((x) => x.details).join('\n');
    expect(all).not.toContain('http-secret-pw');
    expect(all).not.toContain('sandbox-admin');
    expect(all).not.toContain(admin);
  });

  it('deleting a held role is 409 with error.users; a system role is 409 too', async () => {
    const admin = sb.tokenFor('superadmin');
    const id = (sb.db.prepare("SELECT role_id FROM roles WHERE role_name = 'auditor'").get() as any).role_id;
    const r = await req('DELETE', `/cms/roles/${id}`, { token: admin });
    expect(r.status).toBe(409);
    expect(r.json.status).toBe(false);
    expect(r.json.error.code).toBe('ROLE_IN_USE');
    expect(r.json.error.users).toContain('manager');
    const sys = (sb.db.prepare("SELECT role_id FROM roles WHERE role_name = 'user'").get() as any).role_id;
    const s = await req('DELETE', `/cms/roles/${sys}`, { token: admin });
    expect(s.status).toBe(409);
    expect(s.json.error.message).toBe('system role cannot be deleted');
  });

  it('verification: 422 for a wrong code over HTTP', async () => {
    const reg = await req('POST', '/cms/auth/register', {
      body: { username: 'http.reg', email: 'http.reg@example.com', password: 'reg-pass-1' },
      headers: { 'X-Device-ID': 'reg' },
    });
    expect(reg.status).toBe(200);
    const t = (await req('POST', '/auth/login', { body: { username: 'http.reg', password: 'reg-pass-1' } })).json.data.token;
    const g = await req('POST', '/cms/users/generate-verification', { token: t, body: { type: 'email' } });
    const wrong = g.json.data.code === '999999' ? '999998' : '999999';
    const v = await req('POST', '/cms/users/verify', { token: t, body: { type: 'email', code: wrong } });
    expect(v.status).toBe(422);
    expect(v.json).toMatchObject({
      status: false,
      data: { success: false, error_code: 'INVALID_VERIFICATION_CODE' },
      error: { code: 'INVALID_VERIFICATION_CODE' },
    });
    expect((await req('POST', '/cms/users/verify', { token: t, body: { type: 'email', code: g.json.data.code } })).status).toBe(200);
  });

  it('end-user: access checks and wallet over HTTP', async () => {
    const t = sb.tokenFor('enduser');
    const w = await req('GET', '/user/wallet', { token: t });
    expect(w.json.data).toMatchObject({ currency: 'USD' });
    const top = await req('POST', '/user/wallet/topup', { token: t, body: { amount: 12.5, payment_method: 'paypal' } });
    expect(top.json.data.new_balance).toBeCloseTo(w.json.data.balance + 12.5, 2);
    const a = await req('GET', '/user/services/access?service_code=GPT4&requested_usage=1', { token: t });
    expect(a.status).toBe(200);
    expect(typeof a.json.data.has_access).toBe('boolean');
    expect((await req('GET', '/user/services/available', { token: t })).json.data.length).toBeGreaterThan(0);
    expect((await req('GET', '/test/services')).status).toBe(200);
  });
});
