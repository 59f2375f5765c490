/**
 * A third reading of the two API documents, as a stub platform: a loopback server in front of a
 * sandbox in its default dialect that answers the same data written otherwise, where the
 * documents leave room and neither of the sandbox's dialects (src/sandbox/dialect.ts) goes:
 *
 * - the envelope is JSend's `{status: "success", data}` with `request_id`, `meta` and `links`
 *   beside it and no `message`;
 * - booleans are `"Y"`/`"N"`;
 * - date-times carry the offset of Tokyo (`2026-01-31T19:00:00+09:00`), the same instants;
 * - a list inside an answer that holds nothing is `null`, not `[]`;
 * - the platform serves at most PAGE_CAP rows a page whatever size is asked (and says which size
 *   it served), so every page of a long list is shorter than the size the client asked for;
 * - a paged list says whether a next page follows (`has_next_page`) and nothing else (no page
 *   count, no row count), except the referral lists, which give only their row count, as text;
 * - a paged list's rows come under `records` where the documents name another key.
 *
 * The client's requests go to the sandbox as sent, but for the page size, capped (the stub's
 * own request: what the client sent is recorded in `requests`).
 */
import type { AnyEndpoint } from '../../src/api/contract/common.js';
import { matchEndpoint } from '../../src/api/contract/index.js';
import { startStubServer, type RecordedRequest, type StubServer } from '../support/stub-server.js';

/** The most rows the third platform serves in a page, whatever page size is asked. */
export const PAGE_CAP = 7;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Totals in every spelling the sandbox writes them (flat or in a block): this platform gives none. */
const TOTALS = new Set(['total_pages', 'total_records', 'total_items', 'total_count', 'total_rows', 'has_next_page', 'has_previous_page']);
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/;

/** A UTC ISO time as the same instant in Tokyo's offset. */
function tokyo(iso: string): string {
  const ms = Date.parse(iso) + 9 * 3600_000;
  return `${new Date(ms).toISOString().slice(0, 19)}+09:00`;
}

/** One value written the third way (a deep copy). */
function thirdValue(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 'Y' : 'N';
  if (typeof v === 'string') return ISO_TIME.test(v) ? tokyo(v) : v;
  if (Array.isArray(v)) return v.length === 0 ? null : v.map(thirdValue);
  if (isObject(v)) {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) out[k] = thirdValue(x);
    return out;
  }
  return v;
}

/** Whether the sandbox's answer says a page follows this one: from its totals, before they are dropped. */
function nextFollows(data: Json, page: number): boolean {
  const blocks = [data, ...['pagination', 'page_info'].map((k) => data[k]).filter(isObject)];
  for (const b of blocks) {
    if (typeof b.has_next_page === 'boolean') return b.has_next_page;
    if (typeof b.total_pages === 'number') return page < b.total_pages;
  }
  throw new Error(`no paging facts in ${JSON.stringify(Object.keys(data))}`);
}

/** A paged list's `data`, the third way. */
function thirdPage(ep: AnyEndpoint, data: Json, page: number): Json {
  const paging = ep.paging!;
  const more = nextFollows(data, page) ? 'Y' : 'N';
  const lists = Object.keys(data).filter((k) => Array.isArray(data[k]));
  const out: Json = {};
  for (const [k, v] of Object.entries(data)) {
    if (TOTALS.has(k)) continue;
    if (k === paging.items && lists.length === 1) out.records = Array.isArray(v) ? v.map(thirdValue) : v;
    else if (k === paging.items) out[k] = Array.isArray(v) ? v.map(thirdValue) : v;
    else if (isObject(v) && ['pagination', 'page_info'].includes(k))
      out[k] = Object.fromEntries(Object.entries(v).filter(([x]) => !TOTALS.has(x)));
    else out[k] = thirdValue(v);
  }
  // Where the sandbox keeps its paging facts is where this platform gives its own.
  const block = isObject(out.pagination) ? out.pagination : isObject(out.page_info) ? out.page_info : out;
  if (ep.name.startsWith('referrals.')) block.total_records = String((data.pagination as Json).total_records);
  else block.has_next_page = more;
  return out;
}

export interface ThirdPlatform {
  url: string;
  /** What the client sent, as received. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * `fetch`, once more for a read whose kept-alive connection the sandbox closed as it was reused
 * (undici's "other side closed": the request never reached the sandbox).
 */
async function forward(url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    if (init.method !== 'GET') throw e;
    return fetch(url, init);
  }
}

/** The third platform in front of the sandbox at `upstream`. */
export async function startThirdPlatform(upstream: string): Promise<ThirdPlatform> {
  let n = 0;
  const stub: StubServer = await startStubServer(async (req) => {
    const match = matchEndpoint(req.method, req.path);
    const query = { ...req.query };
    const paging = match?.endpoint.paging;
    const page = paging ? Number(query[paging.page] ?? 1) : 1;
    if (paging) query[paging.size] = String(Math.min(Number(query[paging.size] ?? paging.defaultSize), PAGE_CAP));
    const url = new URL(req.path, upstream);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'x-device-id', 'x-session-id'])
      if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
    const res = await forward(url, { method: req.method, headers, body: req.rawBody || undefined });
    const body = (await res.json()) as Json;
    if (body.status !== true) return { status: res.status, json: body };
    const data = body.data;
    const third = paging && isObject(data) ? thirdPage(match.endpoint, data, page) : thirdValue(data);
    const id = `req-${++n}`;
    return {
      status: res.status,
      json: { status: 'success', data: third, request_id: id, meta: { request_id: id, api_version: '1' }, links: { self: req.path } },
    };
  });
  return { url: stub.url, requests: stub.requests, close: () => stub.close() };
}
