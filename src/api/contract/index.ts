/**
 * The whole API contract: every endpoint of the API documents' administrator area and the API documents' user, auth and CMS area,
 * once. `subctl api endpoints` prints this list.
 */
import type { AnyEndpoint } from './common.js';
import { matchRoute } from './routes.js';
import { serviceEndpoints } from './admin-services.js';
import { servicePlanEndpoints } from './admin-service-plans.js';
import { planEndpoints } from './admin-plans.js';
import { subscriptionEndpoints } from './admin-subscriptions.js';
import { adminMiscEndpoints } from './admin-misc.js';
import { authEndpoints } from './user-auth.js';
import { accountEndpoints } from './user-accounts.js';
import { referralEndpoints } from './user-referrals.js';
import { endUserEndpoints } from './user-enduser.js';

export const endpoints: readonly AnyEndpoint[] = [
  ...serviceEndpoints,
  ...servicePlanEndpoints,
  ...planEndpoints,
  ...subscriptionEndpoints,
  ...adminMiscEndpoints,
  ...authEndpoints,
  ...accountEndpoints,
  ...referralEndpoints,
  ...endUserEndpoints,
] as AnyEndpoint[];

const byName = new Map(endpoints.map((e) => [e.name, e]));

/** The endpoint called `name` (e.g. `services.list`); throws on a typo, which is a bug. */
export function endpointByName(name: string): AnyEndpoint {
  const e = byName.get(name);
  if (!e) throw new Error(`no endpoint named ${name} in the contract`);
  return e;
}

/** Finds the endpoint serving METHOD PATH (path with concrete ids), with its path params. */
export function matchEndpoint(method: string, path: string): { endpoint: AnyEndpoint; params: Record<string, string> } | undefined {
  const r = matchRoute(method, path);
  return r && { endpoint: endpointByName(r.name), params: r.params };
}
