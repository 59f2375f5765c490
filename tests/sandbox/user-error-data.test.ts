/**
 * Error answers of the user/auth/CMS area carry what its specification lists for responses
 * (point 8: "Responses carry error_code and message; login carries login_result, error_code,
 * error_message"): in `data`, beside the envelope's `error`, which stays as it was. The
 * administrator area's errors keep `data: null`. The client still reads `error.code` and the
 * message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { HttpError } from '../../src/api/errors.js';
import { endpointByName } from '../../src/api/contract/index.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call, closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ scale: 0.05 });
});
afterAll(closeAllTestSandboxes);

describe('POST /auth/login refused', () => {
  it('wrong password: 401 with data {login_result: FAILED, error_code, error_message}; error unchanged', async () => {
    const r = await call(sb, 'POST', '/auth/login', { body: { username: 'enduser', password: 'wrong-password' } });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({
      status: false,
      message: 'invalid username or password',
      data: { login_result: 'FAILED', error_code: 'INVALID_CREDENTIALS', error_message: 'invalid username or password' },
      error: { code: 'INVALID_CREDENTIALS', message: 'invalid username or password' },
      meta: null,
    });
    // Consistent with a successful login, and with login_history's statuses.
    const ok = await call(sb, 'POST', '/auth/login', { body: { username: 'enduser', password: 'sandbox-enduser' } });
    expect(ok.json.data).toMatchObject({ login_result: 'SUCCESS', error_code: null, error_message: null });
  });

  it('a banned account: 403, login_result BLOCKED; a missing field: 400, FAILED, fields kept in error', async () => {
    const banned = sb.db.prepare("SELECT username FROM users WHERE status = 'Banned' LIMIT 1").get() as { username: string };
    const r = await call(sb, 'POST', '/auth/login', { body: { username: banned.username, password: 'sandbox-user' } });
    expect(r.status).toBe(403);
    expect(r.json.data).toEqual({ login_result: 'BLOCKED', error_code: 'ACCOUNT_BANNED', error_message: r.json.error.message });
    expect(r.json.error.code).toBe('ACCOUNT_BANNED');
    const bad = await call(sb, 'POST', '/auth/login', { body: { username: 'enduser' } });
    expect(bad.status).toBe(400);
    expect(bad.json.data).toEqual({ login_result: 'FAILED', error_code: 'VALIDATION_ERROR', error_message: bad.json.message });
    expect(bad.json.error.fields[0].field).toBe('password');
  });
});

describe('other user/auth/CMS errors', () => {
  it("carry data {success: false, error_code, message} with the error's code and message", async () => {
    const cases = [
      await call(sb, 'POST', '/cms/auth/login', { body: { username: 'enduser', password: 'nope' }, headers: { 'x-device-id': 'e1' } }),
      await call(sb, 'POST', '/cms/auth/register', {
        body: { username: 'enduser', email: 'x@example.com', password: 'pw' },
        headers: { 'x-device-id': 'e2' },
      }),
      await call(sb, 'GET', '/cms/users/profile'),
      await call(sb, 'GET', '/users', { as: 'agent' }),
      await call(sb, 'POST', '/user/codes/activate', { as: 'enduser', body: { activation_code: 'NO-SUCH-CODE' } }),
      await call(sb, 'POST', '/cms/referral/generate', { as: 'enduser', body: { description: 'x', expiry_days: 0, usage_limit: 1 } }),
    ];
    expect(cases.map((r) => r.status)).toEqual([401, 409, 401, 403, 404, 400]);
    expect(cases.map((r) => r.json.error.code)).toEqual([
      'INVALID_CREDENTIALS',
      'USERNAME_TAKEN',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'CODE_NOT_FOUND',
      'VALIDATION_ERROR',
    ]);
    for (const r of cases) {
      expect(r.json.status).toBe(false);
      expect(r.json.data).toEqual({ success: false, error_code: r.json.error.code, message: r.json.message });
      expect(r.json.error.message).toBe(r.json.message);
    }
  });

  it('the administrator area and unknown paths keep data: null', async () => {
    for (const r of [
      await call(sb, 'GET', '/admin/services'),
      await call(sb, 'GET', '/admin/services/detail', { as: 'admin', query: { service_id: 999999 } }),
      await call(sb, 'GET', '/cms/nope', { as: 'admin' }),
    ]) {
      expect(r.json.status).toBe(false);
      expect(r.json.data).toBeNull();
    }
  });

  it('the client still reads the code and the message', async () => {
    const client = new ApiClient({ baseUrl: sb.url, retries: 0 });
    const err = await client
      .call(endpointByName('auth.login'), { body: { username: 'enduser', password: 'wrong-password' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS', message: 'invalid username or password' });
  });
});
