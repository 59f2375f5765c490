import { afterAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes } from '../support/sandbox.js';
import { Harness } from './user-harness.js';

afterAll(closeAllTestSandboxes);

describe('users', () => {
  it('create: 201, unique username/email (409), known role (400), superadmin only by a superadmin', async () => {
    const h = await Harness.create();
    const body = {
      username: 'ana.núñez',
      email: 'ana@example.com',
      password: 'pw-create',
      role: 'support',
      full_name: 'Ana "Ani" Núñez, PhD',
    };
    const r = await h.call('users.create', { as: 'admin', body });
    expect(r.status).toBe(201);
    expect(r.data).toMatchObject({ username: 'ana.núñez', role: 'support', status: 'Active', full_name: 'Ana "Ani" Núñez, PhD' });
    expect((await h.call('users.create', { as: 'admin', body })).status).toBe(409);
    expect((await h.call('users.create', { as: 'admin', body: { ...body, username: 'other' } })).status).toBe(409);
    const badRole = await h.call('users.create', { as: 'admin', body: { ...body, username: 'x1', email: 'x1@e.com', role: 'wizard' } });
    expect(badRole.status).toBe(400);
    expect(badRole.error!.code).toBe('UNKNOWN_ROLE');
    expect(
      (await h.call('users.create', { as: 'admin', body: { ...body, username: 'x2', email: 'x2@e.com', role: 'superadmin' } })).status,
    ).toBe(403);
    expect(
      (await h.call('users.create', { as: 'superadmin', body: { ...body, username: 'x3', email: 'x3@e.com', role: 'superadmin' } })).status,
    ).toBe(201);
    expect((await h.call('users.create', { as: 'enduser', body: { ...body, username: 'x4', email: 'x4@e.com' } })).status).toBe(403);
    expect(h.audits.find((a) => a.module === 'users' && a.action === 'create')).toBeTruthy();
    expect(JSON.stringify(h.audits)).not.toContain('pw-create');
    // The new account signs in and holds its role.
    const login = await h.call('auth.login', { body: { username: 'ana.núñez', password: 'pw-create' } });
    expect(login.data.role).toBe('support');
  });

  it('create and register: an empty password is refused (400 naming password), one character is enough', async () => {
    const h = await Harness.create();
    const body = (n: string, password: string) => ({ username: `pw-${n}`, email: `pw-${n}@example.com`, password, role: 'user' });
    const empty = await h.call('users.create', { as: 'admin', body: body('a', '') });
    expect(empty.status).toBe(400);
    expect(empty.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'password' }] });
    expect((await h.call('users.create', { as: 'admin', body: body('b', 'x') })).status).toBe(201);
    const device = { 'x-device-id': 'pw-device' };
    const reg = (n: string, password: string) =>
      h.call('cms.auth.register', { headers: device, body: { username: `pw-${n}`, email: `pw-${n}@example.com`, password } });
    const regEmpty = await reg('c', '');
    expect(regEmpty.status).toBe(400);
    expect(regEmpty.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'password' }] });
    expect((await reg('d', 'y')).status).toBe(200);
  });

  it('list: filters by role and status, pages with defaults of 10', async () => {
    const h = await Harness.create({ scale: 0.2 });
    const all = await h.call('users.list', { as: 'admin' });
    const total = (h.db.prepare('SELECT COUNT(*) AS n FROM users').get() as any).n;
    expect(all.data).toMatchObject({ current_page: 1, page_size: 10, total_count: total, total_pages: Math.ceil(total / 10) });
    expect(all.data.users).toHaveLength(10);
    const banned = await h.call('users.list', { as: 'admin', query: { status: 'Banned', page_size: '100' } });
    expect(banned.data.total_count).toBeGreaterThan(0);
    expect(banned.data.users.every((u: any) => u.status === 'Banned')).toBe(true);
    const suspended = await h.call('users.list', { as: 'admin', query: { status: 'Suspended' } });
    expect(suspended.data.total_count).toBe(banned.data.total_count);
    const agents = await h.call('users.list', { as: 'manager', query: { role: 'agent', page: '1', page_size: '100' } });
    expect(agents.data.users.every((u: any) => u.role === 'agent')).toBe(true);
    expect(agents.data.users.some((u: any) => u.username === 'agent')).toBe(true);
    const far = await h.call('users.list', { as: 'admin', query: { page: '999' } });
    expect(far.data.users).toEqual([]);
  });

  it('get: 404 for an unknown id; answers the detail and permissions', async () => {
    const h = await Harness.create();
    expect((await h.call('users.get', { as: 'admin', params: { id: '424242' } })).status).toBe(404);
    const r = await h.call('users.get', { as: 'admin', params: { id: '3' } });
    expect(r.data.user).toMatchObject({ user_id: 3, username: 'manager', role: 'manager', created_by_username: 'superadmin' });
    expect(r.data.permissions).toEqual(r.data.user.permissions);
    expect(r.data.permissions).toContain('audit.read'); // via the auditor role the seeded manager holds
  });

  it('update: body user_id must equal the path id; uniqueness; banning ends sessions', async () => {
    const h = await Harness.create();
    const t = h.tokenFor('enduser');
    const mismatch = await h.call('users.update', { as: 'admin', params: { id: '6' }, body: { user_id: 5, full_name: 'X' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.error!.code).toBe('USER_ID_MISMATCH');
    expect(
      (await h.call('users.update', { as: 'admin', params: { id: '6' }, body: { user_id: 6, email: 'agent@sandbox.local' } })).status,
    ).toBe(409);
    expect((await h.call('users.update', { as: 'admin', params: { id: '6' }, body: { user_id: 6, role: 'nope' } })).status).toBe(400);
    const ok = await h.call('users.update', {
      as: 'admin',
      params: { id: '6' },
      body: { user_id: 6, full_name: '山田 花子', status: 'Banned', role: 'agent' },
    });
    expect(ok.status).toBe(200);
    expect(ok.data.user).toMatchObject({ full_name: '山田 花子', status: 'Banned', role: 'agent' });
    expect((await h.call('auth.validate-session', { body: { token: t } })).data.valid).toBe(false);
    expect((await h.call('users.update', { as: 'admin', params: { id: '1' }, body: { user_id: 1, full_name: 'x' } })).status).toBe(403);
    expect((await h.call('users.update', { as: 'admin', params: { id: '2' }, body: { user_id: 2, status: 'Banned' } })).status).toBe(400);
  });

  it('delete: not yourself (400), 404 unknown, removes the account and its data', async () => {
    const h = await Harness.create();
    expect((await h.call('users.delete', { as: 'admin', params: { id: '2' } })).status).toBe(400);
    expect((await h.call('users.delete', { as: 'admin', params: { id: '99999' } })).status).toBe(404);
    expect((await h.call('users.delete', { as: 'admin', params: { id: '1' } })).status).toBe(403);
    // A user with subscriptions, referrals, devices, created accounts…
    const victim = h.db
      .prepare('SELECT user_id, username FROM users WHERE user_id IN (SELECT user_id FROM subscriptions) AND role = ? LIMIT 1')
      .get('user') as any;
    const r = await h.call('users.delete', { as: 'admin', params: { id: String(victim.user_id) } });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ success: true, user_id: victim.user_id, username: victim.username });
    expect(h.db.prepare('SELECT 1 FROM users WHERE user_id = ?').get(victim.user_id)).toBeUndefined();
    expect(h.db.prepare('SELECT 1 FROM subscriptions WHERE user_id = ?').get(victim.user_id)).toBeUndefined();
    // Deleting the creator of other accounts works too (their created_by is cleared).
    expect((await h.call('users.delete', { as: 'superadmin', params: { id: '2' } })).status).toBe(200);
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM users WHERE created_by = 2').get()).toEqual({ n: 0 });
  });

  it('search (superadmin): filters, sorts, statistics and page info', async () => {
    const h = await Harness.create({ scale: 0.3 });
    expect((await h.call('users.search', { as: 'admin' })).status).toBe(403);
    const r = await h.call('users.search', { as: 'superadmin' });
    const total = (h.db.prepare('SELECT COUNT(*) AS n FROM users').get() as any).n;
    expect(r.data.page_info).toEqual({ page_number: 1, page_size: 20, total_count: total, total_pages: Math.ceil(total / 20) });
    expect(r.data.statistics.total_users).toBe(total);
    const s = r.data.statistics;
    expect(s.active_users + s.inactive_users + s.banned_users + s.pending_users).toBe(total);
    expect(s.unique_creators).toBeGreaterThan(0);
    const first = r.data.users[0];
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining([
        'active_role_count',
        'activity_status',
        'created_by_full_name',
        'created_by_username',
        'days_since_created',
        'days_since_last_login',
        'referral_count',
        'role_names',
        'times_referred',
      ]),
    );
    // Default sort: created_date DESC.
    const dates = r.data.users.map((u: any) => u.created_date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const byName = await h.call('users.search', { as: 'superadmin', query: { sort_by: 'username', sort_order: 'ASC', page_size: '50' } });
    const names = byName.data.users.map((u: any) => u.username);
    expect(names).toEqual(
      [...names].sort((a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0)),
    );
    const kw = await h.call('users.search', { as: 'superadmin', query: { search_keyword: 'sandbox.local' } });
    expect(kw.data.page_info.total_count).toBe(6);
    const role = await h.call('users.search', { as: 'superadmin', query: { role: 'auditor' } });
    expect(role.data.users.every((u: any) => u.role_names.includes('auditor'))).toBe(true);
    expect(role.data.users.some((u: any) => u.username === 'manager')).toBe(true);
    const pending = await h.call('users.search', { as: 'superadmin', query: { status: 'Pending' } });
    expect(pending.data.statistics.pending_users).toBe(pending.data.page_info.total_count);
    const refs = await h.call('users.search', { as: 'superadmin', query: { has_referrals: 'true', page_size: '100' } });
    expect(refs.data.users.every((u: any) => u.referral_count > 0)).toBe(true);
    const noRefs = await h.call('users.search', { as: 'superadmin', query: { has_referrals: 'false' } });
    expect(refs.data.page_info.total_count + noRefs.data.page_info.total_count).toBe(total);
    const recent = await h.call('users.search', { as: 'superadmin', query: { last_login_days: '7', page_size: '100' } });
    expect(recent.data.users.every((u: any) => u.days_since_last_login !== null && u.days_since_last_login <= 7)).toBe(true);
    const byCreator = await h.call('users.search', { as: 'superadmin', query: { created_by: '1', page_size: '100' } });
    expect(byCreator.data.users.every((u: any) => u.created_by_username === 'superadmin')).toBe(true);
    const day = (n: number) => new Date(h.now.getTime() - n * 86_400_000).toISOString().slice(0, 10);
    const dated = await h.call('users.search', {
      as: 'superadmin',
      query: { created_date_from: day(300), created_date_to: day(100), page_size: '100' },
    });
    expect(dated.data.page_info.total_count).toBeGreaterThan(0);
    expect(dated.data.users.every((u: any) => u.created_date.slice(0, 10) >= day(300) && u.created_date.slice(0, 10) <= day(100))).toBe(
      true,
    );
    const lastLogin = await h.call('users.search', {
      as: 'superadmin',
      query: { sort_by: 'last_login_date', sort_order: 'DESC', page_size: '100' },
    });
    const ll = lastLogin.data.users.map((u: any) => u.last_login_date).filter(Boolean);
    expect([...ll].sort().reverse()).toEqual(ll);
  });
});

describe('profile and devices', () => {
  it('profile get has basic info, login history, permissions with grantor, referral info', async () => {
    const h = await Harness.create();
    const r = await h.call('profile.get', { as: 'manager' });
    expect(r.data.basic_info).toMatchObject({ user_id: 3, username: 'manager', role: 'manager', created_by_username: 'superadmin' });
    expect(r.data.login_history.length).toBeGreaterThan(0);
    expect(r.data.login_history[0]).toHaveProperty('login_status');
    expect(r.data.permissions.find((p: any) => p.permission_name === 'dashboard.read')).toMatchObject({
      granted_by_username: 'superadmin',
    });
    expect(r.data).toHaveProperty('referral_info');
  });

  it('profile update upserts the profile and the full name', async () => {
    const h = await Harness.create();
    const r = await h.call('profile.update', {
      as: 'enduser',
      body: { full_name: 'Zoë Müller', city: 'Zürich', gender: 'Female', date_of_birth: '1990-02-28', phone_number: '+41 44 000 00 00' },
    });
    expect(r.status).toBe(200);
    const g = await h.call('profile.get', { as: 'enduser' });
    expect(g.data.basic_info.full_name).toBe('Zoë Müller');
    expect(g.data.profile).toMatchObject({ city: 'Zürich', gender: 'Female', date_of_birth: '1990-02-28' });
    // The contract refuses bad input before the handler.
    expect((await h.call('profile.update', { as: 'enduser', body: { full_name: 'x', gender: 'Robot' } })).status).toBe(400);
    expect((await h.call('profile.update', { as: 'enduser', body: { full_name: 'x', date_of_birth: '1990-02-30' } })).status).toBe(400);
    expect(h.audits.some((a) => a.module === 'profile' && a.action === 'update')).toBe(true);
  });

  it("devices: include_inactive, remove own (ends its sessions), 404 for others' devices", async () => {
    const h = await Harness.create();
    const a = await h.call('cms.auth.login', {
      body: { username: 'support', password: 'sandbox-support' },
      headers: { 'X-Device-ID': 'laptop-1' },
    });
    const b = await h.call('cms.auth.login', {
      body: { username: 'support', password: 'sandbox-support' },
      headers: { 'X-Device-ID': 'phone-1' },
    });
    await h.call('cms.auth.logout', { token: b.data.token });
    const active = await h.call('devices.list', { token: a.data.token });
    expect(active.data.devices.map((d: any) => d.device_id)).toContain('laptop-1');
    expect(active.data.devices.map((d: any) => d.device_id)).not.toContain('phone-1');
    expect(active.data.device_count).toBe(active.data.devices.length);
    const all = await h.call('devices.list', { token: a.data.token, query: { include_inactive: 'true' } });
    expect(all.data.devices.find((d: any) => d.device_id === 'phone-1')).toMatchObject({
      is_active: false,
      is_currently_logged_in: false,
      is_current_device: false,
    });
    // Someone else's device is not found for a non-admin.
    await h.call('cms.auth.login', { body: { username: 'agent', password: 'sandbox-agent' }, headers: { 'X-Device-ID': 'agent-box' } });
    expect((await h.call('devices.remove', { token: a.data.token, params: { id: 'agent-box' } })).status).toBe(404);
    expect((await h.call('devices.remove', { token: a.data.token, params: { id: 'nope' } })).status).toBe(404);
    // A second session on laptop-1 is ended by removing the device.
    const c = await h.call('cms.auth.login', {
      body: { username: 'support', password: 'sandbox-support' },
      headers: { 'X-Device-ID': 'laptop-1' },
    });
    const rm = await h.call('devices.remove', { token: c.data.token, params: { id: 'laptop-1' } });
    expect(rm.status).toBe(200);
    expect(rm.data.sessions_revoked).toBe(2);
    expect((await h.call('auth.validate-session', { body: { token: a.data.token } })).data.valid).toBe(false);
    // An admin may remove anyone's device.
    expect((await h.call('devices.remove', { as: 'admin', params: { id: 'agent-box' } })).status).toBe(200);
    expect(h.audits.filter((x) => x.module === 'devices' && x.action === 'remove')).toHaveLength(2);
  });
});
