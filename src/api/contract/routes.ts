/**
 * Where each endpoint of the contract lives, without building its schemas: METHOD, path, name
 * and the contract file that declares it. The sandbox routes with it and loads a contract file
 * on the first request to one of its endpoints; `subctl api` does the same. Building every
 * schema of the 95 endpoints at start-up is a cost of zod that a command that calls one endpoint
 * should not pay.
 *
 * It repeats the contract by hand: `tests/api/routes.test.ts` holds it to the contract, entry
 * for entry, so it cannot drift.
 */
import type { AnyEndpoint } from './common.js';

export type ContractFile =
  | 'admin-services'
  | 'admin-service-plans'
  | 'admin-plans'
  | 'admin-subscriptions'
  | 'admin-misc'
  | 'user-auth'
  | 'user-accounts'
  | 'user-referrals'
  | 'user-enduser';

/** [method, path, endpoint name, contract file], in the contract's order. */
export const routes: ReadonlyArray<readonly [string, string, string, ContractFile]> = [
  // admin-services
  ['GET', '/admin/services', 'services.list', 'admin-services'],
  ['GET', '/admin/services/list', 'services.list-alt', 'admin-services'],
  ['GET', '/admin/services/detail', 'services.detail', 'admin-services'],
  ['GET', '/admin/services/report', 'services.report', 'admin-services'],
  ['POST', '/admin/services', 'services.create', 'admin-services'],
  ['PUT', '/admin/services/{id}', 'services.update', 'admin-services'],
  ['DELETE', '/admin/services', 'services.delete', 'admin-services'],
  // admin-service-plans
  ['GET', '/admin/service-plans', 'service-plans.list', 'admin-service-plans'],
  ['GET', '/admin/service-plans/list', 'service-plans.list-alt', 'admin-service-plans'],
  ['GET', '/admin/service-plans/{id}/detail', 'service-plans.detail', 'admin-service-plans'],
  ['POST', '/admin/service-plans', 'service-plans.create', 'admin-service-plans'],
  ['PUT', '/admin/service-plans', 'service-plans.update', 'admin-service-plans'],
  ['PUT', '/admin/service-plans/manage', 'service-plans.manage', 'admin-service-plans'],
  ['DELETE', '/admin/service-plans', 'service-plans.delete', 'admin-service-plans'],
  // admin-plans
  ['GET', '/admin/subscription-plans', 'plans.list', 'admin-plans'],
  ['GET', '/admin/subscription-plans/list', 'plans.list-alt', 'admin-plans'],
  ['GET', '/admin/subscription-plans/report', 'plans.report', 'admin-plans'],
  ['POST', '/admin/subscription-plans', 'plans.create', 'admin-plans'],
  ['PUT', '/admin/subscription-plans/{id}', 'plans.update', 'admin-plans'],
  ['DELETE', '/admin/subscription-plans', 'plans.delete', 'admin-plans'],
  // admin-subscriptions
  ['GET', '/admin/subscriptions', 'subscriptions.list', 'admin-subscriptions'],
  ['GET', '/admin/subscriptions/list', 'subscriptions.list-alt', 'admin-subscriptions'],
  ['PUT', '/admin/subscriptions/{id}/manage', 'subscriptions.manage', 'admin-subscriptions'],
  ['DELETE', '/admin/subscriptions', 'subscriptions.delete', 'admin-subscriptions'],
  ['POST', '/admin/maintenance/cleanup-subscription-data', 'cleanup.run', 'admin-subscriptions'],
  // admin-misc
  ['GET', '/admin/usage-codes/list', 'usage-codes.list', 'admin-misc'],
  ['POST', '/admin/usage-codes/generate', 'usage-codes.generate', 'admin-misc'],
  ['GET', '/admin/wallet-transactions/list', 'wallet.list', 'admin-misc'],
  ['GET', '/admin/dashboard', 'dashboard.get', 'admin-misc'],
  ['GET', '/audit', 'audit.list', 'admin-misc'],
  ['GET', '/audit/users/{id}', 'audit.user', 'admin-misc'],
  // user-auth
  ['POST', '/auth/login', 'auth.login', 'user-auth'],
  ['POST', '/auth/logout', 'auth.logout', 'user-auth'],
  ['POST', '/auth/refresh', 'auth.refresh', 'user-auth'],
  ['POST', '/auth/forgot-password', 'auth.forgot-password', 'user-auth'],
  ['POST', '/auth/reset-password', 'auth.reset-password', 'user-auth'],
  ['POST', '/auth/change-password', 'auth.change-password', 'user-auth'],
  ['POST', '/auth/validate-session', 'auth.validate-session', 'user-auth'],
  ['POST', '/cms/auth/login', 'cms.auth.login', 'user-auth'],
  ['POST', '/cms/auth/register', 'cms.auth.register', 'user-auth'],
  ['POST', '/cms/auth/logout', 'cms.auth.logout', 'user-auth'],
  ['POST', '/cms/auth/change-password', 'cms.auth.change-password', 'user-auth'],
  ['POST', '/cms/auth/request-reset', 'cms.auth.request-reset', 'user-auth'],
  ['POST', '/cms/auth/reset-password-token', 'cms.auth.reset-password-token', 'user-auth'],
  ['POST', '/cms/superadmin/auth/change-password', 'cms.superadmin.change-password', 'user-auth'],
  ['POST', '/cms/users/generate-verification', 'cms.verification.generate', 'user-auth'],
  ['POST', '/cms/users/verify', 'cms.verification.verify', 'user-auth'],
  // user-accounts
  ['POST', '/users', 'users.create', 'user-accounts'],
  ['GET', '/users', 'users.list', 'user-accounts'],
  ['GET', '/users/{id}', 'users.get', 'user-accounts'],
  ['PUT', '/users/{id}', 'users.update', 'user-accounts'],
  ['DELETE', '/users/{id}', 'users.delete', 'user-accounts'],
  ['GET', '/cms/superadmin/users', 'users.search', 'user-accounts'],
  ['GET', '/cms/users/profile', 'profile.get', 'user-accounts'],
  ['PUT', '/cms/users/profile', 'profile.update', 'user-accounts'],
  ['GET', '/cms/users/devices', 'devices.list', 'user-accounts'],
  ['DELETE', '/cms/users/devices/{id}', 'devices.remove', 'user-accounts'],
  ['GET', '/cms/roles', 'roles.list', 'user-accounts'],
  ['POST', '/cms/roles', 'roles.create', 'user-accounts'],
  ['PUT', '/cms/roles/{role_id}', 'roles.update', 'user-accounts'],
  ['DELETE', '/cms/roles/{role_id}', 'roles.delete', 'user-accounts'],
  ['GET', '/cms/roles/{role}/users', 'roles.members', 'user-accounts'],
  ['GET', '/cms/users/roles', 'roles.assignments', 'user-accounts'],
  ['GET', '/cms/users/{user_id}/role', 'roles.of', 'user-accounts'],
  ['POST', '/cms/users/{user_id}/assign-role', 'roles.assign', 'user-accounts'],
  ['POST', '/cms/users/{user_id}/promote', 'roles.promote', 'user-accounts'],
  ['POST', '/cms/users/{user_id}/demote', 'roles.demote', 'user-accounts'],
  ['POST', '/cms/users/{user_id}/remove-role', 'roles.remove', 'user-accounts'],
  // user-referrals
  ['POST', '/cms/referral/generate', 'referrals.generate', 'user-referrals'],
  ['POST', '/cms/referral/use', 'referrals.use', 'user-referrals'],
  ['POST', '/cms/referral/validate', 'referrals.validate', 'user-referrals'],
  ['PUT', '/cms/referral/update', 'referrals.update', 'user-referrals'],
  ['DELETE', '/cms/referral/deactivate', 'referrals.deactivate', 'user-referrals'],
  ['GET', '/cms/referral/my-codes', 'referrals.mine', 'user-referrals'],
  ['GET', '/cms/referral/statistics', 'referrals.stats', 'user-referrals'],
  ['GET', '/cms/referral/info/{user_id}', 'referrals.info', 'user-referrals'],
  ['GET', '/cms/referred-users', 'referrals.referred', 'user-referrals'],
  ['GET', '/cms/referral-codes/search', 'referrals.search', 'user-referrals'],
  ['GET', '/cms/admin/referral-codes/search', 'referrals.admin-search', 'user-referrals'],
  ['GET', '/cms/admin/referrals', 'referrals.admin-list', 'user-referrals'],
  ['GET', '/cms/admin/referred-users', 'referrals.admin-referred', 'user-referrals'],
  ['GET', '/cms/admin/users/{user_id}/referred-users', 'referrals.admin-user-referred', 'user-referrals'],
  ['GET', '/cms/admin/users/{user_id}/statistics', 'referrals.admin-user-stats', 'user-referrals'],
  // user-enduser
  ['GET', '/user/services/available', 'me.services', 'user-enduser'],
  ['GET', '/user/plans/available', 'me.plans', 'user-enduser'],
  ['GET', '/user/services/access', 'me.access', 'user-enduser'],
  ['GET', '/user/subscriptions', 'me.subscriptions', 'user-enduser'],
  ['GET', '/user/wallet', 'me.wallet', 'user-enduser'],
  ['GET', '/test/services', 'me.test-services', 'user-enduser'],
  ['POST', '/user/subscriptions/buy', 'me.buy', 'user-enduser'],
  ['POST', '/user/services/generate-access', 'me.generate-access', 'user-enduser'],
  ['POST', '/user/services/use', 'me.use', 'user-enduser'],
  ['POST', '/user/codes/activate', 'me.activate', 'user-enduser'],
  ['POST', '/user/wallet/topup', 'me.topup', 'user-enduser'],
  ['PUT', '/user/subscriptions/auto-renewal', 'me.auto-renewal', 'user-enduser'],
];

const loaders: Record<ContractFile, () => Promise<readonly AnyEndpoint[]>> = {
  'admin-services': async () => (await import('./admin-services.js')).serviceEndpoints as AnyEndpoint[],
  'admin-service-plans': async () => (await import('./admin-service-plans.js')).servicePlanEndpoints as AnyEndpoint[],
  'admin-plans': async () => (await import('./admin-plans.js')).planEndpoints as AnyEndpoint[],
  'admin-subscriptions': async () => (await import('./admin-subscriptions.js')).subscriptionEndpoints as AnyEndpoint[],
  'admin-misc': async () => (await import('./admin-misc.js')).adminMiscEndpoints as AnyEndpoint[],
  'user-auth': async () => (await import('./user-auth.js')).authEndpoints as AnyEndpoint[],
  'user-accounts': async () => (await import('./user-accounts.js')).accountEndpoints as AnyEndpoint[],
  'user-referrals': async () => (await import('./user-referrals.js')).referralEndpoints as AnyEndpoint[],
  'user-enduser': async () => (await import('./user-enduser.js')).endUserEndpoints as AnyEndpoint[],
};

/** The endpoints of one contract file (loaded, and its schemas built, on first use). */
export function loadContractFile(file: ContractFile): Promise<readonly AnyEndpoint[]> {
  return loaders[file]();
}

/** The endpoint called `name`, loading its contract file. */
export async function loadEndpoint(name: string): Promise<AnyEndpoint> {
  const r = routes.find((x) => x[2] === name);
  if (!r) throw new Error(`no endpoint named ${name} in the contract`);
  const e = (await loadContractFile(r[3])).find((x) => x.name === name);
  if (!e) throw new Error(`endpoint ${name} is not in contract file ${r[3]} (routes.ts is out of date)`);
  return e;
}

/**
 * The route serving METHOD PATH (path with concrete ids), with its path params: the same
 * rule as `matchEndpoint` (most literal segments wins), over the table.
 */
export function matchRoute(method: string, path: string): { name: string; file: ContractFile; params: Record<string, string> } | undefined {
  const m = method.toUpperCase();
  let best: { name: string; file: ContractFile; params: Record<string, string>; literal: number } | undefined;
  const segs = path.split('?')[0].replace(/\/+$/, '').split('/');
  for (const [rm, rpath, name, file] of routes) {
    if (rm !== m) continue;
    const tsegs = rpath.split('/');
    if (tsegs.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let literal = 0;
    let okay = true;
    for (let i = 0; i < tsegs.length; i++) {
      const t = tsegs[i];
      if (t.startsWith('{') && t.endsWith('}')) params[t.slice(1, -1)] = decodeURIComponent(segs[i]);
      else if (t === segs[i]) literal++;
      else {
        okay = false;
        break;
      }
    }
    if (okay && (!best || literal > best.literal)) best = { name, file, params, literal };
  }
  return best && { name: best.name, file: best.file, params: best.params };
}
