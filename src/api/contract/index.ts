/**
 * The whole API contract: every endpoint of spec/admin-area.md and spec/user-auth-cms-area.md,
 * once. `subctl api endpoints` prints this list.
 */
import type { AnyEndpoint } from './common.js';
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
  const m = method.toUpperCase();
  let best: { endpoint: AnyEndpoint; params: Record<string, string>; literal: number } | undefined;
  const segs = path.split('?')[0].replace(/\/+$/, '').split('/');
  for (const e of endpoints) {
    if (e.method !== m) continue;
    const tsegs = e.path.split('/');
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
    if (okay && (!best || literal > best.literal)) best = { endpoint: e, params, literal };
  }
  return best && { endpoint: best.endpoint, params: best.params };
}
