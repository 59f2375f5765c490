/**
 * Lists: one page by default, every page with `--all`, at most N rows with `--limit N`.
 * Pages are fetched ahead of the printer (a few in flight) but printed strictly in order;
 * rows are streamed to the printer, so memory stays flat for millions of rows.
 */
import type { ApiClient } from '../api/client.js';
import { itemFieldsOf, type AnyEndpoint } from '../api/contract/common.js';
import { BadResponseError, CliError } from '../api/errors.js';
import { printList } from '../output/index.js';
import type { Ctx } from './context.js';

export interface PageInfo {
  page: number;
  size: number;
  totalPages?: number;
  totalRecords?: number;
}

/** Blocks besides the rows (usage-code and wallet summaries): given the first page's data. */
export type ListExtras = (data: Record<string, unknown>, ctx: Ctx) => Promise<void> | void;

type Call = { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> };

export function itemsOf(ep: AnyEndpoint, data: unknown): Record<string, unknown>[] {
  const key = ep.paging?.items ?? '';
  const arr = key ? (data as Record<string, unknown> | null)?.[key] : data;
  if (arr === undefined || arr === null) return [];
  if (!Array.isArray(arr)) throw new BadResponseError(`expected a list under '${key || 'data'}' in the answer of ${ep.method} ${ep.path}`);
  return arr as Record<string, unknown>[];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined);

export function pageInfoOf(ep: AnyEndpoint, data: unknown, page: number, size: number): PageInfo {
  const key = ep.paging?.info ?? '';
  const src = (key ? (data as Record<string, unknown> | null)?.[key] : data) as Record<string, unknown> | undefined;
  if (!src || typeof src !== 'object') return { page, size };
  return {
    page,
    size,
    totalPages: num(src.total_pages),
    totalRecords: num(src.total_records ?? src.total_count ?? src.total_items ?? src.total_rows),
  };
}

/** The field that identifies a row of each list, for de-duplication across shifting pages. */
const ROW_KEYS: Record<string, string> = {
  services: 'service_id',
  service_plans: 'service_plan_id',
  subscription_plans: 'plan_id',
  subscriptions: 'subscription_id',
  usage_codes: 'code_id',
  transactions: 'transaction_id',
  logs: 'id',
  users: 'user_id',
  roles: 'role_id',
};

export function rowKeyOf(ep: AnyEndpoint): (row: Record<string, unknown>) => unknown {
  const field = ROW_KEYS[ep.paging?.items ?? ''];
  return field ? (row) => row[field] ?? JSON.stringify(row) : (row) => JSON.stringify(row);
}

/**
 * A set of whole numbers from 0 to 2^32 - 1 as bits, in blocks of 65,536 made as they are first
 * needed: what an export has printed, by id, in flat memory.
 */
export class IdBitmap {
  readonly #blocks = new Map<number, Uint32Array>();
  static fits(k: unknown): k is number {
    return typeof k === 'number' && Number.isInteger(k) && k >= 0 && k <= 0xffffffff;
  }
  has(k: number): boolean {
    const b = this.#blocks.get(Math.floor(k / 65536));
    const i = k % 65536;
    return b !== undefined && (b[i >>> 5]! & (1 << (i & 31))) !== 0;
  }
  add(k: number): void {
    const at = Math.floor(k / 65536);
    let b = this.#blocks.get(at);
    if (!b) this.#blocks.set(at, (b = new Uint32Array(2048)));
    const i = k % 65536;
    b[i >>> 5]! |= 1 << (i & 31);
  }
}

/**
 * Every row from `startPage` on, in order, with up to `ahead` pages fetched concurrently.
 *
 * Offset paging over a table that changes during the walk shifts rows between pages. Rows
 * added before the read position push rows already printed onto later pages: they are
 * recognised by their key (every id printed is remembered; other keys, the last 8 pages') and
 * not printed twice. Rows deleted before the read position pull unread rows back onto pages
 * already read: when the server's total drops between two pages, as many pages back as the
 * drop could reach are fetched again and their unseen rows printed. (Rows that move to an
 * earlier place in the order while the walk runs, a sort key changed, can still be missed:
 * offset paging cannot see them.) The walk ends at the first short page, not at the page count the first
 * page announced, so rows added at the end are not lost either.
 */
export async function* walkPages(
  api: ApiClient,
  ep: AnyEndpoint,
  call: Call,
  opts: { startPage: number; size: number; ahead: number; signal: AbortSignal; onFirst?: (data: unknown, info: PageInfo) => void },
): AsyncGenerator<Record<string, unknown>> {
  const paging = ep.paging!;
  const keyOf = rowKeyOf(ep);
  const fetchPage = (page: number) =>
    api.call(ep, { ...call, query: { ...call.query, [paging.page]: page, [paging.size]: opts.size } } as never, { signal: opts.signal });
  // Keys of the rows printed: every whole-number key (ids, the usual case), in a bitmap of a bit
  // per id (a million ids about 128 KB); other keys, those of the last few pages only. Only the
  // last 8 pages' keys were kept: rows added faster than 8 pages per page read came back
  // (3,414 duplicates in an audit export beside a bulk run).
  const WINDOW = 8;
  const ids = new IdBitmap();
  const recent: Array<Set<unknown>> = [];
  const seen = (k: unknown) => (IdBitmap.fits(k) ? ids.has(k) : recent.some((s) => s.has(k)));
  let next = opts.startPage;
  // Pages are fetched ahead only as far as the server says there are pages; past that, one at a time.
  let announced = Infinity;
  let ended = false;
  let lastTotal: number | undefined;
  const inflight: Array<{ page: number; promise: Promise<unknown> }> = [];
  const fill = () => {
    while (!ended && inflight.length < opts.ahead && (next <= announced || inflight.length === 0)) {
      const page = next++;
      const promise = fetchPage(page);
      promise.catch(() => {}); // observed when awaited in order
      inflight.push({ page, promise });
    }
  };
  inflight.push({ page: next, promise: fetchPage(next++) });
  let first = true;
  while (inflight.length) {
    const { page, promise } = inflight.shift()!;
    let data: unknown;
    try {
      data = await promise;
    } catch (e) {
      // Every row of the pages before this one is out: say where a second run can take over
      // (after Ctrl-C too: an export stopped by hand is continued the same way).
      if (e instanceof CliError && page > opts.startPage) {
        const before = page - 1 === opts.startPage ? `page ${opts.startPage} was` : `pages ${opts.startPage}-${page - 1} were`;
        e.done = `${before} printed whole; to go on from page ${page}, run the same command with --page-number ${page} --page-size ${opts.size}`;
      }
      throw e;
    }
    const info = pageInfoOf(ep, data, page, opts.size);
    if (info.totalPages !== undefined) announced = Math.max(info.totalPages, opts.startPage);
    if (first) {
      opts.onFirst?.(data, info);
      first = false;
    }
    const items = itemsOf(ep, data);
    const pageKeys = new Set<unknown>();
    const mark = (k: unknown) => (IdBitmap.fits(k) ? ids.add(k) : pageKeys.add(k));
    for (const it of items) {
      const k = keyOf(it);
      if (seen(k) || pageKeys.has(k)) continue;
      mark(k);
      yield it;
    }
    recent.push(pageKeys);
    if (recent.length > WINDOW) recent.shift();
    // Rows deleted behind the read position: read again as many pages back as the rows deleted
    // could have pulled unread rows onto (what was printed is known: only unseen rows print).
    // At most 7 pages back were read: 1,200 rows deleted during a walk lost 69 that stayed.
    if (info.totalRecords !== undefined && lastTotal !== undefined && info.totalRecords < lastTotal && page > opts.startPage) {
      const back = Math.ceil((lastTotal - info.totalRecords) / opts.size) + 1;
      for (let p = Math.max(opts.startPage, page - back); p <= page; p++) {
        for (const it of itemsOf(ep, await fetchPage(p))) {
          const k = keyOf(it);
          if (seen(k) || pageKeys.has(k)) continue;
          mark(k);
          yield it;
        }
      }
    }
    if (info.totalRecords !== undefined) lastTotal = info.totalRecords;
    if (items.length < opts.size) {
      ended = true;
      break;
    }
    fill();
  }
}

export async function runList(ctx: Ctx, ep: AnyEndpoint, call: Call, opts: { columns?: string[]; extras?: ListExtras; view?: (row: Record<string, unknown>) => Record<string, unknown> }): Promise<number> {
  const api = await ctx.api();
  const g = ctx.globals;
  const paging = ep.paging!;
  // The default columns shape the table; csv, like json, carries every field unless --fields,
  // the table's columns first (the server's field order is lost to the response schema, which
  // lists fields alphabetically).
  const out = {
    format: g.output,
    fields: g.fields,
    columns: g.output === 'table' ? opts.columns : undefined,
    lead: g.output === 'csv' ? opts.columns : undefined,
    emptyHeader: () => itemFieldsOf(ep, paging.items ?? ''),
    io: ctx.io,
    noColor: g.noColor,
    wide: g.wide,
  };
  const givenPage = call.query?.[paging.page] as number | undefined;
  const givenSize = call.query?.[paging.size] as number | undefined;

  if (!g.all && g.limit === undefined) {
    const data = (await api.call(ep, call as never, { signal: ctx.signal })) as Record<string, unknown>;
    let items = itemsOf(ep, data);
    // A table may read a row its own way (the audit log's target and change); scripts get it as sent.
    if (opts.view && g.output === 'table') items = items.map(opts.view);
    const page = givenPage ?? 1;
    const info = pageInfoOf(ep, data, page, givenSize ?? paging.defaultSize);
    await printList(items, out);
    // No data at all (lenient: `data: null` is not a contract breach): no summary to print either.
    if (data !== null && typeof data === 'object') await opts.extras?.(data, ctx);
    if (ctx.io.stderrIsTTY && ctx.io.stdoutIsTTY && !g.quiet) {
      const total = info.totalRecords;
      const more = info.totalPages !== undefined ? page < info.totalPages : total !== undefined && page * info.size < total;
      if (more) {
        const from = (page - 1) * info.size + 1;
        ctx.note(
          `showing rows ${from}-${from + items.length - 1}${total !== undefined ? ` of ${total}` : ''}; --page-number ${page + 1} for the next page, --all for every row`,
        );
      }
    }
    return 0;
  }

  // --all / --limit: the largest page size the contract allows, unless one was given; many pages
  // may follow, so the client takes its faster-per-request transport.
  if (g.all || (g.limit ?? 0) > (givenSize ?? paging.defaultSize)) api.preferThroughput();
  const size = givenSize ?? paging.maxSize;
  const limit = g.limit ?? Infinity;
  let firstData: Record<string, unknown> | undefined;
  let total: number | undefined;
  const rows = walkPages(api, ep, call, {
    startPage: givenPage ?? 1,
    size,
    ahead: g.limit !== undefined ? Math.max(1, Math.min(4, Math.ceil(g.limit / size))) : 4,
    signal: ctx.signal,
    onFirst: (d, info) => {
      firstData = d as Record<string, unknown>;
      total = info.totalRecords;
    },
  });
  async function* limited() {
    let n = 0;
    if (n >= limit) return;
    const view = opts.view && g.output === 'table' ? opts.view : undefined;
    for await (const r of rows) {
      yield view ? view(r) : r;
      if (++n >= limit) break;
    }
  }
  const printed = await printList(limited(), out);
  await rows.return(undefined);
  if (firstData) await opts.extras?.(firstData, ctx);
  if (g.limit !== undefined && total !== undefined && printed < total && ctx.io.stderrIsTTY && !g.quiet) {
    ctx.note(`showing ${printed} of ${total} rows (--limit ${g.limit}); --all for every row`);
  }
  return 0;
}
