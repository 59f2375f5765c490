/**
 * The platform's catalog, read through the client: every service (its detail, for the fields
 * the list leaves out and for its plan links), every plan (the plan report carries
 * auto_renewal and max_usage_per_day), every role. Besides the entries, what apply needs and a
 * file does not hold: server ids, and the active subscriptions each change would touch.
 */
import type { ApiClient } from '../api/client.js';
import { servicesDetail, servicesReport } from '../api/contract/admin-services.js';
import { plansReport } from '../api/contract/admin-plans.js';
import { rolesList } from '../api/contract/user-accounts.js';
import { itemsOf, pageInfoOf } from '../api/pages.js';
import { readBoolean } from '../api/read-values.js';
import { emptyCatalog, keyOf, pick, type Catalog, type Kind } from './model.js';

/** What the platform says about one entry beyond its fields. */
interface PlatformFacts {
  id?: number;
  /** Active subscriptions of the service, plan or link. */
  active?: number;
  system?: boolean;
}

export interface PlatformState {
  catalog: Catalog;
  /** By kind, then by `keyOf`. */
  facts: Record<Kind, Map<string, PlatformFacts>>;
}

type Row = Record<string, unknown>;

const num = (v: unknown): number | undefined =>
  v === undefined || v === null || v === '' || !Number.isFinite(Number(v)) ? undefined : Number(v);

/** Reads the kinds asked for (links need the services' details, so they read services too). */
export async function readPlatform(api: ApiClient, kinds: ReadonlySet<Kind>, signal?: AbortSignal): Promise<PlatformState> {
  const state: PlatformState = {
    catalog: emptyCatalog(),
    facts: { services: new Map(), plans: new Map(), links: new Map(), roles: new Map() },
  };
  if (kinds.has('services') || kinds.has('links')) await readServices(api, state, kinds, signal);
  if (kinds.has('plans')) {
    const rows = ((await api.call(plansReport, { query: {} }, { signal })) ?? []) as Row[];
    for (const r of rows) {
      const e = pick('plans', r);
      state.catalog.plans.push(e);
      state.facts.plans.set(keyOf('plans', e), { id: num(r.plan_id), active: num(r.active_subscriptions_count) });
    }
  }
  if (kinds.has('roles')) await readRoles(api, state, signal);
  return state;
}

async function readServices(api: ApiClient, state: PlatformState, kinds: ReadonlySet<Kind>, signal?: AbortSignal): Promise<void> {
  const list = ((await api.call(servicesReport, { query: {} }, { signal })) ?? []) as Row[];
  for (const item of list) {
    const code = item.service_code;
    if (typeof code !== 'string') continue;
    const d = (await api.call(servicesDetail, { query: { service_code: code } }, { signal })) as
      { service_info?: Row; service_plans?: Row[] } | undefined;
    const info = { ...item, ...(d?.service_info ?? {}) };
    const e = pick('services', info);
    if (kinds.has('services')) state.catalog.services.push(e);
    state.facts.services.set(keyOf('services', e), { id: num(info.service_id), active: num(info.active_subscriptions_count) });
    if (!kinds.has('links')) continue;
    for (const link of d?.service_plans ?? []) {
      const le = pick('links', { service_code: e.service_code, plan_code: link.plan_code, is_available: link.is_available });
      state.catalog.links.push(le);
      state.facts.links.set(keyOf('links', le), { id: num(link.service_plan_id), active: num(link.active_subscriptions) });
    }
  }
}

async function readRoles(api: ApiClient, state: PlatformState, signal?: AbortSignal): Promise<void> {
  const size = 100;
  for (let page = 1; page <= 1000; page++) {
    const data = await api.call(rolesList, { query: { page, page_size: size } }, { signal });
    // The rows wherever the platform puts them (pages.ts): a list read as empty would plan every role as new.
    const rows = itemsOf(rolesList, data);
    const info = pageInfoOf(rolesList, data, page, size);
    for (const r of rows) {
      const system = readBoolean(r.is_system_role) === true;
      // A system role is listed by name only: the catalog never changes it.
      const e = system ? { role_name: String(r.role_name), is_system_role: true } : pick('roles', { ...r, is_system_role: undefined });
      state.catalog.roles.push(e);
      state.facts.roles.set(keyOf('roles', e), { id: num(r.role_id), system });
    }
    // A short page is the last unless the platform says it served that size or that a page follows.
    const served = info.served !== undefined && info.served < size ? info.served : size;
    const more = rows.length > 0 && (rows.length >= served || info.hasNext === true);
    if (!more || (info.totalPages !== undefined && page >= info.totalPages)) break;
  }
}
