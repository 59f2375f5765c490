/**
 * The requests behind the console's screens: the dashboard, a list as it stands (page, size,
 * filters, sort), a row's detail; and a list answer read as rows and page facts.
 */
import { dashboardGet } from '../api/contract/admin-misc.js';
import { itemsOf, pageInfoOf } from '../api/pages.js';
import type { QuerySpec } from './query-cache.js';
import { resourceByName, type ResourceDef, type Row } from './resources.js';
import type { ListState } from './state/console-state.js';

/** Lines of the screen that are not table rows: header, title, table header, status, two lines of keys, one spare (a frame as tall as the terminal makes Ink clear the screen on every draw). */
export const CHROME_LINES = 7;

export const dashboardSpec: QuerySpec = { endpoint: dashboardGet, input: {} };

/** The request of a list as it stands (page, size, filters, sort). */
export function listSpec(r: ResourceDef, ls: ListState): QuerySpec {
  const paging = r.endpoint.paging!;
  const query: Record<string, unknown> = { ...ls.filters, [paging.page]: ls.page, [paging.size]: ls.size };
  if (ls.sortBy) query.sort_by = ls.sortBy;
  if (ls.sortOrder) query.sort_order = ls.sortOrder;
  return { endpoint: r.endpoint, input: { query } };
}

/** Rows and page facts of a list answer; undefined rows when the answer is not a list. */
export function pageOf(
  r: ResourceDef,
  ls: ListState,
  data: unknown,
): { rows: Row[]; totalPages?: number; totalRecords?: number; hasNext?: boolean } {
  let rows: Row[];
  try {
    rows = itemsOf(r.endpoint, data);
  } catch {
    rows = [];
  }
  const info = pageInfoOf(r.endpoint, data, ls.page, ls.size);
  const totalPages = info.totalPages ?? (info.totalRecords !== undefined ? Math.max(1, Math.ceil(info.totalRecords / ls.size)) : undefined);
  return { rows, totalPages, totalRecords: info.totalRecords, hasNext: info.hasNext };
}

/** A detail request for a row, when the resource has one and the row carries its id. */
export function detailSpec(r: ResourceDef, row: Row): QuerySpec | undefined {
  const input = r.detail?.input(row);
  return r.detail && input ? { endpoint: r.detail.endpoint, input } : undefined;
}

/** Rows per server page for a resource: the given size, else what fits the terminal. */
export function pageSizeFor(r: ResourceDef, viewport: { rows: number }, pageSize?: number): number {
  const paging = r.endpoint.paging!;
  return Math.max(1, Math.min(paging.maxSize, pageSize ?? Math.max(5, Math.max(3, viewport.rows - CHROME_LINES))));
}

/** The request of the console's first screen: page 1 of `resource`, or the dashboard. */
export function firstScreenSpec(resource: string | undefined, viewport: { rows: number }, pageSize?: number): QuerySpec | undefined {
  if (!resource) return dashboardSpec;
  const r = resourceByName(resource);
  if (!r) return undefined;
  return listSpec(r, { resource: r.name, page: 1, size: pageSizeFor(r, viewport, pageSize), filters: {}, selected: 0, marked: {} });
}
