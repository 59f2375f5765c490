/**
 * What each key does in the console. Plain TypeScript over the store, the query cache and the
 * API client, so the behaviour is one readable table of cases and the Ink components only draw.
 * Keys read `store.getState()` (always current), never a render's snapshot.
 */
import { validateInput } from '../api/client.js';
import { dashboardGet } from '../api/contract/admin-misc.js';
import { describeObject, type AnyEndpoint } from '../api/contract/common.js';
import { CliError } from '../api/errors.js';
import { itemsOf, pageInfoOf } from '../api/pages.js';
import { actionsFor, runActionOnRows, type ActionDef } from './actions.js';
import { confirmWindow } from './confirm-window.js';
import { exportCsv } from './export-csv.js';
import { filtersText, parseFilters } from './filters.js';
import { formFields, formKey, formValues, missingRequired, newForm, problemsByField, typedProblems } from './form-model.js';
import { editLine, printable, type KeyPress } from './keys.js';
import { queryKey, type QueryCache, type QuerySpec } from './query-cache.js';
import { completeResource, HOME, resourceByName, rowKey, sortInfo, type CallSpec, type ResourceDef, type Row } from './resources.js';
import { jumpFor } from './jumps.js';
import { currentList, type ConsoleAction, type ConsoleState, type ListState, type Overlay, type Status } from './state/console-state.js';
import type { Store } from './state/store.js';
import { columnsFor } from './table-layout.js';

/** What the console needs of the API client (ApiClient fits; tests may pass a fake). */
export interface ApiLike {
  call(ep: AnyEndpoint, input?: CallSpec, opts?: { signal?: AbortSignal }): Promise<unknown>;
  callFull(ep: AnyEndpoint, input?: CallSpec, opts?: { signal?: AbortSignal }): Promise<{ data: unknown; message?: string }>;
}

/** Who and where: the header's facts. */
export interface Session {
  profile: string;
  /** Base address, or `SANDBOX`. */
  target: string;
  user?: string;
  role?: string;
  /** Where the token came from when not the profile's sign-in (a 401's hint says what mends it). */
  tokenFrom?: 'env' | 'token-file';
}

/** Lines of the screen that are not table rows: header, title, table header, status, two lines of keys, one spare (a frame as tall as the terminal makes Ink clear the screen on every draw). */
const CHROME_LINES = 7;
/** Keys kept at most while a page loads (see ConsoleController.#queued). */
const MAX_QUEUED_KEYS = 64;
/** How long the terminal's size must hold before the pages follow it. */
const RESIZE_SETTLE_MS = 150;

export const dashboardSpec: QuerySpec = { endpoint: dashboardGet, input: {} };

export interface ControllerDeps {
  store: Store<ConsoleState, ConsoleAction>;
  cache: QueryCache;
  api: ApiLike;
  session: Session;
  /** Where ctrl-s writes. */
  cwd: string;
  now: () => Date;
  /** Rows per server page; default: what fits the terminal. */
  pageSize?: number;
  signal?: AbortSignal;
  /** Reads the sign-in again; true when it changed (signed in again in another shell). */
  renewSignIn?: () => boolean;
}

/** The request of a list as it stands (page, size, filters, sort). */
export function listSpec(r: ResourceDef, ls: ListState): QuerySpec {
  const paging = r.endpoint.paging!;
  const query: Record<string, unknown> = { ...ls.filters, [paging.page]: ls.page, [paging.size]: ls.size };
  if (ls.sortBy) query.sort_by = ls.sortBy;
  if (ls.sortOrder) query.sort_order = ls.sortOrder;
  return { endpoint: r.endpoint, input: { query } };
}

/** Rows and page facts of a list answer; undefined rows when the answer is not a list. */
export function pageOf(r: ResourceDef, ls: ListState, data: unknown): { rows: Row[]; totalPages?: number; totalRecords?: number } {
  let rows: Row[];
  try {
    rows = itemsOf(r.endpoint, data);
  } catch {
    rows = [];
  }
  const info = pageInfoOf(r.endpoint, data, ls.page, ls.size);
  const totalPages = info.totalPages ?? (info.totalRecords !== undefined ? Math.max(1, Math.ceil(info.totalRecords / ls.size)) : undefined);
  return { rows, totalPages, totalRecords: info.totalRecords };
}

/** A detail request for a row, when the resource has one and the row carries its id. */
export function detailSpec(r: ResourceDef, row: Row): QuerySpec | undefined {
  const input = r.detail?.input(row);
  return r.detail && input ? { endpoint: r.detail.endpoint, input } : undefined;
}

/**
 * An error as one status line; a 401 says what mends it: signing in again in another shell (or
 * a new token in the token file), then `r`, which reads the sign-in again (SUBCTL_TOKEN cannot
 * change under a running process).
 */
export function describeError(e: unknown, profile: string, tokenFrom?: Session['tokenFrom']): string {
  if (e instanceof CliError) {
    let text = e.message + (e.status ? ` (HTTP ${e.status})` : '');
    const fields = (e.details as { fields?: Array<{ field?: string; message?: string }> } | undefined)?.fields;
    if (Array.isArray(fields) && fields.length)
      text += `: ${fields.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)).join('; ')}`;
    if (e.status === 401) {
      if (tokenFrom === 'env') text += ' — SUBCTL_TOKEN was refused: set a valid one, then restart the console';
      else if (tokenFrom === 'token-file') text += ' — the token file was refused: put a valid token in it, then press r';
      else text += ` — sign in again with \`subctl auth login --profile ${profile}\` (in another shell), then press r`;
    } else if (e.status === 403) text += ' — the signed-in account may not do this';
    return text;
  }
  return e instanceof Error ? e.message : String(e);
}

/** Rows per server page for a resource: the given size, else what fits the terminal. */
function pageSizeFor(r: ResourceDef, viewport: { rows: number }, pageSize?: number): number {
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

export class ConsoleController {
  readonly store: Store<ConsoleState, ConsoleAction>;
  readonly cache: QueryCache;
  readonly #d: ControllerDeps;
  #exit: () => void = () => {};
  #suspend: () => void = () => {};
  #repaint: () => void = () => {};
  #viewport = { columns: 80, rows: 24 };
  /** Largest scroll of the detail on screen (set by the detail screen as it draws). */
  detailMaxScroll = 0;
  /** Largest scroll of the dashboard (set by the home screen as it draws). */
  homeMaxScroll = 0;

  constructor(deps: ControllerDeps) {
    this.#d = deps;
    this.store = deps.store;
    this.cache = deps.cache;
    this.cache.subscribe(() => this.#cacheChanged());
  }

  setExit(fn: () => void): void {
    this.#exit = fn;
  }

  /** What Ctrl-Z does (openConsole: give the terminal back to the shell until `fg`). */
  setSuspend(fn: () => void): void {
    this.#suspend = fn;
  }

  /** Draws the whole frame again (the screen was given away, or cleared). */
  setRepaint(fn: () => void): void {
    this.#repaint = fn;
  }

  repaint(): void {
    this.#repaint();
  }

  setViewport(v: { columns: number; rows: number }): void {
    const taller = v.rows !== this.#viewport.rows;
    this.#viewport = v;
    // A terminal made taller or shorter gets pages of its new height (unless --page-size set
    // them), once the resizing has settled: dragging a window's edge sends a resize per line.
    // Called while drawing, so the change is dispatched later, never during a render.
    if (taller && this.#d.pageSize === undefined) {
      clearTimeout(this.#resizeTimer);
      this.#resizeTimer = setTimeout(() => this.#fitPages(), RESIZE_SETTLE_MS);
      this.#resizeTimer.unref?.();
    }
  }

  #resizeTimer: ReturnType<typeof setTimeout> | undefined;

  /** The list on screen in pages of the terminal's height, the selected row kept. */
  #fitPages(): void {
    const s = this.state;
    const r = s.resource ? resourceByName(s.resource) : undefined;
    if (!r || !s.lists[r.name]) return;
    this.#dispatch({ type: 'resize-list', resource: r.name, size: pageSizeFor(r, this.#viewport) });
  }

  get state(): ConsoleState {
    return this.store.getState();
  }

  #dispatch(a: ConsoleAction): void {
    this.store.dispatch(a);
  }

  #status(tone: 'info' | 'ok' | 'error' | 'busy', text: string): void {
    if (tone === 'error') this.#lastError = text;
    this.#dispatch({ type: 'status', status: { tone, text } });
  }

  /** The last error said, whole: the status line cuts it to the width, `!` shows it all. */
  #lastError: string | undefined;

  /** `!`: the error on the status line, else the last one said, whole. */
  showLastError(): void {
    const shown = this.statusShown();
    const text = shown?.tone === 'error' ? shown.text : this.#lastError;
    if (!text) return this.#status('info', 'no error so far');
    this.#overlay({ kind: 'message', title: 'The last error', text });
  }

  #overlay(overlay?: Overlay): void {
    this.#dispatch({ type: 'overlay', overlay });
  }

  /** Rows of the table area for the current terminal height. */
  tableHeight(): number {
    return Math.max(3, this.#viewport.rows - CHROME_LINES);
  }

  // -------------------------------------------------------------------------------------------
  // Navigation

  openHome(): void {
    this.#dispatch({ type: 'home' });
  }

  /** Opens a resource's table (its last position kept); false for an unknown name. */
  openResource(name: string): boolean {
    if (name === HOME || name === 'dashboard') {
      this.openHome();
      return true;
    }
    const r = resourceByName(name);
    if (!r) return false;
    this.#dispatch({ type: 'list', resource: r.name, size: pageSizeFor(r, this.#viewport, this.#d.pageSize) });
    return true;
  }

  /**
   * The list on screen: its definition, state, request and its page's rows. `rows` is undefined
   * while the page is not in (loading, or failed): keys that act on rows then wait for it (see
   * #queued), as the table still shows another page meanwhile.
   */
  current():
    | { r: ResourceDef; ls: ListState; spec: QuerySpec; data?: unknown; rows?: Row[]; totalPages?: number; totalRecords?: number }
    | undefined {
    const s = this.state;
    const ls = currentList(s);
    const r = ls && resourceByName(ls.resource);
    if (!ls || !r) return undefined;
    const spec = listSpec(r, ls);
    const key = queryKey(spec);
    let data = this.cache.peek(spec).data;
    if (data !== undefined) this.#shown.set(r.name, { key, data, list: ls });
    // Older than 5 minutes, a page's answer is acted on only while that page is the one on
    // screen (it stays there until asked again); going back to it, the table shows the page it
    // came from until the page is in again, and keys must not act on rows not drawn.
    else if (this.#shown.get(r.name)?.key === key) data = this.cache.peek(spec, { expired: true }).data;
    // Every page of a listing has the same page facts: while a page loads, those of the last
    // page seen of it stand in, so page keys pressed meanwhile still count.
    const listing = this.#listing(r, ls);
    if (data === undefined) return { r, ls, spec, ...this.#facts.get(listing) };
    const page = pageOf(r, ls, data);
    this.#facts.set(listing, { totalPages: page.totalPages, totalRecords: page.totalRecords });
    return { r, ls, spec, data, ...page };
  }

  /** A listing (resource, filters, sort, page size) whatever its page. */
  #listing(r: ResourceDef, ls: ListState): string {
    return queryKey(listSpec(r, { ...ls, page: 0 }));
  }

  /** Page facts of each listing (resource, filters, sort, page size) last seen. */
  readonly #facts = new Map<string, { totalPages?: number; totalRecords?: number }>();

  /** The page of each resource last drawn with its own rows: what its table shows while another page loads. */
  readonly #shown = new Map<string, { key: string; data: unknown; list: ListState }>();

  /**
   * What the table draws: its page's answer; while that page loads, the page of the resource
   * last shown (`own` false: keys wait for the page); nothing once the page failed (its error
   * is shown, never another page's rows under its number).
   */
  tableView(): { data: unknown; list: ListState; own: boolean } | undefined {
    const c = this.current();
    if (!c) return undefined;
    if (c.data !== undefined) return { data: c.data, list: c.ls, own: true };
    if (this.#failed(c)) return undefined;
    const shown = this.#shown.get(c.r.name);
    return shown && { data: shown.data, list: shown.list, own: false };
  }

  /** The page on screen could not be loaded (and is not being asked again). */
  #failed(c: { spec: QuerySpec; rows?: Row[] }): boolean {
    if (c.rows !== undefined) return false;
    const q = this.cache.peek(c.spec);
    return q.error !== undefined && !q.loading;
  }

  /** The error of the request behind the screen, if its last attempt failed. */
  screenError(): unknown {
    const s = this.state;
    if (s.overlay) return undefined;
    if (s.view === 'home') return this.cache.peek(dashboardSpec).error;
    const r = s.resource ? resourceByName(s.resource) : undefined;
    if (!r) return undefined;
    if (s.view === 'list') {
      const ls = currentList(s);
      return ls ? this.cache.peek(listSpec(r, ls)).error : undefined;
    }
    const spec = s.detail && detailSpec(r, s.detail.row);
    return spec ? this.cache.peek(spec).error : undefined;
  }

  /** What the status line shows: what was just said, else the screen's error. */
  statusShown(): Status | undefined {
    const s = this.state.status;
    if (s) return s;
    const err = this.screenError();
    return err !== undefined ? { tone: 'error', text: this.describe(err) } : undefined;
  }

  describe(e: unknown): string {
    return describeError(e, this.#d.session.profile, this.#d.session.tokenFrom);
  }

  // -------------------------------------------------------------------------------------------
  // Keys typed while a page loads

  /**
   * Keys that act on rows (moving, marking, Enter, an action, Ctrl-S), typed while the page they
   * act on loads, and every key typed after them: handled in order once the page is in (a key
   * of the queue that moves to a page not yet in makes the rest wait for that one). Bounded;
   * Esc cancels them (said in the status line); a page that cannot be loaded drops them (its
   * error said instead). Ctrl-C and Ctrl-Z never wait.
   */
  #queued: KeyPress[] = [];

  /** The page key that left a page whose rows were on screen: shown again if the new page cannot be loaded. */
  #from: { listing: string; page: number; selected: number } | undefined;

  /** The screen's last error seen: a new one clears the status line, so that it shows. */
  #seenError: unknown;
  #settling = false;

  #rowKey(k: KeyPress, r: ResourceDef): boolean {
    if (k.ctrl) return k.input === 's';
    if (k.up || k.down || k.home || k.end || k.ret) return true;
    if (k.input === 'j' || k.input === 'k' || k.input === ' ') return true;
    return !this.state.readOnly && actionsFor(r.name).some((a) => a.key === k.input && a.mode !== 'create');
  }

  /** Whether `k` must wait for the page on screen (it is loading, and `k` acts on its rows). */
  #waitsForPage(k: KeyPress): boolean {
    const s = this.state;
    if (s.overlay || s.view !== 'list') return false;
    const c = this.current();
    return !!c && c.rows === undefined && !this.#failed(c) && this.#rowKey(k, c.r);
  }

  #dropQueued(why: string): void {
    const n = this.#queued.length;
    this.#queued = [];
    this.#status('info', `${n} key${n === 1 ? '' : 's'} typed while the page loaded ${why}`);
  }

  /** The cache changed: a page came in (keys waiting for it are handled) or failed. */
  #cacheChanged(): void {
    // Handling the keys may ask for pages, which tells the cache's listeners at once.
    if (this.#settling) return;
    this.#settling = true;
    try {
      this.#settle();
    } finally {
      this.#settling = false;
    }
  }

  #settle(): void {
    const s = this.state;
    const c = s.view === 'list' ? this.current() : undefined;
    if (c && this.#failed(c)) {
      const err = this.cache.peek(c.spec).error;
      const from = this.#from;
      this.#from = undefined;
      const waiting = this.#queued.length;
      this.#queued = [];
      const back =
        from && from.listing === this.#listing(c.r, c.ls) && from.page !== c.ls.page
          ? listSpec(c.r, { ...c.ls, page: from.page })
          : undefined;
      if (from && back && this.cache.peek(back, { expired: true }).data !== undefined) {
        // Back on the page whose rows the screen shows: its number, its keys, its rows.
        this.#seenError = err;
        this.#dispatch({ type: 'update-list', patch: { page: from.page, selected: from.selected } });
        const dropped = waiting ? `; the ${waiting} key${waiting === 1 ? '' : 's'} typed meanwhile were not applied` : '';
        this.#status('error', `page ${c.ls.page} could not be loaded (still on page ${from.page}${dropped}): ${this.describe(err)}`);
        return;
      }
    } else if (c?.rows !== undefined) this.#from = undefined;
    const err = this.screenError();
    if (err !== undefined && err !== this.#seenError) {
      // A new failure: the status line shows it (what it said before is not what happened last).
      this.#seenError = err;
      this.#lastError = this.describe(err);
      if (this.state.status) this.#dispatch({ type: 'status', status: undefined });
    }
    if (!this.#queued.length) return;
    if (s.view !== 'list' || !c) return this.#dropQueued('were dropped: the screen changed');
    if (c.rows === undefined) return;
    const keys = this.#queued;
    this.#queued = [];
    if (this.state.status?.tone === 'busy' && this.state.status.text === 'loading…') this.#dispatch({ type: 'status', status: undefined });
    for (const k of keys) this.handleKey(k);
  }

  #selectedRow(): Row | undefined {
    const c = this.current();
    if (!c?.rows?.length) return undefined;
    return c.rows[Math.min(c.ls.selected, c.rows.length - 1)];
  }

  #goPage(page: number): void {
    const c = this.current();
    if (!c) return;
    if (page < 1) {
      this.#status('info', 'first page');
      return;
    }
    const last = c.totalPages;
    // Still loading the first page of this listing: nothing says how many pages there are yet.
    if (c.rows === undefined && last === undefined) return this.#status('info', 'loading…');
    if (last !== undefined && page > last) {
      this.#status('info', 'last page');
      return;
    }
    if (last === undefined && page > c.ls.page && c.rows !== undefined && c.rows.length < c.ls.size) {
      this.#status('info', 'last page');
      return;
    }
    const listing = this.#listing(c.r, c.ls);
    if (c.rows !== undefined) this.#from = { listing, page: c.ls.page, selected: c.ls.selected };
    else if (this.#from?.listing !== listing) this.#from = undefined;
    this.#dispatch({ type: 'update-list', patch: { page, selected: 0 } });
    this.#dispatch({ type: 'status', status: undefined });
    // A page that failed before is asked again now, not once the screen is drawn: until then it
    // would look failed, and keys typed with this one (`PgDn j`) would not wait for it.
    const to = this.current();
    if (to && this.cache.peek(to.spec).error !== undefined && to.rows === undefined) void this.cache.load(to.spec);
  }

  refresh(): void {
    const s = this.state;
    let spec: QuerySpec | undefined;
    if (s.view === 'home') spec = dashboardSpec;
    else if (s.view === 'list') spec = this.current()?.spec;
    else if (s.view === 'detail' && s.detail) {
      const r = resourceByName(s.detail.resource);
      spec = r && detailSpec(r, s.detail.row);
    }
    if (!spec) return this.#status('info', 'this is the row as listed: r on the table asks the server again');
    // Signed in again in another shell (after a 401): the new sign-in from now on.
    const renewed = this.#d.renewSignIn?.() === true;
    const done = this.cache.load(spec, { force: true });
    this.#status('busy', renewed ? 'refreshing with the new sign-in…' : 'refreshing…');
    const busy = this.state.status;
    // Once the answer is in, unless something else was said meanwhile. A failure is shown by
    // the screen's own error line.
    void done.then(() => {
      if (this.state.status === busy)
        this.#dispatch({ type: 'status', status: this.cache.peek(spec).error ? undefined : { tone: 'ok', text: 'refreshed' } });
    });
  }

  quit(): void {
    this.#exit();
  }

  // -------------------------------------------------------------------------------------------
  // Keys

  handleKey(k: KeyPress): void {
    const s = this.state;
    if (k.ctrl && k.input === 'c') return this.quit();
    // Anywhere, a form or a confirmation included: they are there as they were after `fg`.
    if (k.ctrl && k.input === 'z') return this.#suspend();
    if (this.#queued.length) {
      if (k.escape) return this.#dropQueued('were cancelled (Esc)');
      if (this.#queued.length >= MAX_QUEUED_KEYS)
        return this.#status('error', `more than ${MAX_QUEUED_KEYS} keys typed while the page loads: the rest are dropped`);
      this.#queued.push(k);
      return;
    }
    if (this.#waitsForPage(k)) {
      this.#queued = [k];
      return this.#status('busy', 'loading…');
    }
    if (s.overlay) return this.#overlayKey(s.overlay, k);
    if (k.ctrl && k.input === 's') {
      void this.exportView();
      return;
    }
    if (k.ctrl) return;
    switch (k.input) {
      case 'q':
        return this.quit();
      case '?':
        return this.#overlay({ kind: 'help', scroll: 0 });
      case ':':
        return this.#overlay({ kind: 'switcher', text: '', choice: 0 });
      case 'r':
        return this.refresh();
      case '!':
        return this.showLastError();
    }
    if (s.view === 'home') return this.#homeKey(k);
    if (s.view === 'list') return this.#listKey(k);
    if (s.view === 'detail') return this.#detailKey(k);
  }

  #homeKey(k: KeyPress): void {
    if (k.input === 'a') {
      this.#dispatch({ type: 'toggle-auto' });
      this.#status('info', `auto-refresh ${this.state.autoRefresh ? 'on (every 30 s)' : 'off'}`);
      return;
    }
    // The dashboard scrolls as a record does.
    const at = this.state.homeScroll;
    const page = this.tableHeight();
    const to = (n: number) => this.#dispatch({ type: 'home-scroll', scroll: Math.max(0, Math.min(this.homeMaxScroll, n)) });
    if (k.up || k.input === 'k') return to(at - 1);
    if (k.down || k.input === 'j') return to(at + 1);
    if (k.pageDown || k.input === ' ') return to(at + page);
    if (k.pageUp) return to(at - page);
    if (k.input === 'g' || k.home) return to(0);
    if (k.input === 'G' || k.end) return to(this.homeMaxScroll);
  }

  #listKey(k: KeyPress): void {
    const c = this.current();
    if (!c) return;
    const { r, ls } = c;
    const n = c.rows?.length ?? 0;
    const select = (i: number) =>
      this.#dispatch({ type: 'update-list', patch: { selected: Math.max(0, Math.min(Math.max(0, n - 1), i)) } });
    if (k.up || k.input === 'k') return select(ls.selected - 1);
    if (k.down || k.input === 'j') return select(ls.selected + 1);
    if (k.home) return select(0);
    if (k.end) return select(n - 1);
    if (k.pageDown || k.right || k.input === ']') return this.#goPage(ls.page + 1);
    if (k.pageUp || k.left || k.input === '[') return this.#goPage(ls.page - 1);
    if (k.input === 'g') return this.#goPage(1);
    if (k.input === 'G') {
      if (c.totalPages === undefined) return this.#status('info', c.rows ? 'the server does not say how many pages there are' : 'loading…');
      return this.#goPage(c.totalPages);
    }
    if (k.escape) {
      if (Object.keys(ls.marked).length) {
        this.#dispatch({ type: 'update-list', patch: { marked: {} } });
        return this.#status('info', 'marks cleared');
      }
      // After a jump (a user's subscriptions), back to where it was made.
      if (this.state.trail?.length) return this.#dispatch({ type: 'back' });
      return this.openHome();
    }
    if (this.#jumpKey(k, this.#selectedRow())) return;
    if (k.input === '/') return this.#overlay({ kind: 'filter', text: filtersText(ls.filters), errors: [] });
    if (k.input === 's') return this.#cycleSort(r, ls);
    if (k.ret) {
      const row = this.#selectedRow();
      if (row) this.#dispatch({ type: 'detail', row });
      return;
    }
    if (k.input === ' ') {
      const row = this.#selectedRow();
      if (!row) return;
      const key = rowKey(r, row);
      const marked = { ...ls.marked };
      if (marked[key]) delete marked[key];
      else marked[key] = row;
      this.#dispatch({ type: 'update-list', patch: { marked, selected: Math.min(ls.selected + 1, Math.max(0, n - 1)) } });
      return;
    }
    const action = actionsFor(r.name).find((a) => a.key === k.input);
    // --read-only: the key is said to be off, not ignored without a word.
    if (action && this.state.readOnly) return this.#status('info', `${action.label}: not available in a read-only console (--read-only)`);
    if (action) this.startAction(action);
  }

  /**
   * The console follows a user: on a user (a row or its detail) S, W and A open their
   * subscriptions, wallet and audit (lists on the server, kept to the user); on a row that
   * names a user (a subscription, a transaction, an audit entry) U opens that user. Esc comes back.
   */
  #jumpKey(k: KeyPress, row: Row | undefined): boolean {
    const resource = this.state.detail?.resource ?? this.state.resource;
    const jump = jumpFor(resource, k.input, row);
    if (!jump) return false;
    if ('unavailable' in jump) {
      this.#status('info', jump.unavailable);
      return true;
    }
    if (jump.kind === 'detail') this.#dispatch({ type: 'jump-detail', resource: jump.resource, row: jump.row });
    else {
      const r = resourceByName(jump.resource);
      if (!r) return false;
      this.#dispatch({
        type: 'jump-list',
        resource: r.name,
        size: pageSizeFor(r, this.#viewport, this.#d.pageSize),
        filters: jump.filters,
      });
    }
    return true;
  }

  #cycleSort(r: ResourceDef, ls: ListState): void {
    const info = sortInfo(r);
    if (!info) return this.#status('info', `${r.name} cannot be sorted on the server`);
    const by = ls.sortBy ?? info.defaultBy;
    let order = ls.sortOrder ?? info.defaultOrder;
    let i = info.values.indexOf(by) + 1;
    if (i >= info.values.length) {
      i = 0;
      order = order === 'ASC' ? 'DESC' : 'ASC';
    }
    this.#dispatch({ type: 'update-list', patch: { sortBy: info.values[i], sortOrder: order, page: 1, selected: 0 } });
    this.#status('info', `sorted by ${info.values[i]} ${order}`);
  }

  #detailKey(k: KeyPress): void {
    const d = this.state.detail;
    if (!d) return;
    const page = this.tableHeight();
    const to = (n: number) => this.#dispatch({ type: 'detail-scroll', scroll: Math.max(0, Math.min(this.detailMaxScroll, n)) });
    if (k.escape || k.backspace || k.left) return this.#dispatch({ type: 'back' });
    if (this.#jumpKey(k, d.row)) return;
    if (k.up || k.input === 'k') return to(d.scroll - 1);
    if (k.down || k.input === 'j') return to(d.scroll + 1);
    if (k.pageDown || k.input === ' ') return to(d.scroll + page);
    if (k.pageUp) return to(d.scroll - page);
    if (k.input === 'g' || k.home) return to(0);
    if (k.input === 'G' || k.end) return to(this.detailMaxScroll);
  }

  // -------------------------------------------------------------------------------------------
  // Overlays

  #overlayKey(o: Overlay, k: KeyPress): void {
    switch (o.kind) {
      case 'help':
        if (k.down || k.input === 'j') return this.#overlay({ ...o, scroll: o.scroll + 1 });
        if (k.up || k.input === 'k') return this.#overlay({ ...o, scroll: Math.max(0, o.scroll - 1) });
        if (k.pageDown || k.input === ' ') return this.#overlay({ ...o, scroll: o.scroll + this.tableHeight() });
        if (k.pageUp) return this.#overlay({ ...o, scroll: Math.max(0, o.scroll - this.tableHeight()) });
        return this.#overlay(undefined);
      case 'switcher':
        return this.#switcherKey(o, k);
      case 'filter':
        return this.#filterKey(o, k);
      case 'form':
        return this.#formKey(o, k);
      case 'confirm':
        return this.#confirmKey(o, k);
      case 'progress':
        return; // runs to its end; Ctrl-C quits
      case 'message':
        return this.#overlay(undefined);
    }
  }

  #switcherKey(o: Extract<Overlay, { kind: 'switcher' }>, k: KeyPress): void {
    const matches = completeResource(o.text);
    if (k.escape) return this.#overlay(undefined);
    if (k.up) return this.#overlay({ ...o, choice: Math.max(0, o.choice - 1) });
    if (k.down) return this.#overlay({ ...o, choice: Math.min(Math.max(0, matches.length - 1), o.choice + 1) });
    if (k.tab) {
      const m = matches[Math.min(o.choice, matches.length - 1)];
      if (m) this.#overlay({ ...o, text: m, choice: 0 });
      return;
    }
    if (k.ret) {
      const exact = resourceByName(o.text) ? resourceByName(o.text)!.name : o.text.trim() === HOME ? HOME : undefined;
      const target = exact ?? matches[Math.min(o.choice, matches.length - 1)];
      if (!target || !this.openResource(target)) {
        this.#overlay(undefined);
        this.#status('error', `no resource named '${o.text}'; : then Tab lists them`);
      }
      return;
    }
    const text = editLine(o.text, k);
    if (text !== o.text) this.#overlay({ ...o, text, choice: 0 });
  }

  #filterKey(o: Extract<Overlay, { kind: 'filter' }>, k: KeyPress): void {
    if (k.escape) return this.#overlay(undefined);
    if (k.ret) {
      const c = this.current();
      if (!c) return this.#overlay(undefined);
      const res = parseFilters(c.r, o.text);
      if (!res.ok) return this.#overlay({ ...o, errors: res.errors });
      this.#dispatch({ type: 'update-list', patch: { filters: res.filters, page: 1, selected: 0 } });
      this.#overlay(undefined);
      const t = filtersText(res.filters);
      this.#status('info', t ? `filter: ${t}` : 'filter cleared');
      return;
    }
    const text = editLine(o.text, k);
    if (text !== o.text) this.#overlay({ ...o, text, errors: [] });
  }

  // -------------------------------------------------------------------------------------------
  // Actions: form -> confirmation -> request(s) -> table refreshed

  /** Starts an action on the marked rows (when the action takes several), else the selected row. */
  startAction(def: ActionDef): void {
    void this.#startAction(def);
  }

  /**
   * The whole record for an edit form: a list row lacks fields (a service's base_service_url,
   * description…), which the form would show empty. Fetched with the resource's detail (the one
   * Enter shows, so often cached); undefined when it could not be (then said in the status line).
   */
  async #fullRecord(r: ResourceDef, row: Row): Promise<Row | undefined> {
    const spec = detailSpec(r, row);
    if (!spec || !r.detail?.record) return row;
    this.#status('busy', 'loading the record…');
    await this.cache.load(spec);
    const q = this.cache.peek(spec, { expired: true });
    if (q.data === undefined) {
      this.#status('error', `edit: could not load the record: ${this.describe(q.error)}; nothing was changed`);
      return undefined;
    }
    this.#dispatch({ type: 'status', status: undefined });
    return { ...row, ...r.detail.record(q.data) };
  }

  async #startAction(def: ActionDef): Promise<void> {
    const c = this.current();
    if (!c || this.state.readOnly) return;
    let rows: Row[] = [];
    if (def.mode !== 'create') {
      const marked = Object.values(c.ls.marked);
      if (def.multi && marked.length) rows = marked;
      else {
        const row = this.#selectedRow();
        if (!row)
          return this.#status('info', this.#failed(c) ? 'no row: this page could not be loaded (r tries again)' : 'no row selected');
        rows = [row];
      }
    }
    // A new action: what the status line said about the last one is not about this one.
    this.#dispatch({ type: 'status', status: undefined });
    const described = describeObject(def.endpoint.body);
    let fields = formFields(described, { only: def.fields, require: def.require });
    if (fields.length === 0) return this.#confirm(def, rows, {});
    if (def.mode === 'update' && rows[0]) {
      const at = this.state;
      const record = await this.#fullRecord(c.r, rows[0]);
      // Loading took a while: the user may have gone elsewhere meanwhile.
      if (!record || this.state.overlay || this.state.view !== at.view || this.state.resource !== at.resource) return;
      rows = [record];
      // Fields the record still lacks start empty, and an empty field that stays empty is not
      // sent (only changed fields are): say so, rather than look like the value is blank.
      fields = fields.map((f) => (f.name in record ? f : { ...f, note: 'not in the list: kept as it is unless typed' }));
    }
    const initial = def.mode === 'update' && rows[0] ? rows[0] : {};
    const title = `${def.label} ${rows.length > 1 ? `${rows.length} ${c.r.name}` : def.target(rows[0])}`;
    this.#overlay({ kind: 'form', form: newForm(title, fields, initial, def.mode === 'update'), action: def, rows });
  }

  #formKey(o: Extract<Overlay, { kind: 'form' }>, k: KeyPress): void {
    const r = formKey(o.form, k);
    if (r.cancel) {
      this.#overlay(undefined);
      return this.#status('info', `${o.action.label}: cancelled, nothing was sent`);
    }
    if (r.submit) return this.#submitForm(o);
    if (r.form !== o.form) this.#overlay({ ...o, form: r.form });
  }

  /** The inputs of an action for its rows, validated with the contract: problems by field, or the inputs. */
  #inputsFor(def: ActionDef, rows: Row[], values: Record<string, unknown>): { inputs: CallSpec[] } | { errors: Record<string, string> } {
    const targets: Array<Row | undefined> = def.mode === 'create' ? [undefined] : rows;
    const inputs = targets.map((row) => def.input(row, values));
    for (const input of inputs) {
      try {
        validateInput(def.endpoint, input);
      } catch (e) {
        const errors = problemsByField(e);
        if (errors) return { errors };
        throw e;
      }
    }
    return { inputs };
  }

  #submitForm(o: Extract<Overlay, { kind: 'form' }>): void {
    const f = o.form;
    const values = formValues(f);
    const missing = missingRequired(f);
    const checked = this.#inputsFor(o.action, o.rows, values);
    const errors = { ...('errors' in checked ? checked.errors : {}), ...typedProblems(f), ...missing };
    if (!Object.keys(errors).length && f.onlyChanged && Object.keys(values).length === 0) errors[''] = 'nothing changed';
    if (Object.keys(errors).length) {
      const first = f.fields.findIndex((x) => errors[x.name]);
      this.#overlay({ ...o, form: { ...f, errors, focus: first >= 0 ? first : f.focus } });
      return;
    }
    if ('inputs' in checked) this.#confirm(o.action, o.rows, values, checked.inputs);
  }

  #confirm(def: ActionDef, rows: Row[], values: Record<string, unknown>, inputs?: CallSpec[]): void {
    if (!inputs) {
      const checked = this.#inputsFor(def, rows, values);
      if ('errors' in checked) {
        return this.#status(
          'error',
          `${def.label}: ${Object.entries(checked.errors)
            .map(([k, v]) => (k ? `${k}: ${v}` : v))
            .join('; ')}`,
        );
      }
      inputs = checked.inputs;
    }
    const s = this.#d.session;
    const resource = this.current()?.r.name ?? '';
    const lines: string[] = [];
    const items: string[] = [];
    const tail: string[] = [];
    const body = inputs[0]?.body ?? {};
    // Each row's change, or why the server is likely to refuse it (its status does not allow the
    // action, by the rules the sandbox has: a platform's may differ, so every row is still sent).
    const refusal = (r: Row | undefined) => (r ? def.refusal?.(r) : undefined);
    if (rows.length > 1) {
      // Marks are kept across pages (a filter or sort change clears them): say how many of the
      // rows are not on the page in view, so that nothing is acted on unseen.
      const c = this.current();
      const onPage = new Set((c?.rows ?? []).map((r) => rowKey(c!.r, r)));
      const elsewhere = c ? rows.filter((r) => !onPage.has(rowKey(c.r, r))).length : 0;
      lines.push(
        `${def.label} ${rows.length} ${resource}:${elsewhere ? ` ${elsewhere} of them marked on other pages, all listed here` : ''}`,
      );
      // Every row, not the first few: the list scrolls when the screen cannot hold it.
      rows.forEach((r, i) => {
        const why = refusal(r);
        const change = def.preview ? def.preview(r, inputs[i]?.body ?? body).join('; ') : '';
        items.push(why ? `✗ ${def.target(r)}: likely refused (${why})` : `  ${def.target(r)}${change ? ` — ${change}` : ''}`);
      });
      const refused = rows.filter((r) => refusal(r)).length;
      if (refused)
        tail.push(
          `${refused} of ${rows.length} likely refused (their status does not allow ${def.label}); every row is sent, and the server decides`,
        );
      tail.push(`profile: ${s.profile} (${s.target})`);
      if (body.reason !== undefined) tail.push(`reason: ${String(body.reason)}`);
    } else {
      lines.push(`${def.label} ${def.target(rows[0])}`);
      lines.push(`profile: ${s.profile} (${s.target})`);
      const why = refusal(rows[0]);
      if (why) lines.push(`✗ likely refused by the server: ${why}`);
      else if (def.preview) lines.push(...def.preview(rows[0], body));
      if (body.reason !== undefined) lines.push(`reason: ${String(body.reason)}`);
    }
    const typed = def.typed ? (rows.length > 1 ? String(rows.length) : def.typed(rows[0])) : undefined;
    this.#overlay({ kind: 'confirm', action: def, rows, inputs, lines, items, tail, scroll: 0, typed, text: '' });
  }

  #confirmKey(o: Extract<Overlay, { kind: 'confirm' }>, k: KeyPress): void {
    const cancel = () => {
      this.#overlay(undefined);
      this.#status('info', `${o.action.label}: cancelled, nothing was sent`);
    };
    if (k.escape) return cancel();
    // The list of rows scrolls (arrows and pages; j and k too where nothing is typed).
    const win = confirmWindow(o, this.tableHeight() + 2);
    const scroll = (n: number) => this.#overlay({ ...o, scroll: Math.max(0, Math.min(win.maxScroll, n)) });
    const typing = o.typed !== undefined;
    if (k.down || (!typing && k.input === 'j' && !k.ctrl)) return scroll(win.first + 1);
    if (k.up || (!typing && k.input === 'k' && !k.ctrl)) return scroll(win.first - 1);
    if (k.pageDown) return scroll(win.first + Math.max(1, win.count - 1));
    if (k.pageUp) return scroll(win.first - Math.max(1, win.count - 1));
    if (o.typed !== undefined) {
      if (k.ret) {
        if (o.text === o.typed) return void this.#run(o);
        this.#overlay({ ...o, text: '' });
        this.#status(
          'error',
          `'${o.text}' does not match ${o.typed} (exactly, case included); nothing ${o.action.label === 'delete' ? 'deleted' : 'sent'}`,
        );
        return;
      }
      const text = editLine(o.text, k);
      if (text !== o.text) this.#overlay({ ...o, text });
      return;
    }
    const ch = printable(k).toLowerCase();
    if (ch === 'y') void this.#run(o);
    // [y/N]: Enter takes the default, no (it did nothing), as the command line's prompt does.
    else if (ch === 'n' || k.ret) cancel();
  }

  async #run(o: Extract<Overlay, { kind: 'confirm' }>): Promise<void> {
    const { action, inputs } = o;
    const api = this.#d.api;
    const signal = this.#d.signal;
    if (inputs.length === 1) {
      this.#overlay(undefined);
      this.#status('busy', `${action.label}: sending…`);
      try {
        const res = await api.callFull(action.endpoint, inputs[0], { signal });
        const data = res.data as Record<string, unknown> | undefined;
        const message = res.message ?? (typeof data?.message === 'string' ? data.message : undefined) ?? 'done';
        this.#status('ok', `${action.label}: ${message}`);
      } catch (e) {
        this.#status('error', `${action.label} failed: ${this.describe(e)}`);
      }
    } else {
      const title = `${action.label} ${inputs.length} rows`;
      this.#overlay({ kind: 'progress', title, progress: { done: 0, total: inputs.length, failed: 0 } });
      const outcomes = await runActionOnRows(
        inputs,
        (input) => api.callFull(action.endpoint, input, { signal }),
        (progress) => this.#overlay({ kind: 'progress', title, progress }),
        { concurrency: 4, signal },
      );
      const failed = outcomes.filter((x) => !x.ok);
      this.#overlay(undefined);
      this.#dispatch({ type: 'update-list', patch: { marked: {} } });
      if (failed.length) {
        const i = inputs.indexOf(failed[0].row);
        this.#status(
          'error',
          `${action.label}: ${outcomes.length - failed.length} done, ${failed.length} failed (first: ${action.target(o.rows[i])}: ${this.describe(failed[0].error)})`,
        );
      } else this.#status('ok', `${action.label}: ${outcomes.length} done`);
    }
    // Lists, details and the dashboard may all show what changed: ask again.
    this.cache.invalidate(() => true);
  }

  // -------------------------------------------------------------------------------------------
  // Export

  async exportView(): Promise<void> {
    const c = this.current();
    if (this.state.view !== 'list' || !c) return this.#status('info', 'ctrl-s exports a table: open one with :');
    if (!c.rows)
      return this.#status(
        'info',
        this.#failed(c) ? 'nothing to export: this page could not be loaded (r tries again)' : 'nothing to export yet (loading)',
      );
    try {
      const { path, count } = await exportCsv(c.rows, {
        resource: c.r.name,
        columns: columnsFor(c.rows, c.r.columns),
        dir: this.#d.cwd,
        at: this.#d.now(),
      });
      this.#status('ok', `exported ${count} row${count === 1 ? '' : 's'} (page ${c.ls.page}) to ${path}`);
    } catch (e) {
      this.#status('error', `export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
