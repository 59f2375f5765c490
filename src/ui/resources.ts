/**
 * What the console can browse: every list endpoint of the contract that pages and needs no path
 * id, under the name a user types after `:` (the command group's name where there is one).
 * Each resource knows its default columns, its server-side filters (the endpoint's query
 * fields), its sort fields (the `sort_by` enum) and how its detail is fetched.
 *
 * Plain data and functions only: `subctl console <resource>` checks the name with this module
 * before paying for Ink.
 */
import { auditList, usageCodesList, walletList } from '../api/contract/admin-misc.js';
import { plansList } from '../api/contract/admin-plans.js';
import { servicePlansDetail, servicePlansList } from '../api/contract/admin-service-plans.js';
import { servicesDetail, servicesList } from '../api/contract/admin-services.js';
import { subscriptionsList } from '../api/contract/admin-subscriptions.js';
import { describeField, describeObject, type AnyEndpoint, type FieldInfo } from '../api/contract/common.js';
import { rolesAssignments, rolesList, usersGet, usersList, usersSearch } from '../api/contract/user-accounts.js';
import { accountInOrder, userDetail } from '../resources/users.js';
import { referralsAdminList, referralsAdminReferred, referralsAdminSearch } from '../api/contract/user-referrals.js';
import {
  AUDIT_COLUMNS,
  CODE_COLUMNS,
  PLAN_COLUMNS,
  ROLE_ASSIGNMENT_COLUMNS,
  ROLE_COLUMNS,
  SERVICE_COLUMNS,
  SERVICE_PLAN_COLUMNS,
  SUBSCRIPTION_COLUMNS,
  USER_COLUMNS,
  USER_SEARCH_COLUMNS,
  WALLET_COLUMNS,
} from '../resources/columns.js';
import { readableAudit } from '../resources/audit.js';
import type { DetailRecord, DetailTable } from '../resources/details.js';
import { SERVICE_PLAN_DETAIL } from '../resources/service-plans.js';
import { SERVICE_DETAIL, usageByDate } from '../resources/services.js';

export type Row = Record<string, unknown>;

export interface CallSpec {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

/** One part of a detail view: key/values, a sub-table, or chart lines. */
export type DetailSection =
  | { kind: 'kv'; title?: string; value: Row }
  | { kind: 'table'; title: string; rows: Row[]; columns?: string[] }
  | { kind: 'lines'; title: string; lines: string[] };

interface DetailDef {
  endpoint: AnyEndpoint;
  /** The request for a row; undefined when the row lacks the id (then the row itself is shown). */
  input: (row: Row) => CallSpec | undefined;
  sections: (data: unknown) => DetailSection[];
  /** The record itself in the answer, every field of it (an edit form starts from it: a list row lacks some). */
  record?: (data: unknown) => Row;
}

export interface ResourceDef {
  /** What `:` completes and `subctl console <name>` takes. */
  name: string;
  aliases?: string[];
  endpoint: AnyEndpoint;
  columns?: string[];
  /** Shorter table headers for some columns (the CSV export keeps the field names). */
  labels?: Record<string, string>;
  /** The field that identifies a row (marks, confirmations). */
  idField?: string;
  /** A richer view than the row, fetched on Enter. */
  detail?: DetailDef;
  /** A row as the table draws it (the audit log's target and change); actions and exports use the row as sent. */
  view?: (row: Row) => Row;
}

const asRows = (v: unknown): Row[] => (Array.isArray(v) ? (v.filter((r) => r && typeof r === 'object') as Row[]) : []);
const asObject = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});

/** A detail answer's lists as the screen's tables, under the titles and columns of src/resources/. */
const tableSections = (d: Row, tables: readonly DetailTable[]): DetailSection[] =>
  tables.map((t) => ({ kind: 'table', title: t.title, rows: asRows(d[t.key]), columns: t.columns }));

/** The record of a detail answer as the screen's key/values, under its title. */
const recordSection = (d: Row, record: DetailRecord): DetailSection => ({
  kind: 'kv',
  title: record.title,
  value: asObject(d[record.key]),
});

const serviceDetail: DetailDef = {
  endpoint: servicesDetail,
  input: (row) =>
    row.service_code !== undefined && row.service_code !== null
      ? { query: { service_code: String(row.service_code) } }
      : row.service_id !== undefined
        ? { query: { service_id: Number(row.service_id) } }
        : undefined,
  sections: (data) => {
    const d = asObject(data);
    const { record, tables, usage } = SERVICE_DETAIL;
    const stats = usageByDate(asRows(d[usage.key]));
    const sections = [recordSection(d, record), ...tableSections(d, tables)];
    if (stats.length) sections.push({ kind: 'table', title: usage.title, rows: stats, columns: usage.columns });
    return sections;
  },
  record: (data) => asObject(asObject(data)[SERVICE_DETAIL.record.key]),
};

const servicePlanDetail: DetailDef = {
  endpoint: servicePlansDetail,
  input: (row) =>
    row.service_plan_id !== undefined && row.service_plan_id !== null ? { params: { id: Number(row.service_plan_id) } } : undefined,
  sections: (data) => {
    const d = asObject(data);
    return [recordSection(d, SERVICE_PLAN_DETAIL.record), ...tableSections(d, SERVICE_PLAN_DETAIL.tables)];
  },
  record: (data) => asObject(asObject(data)[SERVICE_PLAN_DETAIL.record.key]),
};

/** A user's account (GET /users/{id}); S W A from here open their subscriptions, wallet and audit (src/ui/jumps.ts). */
const userAccountDetail: DetailDef = {
  endpoint: usersGet,
  input: (row) => (row.user_id !== undefined && row.user_id !== null ? { params: { id: Number(row.user_id) } } : undefined),
  sections: (data) => {
    return [
      { kind: 'kv', title: 'Account', value: accountInOrder(userDetail(asObject(data))) },
      {
        kind: 'lines',
        title: 'What is theirs',
        lines: ['S subscriptions   W wallet transactions   A audit entries by them   (Esc comes back)'],
      },
    ];
  },
  record: (data) => userDetail(asObject(data)),
};

/** Every resource, in the order the switcher lists them. */
export const RESOURCES: readonly ResourceDef[] = [
  { name: 'services', endpoint: servicesList, columns: SERVICE_COLUMNS, idField: 'service_id', detail: serviceDetail },
  {
    name: 'service-plans',
    endpoint: servicePlansList,
    columns: SERVICE_PLAN_COLUMNS,
    idField: 'service_plan_id',
    detail: servicePlanDetail,
  },
  { name: 'plans', endpoint: plansList, columns: PLAN_COLUMNS, idField: 'plan_id' },
  { name: 'subscriptions', aliases: ['subs'], endpoint: subscriptionsList, columns: SUBSCRIPTION_COLUMNS, idField: 'subscription_id' },
  { name: 'usage-codes', aliases: ['codes'], endpoint: usageCodesList, columns: CODE_COLUMNS, idField: 'code_id' },
  { name: 'wallet', endpoint: walletList, columns: WALLET_COLUMNS, idField: 'transaction_id' },
  { name: 'audit', endpoint: auditList, columns: AUDIT_COLUMNS, idField: 'id', view: readableAudit },
  {
    name: 'users',
    endpoint: usersList,
    columns: USER_COLUMNS,
    labels: { user_id: 'id' },
    idField: 'user_id',
    detail: userAccountDetail,
  },
  {
    name: 'users-search',
    endpoint: usersSearch,
    columns: USER_SEARCH_COLUMNS,
    labels: { user_id: 'id' },
    idField: 'user_id',
    detail: userAccountDetail,
  },
  {
    name: 'roles',
    endpoint: rolesList,
    columns: ROLE_COLUMNS,
    // Headers no wider than their values, so that 80 columns show them whole.
    labels: { role_id: 'id', is_system_role: 'system', is_active: 'active', user_count: 'users', permission_count: 'perms' },
    idField: 'role_id',
  },
  {
    name: 'role-assignments',
    endpoint: rolesAssignments,
    columns: ROLE_ASSIGNMENT_COLUMNS,
    labels: { user_id: 'id', role_level: 'level' },
    idField: 'user_id',
  },
  // The referral lists' items are not described by the specification, so the command line
  // prints the keys the platform sends; the console names its columns (the id and the names
  // first, as a narrow terminal hides columns from the right) under headers that still differ
  // when cut down: `referral_use_id`, `referral_code`, `referrer_username` would all read `refer…`.
  // A platform whose rows have none of them gets its own keys (src/ui/table-layout.ts).
  {
    name: 'referrals',
    endpoint: referralsAdminList,
    columns: ['referral_use_id', 'username', 'referrer_username', 'referral_code', 'referral_date', 'code_status', 'status'],
    labels: {
      referral_use_id: 'use_id',
      username: 'referred',
      referrer_username: 'referrer',
      referral_code: 'code',
      referral_date: 'date',
    },
    idField: 'referral_use_id',
  },
  {
    name: 'referral-codes',
    endpoint: referralsAdminSearch,
    columns: ['referral_id', 'referral_code', 'owner_username', 'status', 'used_count', 'usage_limit', 'expiry_date', 'description'],
    labels: {
      referral_id: 'id',
      referral_code: 'code',
      owner_username: 'owner',
      used_count: 'used',
      usage_limit: 'limit',
      expiry_date: 'expires',
    },
    idField: 'referral_id',
  },
  {
    name: 'referred-users',
    endpoint: referralsAdminReferred,
    columns: ['user_id', 'username', 'full_name', 'referrer_username', 'referral_code', 'referral_date', 'status'],
    labels: { referrer_username: 'referrer', referral_code: 'code', referral_date: 'referred_on' },
    idField: 'referral_use_id',
  },
];

/** The switcher's other destination besides the resources. */
export const HOME = 'home';

export function resourceByName(name: string): ResourceDef | undefined {
  const n = name.trim().toLowerCase();
  return RESOURCES.find((r) => r.name === n || r.aliases?.includes(n));
}

/**
 * Completion for the switcher: names starting with `text` first, then names containing it.
 * `completeResource('sub') -> ['subscriptions']`, `completeResource('') -> every name`.
 */
export function completeResource(text: string): string[] {
  const t = text.trim().toLowerCase();
  const names = [HOME, ...RESOURCES.map((r) => r.name)];
  if (!t) return names;
  const alias = RESOURCES.filter((r) => r.aliases?.some((a) => a.startsWith(t))).map((r) => r.name);
  const starts = names.filter((n) => n.startsWith(t));
  const contains = names.filter((n) => !n.startsWith(t) && n.includes(t));
  return [...new Set([...starts, ...alias, ...contains])];
}

/** The server-side filters of a resource: its query fields, less paging and sorting. */
export function filterFields(r: ResourceDef): Array<[string, FieldInfo]> {
  const skip = new Set([r.endpoint.paging?.page, r.endpoint.paging?.size, 'sort_by', 'sort_order', 'include_summary']);
  return describeObject(r.endpoint.query).filter(([k]) => !skip.has(k));
}

export interface SortInfo {
  values: readonly string[];
  defaultBy: string;
  defaultOrder: 'ASC' | 'DESC';
}

/** The `sort_by` enum of a resource's endpoint, with the contract's defaults; undefined when it has none. */
export function sortInfo(r: ResourceDef): SortInfo | undefined {
  const shape = r.endpoint.query?.shape as Record<string, import('zod').ZodType> | undefined;
  if (!shape?.sort_by) return undefined;
  const by = describeField(shape.sort_by);
  if (by.kind !== 'enum' || !by.values?.length) return undefined;
  const order = shape.sort_order ? describeField(shape.sort_order) : undefined;
  return {
    values: by.values,
    defaultBy: String(by.defaultValue ?? by.values[0]),
    defaultOrder: order?.defaultValue === 'ASC' ? 'ASC' : 'DESC',
  };
}

/** A row's identity for marks: its id field, else its JSON. */
export function rowKey(r: ResourceDef, row: Row): string {
  const id = r.idField ? row[r.idField] : undefined;
  return id !== undefined && id !== null ? String(id) : JSON.stringify(row);
}
