/**
 * What each key does in the console. Plain TypeScript over the store, the query cache and the
 * API client, so the behaviour is one readable table of cases and the Ink components only draw.
 * Keys read `store.getState()` (always current), never a render's snapshot.
 */
import { validateInput } from '../api/client.js';
import { dashboardGet } from '../api/contract/admin-misc.js';
import { describeObject, type AnyEndpoint } from '../api/contract/common.js';
import { CliError } from '../api/errors.js';
import { itemsOf, pageInfoOf } from '../cli/paging.js';
import { actionsFor, runActionOnRows, type ActionDef } from './actions.js';
import { exportCsv } from './export-csv.js';
import { filtersText, parseFilters } from './filters.js';
import { formFields, formKey, formValues, missingRequired, newForm, problemsByField } from './form-model.js';
import { editLine, printable, type KeyPress } from './keys.js';
import { queryKey, type QueryCache, type QuerySpec } from './query-cache.js';
import { completeResource, HOME, resourceByName, rowKey, sortInfo, type CallSpec, type ResourceDef, type Row } from './resources.js';
import { currentList, type ConsoleAction, type ConsoleState, type ListState, type Overlay } from './state/console-state.js';
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
}

/** Lines of the screen that are not table rows: header, title, table header, status, two lines of keys, one spare (a frame as tall as the terminal makes Ink clear the screen on every draw). */
export const CHROME_LINES = 7;
/** How long the terminal's size must hold before the pages follow it. */
export const RESIZE_SETTLE_MS = 150;

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
  let rows: Row[] = [];
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

/** An error as one status line; a 401 names the command that signs in again. */
export function describeError(e: unknown, profile: string): string {
  if (e instanceof CliError) {
    let text = e.message + (e.status ? ` (HTTP ${e.status})` : '');
    const fields = (e.details as { fields?: Array<{ field?: string; message?: string }> } | undefined)?.fields;
    if (Array.isArray(fields) && fields.length) text += `: ${fields.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)).join('; ')}`;
    if (e.status === 401) text += ` — run: subctl auth login --profile ${profile}`;
    else if (e.status === 403) text += ' — the signed-in account may not do this';
    return text;
  }
  return e instanceof Error ? e.message : String(e);
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
    this.#dispatch({ type: 'status', status: { tone, text } });
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

  /** The list on screen: its definition, state, request and what the cache has for it. */
  current(): { r: ResourceDef; ls: ListState; spec: QuerySpec; rows?: Row[]; totalPages?: number; totalRecords?: number } | undefined {
    const s = this.state;
    const ls = currentList(s);
    const r = ls && resourceByName(ls.resource);
    if (!ls || !r) return undefined;
    const spec = listSpec(r, ls);
    const q = this.cache.peek(spec, { expired: true });
    // Every page of a listing has the same page facts: while a page loads, those of the last
    // page seen of it stand in, so page keys pressed meanwhile still count.
    const listing = queryKey(listSpec(r, { ...ls, page: 0 }));
    if (q.data === undefined) return { r, ls, spec, ...this.#facts.get(listing) };
    const page = pageOf(r, ls, q.data);
    this.#facts.set(listing, { totalPages: page.totalPages, totalRecords: page.totalRecords });
    return { r, ls, spec, ...page };
  }

  /** Page facts of each listing (resource, filters, sort, page size) last seen. */
  readonly #facts = new Map<string, { totalPages?: number; totalRecords?: number }>();

  /**
   * A key that needs the page's rows (Enter, an action), pressed while the page loads: done once
   * it is in, if the screen is still that page (it was dropped without a word). False when the
   * page is not loading.
   */
  #afterLoad(act: () => void): boolean {
    const c = this.current();
    if (!c || c.rows !== undefined) return false;
    const at = { view: this.state.view, resource: this.state.resource, page: c.ls.page };
    this.#status('busy', 'loading…');
    void this.cache.load(c.spec).then(() => {
      const now = this.current();
      if (this.state.view !== at.view || this.state.resource !== at.resource || now?.ls.page !== at.page || this.state.overlay) return;
      this.#dispatch({ type: 'status', status: undefined });
      if (now.rows?.length) act();
    });
    return true;
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
    this.#dispatch({ type: 'update-list', patch: { page, selected: 0 } });
    this.#dispatch({ type: 'status', status: undefined });
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
    const done = this.cache.load(spec, { force: true });
    this.#status('busy', 'refreshing…');
    const busy = this.state.status;
    // Once the answer is in, unless something else was said meanwhile. A failure is shown by
    // the screen's own error line.
    void done.then(() => {
      if (this.state.status === busy) this.#dispatch({ type: 'status', status: this.cache.peek(spec).error ? undefined : { tone: 'ok', text: 'refreshed' } });
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
    const select = (i: number) => this.#dispatch({ type: 'update-list', patch: { selected: Math.max(0, Math.min(Math.max(0, n - 1), i)) } });
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
      return this.openHome();
    }
    if (k.input === '/') return this.#overlay({ kind: 'filter', text: filtersText(ls.filters), errors: [] });
    if (k.input === 's') return this.#cycleSort(r, ls);
    if (k.ret) {
      const row = this.#selectedRow();
      if (row) this.#dispatch({ type: 'detail', row });
      else this.#afterLoad(() => this.handleKey(k));
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
    if (this.state.readOnly) return;
    const action = actionsFor(r.name).find((a) => a.key === k.input);
    if (action) this.startAction(action);
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
      this.#status('error', `edit: could not load the record: ${describeError(q.error, this.#d.session.profile)}; nothing was changed`);
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
        if (!row) {
          if (!this.#afterLoad(() => void this.#startAction(def))) this.#status('info', 'no row selected');
          return;
        }
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
    const errors = { ...('errors' in checked ? checked.errors : {}), ...missing };
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
        return this.#status('error', `${def.label}: ${Object.entries(checked.errors).map(([k, v]) => (k ? `${k}: ${v}` : v)).join('; ')}`);
      }
      inputs = checked.inputs;
    }
    const s = this.#d.session;
    const resource = this.current()?.r.name ?? '';
    const lines: string[] = [];
    const body = inputs[0]?.body ?? {};
    // Each row's change, or why the server is likely to refuse it (its status does not allow the
    // action, by the rules the sandbox has: a platform's may differ, so every row is still sent).
    const refusal = (r: Row | undefined) => (r ? def.refusal?.(r) : undefined);
    if (rows.length > 1) {
      lines.push(`${def.label} ${rows.length} ${resource}:`);
      rows.slice(0, 5).forEach((r, i) => {
        const why = refusal(r);
        const change = def.preview ? def.preview(r, inputs[i]?.body ?? body).join('; ') : '';
        lines.push(why ? `✗ ${def.target(r)}: likely refused (${why})` : `  ${def.target(r)}${change ? ` — ${change}` : ''}`);
      });
      if (rows.length > 5) lines.push(`  … and ${rows.length - 5} more`);
      const refused = rows.filter((r) => refusal(r)).length;
      if (refused) lines.push(`${refused} of ${rows.length} likely refused (their status does not allow ${def.label}); every row is sent, and the server decides`);
    } else lines.push(`${def.label} ${def.target(rows[0])}`);
    lines.push(`profile: ${s.profile} (${s.target})`);
    if (rows.length <= 1) {
      const why = refusal(rows[0]);
      if (why) lines.push(`✗ likely refused by the server: ${why}`);
      else if (def.preview) lines.push(...def.preview(rows[0], body));
    }
    if (body.reason !== undefined) lines.push(`reason: ${String(body.reason)}`);
    const typed = def.typed ? (rows.length > 1 ? String(rows.length) : def.typed(rows[0])) : undefined;
    this.#overlay({ kind: 'confirm', action: def, rows, inputs, lines, typed, text: '' });
  }

  #confirmKey(o: Extract<Overlay, { kind: 'confirm' }>, k: KeyPress): void {
    const cancel = () => {
      this.#overlay(undefined);
      this.#status('info', `${o.action.label}: cancelled, nothing was sent`);
    };
    if (k.escape) return cancel();
    if (o.typed !== undefined) {
      if (k.ret) {
        if (o.text === o.typed) return void this.#run(o);
        this.#overlay({ ...o, text: '' });
        this.#status('error', `'${o.text}' does not match ${o.typed} (exactly, case included); nothing ${o.action.label === 'delete' ? 'deleted' : 'sent'}`);
        return;
      }
      const text = editLine(o.text, k);
      if (text !== o.text) this.#overlay({ ...o, text });
      return;
    }
    const ch = printable(k).toLowerCase();
    if (ch === 'y') void this.#run(o);
    else if (ch === 'n') cancel();
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
        this.#status('error', `${action.label} failed: ${describeError(e, this.#d.session.profile)}`);
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
          `${action.label}: ${outcomes.length - failed.length} done, ${failed.length} failed (first: ${action.target(o.rows[i])}: ${describeError(failed[0].error, this.#d.session.profile)})`,
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
    if (!c.rows) return this.#status('info', 'nothing to export yet (loading)');
    try {
      const { path, count } = await exportCsv(c.rows, { resource: c.r.name, columns: columnsFor(c.rows, c.r.columns), dir: this.#d.cwd, at: this.#d.now() });
      this.#status('ok', `exported ${count} row${count === 1 ? '' : 's'} (page ${c.ls.page}) to ${path}`);
    } catch (e) {
      this.#status('error', `export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
