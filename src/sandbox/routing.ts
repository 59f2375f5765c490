/**
 * Routing a request by the contract (404 unknown path, 405 known path with another method) and
 * reading its query string.
 */
import { loadContractFile, matchRoute } from '../api/contract/routes.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import { fieldsOfEndpoint } from '../api/contract/parts.js';

type Json = Record<string, unknown>;

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

/** Per endpoint, what the framework needs beyond the contract: list-valued query fields. */
export interface Prepared {
  endpoint: AnyEndpoint;
  listQueryFields: Set<string>;
}
const preparedByEndpoint = new Map<AnyEndpoint, Prepared>();
function prepared(e: AnyEndpoint): Prepared {
  let p = preparedByEndpoint.get(e);
  if (!p) {
    const list = new Set(
      fieldsOfEndpoint(e)
        .filter(([, place, f]) => place === 'query' && f.kind === 'list')
        .map(([k]) => k),
    );
    p = { endpoint: e, listQueryFields: list };
    preparedByEndpoint.set(e, p);
  }
  return p;
}

export type Route =
  { kind: 'ok'; prepared: Prepared; params: Record<string, string> } | { kind: 'method'; allow: string[] } | { kind: 'none' };
const routeCache = new Map<string, Route>();

/**
 * Routes METHOD PATH, remembering the answer (paths repeat: lists are asked page after page).
 * The endpoint's contract file is loaded on the first request to one of its endpoints (see
 * api/contract/routes.ts): a promise then, the route itself afterwards. Throws on a malformed
 * path (a bad %-escape).
 */
export function route(method: string, path: string): Route | Promise<Route> {
  const key = `${method} ${path}`;
  const known = routeCache.get(key);
  if (known) return known;
  const m = METHODS.includes(method as (typeof METHODS)[number]) ? matchRoute(method, path) : undefined;
  if (m) {
    return loadContractFile(m.file).then((eps) => {
      const endpoint = eps.find((x) => x.name === m.name);
      if (!endpoint) throw new Error(`endpoint ${m.name} is not in contract file ${m.file}`);
      return remember(key, { kind: 'ok', prepared: prepared(endpoint), params: m.params });
    });
  }
  const allow = METHODS.filter((x) => x !== method && matchRoute(x, path));
  return remember(key, allow.length ? { kind: 'method', allow } : { kind: 'none' });
}

function remember(key: string, r: Route): Route {
  if (routeCache.size > 5000) routeCache.clear();
  routeCache.set(key, r);
  return r;
}

/**
 * `qs`'s pairs as URLSearchParams reads them. Without `%` or `+` there is nothing to decode (and
 * without a leading `?`, which it drops), so splitting it is the same and cheaper than
 * URLSearchParams, a measurable share of a list request's time.
 */
function queryPairs(qs: string): Iterable<[string, string]> {
  if (qs.includes('%') || qs.includes('+') || qs.startsWith('?')) return new URLSearchParams(qs);
  const pairs: Array<[string, string]> = [];
  for (const part of qs.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    pairs.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return pairs;
}

/** Query string to an object: empty values dropped, repeated keys last-wins, list fields split on commas. */
export function parseQuery(qs: string, lists: Set<string>): Json {
  const out: Json = {};
  if (!qs) return out;
  for (const [k, v] of queryPairs(qs)) {
    if (lists.has(k)) {
      const prev = (out[k] as string[] | undefined) ?? [];
      out[k] = prev.concat(
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );
    } else if (v !== '') out[k] = v;
  }
  return out;
}
