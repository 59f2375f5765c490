/**
 * Every endpoint of the contract, once, through the real client (ApiClient.callFull) against a
 * real sandbox over loopback: a valid input, the right account, a 2xx answer whose `data`
 * parses with the endpoint's response schema (callFull throws BadResponseError otherwise), and
 * one meaningful check of the data or, for a mutation, of its effect read back from the database.
 *
 * One sandbox for the file; the rows run in order, and the order is deliberate: what a row needs
 * (a code to verify, a reset token, a referral code, money in the wallet, a usage code, a fresh
 * role/service/plan/user to delete) is made by an earlier row or at the start of the row itself.
 * Sections: sessions and passwords; accounts and roles; the admin catalogue; the end-user area;
 * referrals; then the admin mutations that destroy things (deletes, cleanup) last.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiClient, type ClientOptions } from '../../src/api/client.js';
import { endpointByName, endpoints } from '../../src/api/contract/index.js';
import { verifyPassword } from '../../src/sandbox/auth.js';
import { type Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
const clients: ApiClient[] = [];
let admin: ApiClient;
let superadmin: ApiClient;
let enduser: ApiClient;
let anon: ApiClient;

beforeAll(async () => {
  sb = await startTestSandbox();
  admin = client({ token: sb.tokenFor('admin') });
  superadmin = client({ token: sb.tokenFor('superadmin') });
  enduser = client({ token: sb.tokenFor('enduser') });
  anon = client();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sb?.close();
});

/** A client of the sandbox; no retries, so a failure shows at once. */
function client(o: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({ baseUrl: sb.url, retries: 0, ...o });
  clients.push(c);
  return c;
}

// ---------------------------------------------------------------------------------------------
// Calling and reading back

/** Endpoint names called during the current row (each row must call its own endpoint). */
const calledInRow = new Set<string>();

/**
 * Calls endpoint `name` through the client and checks the success status (the contract's
 * `successStatus`, else 200) and the envelope's `status: true`. callFull has already parsed
 * `data` with the endpoint's response schema. Answers the parsed data.
 */
async function hit(who: ApiClient, name: string, input: { params?: object; query?: object; body?: object } = {}): Promise<any> {
  const ep = endpointByName(name);
  calledInRow.add(name);
  // No read writes: the sandbox holds one data stamp through a GET handler (holdingDataStamp).
  const changesBefore = ep.method === 'GET' ? totalChanges() : 0;
  const r = await who.callFull(ep, input as never);
  if (ep.method === 'GET') expect(totalChanges(), `${name} wrote to the database`).toBe(changesBefore);
  expect(r.status, `${name} status`).toBe(ep.successStatus ?? 200);
  expect((r.envelope as { status?: unknown }).status, `${name} envelope status`).toBe(true);
  return r.data;
}

const one = (sql: string, ...args: unknown[]): any => sb.db.prepare(sql).get(...args);
/** Rows changed by the sandbox's connection so far (its own writes). */
const totalChanges = (): number => (sb.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
const count = (sql: string, ...args: unknown[]): number => (sb.db.prepare(sql).get(...args) as { n: number }).n;
const countOf = (table: string, where = '1', ...args: unknown[]) => count(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, ...args);
const userRow = (id: number): any => one('SELECT * FROM users WHERE user_id = ?', id);
const tokenRow = (token: string): any => one('SELECT * FROM tokens WHERE token = ?', token);

/** Signs in through auth.login and answers a client carrying the token. */
async function signIn(username: string, password: string): Promise<ApiClient> {
  const d = await hit(anon, 'auth.login', { body: { username, password } });
  return client({ token: d.token });
}

/** Signs in through cms.auth.login with a device id: token, session id and device id. */
async function cmsSignIn(
  username: string,
  password: string,
  deviceId: string,
): Promise<{ c: ApiClient; token: string; sessionId: string }> {
  const d = await hit(client({ deviceId }), 'cms.auth.login', { body: { username, password } });
  return { c: client({ token: d.token, sessionId: d.session_id, deviceId }), token: d.token, sessionId: d.session_id };
}

// ---------------------------------------------------------------------------------------------
// What earlier rows leave for later ones

const NEWCOMER = { username: 'every.ep.newcomer', email: 'every.ep.newcomer@example.test', device: 'every-ep-newcomer-device' };
const SVC = 'EVERY-EP-SVC';
const PLAN = 'EVERY-EP-PLAN';
const BATCH = 'EVERY-EP-BATCH';

const s = {
  loginToken: '',
  refreshedToken: '',
  cmsEnd: undefined as unknown as ApiClient,
  newcomerId: 0,
  newcomerPassword: 'Newcomer#2024',
  verificationCode: '',
  resetToken: '',
  createdUserId: 0,
  roleId: 0,
  serviceId: 0,
  planId: 0,
  linkId: 0,
  codes: [] as string[],
  boughtSubscriptionId: 0,
  referralId: 0,
  referralCode: '',
};

/** The stored hash of `userId` is the hash of `password`. */
function expectPassword(userId: number, password: string) {
  expect(verifyPassword(password, userRow(userId).password_hash)).toBe(true);
}

// ---------------------------------------------------------------------------------------------
// The table: one row per endpoint, in the order they run

interface Row {
  name: string;
  run: () => Promise<void>;
}

const rows: Row[] = [
  // --- Sessions and passwords -------------------------------------------------------------
  {
    name: 'auth.login',
    run: async () => {
      const d = await hit(anon, 'auth.login', { body: { username: 'enduser', password: 'sandbox-enduser' } });
      expect(d).toMatchObject({ user_id: 6, username: 'enduser', role: 'user' });
      expect(tokenRow(d.token)).toMatchObject({ user_id: 6, revoked_at: null });
      s.loginToken = d.token;
    },
  },
  {
    name: 'auth.validate-session',
    run: async () => {
      const d = await hit(anon, 'auth.validate-session', { body: { token: s.loginToken } });
      expect(d).toMatchObject({ valid: true, user_id: 6, username: 'enduser' });
    },
  },
  {
    name: 'auth.refresh',
    run: async () => {
      const d = await hit(anon, 'auth.refresh', { body: { token: s.loginToken } });
      expect(d.token).not.toBe(s.loginToken);
      expect(tokenRow(s.loginToken).revoked_at).not.toBeNull();
      expect(tokenRow(d.token)).toMatchObject({ user_id: 6, revoked_at: null });
      s.refreshedToken = d.token;
    },
  },
  {
    name: 'auth.logout',
    run: async () => {
      await hit(client({ token: s.refreshedToken }), 'auth.logout', { body: {} });
      expect(tokenRow(s.refreshedToken).revoked_at).not.toBeNull();
    },
  },
  {
    name: 'cms.auth.login',
    run: async () => {
      const deviceId = 'every-ep-laptop';
      const d = await hit(client({ deviceId }), 'cms.auth.login', { body: { username: 'enduser', password: 'sandbox-enduser' } });
      expect(d.session_id).toMatch(/^[0-9a-f]{32}$/);
      expect(d.permissions).toContain('profile.self');
      expect(one('SELECT * FROM devices WHERE user_id = 6 AND device_id = ?', deviceId)).toMatchObject({
        is_active: 1,
        session_id: d.session_id,
      });
      s.cmsEnd = client({ token: d.token, sessionId: d.session_id, deviceId });
    },
  },
  {
    name: 'profile.get',
    run: async () => {
      const d = await hit(s.cmsEnd, 'profile.get');
      expect(d.basic_info).toMatchObject({ user_id: 6, username: 'enduser', email: 'enduser@sandbox.local' });
      expect(d.login_history.length).toBeGreaterThan(0);
    },
  },
  {
    name: 'profile.update',
    run: async () => {
      await hit(s.cmsEnd, 'profile.update', {
        body: { full_name: 'Eve Enduser', city: 'Lisbon', country: 'Portugal', gender: 'Female', date_of_birth: '1990-04-01' },
      });
      expect(one('SELECT city, country, gender, date_of_birth FROM profiles WHERE user_id = 6')).toMatchObject({
        city: 'Lisbon',
        country: 'Portugal',
        gender: 'Female',
        date_of_birth: '1990-04-01',
      });
    },
  },
  {
    name: 'devices.list',
    run: async () => {
      const d = await hit(s.cmsEnd, 'devices.list');
      const mine = d.devices.find((x: any) => x.device_id === 'every-ep-laptop');
      expect(mine).toMatchObject({ is_current_device: true, is_currently_logged_in: true });
      expect(d.device_count).toBe(d.devices.length);
    },
  },
  {
    name: 'devices.remove',
    run: async () => {
      // A second device to remove: sign in on it first.
      const phone = await cmsSignIn('enduser', 'sandbox-enduser', 'every-ep-phone');
      expect(countOf('devices', "user_id = 6 AND device_id = 'every-ep-phone'")).toBe(1);
      await hit(s.cmsEnd, 'devices.remove', { params: { id: 'every-ep-phone' } });
      expect(countOf('devices', "user_id = 6 AND device_id = 'every-ep-phone'")).toBe(0);
      expect(tokenRow(phone.token).revoked_at).not.toBeNull();
    },
  },
  {
    name: 'cms.auth.logout',
    run: async () => {
      const tablet = await cmsSignIn('enduser', 'sandbox-enduser', 'every-ep-tablet');
      await hit(tablet.c, 'cms.auth.logout');
      expect(tokenRow(tablet.token).revoked_at).not.toBeNull();
      expect(one("SELECT is_active, logout_time FROM devices WHERE user_id = 6 AND device_id = 'every-ep-tablet'")).toMatchObject({
        is_active: 0,
      });
      expect(one("SELECT logout_time FROM devices WHERE user_id = 6 AND device_id = 'every-ep-tablet'").logout_time).not.toBeNull();
    },
  },
  {
    name: 'cms.auth.register',
    run: async () => {
      const d = await hit(client({ deviceId: NEWCOMER.device }), 'cms.auth.register', {
        body: { username: NEWCOMER.username, email: NEWCOMER.email, password: s.newcomerPassword, full_name: 'Every Endpoint Newcomer' },
      });
      expect(d.success).toBe(true);
      expect(userRow(d.user_id)).toMatchObject({ username: NEWCOMER.username, role: 'user', status: 'Pending', is_verified: 0 });
      s.newcomerId = d.user_id;
    },
  },
  {
    name: 'cms.verification.generate',
    run: async () => {
      const me = await signIn(NEWCOMER.username, s.newcomerPassword); // Pending accounts may sign in
      const d = await hit(me, 'cms.verification.generate', { body: { type: 'email' } });
      expect(d.code).toMatch(/^\d{6}$/);
      expect(countOf('verification_codes', "user_id = ? AND type = 'email' AND code = ? AND used_at IS NULL", s.newcomerId, d.code)).toBe(
        1,
      );
      s.verificationCode = d.code;
    },
  },
  {
    name: 'cms.verification.verify',
    run: async () => {
      const me = await signIn(NEWCOMER.username, s.newcomerPassword);
      await hit(me, 'cms.verification.verify', { body: { code: s.verificationCode, type: 'email' } });
      expect(userRow(s.newcomerId)).toMatchObject({ is_verified: 1, status: 'Active' });
    },
  },
  {
    name: 'auth.forgot-password',
    run: async () => {
      const d = await hit(anon, 'auth.forgot-password', { body: { email: NEWCOMER.email } });
      expect(d).toMatchObject({ success: true, user_id: s.newcomerId });
      expect(one('SELECT user_id, used_at FROM password_resets WHERE reset_token = ?', d.reset_token)).toEqual({
        user_id: s.newcomerId,
        used_at: null,
      });
      s.resetToken = d.reset_token;
    },
  },
  {
    name: 'auth.reset-password',
    run: async () => {
      s.newcomerPassword = 'Newcomer#2025';
      await hit(anon, 'auth.reset-password', {
        body: { user_id: s.newcomerId, reset_token: s.resetToken, new_password: s.newcomerPassword },
      });
      expect(one('SELECT used_at FROM password_resets WHERE reset_token = ?', s.resetToken).used_at).not.toBeNull();
      expectPassword(s.newcomerId, s.newcomerPassword);
    },
  },
  {
    name: 'auth.change-password',
    run: async () => {
      const me = await signIn(NEWCOMER.username, s.newcomerPassword);
      const old = s.newcomerPassword;
      s.newcomerPassword = 'Newcomer#2026';
      await hit(me, 'auth.change-password', { body: { old_password: old, new_password: s.newcomerPassword } });
      expectPassword(s.newcomerId, s.newcomerPassword);
    },
  },
  {
    name: 'cms.auth.request-reset',
    run: async () => {
      const d = await hit(anon, 'cms.auth.request-reset', { body: { email: NEWCOMER.email } });
      expect(d).toMatchObject({ success: true, user_id: s.newcomerId, username: NEWCOMER.username });
      expect(countOf('password_resets', 'reset_token = ? AND user_id = ? AND used_at IS NULL', d.reset_token, s.newcomerId)).toBe(1);
      s.resetToken = d.reset_token;
    },
  },
  {
    name: 'cms.auth.reset-password-token',
    run: async () => {
      s.newcomerPassword = 'Newcomer#2027';
      await hit(anon, 'cms.auth.reset-password-token', { body: { reset_token: s.resetToken, new_password: s.newcomerPassword } });
      expect(one('SELECT used_at FROM password_resets WHERE reset_token = ?', s.resetToken).used_at).not.toBeNull();
      expectPassword(s.newcomerId, s.newcomerPassword);
    },
  },
  {
    name: 'cms.auth.change-password',
    run: async () => {
      const me = await cmsSignIn(NEWCOMER.username, s.newcomerPassword, NEWCOMER.device);
      const old = s.newcomerPassword;
      s.newcomerPassword = 'Newcomer#2028';
      await hit(me.c, 'cms.auth.change-password', { body: { old_password: old, new_password: s.newcomerPassword } });
      expectPassword(s.newcomerId, s.newcomerPassword);
      expect(tokenRow(me.token).revoked_at).toBeNull(); // the current session stays
    },
  },
  {
    name: 'cms.superadmin.change-password',
    run: async () => {
      s.newcomerPassword = 'Newcomer#2029';
      await hit(superadmin, 'cms.superadmin.change-password', { body: { user_id: s.newcomerId, new_password: s.newcomerPassword } });
      expectPassword(s.newcomerId, s.newcomerPassword);
      expect(countOf('tokens', 'user_id = ? AND revoked_at IS NULL', s.newcomerId)).toBe(0);
    },
  },

  // --- Accounts and roles -----------------------------------------------------------------
  {
    name: 'users.create',
    run: async () => {
      const d = await hit(admin, 'users.create', {
        body: {
          username: 'every.ep.created',
          email: 'every.ep.created@example.test',
          password: 'Created#2024',
          role: 'user',
          full_name: 'Every Endpoint Created',
        },
      });
      expect(d).toMatchObject({ username: 'every.ep.created', role: 'user' });
      expect(userRow(d.user_id)).toMatchObject({ username: 'every.ep.created', role: 'user', status: 'Active', created_by: 2 });
      s.createdUserId = d.user_id;
    },
  },
  {
    name: 'users.list',
    run: async () => {
      const d = await hit(admin, 'users.list', { query: { page: 1, page_size: 5 } });
      expect(d.total_count).toBe(countOf('users'));
      expect(d.users).toHaveLength(5);
    },
  },
  {
    name: 'users.get',
    run: async () => {
      const d = await hit(admin, 'users.get', { params: { id: 6 } });
      expect(d.user ?? d).toMatchObject({ user_id: 6, username: 'enduser', role: 'user' });
    },
  },
  {
    name: 'users.update',
    run: async () => {
      await hit(admin, 'users.update', {
        params: { id: s.createdUserId },
        body: { user_id: s.createdUserId, full_name: 'Every Endpoint Renamed', chatgpt_user_id: 'gpt-every-ep' },
      });
      expect(userRow(s.createdUserId)).toMatchObject({ full_name: 'Every Endpoint Renamed', chatgpt_user_id: 'gpt-every-ep' });
    },
  },
  {
    name: 'users.search',
    run: async () => {
      const d = await hit(superadmin, 'users.search', { query: { page_size: 10 } });
      expect(d.page_info.total_count).toBe(countOf('users'));
      expect(d.statistics.total_users).toBe(countOf('users'));
    },
  },
  {
    name: 'roles.list',
    run: async () => {
      const d = await hit(admin, 'roles.list');
      expect(d.total_rows).toBe(countOf('roles'));
      expect(d.roles.map((r: any) => r.role_name)).toContain('auditor');
    },
  },
  {
    name: 'roles.create',
    run: async () => {
      await hit(admin, 'roles.create', {
        body: {
          role_name: 'every-ep-role',
          display_name: 'Every Endpoint Role',
          description: 'made by the every-endpoint test',
          priority: 30,
        },
      });
      const r = one("SELECT * FROM roles WHERE role_name = 'every-ep-role'");
      expect(r).toMatchObject({ display_name: 'Every Endpoint Role', priority: 30, is_system_role: 0, is_active: 1, created_by_user: 2 });
      s.roleId = r.role_id;
    },
  },
  {
    name: 'roles.update',
    run: async () => {
      await hit(admin, 'roles.update', {
        params: { role_id: s.roleId },
        body: { display_name: 'Every Endpoint Role, renamed', priority: 25 },
      });
      expect(one('SELECT display_name, priority FROM roles WHERE role_id = ?', s.roleId)).toEqual({
        display_name: 'Every Endpoint Role, renamed',
        priority: 25,
      });
    },
  },
  {
    name: 'roles.delete',
    run: async () => {
      await hit(admin, 'roles.create', { body: { role_name: 'every-ep-doomed', display_name: 'Doomed role' } });
      const id = one("SELECT role_id FROM roles WHERE role_name = 'every-ep-doomed'").role_id;
      await hit(admin, 'roles.delete', { params: { role_id: id } });
      expect(countOf('roles', 'role_id = ?', id)).toBe(0);
    },
  },
  {
    name: 'roles.members',
    run: async () => {
      const d = await hit(admin, 'roles.members', { params: { role: 'auditor' }, query: { limit: 100 } });
      expect(d.total_count).toBe(countOf('user_roles', "role_name = 'auditor'"));
      expect(d.users.map((u: any) => u.username)).toContain('manager');
    },
  },
  {
    name: 'roles.assignments',
    run: async () => {
      const d = await hit(admin, 'roles.assignments', { query: { search: 'enduser' } });
      expect(d.users.find((u: any) => u.user_id === 6)).toMatchObject({ username: 'enduser', role: 'user' });
      expect(d.summary.total_users).toBe(countOf('users'));
    },
  },
  {
    name: 'roles.of',
    run: async () => {
      const d = await hit(admin, 'roles.of', { params: { user_id: 6 } });
      expect(d).toMatchObject({ user_id: 6, primary_role: 'user' });
      expect(d.permissions).toContain('wallet.self');
    },
  },
  {
    name: 'roles.assign',
    run: async () => {
      await hit(admin, 'roles.assign', {
        params: { user_id: s.createdUserId },
        body: { new_roles: ['user', 'beta-tester'], reason: 'beta programme' },
      });
      const held = sb.db
        .prepare('SELECT role_name FROM user_roles WHERE user_id = ? ORDER BY role_name')
        .all(s.createdUserId)
        .map((r: any) => r.role_name);
      expect(held).toEqual(['beta-tester', 'user']);
      expect(userRow(s.createdUserId).role).toBe('beta-tester');
    },
  },
  {
    name: 'roles.promote',
    run: async () => {
      await hit(admin, 'roles.promote', { params: { user_id: s.createdUserId }, body: { reason: 'every-endpoint test' } });
      expect(userRow(s.createdUserId).role).toBe('agent');
    },
  },
  {
    name: 'roles.demote',
    run: async () => {
      await hit(admin, 'roles.demote', { params: { user_id: s.createdUserId }, body: { reason: 'every-endpoint test' } });
      expect(userRow(s.createdUserId).role).toBe('user');
    },
  },
  {
    name: 'roles.remove',
    run: async () => {
      await hit(admin, 'roles.assign', { params: { user_id: s.createdUserId }, body: { new_roles: ['beta-tester'] } });
      await hit(admin, 'roles.remove', { params: { user_id: s.createdUserId }, body: { reason: 'end of beta' } });
      const held = sb.db
        .prepare('SELECT role_name FROM user_roles WHERE user_id = ?')
        .all(s.createdUserId)
        .map((r: any) => r.role_name);
      expect(held).toEqual(['user']);
      expect(userRow(s.createdUserId).role).toBe('user');
    },
  },

  // --- The admin catalogue ----------------------------------------------------------------
  {
    name: 'services.list',
    run: async () => {
      const d = await hit(admin, 'services.list', { query: { page_size: 5 } });
      expect(d.pagination.total_records).toBe(countOf('services'));
      expect(d.services).toHaveLength(5);
    },
  },
  {
    name: 'services.list-alt',
    run: async () => {
      const d = await hit(admin, 'services.list-alt', { query: { service_type: 'HYBRID' } });
      expect(d.pagination.total_records).toBe(countOf('services', "service_type = 'HYBRID'"));
      expect(d.services.every((x: any) => x.service_type === 'HYBRID')).toBe(true);
    },
  },
  {
    name: 'services.detail',
    run: async () => {
      const d = await hit(admin, 'services.detail', { query: { service_code: 'GPT4' } });
      expect(d.service_info).toMatchObject({ service_id: 1, service_code: 'GPT4' });
      expect(d.service_plans).toHaveLength(countOf('service_plans', 'service_id = 1'));
    },
  },
  {
    name: 'services.report',
    run: async () => {
      const d = await hit(admin, 'services.report', { query: { include_stats: true } });
      expect(d).toHaveLength(countOf('services'));
    },
  },
  {
    name: 'services.create',
    run: async () => {
      const d = await hit(admin, 'services.create', {
        body: {
          service_code: SVC,
          service_name: 'Every Endpoint Service',
          service_type: 'USAGE_BASED',
          provider_name: 'Every Endpoint Labs',
          base_service_url: 'https://every-ep.example.test',
          access_pattern: 'api_key',
          credit_reset_cycle: 'monthly',
        },
      });
      expect(one('SELECT service_code, is_active, created_by FROM services WHERE service_id = ?', d.service_id)).toEqual({
        service_code: SVC,
        is_active: 1,
        created_by: 2,
      });
      s.serviceId = d.service_id;
    },
  },
  {
    name: 'services.update',
    run: async () => {
      await hit(admin, 'services.update', {
        params: { id: s.serviceId },
        body: { service_name: 'Every Endpoint Service, renamed', description: 'updated' },
      });
      expect(one('SELECT service_name, description, updated_by FROM services WHERE service_id = ?', s.serviceId)).toEqual({
        service_name: 'Every Endpoint Service, renamed',
        description: 'updated',
        updated_by: 2,
      });
    },
  },
  {
    name: 'plans.list',
    run: async () => {
      const d = await hit(admin, 'plans.list', { query: { page_size: 100 } });
      expect(d.pagination.total_records).toBe(countOf('subscription_plans'));
      expect(d.subscription_plans).toHaveLength(countOf('subscription_plans'));
    },
  },
  {
    name: 'plans.list-alt',
    run: async () => {
      const d = await hit(admin, 'plans.list-alt', { query: { duration_unit: 'years' } });
      expect(d.pagination.total_records).toBe(countOf('subscription_plans', "duration_unit = 'years'"));
    },
  },
  {
    name: 'plans.report',
    run: async () => {
      const d = await hit(admin, 'plans.report', { query: { include_stats: true } });
      expect(d).toHaveLength(countOf('subscription_plans'));
      expect(d.find((p: any) => p.plan_code === 'BASIC-M')).toMatchObject({ max_usage_per_day: 100 });
    },
  },
  {
    name: 'plans.create',
    run: async () => {
      const d = await hit(admin, 'plans.create', {
        body: {
          plan_code: PLAN,
          plan_name: 'Every Endpoint Plan',
          price: 4,
          currency: 'usd',
          duration: 1,
          duration_unit: 'months',
          credit_amount: 100,
          credit_unit: 'requests',
          max_usage_per_day: 50,
        },
      });
      expect(one('SELECT plan_code, price, currency, credit_amount FROM subscription_plans WHERE plan_id = ?', d.plan_id)).toEqual({
        plan_code: PLAN,
        price: 4,
        currency: 'USD',
        credit_amount: 100,
      });
      s.planId = d.plan_id;
    },
  },
  {
    name: 'plans.update',
    run: async () => {
      await hit(admin, 'plans.update', {
        params: { id: s.planId },
        body: { plan_id: s.planId, plan_name: 'Every Endpoint Plan, renamed', auto_renewal: true },
      });
      expect(one('SELECT plan_name, auto_renewal FROM subscription_plans WHERE plan_id = ?', s.planId)).toEqual({
        plan_name: 'Every Endpoint Plan, renamed',
        auto_renewal: 1,
      });
    },
  },
  {
    name: 'service-plans.create',
    run: async () => {
      const d = await hit(admin, 'service-plans.create', { body: { service_code: SVC, plan_code: PLAN } });
      expect(one('SELECT service_id, plan_id, is_available FROM service_plans WHERE service_plan_id = ?', d.service_plan_id)).toEqual({
        service_id: s.serviceId,
        plan_id: s.planId,
        is_available: 1,
      });
      s.linkId = d.service_plan_id;
    },
  },
  {
    name: 'service-plans.list',
    run: async () => {
      const d = await hit(admin, 'service-plans.list', { query: { page_size: 10 } });
      expect(d.pagination.total_records).toBe(countOf('service_plans'));
    },
  },
  {
    name: 'service-plans.list-alt',
    run: async () => {
      const d = await hit(admin, 'service-plans.list-alt', { query: { service_code: SVC } });
      expect(d.service_plans).toHaveLength(1);
      expect(d.service_plans[0]).toMatchObject({ service_plan_id: s.linkId, plan_code: PLAN });
    },
  },
  {
    name: 'service-plans.detail',
    run: async () => {
      const d = await hit(admin, 'service-plans.detail', { params: { id: 3 } });
      expect(d.service_plan_info).toMatchObject({ service_plan_id: 3, service_code: 'GPT4', plan_code: 'PRO-M' });
      expect(d.subscriptions.length).toBe(Math.min(100, countOf('subscriptions', 'service_plan_id = 3')));
    },
  },
  {
    name: 'service-plans.update',
    run: async () => {
      await hit(admin, 'service-plans.update', { body: { service_plan_id: s.linkId, is_available: false } });
      expect(one('SELECT is_available FROM service_plans WHERE service_plan_id = ?', s.linkId).is_available).toBe(0);
    },
  },
  {
    name: 'service-plans.manage',
    run: async () => {
      await hit(admin, 'service-plans.manage', {
        body: { action: 'activate', service_code: SVC, plan_code: PLAN, service_plan_id: s.linkId },
      });
      expect(one('SELECT is_available FROM service_plans WHERE service_plan_id = ?', s.linkId).is_available).toBe(1);
    },
  },
  {
    name: 'usage-codes.generate',
    run: async () => {
      const d = await hit(admin, 'usage-codes.generate', {
        body: { batch_id: BATCH, code_count: 3, code_prefix: 'EVERY', expiration_days: 30, service_plan_id: s.linkId },
      });
      expect(d.generated_count).toBe(3);
      expect(countOf('usage_codes', 'batch_id = ? AND service_plan_id = ? AND is_used = 0', BATCH, s.linkId)).toBe(3);
      s.codes = d.codes.map((c: any) => c.code_value);
    },
  },
  {
    name: 'usage-codes.list',
    run: async () => {
      const d = await hit(admin, 'usage-codes.list', { query: { batch_id: BATCH } });
      expect(d.pagination.total_records).toBe(3);
      expect(d.summary).toMatchObject({ total_codes: 3, active_codes: 3, used_codes: 0 });
      expect(d.usage_codes.map((c: any) => c.code_value).sort()).toEqual([...s.codes].sort());
    },
  },
  {
    name: 'wallet.list',
    run: async () => {
      const d = await hit(admin, 'wallet.list', { query: { user_id: 6 } });
      expect(d.summary.transaction_count).toBe(countOf('wallet_transactions', 'user_id = 6'));
      expect(d.pagination.total_records).toBe(d.summary.transaction_count);
    },
  },
  {
    name: 'dashboard.get',
    run: async () => {
      const d = await hit(admin, 'dashboard.get');
      expect(d.totals).toMatchObject({ services: countOf('services'), users: countOf('users') });
    },
  },
  {
    name: 'audit.list',
    run: async () => {
      const d = await hit(admin, 'audit.list', { query: { module: 'roles', page_size: 5 } });
      expect(d.total_items).toBe(countOf('audit_logs', "module = 'roles'"));
      expect(d.logs.every((l: any) => l.module === 'roles')).toBe(true);
    },
  },
  {
    name: 'audit.user',
    run: async () => {
      const d = await hit(admin, 'audit.user', { params: { id: 2 }, query: { page_size: 5 } });
      expect(d.total_items).toBe(countOf('audit_logs', 'user_id = 2'));
      expect(d.logs.every((l: any) => l.user_id === 2)).toBe(true);
    },
  },

  // --- The end-user area ------------------------------------------------------------------
  {
    name: 'me.services',
    run: async () => {
      const d = await hit(enduser, 'me.services');
      expect(d.find((x: any) => x.service_code === SVC)).toMatchObject({
        service_id: s.serviceId,
        available_plans_count: 1,
        has_active_subscription: false,
      });
    },
  },
  {
    name: 'me.plans',
    run: async () => {
      const d = await hit(enduser, 'me.plans', { query: { service_code: SVC } });
      expect(d).toHaveLength(1);
      expect(d[0]).toMatchObject({ plan_id: s.planId, plan_code: PLAN, price: 4, currency: 'USD' });
    },
  },
  {
    name: 'me.access',
    run: async () => {
      const d = await hit(enduser, 'me.access', { query: { service_code: SVC } });
      expect(d).toMatchObject({ has_access: false, access_reason: 'NO_SUBSCRIPTION' });
    },
  },
  {
    name: 'me.wallet',
    run: async () => {
      const d = await hit(enduser, 'me.wallet');
      expect(d).toMatchObject({ balance: userRow(6).wallet_balance, currency: 'USD' });
    },
  },
  {
    name: 'me.topup',
    run: async () => {
      const before = userRow(6).wallet_balance;
      const d = await hit(enduser, 'me.topup', { body: { amount: 50, payment_method: 'card', transaction_reference: 'every-ep-topup' } });
      expect(userRow(6).wallet_balance).toBeCloseTo(before + 50, 2);
      expect(d.new_balance).toBeCloseTo(before + 50, 2);
      expect(one('SELECT transaction_type, amount FROM wallet_transactions WHERE transaction_id = ?', d.transaction_id)).toEqual({
        transaction_type: 'topup',
        amount: 50,
      });
    },
  },
  {
    name: 'me.buy',
    run: async () => {
      const before = userRow(6).wallet_balance;
      const d = await hit(enduser, 'me.buy', { body: { payment_method: 'WALLET', service_plan_id: s.linkId } });
      expect(d.success).toBe(true);
      expect(userRow(6).wallet_balance).toBeCloseTo(before - 4, 2);
      expect(
        one('SELECT user_id, service_id, plan_id, status, total_credits FROM subscriptions WHERE subscription_id = ?', d.subscription_id),
      ).toEqual({
        user_id: 6,
        service_id: s.serviceId,
        plan_id: s.planId,
        status: 'active',
        total_credits: 100,
      });
      s.boughtSubscriptionId = d.subscription_id;
    },
  },
  {
    name: 'me.subscriptions',
    run: async () => {
      const d = await hit(enduser, 'me.subscriptions', { query: { service_code: SVC } });
      expect(d.map((x: any) => x.subscription_id)).toEqual([s.boughtSubscriptionId]);
      expect(d[0]).toMatchObject({ status: 'active', plan_code: PLAN, remaining_credits: 100 });
    },
  },
  {
    name: 'me.generate-access',
    run: async () => {
      const d = await hit(enduser, 'me.generate-access', { body: { service_code: SVC } });
      expect(d.success).toBe(true);
      expect(d.service_url.startsWith('https://every-ep.example.test/session/')).toBe(true);
    },
  },
  {
    name: 'me.use',
    run: async () => {
      const d = await hit(enduser, 'me.use', { body: { service_code: SVC, usage_amount: 2, usage_type: 'generate', response_time: 0.25 } });
      expect(d.remaining_credits).toBe(98);
      expect(one('SELECT used_credits FROM subscriptions WHERE subscription_id = ?', s.boughtSubscriptionId).used_credits).toBe(2);
      expect(countOf('usage_logs', "user_id = 6 AND service_id = ? AND usage_type = 'generate' AND usage_amount = 2", s.serviceId)).toBe(1);
    },
  },
  {
    name: 'me.activate',
    run: async () => {
      const d = await hit(enduser, 'me.activate', { body: { activation_code: s.codes[0], service_code: SVC } });
      expect(d.success).toBe(true);
      expect(one('SELECT is_used, used_by, used_in_subscription FROM usage_codes WHERE code_value = ?', s.codes[0])).toEqual({
        is_used: 1,
        used_by: 6,
        used_in_subscription: d.subscription_id,
      });
    },
  },
  {
    name: 'me.auto-renewal',
    run: async () => {
      sb.db.prepare('UPDATE subscriptions SET auto_renewal = 1 WHERE subscription_id = ?').run(s.boughtSubscriptionId);
      await hit(enduser, 'me.auto-renewal', { body: { subscription_id: s.boughtSubscriptionId, auto_renewal: false } });
      expect(one('SELECT auto_renewal FROM subscriptions WHERE subscription_id = ?', s.boughtSubscriptionId).auto_renewal).toBe(0);
    },
  },
  {
    name: 'me.test-services',
    run: async () => {
      const d = await hit(anon, 'me.test-services');
      const list = Array.isArray(d) ? d : d.services;
      expect(list).toHaveLength(countOf('services', 'is_active = 1'));
    },
  },

  // --- Referrals --------------------------------------------------------------------------
  {
    name: 'referrals.generate',
    run: async () => {
      const d = await hit(enduser, 'referrals.generate', { body: { description: 'every-endpoint test', expiry_days: 30, usage_limit: 5 } });
      expect(d.referral_code).toMatch(/^REF-[A-Z2-9]{6}$/);
      expect(one('SELECT user_id, usage_limit, used_count, is_active FROM referral_codes WHERE referral_id = ?', d.referral_id)).toEqual({
        user_id: 6,
        usage_limit: 5,
        used_count: 0,
        is_active: 1,
      });
      s.referralId = d.referral_id;
      s.referralCode = d.referral_code;
    },
  },
  {
    name: 'referrals.validate',
    run: async () => {
      const d = await hit(anon, 'referrals.validate', { body: { referral_code: s.referralCode } });
      expect(d).toMatchObject({ is_valid: true, referrer_id: 6, remaining_uses: 5 });
    },
  },
  {
    name: 'referrals.use',
    run: async () => {
      // The newcomer records their own sign-up with enduser's code.
      const me = await signIn(NEWCOMER.username, s.newcomerPassword);
      const d = await hit(me, 'referrals.use', { body: { new_user_id: s.newcomerId, referral_code: s.referralCode } });
      expect(d).toMatchObject({ success: true, used_count: 1 });
      expect(one('SELECT referral_id, referrer_id FROM referral_uses WHERE new_user_id = ?', s.newcomerId)).toEqual({
        referral_id: s.referralId,
        referrer_id: 6,
      });
      expect(one('SELECT used_count FROM referral_codes WHERE referral_id = ?', s.referralId).used_count).toBe(1);
    },
  },
  {
    name: 'referrals.update',
    run: async () => {
      await hit(enduser, 'referrals.update', { body: { referral_code_id: s.referralId, new_usage_limit: 20 } });
      expect(one('SELECT usage_limit FROM referral_codes WHERE referral_id = ?', s.referralId).usage_limit).toBe(20);
    },
  },
  {
    name: 'referrals.mine',
    run: async () => {
      const d = await hit(enduser, 'referrals.mine');
      expect(d.pagination.total_records).toBe(countOf('referral_codes', 'user_id = 6 AND is_active = 1'));
      expect(d.codes.find((c: any) => c.referral_id === s.referralId)).toMatchObject({ used_count: 1, usage_limit: 20 });
    },
  },
  {
    name: 'referrals.stats',
    run: async () => {
      const d = await hit(enduser, 'referrals.stats');
      expect(d.summary).toMatchObject({ total_codes: countOf('referral_codes', 'user_id = 6'), total_referrals: 1 });
    },
  },
  {
    name: 'referrals.info',
    run: async () => {
      const d = await hit(admin, 'referrals.info', { params: { user_id: 6 } });
      expect(d.codes.map((c: any) => c.referral_code)).toContain(s.referralCode);
      expect(d.summary.total_referrals).toBe(1);
    },
  },
  {
    name: 'referrals.referred',
    run: async () => {
      const d = await hit(enduser, 'referrals.referred');
      expect(d.referred_users.map((u: any) => u.user_id)).toEqual([s.newcomerId]);
    },
  },
  {
    name: 'referrals.search',
    run: async () => {
      const d = await hit(admin, 'referrals.search', { query: { search_keyword: s.referralCode } });
      expect(d.referral_codes.map((c: any) => c.referral_id)).toEqual([s.referralId]);
    },
  },
  {
    name: 'referrals.admin-search',
    run: async () => {
      const d = await hit(admin, 'referrals.admin-search', { query: { page_size: 5 } });
      expect(d.pagination.total_records).toBe(countOf('referral_codes'));
    },
  },
  {
    name: 'referrals.admin-list',
    run: async () => {
      const d = await hit(admin, 'referrals.admin-list', { query: { page_size: 5 } });
      expect(d.pagination.total_records).toBe(countOf('referral_uses'));
      expect(d.summary.total_referrals).toBe(countOf('referral_uses'));
    },
  },
  {
    name: 'referrals.admin-referred',
    run: async () => {
      const d = await hit(admin, 'referrals.admin-referred', { query: { search_keyword: NEWCOMER.username } });
      expect(d.referred_users).toHaveLength(1);
      expect(d.referred_users[0]).toMatchObject({ user_id: s.newcomerId, referrer_id: 6, referral_code: s.referralCode });
    },
  },
  {
    name: 'referrals.admin-user-referred',
    run: async () => {
      const d = await hit(admin, 'referrals.admin-user-referred', { params: { user_id: 6 } });
      expect(d.pagination.total_records).toBe(countOf('referral_uses', 'referrer_id = 6'));
      expect(d.referred_users[0]).toMatchObject({ user_id: s.newcomerId, username: NEWCOMER.username });
    },
  },
  {
    name: 'referrals.admin-user-stats',
    run: async () => {
      const d = await hit(admin, 'referrals.admin-user-stats', { params: { user_id: 6 }, query: { stats_period: 7 } });
      expect(d.statistics).toMatchObject({ total_referrals: 1 });
    },
  },
  {
    name: 'referrals.deactivate',
    run: async () => {
      await hit(enduser, 'referrals.deactivate', { body: { referral_code_id: s.referralId, reason: 'campaign over' } });
      expect(one('SELECT is_active, deactivated_reason FROM referral_codes WHERE referral_id = ?', s.referralId)).toEqual({
        is_active: 0,
        deactivated_reason: 'campaign over',
      });
    },
  },

  // --- Admin subscriptions, deletes and cleanup (last: they destroy things) ----------------
  {
    name: 'subscriptions.list',
    run: async () => {
      const d = await hit(admin, 'subscriptions.list', { query: { user_id: 6 } });
      expect(d.pagination.total_records).toBe(countOf('subscriptions', 'user_id = 6'));
    },
  },
  {
    name: 'subscriptions.list-alt',
    run: async () => {
      const d = await hit(admin, 'subscriptions.list-alt', { query: { service_code: SVC } });
      expect(d.subscriptions.map((x: any) => x.subscription_id)).toEqual([s.boughtSubscriptionId]);
    },
  },
  {
    name: 'subscriptions.manage',
    run: async () => {
      const before = one('SELECT end_date FROM subscriptions WHERE subscription_id = ?', s.boughtSubscriptionId).end_date;
      const d = await hit(admin, 'subscriptions.manage', {
        params: { id: s.boughtSubscriptionId },
        body: { action: 'extend', reason: 'goodwill', extend_days: 7 },
      });
      const after = one('SELECT end_date FROM subscriptions WHERE subscription_id = ?', s.boughtSubscriptionId).end_date;
      expect(Date.parse(after) - Date.parse(before)).toBe(7 * 86_400_000);
      expect(d).toMatchObject({ subscription_id: s.boughtSubscriptionId, status: 'active', end_date: after });
    },
  },
  {
    name: 'subscriptions.delete',
    run: async () => {
      const id = one(
        "SELECT subscription_id FROM subscriptions WHERE user_id = 6 AND status = 'cancelled' ORDER BY subscription_id LIMIT 1",
      ).subscription_id;
      await hit(admin, 'subscriptions.delete', { body: { subscription_id: id } });
      expect(countOf('subscriptions', 'subscription_id = ?', id)).toBe(0);
    },
  },
  {
    name: 'service-plans.delete',
    run: async () => {
      // The link has a subscription and codes now, so it takes force_delete.
      await hit(admin, 'service-plans.delete', { body: { service_plan_id: s.linkId, force_delete: true } });
      expect(countOf('service_plans', 'service_plan_id = ?', s.linkId)).toBe(0);
      expect(countOf('subscriptions', 'subscription_id = ?', s.boughtSubscriptionId)).toBe(1); // history stays
    },
  },
  {
    name: 'plans.delete',
    run: async () => {
      const fresh = await hit(admin, 'plans.create', {
        body: {
          plan_code: 'EVERY-EP-DOOMED',
          plan_name: 'Doomed plan',
          price: 0,
          currency: 'USD',
          duration: 7,
          duration_unit: 'days',
          credit_amount: 0,
          credit_unit: 'requests',
        },
      });
      await hit(admin, 'plans.delete', { body: { plan_code: 'every-ep-doomed' } });
      expect(countOf('subscription_plans', 'plan_id = ?', fresh.plan_id)).toBe(0);
    },
  },
  {
    name: 'services.delete',
    run: async () => {
      // The service still has its subscription (history): force_delete.
      const d = await hit(admin, 'services.delete', { body: { service_code: SVC, force_delete: true } });
      expect(countOf('services', 'service_id = ?', s.serviceId)).toBe(0);
      expect(d.affected_records).toBeGreaterThanOrEqual(1);
    },
  },
  {
    name: 'users.delete',
    run: async () => {
      const d = await hit(admin, 'users.delete', { params: { id: s.createdUserId } });
      expect(d).toMatchObject({ success: true, user_id: s.createdUserId, username: 'every.ep.created' });
      expect(userRow(s.createdUserId)).toBeUndefined();
      expect(countOf('user_roles', 'user_id = ?', s.createdUserId)).toBe(0);
    },
  },
  {
    name: 'cleanup.run',
    run: async () => {
      // Expired or cancelled subscriptions that ended before the answer's cutoff (90 days ago).
      const old = "status IN ('expired', 'cancelled') AND end_date < ?";
      const dry = await hit(admin, 'cleanup.run', { body: { dry_run: true } });
      const cutoff = dry.cutoffs.expired_subscriptions_before;
      expect(Date.now() - Date.parse(cutoff)).toBeGreaterThanOrEqual(90 * 86_400_000);
      const expected = countOf('subscriptions', old, cutoff);
      expect(expected).toBeGreaterThan(0);
      expect(dry.cleanup_summary).toMatchObject({ expired_subscriptions: expected, dry_run: true });
      expect(countOf('subscriptions', old, cutoff)).toBe(expected); // a dry run deletes nothing
      const d = await hit(admin, 'cleanup.run', { body: { cleanup_expired_days: 90 } });
      expect(d.cleanup_summary).toMatchObject({ dry_run: false });
      expect(d.cleanup_summary.expired_subscriptions).toBeGreaterThanOrEqual(expected);
      expect(countOf('subscriptions', old, d.cutoffs.expired_subscriptions_before)).toBe(0);
    },
  },
];

it('the table has exactly one row per contract endpoint', () => {
  const names = rows.map((r) => r.name);
  expect(new Set(names).size).toBe(names.length);
  expect([...names].sort()).toEqual(endpoints.map((e) => e.name).sort());
  expect(names).toHaveLength(95);
});

it.each(rows)('$name', async ({ name, run }) => {
  calledInRow.clear();
  await run();
  expect(calledInRow.has(name), `the row ${name} must call ${name}`).toBe(true);
});
