/**
 * Every row of a paged list, each once: pages fetched a few ahead and read strictly in order,
 * the list walked again while it changes under the walk. Exports (src/cli/paging.ts), bulk runs
 * reading their targets (src/bulk/) and the subscription look-ups of `subscriptions manage` walk
 * lists this way.
 */
import type { AnyEndpoint } from './contract/common.js';
import { CliError, ExitCode } from './errors.js';
import { itemsOf, pageInfoOf, type PageInfo } from './pages.js';
import { readId } from './read-values.js';

/** What a walk needs of a client: ApiClient's `call` (the resources' views hold only that). */
export interface PageCaller {
  call(ep: AnyEndpoint, input: never, opts?: { signal?: AbortSignal }): Promise<unknown>;
}

/** The request of a list, less its page number and size (the walk sets them). */
export type ListCall = { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> };

/** Whether a page's answer holds a list at all, wherever findRows would take it from (`data: null`, or an object with no list, does not). */
function hasList(_ep: AnyEndpoint, data: unknown): boolean {
  if (Array.isArray(data)) return true;
  return data !== null && typeof data === 'object' && Object.values(data as Record<string, unknown>).some(Array.isArray);
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

function rowKeyOf(ep: AnyEndpoint): (row: Record<string, unknown>) => unknown {
  const field = ROW_KEYS[ep.paging?.items ?? ''];
  // The id read with care (`'42'` and 42 are one row); a row without a readable id is known by its content.
  return field
    ? (row) => (row !== null && typeof row === 'object' ? readId(row[field]) : undefined) ?? JSON.stringify(row)
    : (row) => JSON.stringify(row);
}

/**
 * A set of whole numbers from 0 to 2^32 - 1 as bits, in blocks of 65,536 made as they are first
 * needed: what an export has printed, by id, in flat memory.
 */
class IdBitmap {
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

/** Passes over the list at most: the first, and rescans while the list keeps changing under them. */
const MAX_PASSES = 5;
/** Pages in a row that bring no row not printed yet before an export is called a repeating one. */
const IDLE_PAGES = 8;

/** An export that could not account for every row: exit 6, the rows printed so far kept. */
function incompleteExport(message: string, hint: string, done?: string): CliError {
  const e = new CliError('incomplete', ExitCode.server, message, { hint });
  if (done !== undefined) e.done = done;
  return e;
}

/** The rows printed, by key: whole-number ids in a bitmap, other keys (strings, row contents) in a set. */
class PrintedRows {
  readonly #ids = new IdBitmap();
  readonly #other = new Set<unknown>();
  count = 0;
  has(k: unknown): boolean {
    return IdBitmap.fits(k) ? this.#ids.has(k) : this.#other.has(k);
  }
  add(k: unknown): void {
    if (IdBitmap.fits(k)) this.#ids.add(k);
    else this.#other.add(k);
    this.count++;
  }
}

/** Whether the platform says page `page` holds rows: true, false, or undefined when it said nothing. */
function pageAnnounced(page: number, size: number, totalPages: number | undefined, totalRecords: number | undefined): boolean | undefined {
  // The count of rows first: a platform may announce one page of none (`total_pages: 1` with 0 rows).
  if (totalRecords !== undefined) return (page - 1) * size < totalRecords;
  if (totalPages !== undefined) return page <= totalPages;
  return undefined;
}

/** How the platform's announcement reads, for a message: `1,000 rows in 10 pages`. */
function announcement(totalPages: number | undefined, totalRecords: number | undefined): string {
  const parts = [totalRecords !== undefined ? `${totalRecords} rows` : '', totalPages !== undefined ? `${totalPages} pages` : ''].filter(
    Boolean,
  );
  return parts.length ? `the platform announced ${parts.join(' in ')}` : 'the platform announced no total';
}

interface WalkOpts {
  startPage: number;
  size: number;
  ahead: number;
  signal: AbortSignal;
  /** `--limit N`: stop once N rows were read, whatever their ids (no rescans then). */
  limit?: number;
  onFirst?: (data: unknown, info: PageInfo) => void;
  /** Gets the line saying where rows were read, when not under the contract's key (said once). */
  note?: (text: string) => void;
}

interface WalkState {
  printed: PrintedRows;
  /** The total the platform announced last. */
  lastTotal?: number;
  /** Rows read from the platform, duplicates included (what --limit counts). */
  read: number;
  first: boolean;
  /** The note on where rows come from is said once, for the first page. */
  noteDue?: boolean;
}

interface PassResult {
  /** The list changed under the pass: its total moved, rows already printed came back on later pages, or unseen rows turned up. */
  changed: boolean;
  pages: number;
  /** Rows added or deleted while the pass ran, by the announced totals. */
  drift: number;
  fresh: number;
  limited: boolean;
}

/**
 * Every row from `startPage` on, each printed once, and every row that existed through the
 * export among them (or exit 6 saying how many may be missing).
 *
 * Offset paging over a table that changes during the walk shifts rows between pages: rows
 * added before the read position push rows already printed onto later pages (recognised by
 * their key and not printed twice), rows deleted before it pull unread rows onto pages already
 * read. So a pass that saw the list change (its announced total moved, or a later page began
 * with rows already printed) is followed by another from the start page, printing only rows
 * not printed yet, until a pass sees no change; past MAX_PASSES the export stops with exit 6.
 * A pass ends at the first short page, not at the page count the first page announced, so rows
 * added at the end are reached. A page that breaks the announcement (empty, `data: null`,
 * without its list, short before the last page) and a platform whose pages bring nothing new
 * page after page end the export with exit 6, naming the page.
 */
export async function* walkPages(
  api: PageCaller,
  ep: AnyEndpoint,
  call: ListCall,
  opts: WalkOpts,
): AsyncGenerator<Record<string, unknown>> {
  const state: WalkState = { printed: new PrintedRows(), read: 0, first: true, noteDue: true };
  let idleBound = IDLE_PAGES;
  let last: PassResult | undefined;
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    last = yield* walkPass(api, ep, call, opts, state, pass, idleBound);
    if (!last.changed || last.limited || opts.limit !== undefined) return;
    idleBound = last.pages + IDLE_PAGES;
  }
  const missing = Math.max(last!.drift, last!.fresh);
  const idField = ROW_KEYS[ep.paging?.items ?? ''];
  throw incompleteExport(
    `the list kept changing during ${MAX_PASSES} passes over it: up to ${missing} rows that existed may be missing (${state.printed.count} printed)`,
    `run the same command again when the platform is quieter${idField ? ` and merge the two outputs by ${idField}` : ''}; every row printed is whole and printed once`,
  );
}

/**
 * The pages of a pass asked ahead of the one read, as far as the platform says there are pages
 * (`announce`); past that, one at a time. Each answer is awaited in page order.
 */
class PageQueue {
  #next: number;
  #announced = Infinity;
  readonly #inflight: Array<{ page: number; promise: Promise<unknown> }> = [];

  constructor(
    private readonly fetch: (page: number) => Promise<unknown>,
    start: number,
    private readonly ahead: number,
  ) {
    this.#next = start;
    this.#ask();
  }

  #ask(): void {
    const page = this.#next++;
    const promise = this.fetch(page);
    promise.catch(() => {}); // observed when awaited in order
    this.#inflight.push({ page, promise });
  }

  announce(totalPages: number): void {
    this.#announced = totalPages;
  }

  fill(): void {
    while (this.#inflight.length < this.ahead && (this.#next <= this.#announced || this.#inflight.length === 0)) this.#ask();
  }

  shift(): { page: number; promise: Promise<unknown> } | undefined {
    return this.#inflight.shift();
  }
}

/** One pass over the pages from the start page, printing the rows not printed yet. */
async function* walkPass(
  api: PageCaller,
  ep: AnyEndpoint,
  call: ListCall,
  opts: WalkOpts,
  state: WalkState,
  pass: number,
  idleBound: number,
): AsyncGenerator<Record<string, unknown>, PassResult> {
  const paging = ep.paging!;
  const keyOf = rowKeyOf(ep);
  const { startPage: start, size } = opts;
  const fetchPage = (page: number) =>
    api.call(ep, { ...call, query: { ...call.query, [paging.page]: page, [paging.size]: size } } as never, { signal: opts.signal });
  const result: PassResult = { changed: false, pages: 0, drift: 0, fresh: 0, limited: false };
  const resume = resumeFrom(pass, start, size);
  const queue = new PageQueue(fetchPage, start, opts.ahead);
  let totalPages: number | undefined;
  const idle: Idle = { pages: 0, from: 0, bound: idleBound };
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { page } = next;
    let data: unknown;
    try {
      data = await next.promise;
    } catch (e) {
      // Every row of the pages before this one is out: say where a second run can take over
      // (after Ctrl-C too: an export stopped by hand is continued the same way).
      const done = resume(page);
      if (e instanceof CliError && done !== undefined) e.done = done;
      throw e;
    }
    result.pages++;
    const info = pageInfoOf(ep, data, page, size);
    if (state.first) {
      opts.onFirst?.(data, info);
      state.first = false;
    }
    if (info.totalPages !== undefined) queue.announce(Math.max(info.totalPages, start));
    totalPages = info.totalPages ?? totalPages;
    noteTotal(info.totalRecords, state, result);
    // A platform may serve fewer rows a page than asked (its own cap) and say so: its pages are of that size.
    const served = servedSize(info, size);
    const items = checkedItems(ep, data, { page, size: served, start, totalPages, info }, state, opts, resume);

    let fresh = 0;
    for (const it of items) {
      if (opts.limit !== undefined && state.read >= opts.limit) break;
      state.read++;
      const k = keyOf(it);
      if (state.printed.has(k)) continue;
      state.printed.add(k);
      fresh++;
      yield it;
    }
    result.fresh += fresh;
    if (opts.limit !== undefined && state.read >= opts.limit) {
      result.limited = true;
      return result;
    }
    notePage(result, idle, { pass, page, start, fresh, rows: items.length });
    if (idle.pages >= idle.bound) throw repeatedPages(ep, idle.from, page, state, resume);
    // A short page is the last, unless the platform says a page follows it (and it holds rows).
    if (items.length < served && !(info.hasNext === true && items.length > 0)) break;
    queue.fill();
  }
  return result;
}

/** Pages in a row that brought no new row, from page `from`; `bound` of them end the export. */
interface Idle {
  pages: number;
  from: number;
  bound: number;
}

/** What a page read says of the list: changed under the pass (`result.changed`), or repeating itself (`idle`). */
function notePage(result: PassResult, idle: Idle, at: { pass: number; page: number; start: number; fresh: number; rows: number }): void {
  // Rows already printed on a later page of the first pass: rows were added before them.
  if (at.pass === 1 && at.page > at.start && at.fresh < at.rows) result.changed = true;
  if (at.pass > 1 && at.fresh > 0) result.changed = true;
  if (at.rows > 0 && at.fresh === 0) {
    if (idle.pages++ === 0) idle.from = at.page;
  } else idle.pages = 0;
}

/** The size of the pages the platform serves: the size asked, or the smaller one its answer says it served. */
function servedSize(info: PageInfo, size: number): number {
  return info.served !== undefined && info.served < size ? info.served : size;
}

/**
 * The first `n` rows of a list (all of them when it holds fewer): one page of `n` asked for, and
 * the pages after it where the platform serves fewer rows a page than asked and says more follow.
 * `onFirst` gets the first page's `data` (the blocks beside the rows).
 */
export async function firstRows(
  api: PageCaller,
  ep: AnyEndpoint,
  call: ListCall,
  n: number,
  opts: { signal?: AbortSignal; onFirst?: (data: unknown) => void } = {},
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  const signal = opts.signal ?? new AbortController().signal;
  for await (const row of walkPages(api, ep, call, { startPage: 1, size: n, ahead: 1, limit: n, signal, onFirst: opts.onFirst }))
    rows.push(row);
  return rows;
}

/** Where a second run can take over when this pass stops at `page` (undefined: from the start). */
function resumeFrom(pass: number, start: number, size: number): (page: number) => string | undefined {
  return (page) => {
    if (pass > 1)
      return `every page was read once and its rows printed; the rescan for rows moved by changes stopped at page ${page}: run the same command again`;
    if (page <= start) return undefined;
    const before = page - 1 === start ? `page ${start} was` : `pages ${start}-${page - 1} were`;
    return `${before} printed whole; to go on from page ${page}, run the same command with --page-number ${page} --page-size ${size}`;
  };
}

/** Pages `from`-`page` brought nothing new: the platform repeats its pages, and the export stops. */
function repeatedPages(ep: AnyEndpoint, from: number, page: number, state: WalkState, resume: (page: number) => string | undefined) {
  return incompleteExport(
    `pages ${from}-${page} of ${ep.method} ${ep.path} brought no row not already printed: the platform repeats its pages; the export is incomplete (${state.printed.count} rows printed)`,
    "run the same command again; if it repeats again, the platform's paging is broken (--verbose shows the exchange)",
    resume(from),
  );
}

/** A total of rows that moved between pages: the list changed under the walk, by that many rows. */
function noteTotal(totalRecords: number | undefined, state: WalkState, result: PassResult): void {
  if (totalRecords === undefined) return;
  if (state.lastTotal !== undefined && totalRecords !== state.lastTotal) {
    result.changed = true;
    result.drift += Math.abs(totalRecords - state.lastTotal);
  }
  state.lastTotal = totalRecords;
}

/**
 * The page's rows (where they are found in the answer), refused when the page contradicts what
 * the server announced: missing its list, empty, or short before the last page.
 */
function checkedItems(
  ep: AnyEndpoint,
  data: unknown,
  at: { page: number; size: number; start: number; totalPages: number | undefined; info: ReturnType<typeof pageInfoOf> },
  state: WalkState,
  opts: WalkOpts,
  resume: (page: number) => string | undefined,
): Record<string, unknown>[] {
  const paging = ep.paging!;
  const { page, size, start, totalPages, info } = at;
  const listed = hasList(ep, data);
  const items = listed ? itemsOf(ep, data, state.noteDue ? opts.note : undefined) : [];
  state.noteDue = false;
  const expected = pageAnnounced(page, size, totalPages, state.lastTotal);
  const fault = (what: string) =>
    incompleteExport(
      `page ${page} of ${ep.method} ${ep.path} came back ${what} (${announcement(totalPages, state.lastTotal)}); the export is incomplete: ${state.printed.count} rows printed`,
      `run the same command again; if it keeps failing at page ${page}, the platform's paging is broken there (--verbose shows the exchange)`,
      resume(page),
    );
  if (!listed && expected !== false && (page > start || expected === true)) {
    throw fault(data === null || data === undefined ? 'with data: null' : `without its list '${paging.items ?? 'data'}'`);
  }
  if (listed && items.length === 0 && expected === true) throw fault('empty');
  const more = info.totalRecords !== undefined ? page * size < info.totalRecords : info.totalPages !== undefined && page < info.totalPages;
  if (items.length > 0 && items.length < size && more) throw fault(`with ${items.length} rows of ${size}, before the last page`);
  return items;
}
