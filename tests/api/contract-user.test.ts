/**
 * The user/auth/CMS half of the contract (the API documents' user, auth and CMS area): every endpoint is
 * declared with the right method and path, and every rule of the validation table (point 5)
 * rejects a bad value, naming the field, and accepts a good one.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { AnyEndpoint } from '../../src/api/contract/common.js';
import { authEndpoints } from '../../src/api/contract/user-auth.js';
import { accountEndpoints } from '../../src/api/contract/user-accounts.js';
import { referralEndpoints } from '../../src/api/contract/user-referrals.js';
import { endUserEndpoints } from '../../src/api/contract/user-enduser.js';

// The arrays must fit the contract's common endpoint type (checked by tsc).
const files: Record<string, AnyEndpoint[]> = {
  'user-auth': authEndpoints,
  'user-accounts': accountEndpoints,
  'user-referrals': referralEndpoints,
  'user-enduser': endUserEndpoints,
};
const all: AnyEndpoint[] = Object.values(files).flat();
const byName = new Map(all.map((e) => [e.name, e]));
function ep(name: string): AnyEndpoint {
  const e = byName.get(name);
  if (!e) throw new Error(`no endpoint ${name}`);
  return e;
}

const expected: Record<string, Array<[string, string, string]>> = {
  'user-auth': [
    ['auth.login', 'POST', '/auth/login'],
    ['auth.logout', 'POST', '/auth/logout'],
    ['auth.refresh', 'POST', '/auth/refresh'],
    ['auth.forgot-password', 'POST', '/auth/forgot-password'],
    ['auth.reset-password', 'POST', '/auth/reset-password'],
    ['auth.change-password', 'POST', '/auth/change-password'],
    ['auth.validate-session', 'POST', '/auth/validate-session'],
    ['cms.auth.login', 'POST', '/cms/auth/login'],
    ['cms.auth.register', 'POST', '/cms/auth/register'],
    ['cms.auth.logout', 'POST', '/cms/auth/logout'],
    ['cms.auth.change-password', 'POST', '/cms/auth/change-password'],
    ['cms.auth.request-reset', 'POST', '/cms/auth/request-reset'],
    ['cms.auth.reset-password-token', 'POST', '/cms/auth/reset-password-token'],
    ['cms.superadmin.change-password', 'POST', '/cms/superadmin/auth/change-password'],
    ['cms.verification.generate', 'POST', '/cms/users/generate-verification'],
    ['cms.verification.verify', 'POST', '/cms/users/verify'],
  ],
  'user-accounts': [
    ['users.create', 'POST', '/users'],
    ['users.list', 'GET', '/users'],
    ['users.get', 'GET', '/users/{id}'],
    ['users.update', 'PUT', '/users/{id}'],
    ['users.delete', 'DELETE', '/users/{id}'],
    ['users.search', 'GET', '/cms/superadmin/users'],
    ['profile.get', 'GET', '/cms/users/profile'],
    ['profile.update', 'PUT', '/cms/users/profile'],
    ['devices.list', 'GET', '/cms/users/devices'],
    ['devices.remove', 'DELETE', '/cms/users/devices/{id}'],
    ['roles.list', 'GET', '/cms/roles'],
    ['roles.create', 'POST', '/cms/roles'],
    ['roles.update', 'PUT', '/cms/roles/{role_id}'],
    ['roles.delete', 'DELETE', '/cms/roles/{role_id}'],
    ['roles.members', 'GET', '/cms/roles/{role}/users'],
    ['roles.assignments', 'GET', '/cms/users/roles'],
    ['roles.of', 'GET', '/cms/users/{user_id}/role'],
    ['roles.assign', 'POST', '/cms/users/{user_id}/assign-role'],
    ['roles.promote', 'POST', '/cms/users/{user_id}/promote'],
    ['roles.demote', 'POST', '/cms/users/{user_id}/demote'],
    ['roles.remove', 'POST', '/cms/users/{user_id}/remove-role'],
  ],
  'user-referrals': [
    ['referrals.generate', 'POST', '/cms/referral/generate'],
    ['referrals.use', 'POST', '/cms/referral/use'],
    ['referrals.validate', 'POST', '/cms/referral/validate'],
    ['referrals.update', 'PUT', '/cms/referral/update'],
    ['referrals.deactivate', 'DELETE', '/cms/referral/deactivate'],
    ['referrals.mine', 'GET', '/cms/referral/my-codes'],
    ['referrals.stats', 'GET', '/cms/referral/statistics'],
    ['referrals.info', 'GET', '/cms/referral/info/{user_id}'],
    ['referrals.referred', 'GET', '/cms/referred-users'],
    ['referrals.search', 'GET', '/cms/referral-codes/search'],
    ['referrals.admin-search', 'GET', '/cms/admin/referral-codes/search'],
    ['referrals.admin-list', 'GET', '/cms/admin/referrals'],
    ['referrals.admin-referred', 'GET', '/cms/admin/referred-users'],
    ['referrals.admin-user-referred', 'GET', '/cms/admin/users/{user_id}/referred-users'],
    ['referrals.admin-user-stats', 'GET', '/cms/admin/users/{user_id}/statistics'],
  ],
  'user-enduser': [
    ['me.services', 'GET', '/user/services/available'],
    ['me.plans', 'GET', '/user/plans/available'],
    ['me.access', 'GET', '/user/services/access'],
    ['me.subscriptions', 'GET', '/user/subscriptions'],
    ['me.wallet', 'GET', '/user/wallet'],
    ['me.test-services', 'GET', '/test/services'],
    ['me.buy', 'POST', '/user/subscriptions/buy'],
    ['me.generate-access', 'POST', '/user/services/generate-access'],
    ['me.use', 'POST', '/user/services/use'],
    ['me.activate', 'POST', '/user/codes/activate'],
    ['me.topup', 'POST', '/user/wallet/topup'],
    ['me.auto-renewal', 'PUT', '/user/subscriptions/auto-renewal'],
  ],
};

const counts: Record<string, number> = { 'user-auth': 16, 'user-accounts': 21, 'user-referrals': 15, 'user-enduser': 12 };

describe('the user/auth/CMS contract files', () => {
  for (const [file, list] of Object.entries(files)) {
    it(`${file} declares ${counts[file]} endpoints with their methods and paths`, () => {
      expect(list).toHaveLength(counts[file]);
      expect(list.map((e) => [e.name, e.method, e.path])).toEqual(expected[file]);
    });
  }

  it('declares 64 endpoints, area user, unique names and method+path, each with a summary and a response', () => {
    expect(all).toHaveLength(64);
    expect(new Set(all.map((e) => e.name)).size).toBe(64);
    expect(new Set(all.map((e) => `${e.method} ${e.path}`)).size).toBe(64);
    for (const e of all) {
      expect(e.area, e.name).toBe('user');
      expect(e.summary.length, e.name).toBeGreaterThan(5);
      expect(e.response, e.name).toBeDefined();
    }
  });

  it('declares a params schema for exactly the path placeholders', () => {
    for (const e of all) {
      const placeholders = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(Object.keys(e.params?.shape ?? {}), e.name).toEqual(placeholders);
    }
  });

  it('gives each endpoint its access level', () => {
    const publicOnes = [
      'auth.login',
      'auth.refresh',
      'auth.forgot-password',
      'auth.reset-password',
      'auth.validate-session',
      'cms.auth.login',
      'cms.auth.register',
      'cms.auth.request-reset',
      'cms.auth.reset-password-token',
      'referrals.validate',
      'me.test-services',
    ];
    const superadmin = ['users.search', 'cms.superadmin.change-password'];
    const admin = [
      'users.create',
      'users.list',
      'users.get',
      'users.update',
      'users.delete',
      'roles.create',
      'roles.update',
      'roles.delete',
      'roles.assign',
      'roles.promote',
      'roles.demote',
      'roles.remove',
      'referrals.admin-search',
      'referrals.admin-list',
      'referrals.admin-referred',
      'referrals.admin-user-referred',
      'referrals.admin-user-stats',
    ];
    const staff = ['roles.list', 'roles.members', 'roles.assignments', 'roles.of', 'referrals.search', 'referrals.info'];
    for (const e of all) {
      const want = publicOnes.includes(e.name)
        ? 'public'
        : superadmin.includes(e.name)
          ? 'superadmin'
          : admin.includes(e.name)
            ? 'admin'
            : staff.includes(e.name)
              ? 'staff'
              : 'user';
      expect(e.access, e.name).toBe(want);
    }
    expect(all.filter((e) => e.access === 'user').map((e) => e.name)).toEqual([
      'auth.logout',
      'auth.change-password',
      'cms.auth.logout',
      'cms.auth.change-password',
      'cms.verification.generate',
      'cms.verification.verify',
      'profile.get',
      'profile.update',
      'devices.list',
      'devices.remove',
      'referrals.generate',
      'referrals.use',
      'referrals.update',
      'referrals.deactivate',
      'referrals.mine',
      'referrals.stats',
      'referrals.referred',
      'me.services',
      'me.plans',
      'me.access',
      'me.subscriptions',
      'me.wallet',
      'me.buy',
      'me.generate-access',
      'me.use',
      'me.activate',
      'me.topup',
      'me.auto-renewal',
    ]);
  });

  it('sends the device id on the CMS login and register only, and answers 201 on user creation only', () => {
    expect(all.filter((e) => e.deviceId).map((e) => e.name)).toEqual(['cms.auth.login', 'cms.auth.register']);
    expect(all.filter((e) => e.successStatus !== undefined).map((e) => [e.name, e.successStatus])).toEqual([['users.create', 201]]);
  });

  it('declares how every list pages', () => {
    const paging = Object.fromEntries(all.filter((e) => e.paging).map((e) => [e.name, e.paging]));
    const ref = (items: string) => ({ page: 'page_number', size: 'page_size', items, info: 'pagination', defaultSize: 10, maxSize: 100 });
    expect(paging).toEqual({
      'users.list': { page: 'page', size: 'page_size', items: 'users', info: '', defaultSize: 10, maxSize: 100 },
      'users.search': { page: 'page_number', size: 'page_size', items: 'users', info: 'page_info', defaultSize: 20, maxSize: 100 },
      'roles.list': { page: 'page', size: 'page_size', items: 'roles', info: '', defaultSize: 20, maxSize: 100 },
      'roles.members': { page: 'page', size: 'limit', items: 'users', info: '', defaultSize: 20, maxSize: 100 },
      'roles.assignments': { page: 'page', size: 'limit', items: 'users', info: '', defaultSize: 20, maxSize: 100 },
      'referrals.mine': ref('codes'),
      'referrals.referred': ref('referred_users'),
      'referrals.search': ref('referral_codes'),
      'referrals.admin-search': ref('referral_codes'),
      'referrals.admin-list': ref('referrals'),
      'referrals.admin-referred': ref('referred_users'),
      'referrals.admin-user-referred': ref('referred_users'),
    });
    // The paging parameters exist in the query with the declared default.
    for (const [name, p] of Object.entries(paging)) {
      const q = ep(name).query!.parse({});
      expect(q[p!.page], name).toBe(1);
      expect(q[p!.size], name).toBe(p!.defaultSize);
      expect(ep(name).query!.safeParse({ [p!.size]: String(p!.maxSize + 1) }).success, name).toBe(false);
    }
    expect(ep('devices.list').paging).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Validation rules

type Part = 'params' | 'query' | 'body';
const MISSING = Symbol('missing');
type Value = unknown;

interface Rule {
  endpoint: string;
  part: Part;
  /** A valid input the field's values are tried in. */
  base: Record<string, unknown>;
  field: string;
  bad: Value[];
  good: Value[];
}

const s = (n: number) => 'x'.repeat(n);

function schemaOf(name: string, part: Part): z.ZodObject {
  const schema = ep(name)[part];
  if (!schema) throw new Error(`${name} has no ${part}`);
  return schema;
}

function withValue(base: Record<string, unknown>, field: string, v: Value) {
  const input = { ...base };
  if (v === MISSING) delete input[field];
  else input[field] = v;
  return input;
}

const rules: Rule[] = [
  // --- ordinary authentication
  { endpoint: 'auth.login', part: 'body', base: { username: 'u', password: 'p' }, field: 'username', bad: [MISSING, '', 5], good: ['eve'] },
  { endpoint: 'auth.login', part: 'body', base: { username: 'u', password: 'p' }, field: 'password', bad: [MISSING, ''], good: ['p'] },
  { endpoint: 'auth.logout', part: 'body', base: {}, field: 'user_id', bad: [1.5, '3'], good: [3, MISSING] },
  { endpoint: 'auth.logout', part: 'body', base: {}, field: 'token', bad: [5], good: ['tok', MISSING] },
  { endpoint: 'auth.refresh', part: 'body', base: { token: 't' }, field: 'token', bad: [MISSING, ''], good: ['t'] },
  { endpoint: 'auth.forgot-password', part: 'body', base: { email: 'a@b.c' }, field: 'email', bad: [MISSING, ''], good: ['a@b.c'] },
  {
    endpoint: 'auth.reset-password',
    part: 'body',
    base: { user_id: 1, reset_token: 't', new_password: '12345678' },
    field: 'user_id',
    bad: [MISSING, 1.5, '1'],
    good: [1],
  },
  {
    endpoint: 'auth.reset-password',
    part: 'body',
    base: { user_id: 1, reset_token: 't', new_password: '12345678' },
    field: 'reset_token',
    bad: [MISSING, ''],
    good: ['t'],
  },
  {
    endpoint: 'auth.reset-password',
    part: 'body',
    base: { user_id: 1, reset_token: 't', new_password: '12345678' },
    field: 'new_password',
    bad: [MISSING, '1234567'],
    good: ['12345678'],
  },
  {
    endpoint: 'auth.change-password',
    part: 'body',
    base: { old_password: 'o', new_password: '12345678' },
    field: 'old_password',
    bad: [MISSING, ''],
    good: ['o'],
  },
  {
    endpoint: 'auth.change-password',
    part: 'body',
    base: { old_password: 'o', new_password: '12345678' },
    field: 'new_password',
    bad: [MISSING, '1234567'],
    good: ['12345678'],
  },
  { endpoint: 'auth.validate-session', part: 'body', base: { token: 't' }, field: 'token', bad: [MISSING], good: ['t'] },
  { endpoint: 'auth.validate-session', part: 'body', base: { token: 't' }, field: 'ip_address', bad: [1], good: ['10.0.0.1', MISSING] },
  { endpoint: 'auth.validate-session', part: 'body', base: { token: 't' }, field: 'user_agent', bad: [1], good: ['curl', MISSING] },
  // --- CMS authentication
  { endpoint: 'cms.auth.login', part: 'body', base: { username: 'u', password: 'p' }, field: 'username', bad: [MISSING, ''], good: ['u'] },
  { endpoint: 'cms.auth.login', part: 'body', base: { username: 'u', password: 'p' }, field: 'password', bad: [MISSING, ''], good: ['p'] },
  ...['email', 'password', 'username'].map((field): Rule => ({
    endpoint: 'cms.auth.register',
    part: 'body',
    base: { email: 'a@b.c', password: 'p', username: 'u' },
    field,
    bad: [MISSING, ''],
    good: ['v'],
  })),
  ...['address', 'full_name', 'phone_number', 'referral_code'].map((field): Rule => ({
    endpoint: 'cms.auth.register',
    part: 'body',
    base: { email: 'a@b.c', password: 'p', username: 'u' },
    field,
    bad: [5],
    good: [MISSING, 'v'],
  })),
  {
    endpoint: 'cms.auth.change-password',
    part: 'body',
    base: { old_password: 'o', new_password: '12345678' },
    field: 'old_password',
    bad: [MISSING],
    good: ['o'],
  },
  {
    endpoint: 'cms.auth.change-password',
    part: 'body',
    base: { old_password: 'o', new_password: '12345678' },
    field: 'new_password',
    bad: [MISSING, '1234567'],
    good: ['12345678'],
  },
  { endpoint: 'cms.auth.request-reset', part: 'body', base: { email: 'a@b.c' }, field: 'email', bad: [MISSING], good: ['a@b.c'] },
  {
    endpoint: 'cms.auth.reset-password-token',
    part: 'body',
    base: { reset_token: 't', new_password: '12345678' },
    field: 'reset_token',
    bad: [MISSING, ''],
    good: ['t'],
  },
  {
    endpoint: 'cms.auth.reset-password-token',
    part: 'body',
    base: { reset_token: 't', new_password: '12345678' },
    field: 'new_password',
    bad: [MISSING, '1234567'],
    good: ['12345678', s(64)],
  },
  {
    endpoint: 'cms.superadmin.change-password',
    part: 'body',
    base: { user_id: 7, new_password: '12345678' },
    field: 'user_id',
    bad: [MISSING, '7', 7.5],
    good: [7],
  },
  {
    endpoint: 'cms.superadmin.change-password',
    part: 'body',
    base: { user_id: 7, new_password: '12345678' },
    field: 'new_password',
    bad: [MISSING, 'short'],
    good: ['12345678'],
  },
  {
    endpoint: 'cms.verification.generate',
    part: 'body',
    base: { type: 'email' },
    field: 'type',
    bad: [MISSING, 'fax', 'EMAIL'],
    good: ['email', 'sms', 'phone'],
  },
  {
    endpoint: 'cms.verification.verify',
    part: 'body',
    base: { code: '1234', type: 'sms' },
    field: 'code',
    bad: [MISSING, '123', s(11)],
    good: ['1234', s(10)],
  },
  {
    endpoint: 'cms.verification.verify',
    part: 'body',
    base: { code: '1234', type: 'sms' },
    field: 'type',
    bad: [MISSING, 'fax'],
    good: ['email', 'sms', 'phone'],
  },

  // --- users
  ...['email', 'password', 'role', 'username'].map((field): Rule => ({
    endpoint: 'users.create',
    part: 'body',
    base: { email: 'a@b.c', password: 'p', role: 'user', username: 'u' },
    field,
    bad: [MISSING, 5, ''],
    good: ['v'],
  })),
  ...['chatgpt_user_id', 'full_name'].map((field): Rule => ({
    endpoint: 'users.create',
    part: 'body',
    base: { email: 'a@b.c', password: 'p', role: 'user', username: 'u' },
    field,
    bad: [5],
    good: [MISSING, 'v'],
  })),
  { endpoint: 'users.list', part: 'query', base: {}, field: 'page', bad: ['0', 'x', '1.5'], good: ['2', 3] },
  { endpoint: 'users.list', part: 'query', base: {}, field: 'page_size', bad: ['0', '101', 'ten', '2.5'], good: ['1', '100', 50] },
  {
    endpoint: 'users.list',
    part: 'query',
    base: {},
    field: 'status',
    bad: ['active', 'Gone'],
    good: ['Active', 'Inactive', 'Banned', 'Pending', 'Suspended'],
  },
  { endpoint: 'users.list', part: 'query', base: {}, field: 'role', bad: [5], good: ['admin', MISSING] },
  ...['users.get', 'users.update', 'users.delete'].map((endpoint): Rule => ({
    endpoint,
    part: 'params',
    base: { id: '1' },
    field: 'id',
    bad: [MISSING, 'abc', '1.5'],
    good: ['12', 12],
  })),
  { endpoint: 'users.update', part: 'body', base: { user_id: 1 }, field: 'user_id', bad: [MISSING, '1', 1.5], good: [1] },
  {
    endpoint: 'users.update',
    part: 'body',
    base: { user_id: 1 },
    field: 'status',
    bad: ['Suspended', 'active'],
    good: ['Active', 'Inactive', 'Banned', 'Pending', MISSING],
  },
  ...['chatgpt_user_id', 'email', 'full_name', 'role', 'username'].map((field): Rule => ({
    endpoint: 'users.update',
    part: 'body',
    base: { user_id: 1 },
    field,
    bad: [5],
    good: [MISSING, 'v'],
  })),
  // --- superadmin user list
  { endpoint: 'users.search', part: 'query', base: {}, field: 'page_number', bad: ['0', '-1', 'x'], good: ['1', '9'] },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'page_size', bad: ['101', '0'], good: ['100', '1'] },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'status', bad: ['nope'], good: ['Active', 'Banned'] },
  {
    endpoint: 'users.search',
    part: 'query',
    base: {},
    field: 'created_date_from',
    bad: ['2026-13-01', '01/02/2026', '2026-02-30'],
    good: ['2026-01-31'],
  },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'created_date_to', bad: ['yesterday'], good: ['2026-12-31'] },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'created_by', bad: ['x', '1.5'], good: ['4'] },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'last_login_days', bad: ['-1', 'x'], good: ['0', '30'] },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'has_referrals', bad: ['maybe'], good: ['true', 'false', '1', '0', true] },
  {
    endpoint: 'users.search',
    part: 'query',
    base: {},
    field: 'sort_by',
    bad: ['CreatedDate', 'role'],
    good: ['created_date', 'last_login_date', 'username', 'email', 'status'],
  },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'sort_order', bad: ['desc', 'down'], good: ['ASC', 'DESC'] },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'search_keyword', bad: [5], good: ['eve', MISSING] },
  { endpoint: 'users.search', part: 'query', base: {}, field: 'role', bad: [5], good: ['admin', MISSING] },
  // --- profile and devices
  {
    endpoint: 'profile.update',
    part: 'body',
    base: { full_name: 'A' },
    field: 'full_name',
    bad: [MISSING, '', s(101)],
    good: ['A', s(100)],
  },
  { endpoint: 'profile.update', part: 'body', base: { full_name: 'A' }, field: 'address', bad: [s(256)], good: [s(255), MISSING] },
  { endpoint: 'profile.update', part: 'body', base: { full_name: 'A' }, field: 'city', bad: [s(101)], good: [s(100), MISSING] },
  { endpoint: 'profile.update', part: 'body', base: { full_name: 'A' }, field: 'country', bad: [s(101)], good: [s(100), MISSING] },
  { endpoint: 'profile.update', part: 'body', base: { full_name: 'A' }, field: 'postal_code', bad: [s(21)], good: [s(20), MISSING] },
  {
    endpoint: 'profile.update',
    part: 'body',
    base: { full_name: 'A' },
    field: 'profile_picture_url',
    bad: [s(501)],
    good: [s(500), MISSING],
  },
  {
    endpoint: 'profile.update',
    part: 'body',
    base: { full_name: 'A' },
    field: 'phone_number',
    bad: ['123456789', s(21)],
    good: ['0123456789', s(20), MISSING],
  },
  {
    endpoint: 'profile.update',
    part: 'body',
    base: { full_name: 'A' },
    field: 'gender',
    bad: ['male', 'X'],
    good: ['Male', 'Female', 'Other', MISSING],
  },
  {
    endpoint: 'profile.update',
    part: 'body',
    base: { full_name: 'A' },
    field: 'date_of_birth',
    bad: ['1990-02-30', '19900101', '1990-1-1', '31/01/1990'],
    good: ['1990-01-31', MISSING],
  },
  { endpoint: 'devices.list', part: 'query', base: {}, field: 'include_inactive', bad: ['yes'], good: ['true', '1', false, MISSING] },
  { endpoint: 'devices.remove', part: 'params', base: { id: 'd1' }, field: 'id', bad: [MISSING, ''], good: ['dev-abc', '5'] },
  // --- roles
  { endpoint: 'roles.list', part: 'query', base: {}, field: 'page', bad: ['0'], good: ['2'] },
  { endpoint: 'roles.list', part: 'query', base: {}, field: 'page_size', bad: ['0', '101'], good: ['100'] },
  {
    endpoint: 'roles.create',
    part: 'body',
    base: { role_name: 'ab', display_name: 'Ab' },
    field: 'role_name',
    bad: [MISSING, 'a', s(51)],
    good: ['ab', s(50)],
  },
  {
    endpoint: 'roles.create',
    part: 'body',
    base: { role_name: 'ab', display_name: 'Ab' },
    field: 'display_name',
    bad: [MISSING, 'a', s(101)],
    good: ['ab', s(100)],
  },
  {
    endpoint: 'roles.create',
    part: 'body',
    base: { role_name: 'ab', display_name: 'Ab' },
    field: 'description',
    bad: [5],
    good: ['d', MISSING],
  },
  {
    endpoint: 'roles.create',
    part: 'body',
    base: { role_name: 'ab', display_name: 'Ab' },
    field: 'priority',
    bad: [1.5, '3'],
    good: [3, MISSING],
  },
  ...['roles.update', 'roles.delete'].map((endpoint): Rule => ({
    endpoint,
    part: 'params',
    base: { role_id: '1' },
    field: 'role_id',
    bad: [MISSING, 'x'],
    good: ['3', 3],
  })),
  { endpoint: 'roles.update', part: 'body', base: {}, field: 'role_name', bad: ['a', s(51)], good: ['ab', MISSING] },
  { endpoint: 'roles.update', part: 'body', base: {}, field: 'display_name', bad: ['a', s(101)], good: ['ab', MISSING] },
  { endpoint: 'roles.update', part: 'body', base: {}, field: 'priority', bad: [1.5], good: [4, MISSING] },
  { endpoint: 'roles.update', part: 'body', base: {}, field: 'description', bad: [5], good: ['d', MISSING] },
  { endpoint: 'roles.update', part: 'body', base: {}, field: 'is_active', bad: ['true'], good: [true, false, MISSING] },
  { endpoint: 'roles.members', part: 'params', base: { role: 'admin' }, field: 'role', bad: [MISSING, ''], good: ['support'] },
  { endpoint: 'roles.members', part: 'query', base: {}, field: 'limit', bad: ['0', '101', 'x'], good: ['1', '100'] },
  { endpoint: 'roles.members', part: 'query', base: {}, field: 'page', bad: ['0'], good: ['3'] },
  { endpoint: 'roles.assignments', part: 'query', base: {}, field: 'page', bad: ['0', 'x'], good: ['2'] },
  { endpoint: 'roles.assignments', part: 'query', base: {}, field: 'limit', bad: ['0', '101'], good: ['50'] },
  { endpoint: 'roles.assignments', part: 'query', base: {}, field: 'search', bad: [5], good: ['eve', MISSING] },
  { endpoint: 'roles.assignments', part: 'query', base: {}, field: 'role_filter', bad: [5], good: ['admin', MISSING] },
  ...['roles.of', 'roles.assign', 'roles.promote', 'roles.demote', 'roles.remove'].map((endpoint): Rule => ({
    endpoint,
    part: 'params',
    base: { user_id: '1' },
    field: 'user_id',
    bad: [MISSING, 'eve'],
    good: ['17', 17],
  })),
  {
    endpoint: 'roles.assign',
    part: 'body',
    base: { new_roles: ['support'] },
    field: 'new_roles',
    bad: ['support', [5], []],
    good: [['support'], ['support', 'agent']],
  },
  { endpoint: 'roles.assign', part: 'body', base: { new_role: 'admin' }, field: 'new_role', bad: [5], good: ['admin'] },
  ...['reason', 'notes'].flatMap((field) =>
    ['roles.assign', 'roles.promote', 'roles.demote', 'roles.remove'].map((endpoint): Rule => ({
      endpoint,
      part: 'body',
      base: endpoint === 'roles.assign' ? { new_roles: ['agent'] } : {},
      field,
      bad: [5],
      good: ['rota', MISSING],
    })),
  ),
  ...['roles.promote', 'roles.demote'].map((endpoint): Rule => ({
    endpoint,
    part: 'body',
    base: {},
    field: 'new_role',
    bad: [5],
    good: ['manager', MISSING],
  })),

  // --- referrals
  {
    endpoint: 'referrals.generate',
    part: 'body',
    base: { description: 'abc', expiry_days: 30, usage_limit: 100 },
    field: 'description',
    bad: [MISSING, 'ab', s(256)],
    good: ['abc', s(255)],
  },
  {
    endpoint: 'referrals.generate',
    part: 'body',
    base: { description: 'abc', expiry_days: 30, usage_limit: 100 },
    field: 'expiry_days',
    bad: [MISSING, 0, 366, 1.5, '30'],
    good: [1, 365],
  },
  {
    endpoint: 'referrals.generate',
    part: 'body',
    base: { description: 'abc', expiry_days: 30, usage_limit: 100 },
    field: 'usage_limit',
    bad: [MISSING, 0, 1001, 2.5],
    good: [1, 1000],
  },
  {
    endpoint: 'referrals.deactivate',
    part: 'body',
    base: { referral_code_id: 1, reason: 'abc' },
    field: 'reason',
    bad: [MISSING, 'ab', s(256)],
    good: ['abc', s(255)],
  },
  {
    endpoint: 'referrals.deactivate',
    part: 'body',
    base: { referral_code_id: 1, reason: 'abc' },
    field: 'referral_code_id',
    bad: [MISSING, 0, 1.5, '1'],
    good: [1, 99],
  },
  {
    endpoint: 'referrals.use',
    part: 'body',
    base: { new_user_id: 1, referral_code: 'ABC' },
    field: 'new_user_id',
    bad: [MISSING, 0, 1.5],
    good: [1],
  },
  {
    endpoint: 'referrals.use',
    part: 'body',
    base: { new_user_id: 1, referral_code: 'ABC' },
    field: 'referral_code',
    bad: [MISSING, 'AB', s(51)],
    good: ['ABC', s(50)],
  },
  {
    endpoint: 'referrals.validate',
    part: 'body',
    base: { referral_code: 'ABC' },
    field: 'referral_code',
    bad: [MISSING, 'AB', s(51)],
    good: ['ABC', s(50)],
  },
  {
    endpoint: 'referrals.update',
    part: 'body',
    base: { referral_code_id: 1 },
    field: 'referral_code_id',
    bad: [MISSING, 0, '1'],
    good: [1],
  },
  {
    endpoint: 'referrals.update',
    part: 'body',
    base: { referral_code_id: 1 },
    field: 'new_usage_limit',
    bad: [0, 1001, 1.5],
    good: [1, 1000, MISSING],
  },
  {
    endpoint: 'referrals.update',
    part: 'body',
    base: { referral_code_id: 1 },
    field: 'new_expiry_date',
    bad: ['2026-02-30', 'tomorrow'],
    good: ['2026-12-31', MISSING],
  },
  { endpoint: 'referrals.mine', part: 'query', base: {}, field: 'include_inactive', bad: ['nope'], good: ['true', MISSING] },
  { endpoint: 'referrals.mine', part: 'query', base: {}, field: 'search_keyword', bad: [5], good: ['spring', MISSING] },
  ...[
    'referrals.mine',
    'referrals.referred',
    'referrals.search',
    'referrals.admin-search',
    'referrals.admin-list',
    'referrals.admin-referred',
    'referrals.admin-user-referred',
  ].flatMap((endpoint): Rule[] => [
    { endpoint, part: 'query', base: {}, field: 'page_number', bad: ['0', 'x'], good: ['1', '4'] },
    { endpoint, part: 'query', base: {}, field: 'page_size', bad: ['0', '101'], good: ['1', '100'] },
  ]),
  ...['referrals.search', 'referrals.admin-search', 'referrals.admin-list', 'referrals.admin-referred'].map((endpoint): Rule => ({
    endpoint,
    part: 'query',
    base: {},
    field: 'search_keyword',
    bad: [5],
    good: ['spring', MISSING],
  })),
  {
    endpoint: 'referrals.admin-list',
    part: 'query',
    base: {},
    field: 'filter_status',
    bad: ['deleted', 'Active'],
    good: ['active', 'inactive', 'expired', MISSING],
  },
  { endpoint: 'referrals.admin-list', part: 'query', base: {}, field: 'filter_date_from', bad: ['2026-1-1'], good: ['2026-01-01'] },
  { endpoint: 'referrals.admin-list', part: 'query', base: {}, field: 'filter_date_to', bad: ['2026-02-31'], good: ['2026-02-28'] },
  {
    endpoint: 'referrals.admin-list',
    part: 'query',
    base: {},
    field: 'sort_by',
    bad: ['created_date', 'referraldate'],
    good: ['ReferralDate', 'Username', 'ReferralCode'],
  },
  { endpoint: 'referrals.admin-list', part: 'query', base: {}, field: 'sort_order', bad: ['asc'], good: ['ASC', 'DESC'] },
  ...['referrals.info', 'referrals.admin-user-referred', 'referrals.admin-user-stats'].map((endpoint): Rule => ({
    endpoint,
    part: 'params',
    base: { user_id: '1' },
    field: 'user_id',
    bad: [MISSING, 'x'],
    good: ['5', 5],
  })),
  { endpoint: 'referrals.admin-user-stats', part: 'query', base: {}, field: 'stats_period', bad: ['0', '366', 'x'], good: ['1', '365', 7] },

  // --- end-user area
  { endpoint: 'me.services', part: 'query', base: {}, field: 'show_subscribed', bad: ['yes'], good: ['false', MISSING] },
  { endpoint: 'me.services', part: 'query', base: {}, field: 'service_type', bad: [s(51)], good: ['AI', MISSING] },
  { endpoint: 'me.plans', part: 'query', base: {}, field: 'service_code', bad: [s(51)], good: ['GPT4', MISSING] },
  { endpoint: 'me.access', part: 'query', base: { service_code: 'GPT4' }, field: 'service_code', bad: [MISSING, s(51)], good: ['GPT4'] },
  { endpoint: 'me.access', part: 'query', base: { service_code: 'GPT4' }, field: 'requested_usage', bad: ['0', 'x'], good: ['5', MISSING] },
  {
    endpoint: 'me.subscriptions',
    part: 'query',
    base: {},
    field: 'status',
    bad: ['deleted'],
    good: ['active', 'expired', 'cancelled', 'paused', 'all', MISSING],
  },
  { endpoint: 'me.subscriptions', part: 'query', base: {}, field: 'service_code', bad: [s(51)], good: ['GPT4'] },
  {
    endpoint: 'me.buy',
    part: 'body',
    base: { payment_method: 'WALLET' },
    field: 'payment_method',
    bad: [MISSING, 'wallet', 'card'],
    good: ['PAYMENT', 'WALLET', 'FREE'],
  },
  {
    endpoint: 'me.buy',
    part: 'body',
    base: { payment_method: 'PAYMENT' },
    field: 'gateway_name',
    bad: ['paypal', 'VISA'],
    good: ['VNPAY', 'STRIPE', 'PAYPAL', 'MOMO', MISSING],
  },
  { endpoint: 'me.buy', part: 'body', base: { payment_method: 'WALLET' }, field: 'plan_code', bad: [s(51)], good: [s(50), MISSING] },
  { endpoint: 'me.buy', part: 'body', base: { payment_method: 'WALLET' }, field: 'service_code', bad: [s(51)], good: [s(50), MISSING] },
  { endpoint: 'me.buy', part: 'body', base: { payment_method: 'WALLET' }, field: 'service_plan_id', bad: ['3', 1.5], good: [3, MISSING] },
  {
    endpoint: 'me.buy',
    part: 'body',
    base: { payment_method: 'WALLET' },
    field: 'auto_renewal',
    bad: ['true'],
    good: [true, false, MISSING],
  },
  {
    endpoint: 'me.generate-access',
    part: 'body',
    base: { service_code: 'GPT4' },
    field: 'service_code',
    bad: [MISSING, 'G', s(51)],
    good: ['GP', s(50)],
  },
  {
    endpoint: 'me.use',
    part: 'body',
    base: { service_code: 'GPT4', usage_amount: 1, usage_type: 'api_call' },
    field: 'service_code',
    bad: [MISSING, s(51)],
    good: [s(50)],
  },
  {
    endpoint: 'me.use',
    part: 'body',
    base: { service_code: 'GPT4', usage_amount: 1, usage_type: 'api_call' },
    field: 'usage_amount',
    bad: [MISSING, 0, 1.5, '1'],
    good: [1, 100],
  },
  {
    endpoint: 'me.use',
    part: 'body',
    base: { service_code: 'GPT4', usage_amount: 1, usage_type: 'api_call' },
    field: 'usage_type',
    bad: [MISSING, 'call'],
    good: ['api_call', 'generate', 'analyze'],
  },
  {
    endpoint: 'me.use',
    part: 'body',
    base: { service_code: 'GPT4', usage_amount: 1, usage_type: 'api_call' },
    field: 'response_time',
    bad: [-1, '5'],
    good: [0, 12.5, MISSING],
  },
  {
    endpoint: 'me.activate',
    part: 'body',
    base: { activation_code: 'CODE' },
    field: 'activation_code',
    bad: [MISSING, '', s(101)],
    good: [s(100)],
  },
  {
    endpoint: 'me.activate',
    part: 'body',
    base: { activation_code: 'CODE' },
    field: 'service_code',
    bad: [s(51)],
    good: ['GPT4', MISSING],
  },
  {
    endpoint: 'me.topup',
    part: 'body',
    base: { amount: 10, payment_method: 'card' },
    field: 'amount',
    bad: [MISSING, 0, -5, '10'],
    good: [0.01, 10],
  },
  {
    endpoint: 'me.topup',
    part: 'body',
    base: { amount: 10, payment_method: 'card' },
    field: 'payment_method',
    bad: [MISSING, 'CARD', 'cash'],
    good: ['card', 'bank', 'paypal'],
  },
  {
    endpoint: 'me.topup',
    part: 'body',
    base: { amount: 10, payment_method: 'card' },
    field: 'transaction_reference',
    bad: [s(101)],
    good: [s(100), MISSING],
  },
  {
    endpoint: 'me.topup',
    part: 'body',
    base: { amount: 10, payment_method: 'card' },
    field: 'payment_data',
    bad: ['x', 5],
    good: [{ card_last4: '4242' }, MISSING],
  },
  {
    endpoint: 'me.auto-renewal',
    part: 'body',
    base: { subscription_id: 1 },
    field: 'subscription_id',
    bad: [MISSING, '1', 1.5],
    good: [1],
  },
  {
    endpoint: 'me.auto-renewal',
    part: 'body',
    base: { subscription_id: 1 },
    field: 'auto_renewal',
    bad: ['yes'],
    good: [true, false, MISSING],
  },
  {
    endpoint: 'me.auto-renewal',
    part: 'body',
    base: { subscription_id: 1 },
    field: 'payment_method',
    bad: ['cash', 'PAYMENT'],
    good: ['card', 'bank', 'paypal', MISSING],
  },
];

const show = (v: Value) => (v === MISSING ? '(missing)' : typeof v === 'string' && v.length > 12 ? `${v.length} chars` : JSON.stringify(v));

describe('validation rules (spec point 5)', () => {
  for (const r of rules) {
    describe(`${r.endpoint} ${r.part}.${r.field}`, () => {
      const schema = () => schemaOf(r.endpoint, r.part);
      it(`accepts the base input`, () => {
        expect(schema().safeParse(r.base).error?.issues).toBeUndefined();
      });
      for (const v of r.bad) {
        it(`rejects ${show(v)}, naming ${r.field}`, () => {
          const res = schema().safeParse(withValue(r.base, r.field, v));
          expect(res.success).toBe(false);
          expect(res.error!.issues.map((i) => i.path[0])).toContain(r.field);
        });
      }
      for (const v of r.good) {
        it(`accepts ${show(v)}`, () => {
          const res = schema().safeParse(withValue(r.base, r.field, v));
          expect(res.error?.issues).toBeUndefined();
        });
      }
    });
  }

  it('every params, query and body field of the four files is covered by a rule above', () => {
    const covered = new Set(rules.map((r) => `${r.endpoint} ${r.part}.${r.field}`));
    const missing: string[] = [];
    for (const e of all) {
      for (const part of ['params', 'query', 'body'] as const) {
        for (const field of Object.keys(e[part]?.shape ?? {})) {
          if (!covered.has(`${e.name} ${part}.${field}`)) missing.push(`${e.name} ${part}.${field}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('roles.assign needs new_roles or the legacy new_role', () => {
    const body = schemaOf('roles.assign', 'body');
    const none = body.safeParse({ reason: 'rota' });
    expect(none.success).toBe(false);
    expect(none.error!.issues[0].path).toEqual(['new_roles']);
    expect(body.safeParse({ new_role: 'admin' }).success).toBe(true);
    expect(body.safeParse({ new_roles: ['support', 'agent'], reason: 'rota', notes: 'n' }).success).toBe(true);
  });

  it('coerces query and path text to numbers and booleans', () => {
    expect(schemaOf('users.get', 'params').parse({ id: '12' })).toEqual({ id: 12 });
    expect(schemaOf('users.search', 'query').parse({ has_referrals: 'false', created_by: '3', last_login_days: '0' })).toMatchObject({
      has_referrals: false,
      created_by: 3,
      last_login_days: 0,
    });
    expect(schemaOf('devices.list', 'query').parse({ include_inactive: '1' })).toEqual({ include_inactive: true });
  });
});

describe('defaults (spec point 9)', () => {
  it('users list: page 1, page_size 10', () => {
    expect(schemaOf('users.list', 'query').parse({})).toEqual({ page: 1, page_size: 10 });
  });
  it('superadmin user list: page 1, size 20, created_date DESC', () => {
    expect(schemaOf('users.search', 'query').parse({})).toEqual({
      page_number: 1,
      page_size: 20,
      sort_by: 'created_date',
      sort_order: 'DESC',
    });
  });
  it('roles: list page_size 20; members and assignments limit 20', () => {
    expect(schemaOf('roles.list', 'query').parse({})).toEqual({ page: 1, page_size: 20 });
    expect(schemaOf('roles.members', 'query').parse({})).toEqual({ page: 1, limit: 20 });
    expect(schemaOf('roles.assignments', 'query').parse({})).toEqual({ page: 1, limit: 20 });
  });
  it('referral lists: page_number 1, page_size 10; admin referrals sorted ReferralDate DESC', () => {
    for (const name of [
      'referrals.mine',
      'referrals.referred',
      'referrals.search',
      'referrals.admin-search',
      'referrals.admin-referred',
      'referrals.admin-user-referred',
    ]) {
      expect(schemaOf(name, 'query').parse({}), name).toEqual({ page_number: 1, page_size: 10 });
    }
    expect(schemaOf('referrals.admin-list', 'query').parse({})).toEqual({
      page_number: 1,
      page_size: 10,
      sort_by: 'ReferralDate',
      sort_order: 'DESC',
    });
  });
  it('admin user referral statistics: stats_period 30', () => {
    expect(schemaOf('referrals.admin-user-stats', 'query').parse({})).toEqual({ stats_period: 30 });
  });
});

describe('responses are lenient', () => {
  it('every response accepts an answer with unknown fields and omitted ones', () => {
    for (const e of all) {
      const sample = e.response.safeParse([]).success ? [] : {};
      expect(e.response.safeParse(sample).success, e.name).toBe(true);
    }
    const login = ep('cms.auth.login').response.parse({ token: 't', session_id: 's', permissions: ['a'], extra: 1 });
    expect(login).toMatchObject({ token: 't', session_id: 's', extra: 1 });
  });

  it('declares the fields section 3 lists', () => {
    const keys = (name: string) => Object.keys((ep(name).response as z.ZodObject).shape);
    expect(keys('auth.login')).toEqual(
      expect.arrayContaining(['email', 'error_code', 'error_message', 'full_name', 'login_result', 'role', 'token', 'user_id', 'username']),
    );
    expect(keys('auth.refresh')).toEqual(expect.arrayContaining(['expires_in', 'token']));
    expect(keys('cms.auth.register')).toEqual(expect.arrayContaining(['error_code', 'message', 'success', 'user_id']));
    expect(keys('cms.auth.request-reset')).toEqual(
      expect.arrayContaining(['email', 'expiry_date', 'reset_token', 'success', 'user_id', 'username']),
    );
    expect(keys('profile.get')).toEqual(['basic_info', 'login_history', 'permissions', 'referral_info']);
    expect(keys('users.search')).toEqual(['users', 'statistics', 'page_info']);
    expect(keys('users.list')).toEqual(expect.arrayContaining(['current_page', 'page_size', 'total_count', 'total_pages', 'users']));
    expect(keys('roles.list')).toEqual(expect.arrayContaining(['current_page', 'page_size', 'roles', 'total_pages', 'total_rows']));
    expect(keys('devices.list')).toEqual(expect.arrayContaining(['devices', 'device_count']));
    expect(keys('referrals.validate')).toEqual(
      expect.arrayContaining(['days_remaining', 'is_valid', 'referrer_username', 'remaining_uses', 'used_count']),
    );
    expect(keys('me.buy')).toEqual(expect.arrayContaining(['order_id', 'payment_url', 'payment_status', 'total_cost', 'subscription_id']));
    expect(keys('me.wallet')).toEqual(['balance', 'currency', 'last_topup_date', 'message']);
    const sub = ep('me.subscriptions').response.parse([
      { subscription_id: 1, status: 'active', remaining_credits: 5, unknown_field: 'kept' },
    ]);
    expect(sub).toEqual([{ subscription_id: 1, status: 'active', remaining_credits: 5, unknown_field: 'kept' }]);
  });
});
