/**
 * Lists: one page by default, every page with `--all`, at most N rows with `--limit N`.
 * Pages are fetched ahead of the printer (a few in flight) but printed strictly in order
 * (src/api/page-walk.ts); rows are streamed to the printer, so memory stays flat for millions
 * of rows.
 */
import { itemFieldsOf, type AnyEndpoint } from '../api/contract/common.js';
import { walkPages, type ListCall } from '../api/page-walk.js';
import { noRows, pageInfoOf } from '../api/pages.js';
import { findRows } from '../api/rows.js';
import { printList, printObject } from '../output/index.js';
import { exportProgress } from '../output/progress.js';
import type { Ctx } from './context.js';

/** Blocks besides the rows (usage-code and wallet summaries): given the first page's data. */
export type ListExtras = (data: Record<string, unknown>, ctx: Ctx) => Promise<void> | void;

/**
 * The rows of a list answer a command prints whole (a list the API does not page, or one page):
 * `key` is where the API documents name them ('' for `data` itself). Rows found elsewhere are
 * said once on stderr; none to be found is an error, except with -o json|ndjson, where the
 * caller prints `data` as received (undefined is returned then).
 */
export function listRows(ctx: Ctx, ep: AnyEndpoint, data: unknown, key?: string): Record<string, unknown>[] | undefined {
  const found = findRows(ep, data, key);
  if (!found.rows && ctx.globals.output !== 'json' && ctx.globals.output !== 'ndjson') throw noRows(found.note!);
  if (found.note) ctx.warn(found.note);
  return found.rows;
}

/** On a terminal, one page of several: which rows were shown, and how to see the others. */
function noteMorePages(ctx: Ctx, info: ReturnType<typeof pageInfoOf>, page: number, shown: number): void {
  const total = info.totalRecords;
  // A platform serving fewer rows a page than asked says so (`served`); one without totals may still say a page follows.
  const size = info.served !== undefined && info.served < info.size ? info.served : info.size;
  const more = info.totalPages !== undefined ? page < info.totalPages : total !== undefined ? page * size < total : info.hasNext === true;
  if (!more) return;
  const from = (page - 1) * size + 1;
  ctx.note(
    `showing rows ${from}-${from + shown - 1}${total !== undefined ? ` of ${total}` : ''}; --page-number ${page + 1} for the next page, --all for every row`,
  );
}

interface ListOpts {
  columns?: string[];
  extras?: ListExtras;
  view?: (row: Record<string, unknown>) => Record<string, unknown>;
}
type ListOut = Parameters<typeof printList>[1];
type Api = Awaited<ReturnType<Ctx['api']>>;

export async function runList(ctx: Ctx, ep: AnyEndpoint, call: ListCall, opts: ListOpts): Promise<number> {
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
  if (!g.all && g.limit === undefined) return printPage(ctx, api, ep, call, opts, out);
  return printPages(ctx, api, ep, call, opts, out);
}

/** One page, as asked (or the first), with a note on a terminal when there are more. */
async function printPage(ctx: Ctx, api: Api, ep: AnyEndpoint, call: ListCall, opts: ListOpts, out: ListOut): Promise<number> {
  const g = ctx.globals;
  const paging = ep.paging!;
  const givenPage = call.query?.[paging.page] as number | undefined;
  const givenSize = call.query?.[paging.size] as number | undefined;
  const data = (await api.call(ep, call as never, { signal: ctx.signal })) as Record<string, unknown>;
  let items = listRows(ctx, ep, data);
  if (!items) {
    // Rows the reader could not find are not an empty list: the answer is printed as received.
    await printObject(data, { format: g.output, io: ctx.io, noColor: g.noColor });
    return 0;
  }
  // A table may read a row its own way (the audit log's target and change); scripts get it as sent.
  if (opts.view && g.output === 'table') items = items.map(opts.view);
  const page = givenPage ?? 1;
  const info = pageInfoOf(ep, data, page, givenSize ?? paging.defaultSize);
  await printList(items, out);
  // No data at all (lenient: `data: null` is not a contract breach): no summary to print either.
  if (data !== null && typeof data === 'object') await opts.extras?.(data, ctx);
  if (ctx.io.stderrIsTTY && ctx.io.stdoutIsTTY && !g.quiet) noteMorePages(ctx, info, page, items.length);
  return 0;
}

/** Every page (--all), or the pages up to --limit rows, streamed to the printer. */
async function printPages(ctx: Ctx, api: Api, ep: AnyEndpoint, call: ListCall, opts: ListOpts, out: ListOut): Promise<number> {
  const g = ctx.globals;
  const paging = ep.paging!;
  const givenPage = call.query?.[paging.page] as number | undefined;
  const givenSize = call.query?.[paging.size] as number | undefined;
  // --all / --limit: the largest page size the contract allows, unless one was given; many pages
  // may follow, so the client takes its faster-per-request transport.
  if (g.all || (g.limit ?? 0) > (givenSize ?? paging.defaultSize)) api.preferThroughput();
  // A page number counts pages of the size given, else of the endpoint's default (as without
  // --limit); only a walk from the first page takes the largest pages.
  const size = givenSize ?? (givenPage !== undefined ? paging.defaultSize : paging.maxSize);
  const limit = g.limit ?? Infinity;
  let firstData: Record<string, unknown> | undefined;
  let total: number | undefined;
  const rows = walkPages(api, ep, call, {
    startPage: givenPage ?? 1,
    size,
    ahead: g.limit !== undefined ? Math.max(1, Math.min(4, Math.ceil(g.limit / size))) : 4,
    signal: ctx.signal,
    limit: g.limit,
    onFirst: (d, info) => {
      firstData = d as Record<string, unknown>;
      total = info.totalRecords;
      progress.total(total);
    },
    note: (text) => ctx.warn(text),
  });
  // On a terminal, a progress line (src/output/progress.ts); nothing elsewhere.
  const progress = exportProgress(ctx.io);
  async function* limited() {
    let n = 0;
    if (n >= limit) return;
    const view = opts.view && g.output === 'table' ? opts.view : undefined;
    for await (const r of rows) {
      yield view ? view(r) : r;
      progress.row();
      if (++n >= limit) break;
    }
  }
  const printed = await printList(limited(), out).finally(() => progress.done());
  await rows.return(undefined);
  if (firstData) await opts.extras?.(firstData, ctx);
  if (g.limit !== undefined && total !== undefined && printed < total && ctx.io.stderrIsTTY && !g.quiet) {
    ctx.note(`showing ${printed} of ${total} rows (--limit ${g.limit}); --all for every row`);
  }
  return 0;
}
