/**
 * How the CLI's embedded sandbox signs in (`embeddedToken`): one token of its own per half-day,
 * not one per command, and never a token someone else signed in for.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_DEVICE, embeddedToken, TOKEN_TTL_SECONDS } from '../../src/sandbox/auth.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

const tokens = () => (sb.db.prepare('SELECT COUNT(*) AS n FROM tokens').get() as { n: number }).n;
const adminId = () => (sb.db.prepare("SELECT user_id FROM users WHERE username = 'admin'").get() as { user_id: number }).user_id;

async function post(path: string, body: unknown, token?: string) {
  const r = await request(`${sb.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: r.statusCode, body: (await r.body.json()) as { data?: { token?: string; access_token?: string } } };
}

describe('the embedded sandbox sign-in', () => {
  it('reuses its own token: the second command writes nothing', () => {
    const first = sb.embeddedTokenFor('admin');
    const count = tokens();
    expect(sb.embeddedTokenFor('admin')).toBe(first);
    expect(tokens()).toBe(count);
    const row = sb.db.prepare('SELECT device_id, user_id FROM tokens WHERE token = ?').get(first) as { device_id: string; user_id: number };
    expect(row).toEqual({ device_id: EMBEDDED_DEVICE, user_id: adminId() });
  });

  it('never picks a token from a real sign-in', async () => {
    const login = await post('/auth/login', { username: 'admin', password: 'sandbox-admin' });
    expect(login.status).toBe(200);
    const theirs = login.body.data?.token ?? login.body.data?.access_token;
    expect(theirs).toBeTruthy();
    expect(sb.embeddedTokenFor('admin')).not.toBe(theirs);
  });

  it('a revoked token (auth logout) is replaced by a new one', async () => {
    const mine = sb.embeddedTokenFor('admin');
    const out = await post('/auth/logout', {}, mine);
    expect(out.status).toBe(200);
    const next = sb.embeddedTokenFor('admin');
    expect(next).not.toBe(mine);
    const me = await request(`${sb.url}/admin/services?page_size=1`, { headers: { authorization: `Bearer ${next}` } });
    expect(me.statusCode).toBe(200);
    await me.body.dump();
  });

  it('a token within an hour of expiry is replaced; a fresher one is kept', () => {
    const now = new Date();
    const mine = embeddedToken(sb.db, adminId(), now);
    const later = new Date(now.getTime() + (TOKEN_TTL_SECONDS - 3 * 3600) * 1000);
    expect(embeddedToken(sb.db, adminId(), later)).toBe(mine);
    const nearEnd = new Date(now.getTime() + (TOKEN_TTL_SECONDS - 1800) * 1000);
    expect(embeddedToken(sb.db, adminId(), nearEnd)).not.toBe(mine);
  });
});
