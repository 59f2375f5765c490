import { afterAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes } from '../support/sandbox.js';
import { endpoints } from '../../src/api/contract/index.js';
import { userHandlers } from '../../src/sandbox/handlers/user.js';
import { SEEDED_ACCOUNTS } from '../../src/sandbox/schema-core.js';
import { Harness } from './user-harness.js';

afterAll(closeAllTestSandboxes);

const noSecrets = (h: Harness, ...secrets: string[]) => {
  const text = JSON.stringify(h.audits);
  for (const s of secrets) expect(text).not.toContain(s);
};

describe('user area: handler coverage', () => {
  it('has a handler for every user-area endpoint of the contract, and nothing else', () => {
    const names = endpoints
      .filter((e) => e.area === 'user')
      .map((e) => e.name)
      .sort();
    expect(Object.keys(userHandlers).sort()).toEqual(names);
    expect(names.length).toBe(64);
  });
});

describe('auth.login / refresh / logout / validate-session', () => {
  it('logs in a seeded account and records history and last login', async () => {
    const h = await Harness.create();
    const r = await h.call('auth.login', { body: { username: 'enduser', password: 'sandbox-enduser' } });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({
      user_id: 6,
      username: 'enduser',
      role: 'user',
      login_result: 'SUCCESS',
      error_code: null,
      error_message: null,
    });
    expect(r.data.token).toMatch(/^sbx_/);
    const last = h.db.prepare('SELECT login_status FROM login_history WHERE user_id = 6 ORDER BY login_id DESC LIMIT 1').get() as any;
    expect(last.login_status).toBe('SUCCESS');
    expect((h.db.prepare('SELECT last_login_date FROM users WHERE user_id = 6').get() as any).last_login_date).toBe(h.now.toISOString());
    noSecrets(h, 'sandbox-enduser', r.data.token);
  });

  it('answers 401 INVALID_CREDENTIALS for a wrong password or an unknown user, alike and without account data', async () => {
    const h = await Harness.create();
    for (const body of [
      { username: 'enduser', password: 'nope' },
      { username: 'ghost', password: 'x' },
    ]) {
      const r = await h.call('auth.login', { body });
      expect(r.status).toBe(401);
      // Only the login result the specification lists: nothing tells the two apart.
      expect(r.data).toEqual({ login_result: 'FAILED', error_code: 'INVALID_CREDENTIALS', error_message: 'invalid username or password' });
      expect(r.error).toMatchObject({ code: 'INVALID_CREDENTIALS', message: 'invalid username or password' });
    }
    noSecrets(h, 'nope');
  });

  it('answers 403 for Banned and Inactive accounts', async () => {
    const h = await Harness.create();
    for (const status of ['Banned', 'Inactive']) {
      h.db.prepare('UPDATE users SET status = ? WHERE user_id = 6').run(status);
      const r = await h.call('auth.login', { body: { username: 'enduser', password: 'sandbox-enduser' } });
      expect(r.status).toBe(403);
    }
  });

  it('refresh revokes the old token and issues a new one; validate-session tells them apart', async () => {
    const h = await Harness.create();
    const login = await h.call('auth.login', { body: { username: 'support', password: 'sandbox-support' } });
    const old = login.data.token;
    const r = await h.call('auth.refresh', { body: { token: old } });
    expect(r.status).toBe(200);
    expect(r.data.expires_in).toBeGreaterThan(0);
    expect(r.data.token).not.toBe(old);
    expect((await h.call('auth.validate-session', { body: { token: old } })).data.valid).toBe(false);
    const v = await h.call('auth.validate-session', { body: { token: r.data.token } });
    expect(v.data).toMatchObject({ valid: true, user_id: 4, username: 'support', role: 'support' });
    expect((await h.call('auth.refresh', { body: { token: old } })).status).toBe(401);
  });

  it('logout revokes the caller token', async () => {
    const h = await Harness.create();
    const t = (await h.call('auth.login', { body: { username: 'enduser', password: 'sandbox-enduser' } })).data.token;
    expect((await h.call('auth.logout', { token: t, body: {} })).status).toBe(200);
    expect((await h.call('auth.validate-session', { body: { token: t } })).data.valid).toBe(false);
    expect((await h.call('auth.change-password', { token: t, body: { old_password: 'a', new_password: 'bbbbbbbb' } })).status).toBe(401);
  });

  it("logout of someone else's token is for admins only", async () => {
    const h = await Harness.create();
    const t = (await h.call('auth.login', { body: { username: 'agent', password: 'sandbox-agent' } })).data.token;
    expect((await h.call('auth.logout', { as: 'enduser', body: { token: t } })).status).toBe(403);
    expect((await h.call('auth.logout', { as: 'admin', body: { token: t } })).status).toBe(200);
    expect((await h.call('auth.validate-session', { body: { token: t } })).data.valid).toBe(false);
  });
});

describe('CMS login, register, logout', () => {
  it('cms login creates a session and a device, and logout ends both', async () => {
    const h = await Harness.create();
    const r = await h.call('cms.auth.login', {
      body: { username: 'manager', password: 'sandbox-manager' },
      headers: { 'X-Device-ID': 'dev-test-1' },
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ success: true, user_id: 3, username: 'manager', role: 'manager' });
    expect(r.data.session_id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.data.permissions).toContain('dashboard.read');
    const tok = h.db.prepare('SELECT session_id, device_id FROM tokens WHERE token = ?').get(r.data.token) as any;
    expect(tok).toEqual({ session_id: r.data.session_id, device_id: 'dev-test-1' });
    const dev = await h.call('devices.list', { token: r.data.token });
    const mine = dev.data.devices.find((d: any) => d.device_id === 'dev-test-1');
    expect(mine).toMatchObject({ is_current_device: true, is_currently_logged_in: true, is_active: true });
    expect(dev.data.devices.filter((d: any) => d.is_current_device)).toHaveLength(1);
    // Same device again: the row is reused, not duplicated.
    await h.call('cms.auth.login', {
      body: { username: 'manager', password: 'sandbox-manager' },
      headers: { 'X-Device-ID': 'dev-test-1' },
    });
    expect((h.db.prepare("SELECT COUNT(*) AS n FROM devices WHERE device_id = 'dev-test-1'").get() as any).n).toBe(1);
    const out = await h.call('cms.auth.logout', { token: r.data.token });
    expect(out.status).toBe(200);
    expect((await h.call('auth.validate-session', { body: { token: r.data.token } })).data.valid).toBe(false);
    noSecrets(h, 'sandbox-manager', r.data.token);
  });

  it('cms login needs the X-Device-ID header', async () => {
    const h = await Harness.create();
    expect((await h.call('cms.auth.login', { body: { username: 'manager', password: 'sandbox-manager' } })).status).toBe(400);
  });

  it('register: Pending until verified, 409 for a taken username or email', async () => {
    const h = await Harness.create();
    const dev = { 'X-Device-ID': 'reg-dev' };
    const r = await h.call('cms.auth.register', {
      headers: dev,
      body: { username: 'newbie', email: 'newbie@example.com', password: 'secret-pass', full_name: 'Zoë Nüñez' },
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ success: true, status: 'Pending' });
    const u = h.db.prepare('SELECT status, is_verified, role FROM users WHERE user_id = ?').get(r.data.user_id) as any;
    expect(u).toEqual({ status: 'Pending', is_verified: 0, role: 'user' });
    expect(
      (await h.call('cms.auth.register', { headers: dev, body: { username: 'NEWBIE', email: 'x@example.com', password: 'p' } })).status,
    ).toBe(409);
    const dupEmail = await h.call('cms.auth.register', {
      headers: dev,
      body: { username: 'other', email: 'newbie@example.com', password: 'p' },
    });
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.error!.code).toBe('EMAIL_TAKEN');
    noSecrets(h, 'secret-pass');
  });

  it('register applies a referral code atomically, and a bad code leaves no account behind', async () => {
    const h = await Harness.create();
    const dev = { 'X-Device-ID': 'reg-dev' };
    const before = h.db.prepare("SELECT used_count FROM referral_codes WHERE referral_code = 'REF-EVE001'").get() as any;
    const r = await h.call('cms.auth.register', {
      headers: dev,
      body: { username: 'referred1', email: 'r1@example.com', password: 'pw-123456', referral_code: 'ref-eve001' },
    });
    expect(r.status).toBe(200);
    expect(r.data.referral).toMatchObject({ referral_code: 'REF-EVE001', referrer_id: 6 });
    const after = h.db.prepare("SELECT used_count FROM referral_codes WHERE referral_code = 'REF-EVE001'").get() as any;
    expect(after.used_count).toBe(before.used_count + 1);
    expect(h.db.prepare('SELECT referrer_id FROM referral_uses WHERE new_user_id = ?').get(r.data.user_id)).toEqual({ referrer_id: 6 });
    // Exhausted code: 400 and no user created.
    h.db.prepare("UPDATE referral_codes SET usage_limit = used_count WHERE referral_code = 'REF-EVE001'").run();
    const bad = await h.call('cms.auth.register', {
      headers: dev,
      body: { username: 'referred2', email: 'r2@example.com', password: 'pw', referral_code: 'REF-EVE001' },
    });
    expect(bad.status).toBe(400);
    expect(bad.error!.code).toBe('REFERRAL_EXHAUSTED');
    expect(h.db.prepare("SELECT 1 FROM users WHERE username = 'referred2'").get()).toBeUndefined();
    const unknown = await h.call('cms.auth.register', {
      headers: dev,
      body: { username: 'referred3', email: 'r3@example.com', password: 'pw', referral_code: 'REF-NOPE00' },
    });
    expect(unknown.status).toBe(404);
    expect(h.db.prepare("SELECT 1 FROM users WHERE username = 'referred3'").get()).toBeUndefined();
  });
});

describe('verification codes', () => {
  async function registered(h: Harness) {
    const r = await h.call('cms.auth.register', {
      headers: { 'X-Device-ID': 'd' },
      body: { username: 'verifyme', email: 'v@example.com', password: 'pw-verify' },
    });
    const login = await h.call('auth.login', { body: { username: 'verifyme', password: 'pw-verify' } });
    expect(login.status).toBe(200); // Pending accounts may sign in, to verify themselves.
    return { id: r.data.user_id as number, token: login.data.token as string };
  }

  it('generate returns a 6-digit code valid 10 minutes; verify activates the account', async () => {
    const h = await Harness.create();
    const { id, token } = await registered(h);
    const g = await h.call('cms.verification.generate', { token, body: { type: 'email' } });
    expect(g.status).toBe(200);
    expect(g.data.code).toMatch(/^\d{6}$/);
    expect(Date.parse(g.data.expires_at) - h.now.getTime()).toBe(10 * 60_000);
    const v = await h.call('cms.verification.verify', { token, body: { type: 'email', code: g.data.code } });
    expect(v.status).toBe(200);
    expect(h.db.prepare('SELECT status, is_verified FROM users WHERE user_id = ?').get(id)).toEqual({ status: 'Active', is_verified: 1 });
    // A used code does not verify twice.
    expect((await h.call('cms.verification.verify', { token, body: { type: 'email', code: g.data.code } })).status).toBe(422);
    expect(JSON.stringify(h.audits)).not.toContain(g.data.code);
  });

  it('422 for a wrong code, a code of another type, and an expired code', async () => {
    const h = await Harness.create();
    const { id, token } = await registered(h);
    const g = await h.call('cms.verification.generate', { token, body: { type: 'sms' } });
    const wrong = g.data.code === '000000' ? '111111' : '000000';
    const w = await h.call('cms.verification.verify', { token, body: { type: 'sms', code: wrong } });
    expect(w.status).toBe(422);
    expect(w.error!.code).toBe('INVALID_VERIFICATION_CODE');
    expect((await h.call('cms.verification.verify', { token, body: { type: 'email', code: g.data.code } })).status).toBe(422);
    h.now = new Date(h.now.getTime() + 11 * 60_000);
    const e = await h.call('cms.verification.verify', { token, body: { type: 'sms', code: g.data.code } });
    expect(e.status).toBe(422);
    expect(e.error!.code).toBe('VERIFICATION_CODE_EXPIRED');
    expect((h.db.prepare('SELECT status FROM users WHERE user_id = ?').get(id) as any).status).toBe('Pending');
  });

  it('a new code replaces the previous one', async () => {
    const h = await Harness.create();
    const { token } = await registered(h);
    const a = await h.call('cms.verification.generate', { token, body: { type: 'phone' } });
    const b = await h.call('cms.verification.generate', { token, body: { type: 'phone' } });
    if (a.data.code !== b.data.code)
      expect((await h.call('cms.verification.verify', { token, body: { type: 'phone', code: a.data.code } })).status).toBe(422);
    expect((await h.call('cms.verification.verify', { token, body: { type: 'phone', code: b.data.code } })).status).toBe(200);
  });
});

describe('passwords', () => {
  it('forgot-password issues a 1 h token; reset-password uses it once; sessions end', async () => {
    const h = await Harness.create();
    const t = h.tokenFor('enduser');
    const f = await h.call('auth.forgot-password', { body: { email: 'enduser@sandbox.local' } });
    expect(f.status).toBe(200);
    expect(f.data).toMatchObject({ success: true, user_id: 6, username: 'enduser', email: 'enduser@sandbox.local' });
    expect(Date.parse(f.data.expiry_date) - h.now.getTime()).toBe(3_600_000);
    expect(
      (await h.call('auth.reset-password', { body: { user_id: 5, reset_token: f.data.reset_token, new_password: 'brand-new-1' } })).status,
    ).toBe(400);
    const r = await h.call('auth.reset-password', { body: { user_id: 6, reset_token: f.data.reset_token, new_password: 'brand-new-1' } });
    expect(r.status).toBe(200);
    expect((await h.call('auth.validate-session', { body: { token: t } })).data.valid).toBe(false);
    expect((await h.call('auth.login', { body: { username: 'enduser', password: 'brand-new-1' } })).status).toBe(200);
    const again = await h.call('auth.reset-password', {
      body: { user_id: 6, reset_token: f.data.reset_token, new_password: 'brand-new-2' },
    });
    expect(again.status).toBe(400);
    expect(again.error!.code).toBe('RESET_TOKEN_USED');
    noSecrets(h, 'brand-new-1', f.data.reset_token);
  });

  it('reset tokens expire after an hour; unknown tokens and short passwords are 400', async () => {
    const h = await Harness.create();
    const f = await h.call('cms.auth.request-reset', { body: { email: 'agent@sandbox.local' } });
    h.now = new Date(h.now.getTime() + 3_600_001);
    const r = await h.call('cms.auth.reset-password-token', { body: { reset_token: f.data.reset_token, new_password: 'long-enough' } });
    expect(r.status).toBe(400);
    expect(r.error!.code).toBe('RESET_TOKEN_EXPIRED');
    expect((await h.call('cms.auth.reset-password-token', { body: { reset_token: 'rst_nope', new_password: 'long-enough' } })).status).toBe(
      400,
    );
    expect((await h.call('cms.auth.reset-password-token', { body: { reset_token: 'x', new_password: 'short' } })).status).toBe(400);
    expect((await h.call('auth.forgot-password', { body: { email: 'nobody@nowhere' } })).status).toBe(404);
  });

  it('change-password checks the old one and keeps the current session only', async () => {
    const h = await Harness.create();
    const other = h.tokenFor('enduser');
    const mine = (await h.call('auth.login', { body: { username: 'enduser', password: 'sandbox-enduser' } })).data.token;
    const bad = await h.call('cms.auth.change-password', { token: mine, body: { old_password: 'wrong', new_password: 'whatever-1' } });
    expect(bad.status).toBe(400);
    expect(bad.error!.message).toBe('old password is incorrect');
    const ok = await h.call('auth.change-password', { token: mine, body: { old_password: 'sandbox-enduser', new_password: 'whatever-1' } });
    expect(ok.status).toBe(200);
    expect((await h.call('auth.validate-session', { body: { token: mine } })).data.valid).toBe(true);
    expect((await h.call('auth.validate-session', { body: { token: other } })).data.valid).toBe(false);
    noSecrets(h, 'whatever-1', 'sandbox-enduser');
  });

  it('superadmin sets any password; 404 for an unknown user; others get 403', async () => {
    const h = await Harness.create();
    expect(
      (await h.call('cms.superadmin.change-password', { as: 'admin', body: { user_id: 6, new_password: 'set-by-admin' } })).status,
    ).toBe(403);
    expect(
      (await h.call('cms.superadmin.change-password', { as: 'superadmin', body: { user_id: 99999, new_password: 'set-by-root' } })).status,
    ).toBe(404);
    expect(
      (await h.call('cms.superadmin.change-password', { as: 'superadmin', body: { user_id: 6, new_password: 'set-by-root' } })).status,
    ).toBe(200);
    expect((await h.call('auth.login', { body: { username: 'enduser', password: 'set-by-root' } })).status).toBe(200);
    noSecrets(h, 'set-by-root');
  });
});

describe('seeded accounts', () => {
  it('SEEDED_ACCOUNTS get user_ids 1..6 in order and their passwords work', async () => {
    const h = await Harness.create();
    for (const [i, a] of SEEDED_ACCOUNTS.entries()) {
      const r = await h.call('auth.login', { body: { username: a.username, password: a.password } });
      expect(r.data).toMatchObject({ user_id: i + 1, role: a.role });
    }
  });
});
