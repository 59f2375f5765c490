/**
 * The console's controller: plain TypeScript over the store, the query cache and the API
 * client, so that the Ink components only draw. It holds what every screen shares (the status
 * line, overlays, navigation, the keys typed while a page loads) and hands each key to the mode
 * on screen: src/ui/modes/ has one file per mode (home, list, detail, the overlays), and
 * src/ui/list-pages.ts the pages of the list on screen. Keys read `store.getState()` (always
 * current), never a render's snapshot.
 */
import { actionsFor, type ActionDef } from './actions.js';
import { helpLines } from './help.js';
import type { KeyPress } from './keys.js';
import { ListPages, type CurrentList } from './list-pages.js';
import { detailKey } from './modes/detail.js';
import { startAction } from './modes/form.js';
import { homeKey } from './modes/home.js';
import type { ModeHost } from './modes/host.js';
import { exportView, listKey } from './modes/list.js';
import { overlayKey, takesText } from './modes/overlay.js';
import type { QueryCache, QuerySpec } from './query-cache.js';
import { HOME, resourceByName, type ResourceDef } from './resources.js';
import { describeError, type ApiLike, type Session } from './session.js';
import { CHROME_LINES, dashboardSpec, detailSpec, listSpec, pageSizeFor } from './specs.js';
import { statusText } from './status-text.js';
import { currentList, type ConsoleAction, type ConsoleState, type ListState, type Overlay, type Status } from './state/console-state.js';
import type { Store } from './state/store.js';

/** Keys kept at most while a page loads (see ConsoleController.#queued). */
const MAX_QUEUED_KEYS = 64;
/** How long the terminal's size must hold before the pages follow it. */
const RESIZE_SETTLE_MS = 150;

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

export class ConsoleController {
  readonly store: Store<ConsoleState, ConsoleAction>;
  readonly cache: QueryCache;
  readonly #d: ControllerDeps;
  readonly #pages: ListPages;
  /** What the modes' key handlers use of the controller (src/ui/modes/host.ts). */
  readonly #host: ModeHost;
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
    const store = deps.store;
    const dispatch = (a: ConsoleAction) => this.#dispatch(a);
    const say = (tone: Status['tone'], text: string) => this.#status(tone, text);
    this.#pages = new ListPages({ cache: deps.cache, state: () => store.getState(), dispatch, say });
    this.#host = {
      get state() {
        return store.getState();
      },
      cache: deps.cache,
      pages: this.#pages,
      api: deps.api,
      session: deps.session,
      signal: deps.signal,
      cwd: deps.cwd,
      now: deps.now,
      dispatch,
      say,
      overlay: (o) => this.#overlay(o),
      tableHeight: () => this.tableHeight(),
      describe: (e) => this.describe(e),
      openHome: () => this.openHome(),
      openResource: (name) => this.openResource(name),
      pageSize: (r) => pageSizeFor(r, this.#viewport, deps.pageSize),
      homeMaxScroll: () => this.homeMaxScroll,
      detailMaxScroll: () => this.detailMaxScroll,
      helpMaxScroll: () => this.#helpMaxScroll(),
    };
    this.cache.subscribe(() => this.#cacheChanged());
  }

  /** As HelpView draws it: the help's lines at the width on screen, in the body (title, header and rows' lines) less the line saying which are shown. */
  #helpMaxScroll(): number {
    const n = helpLines(this.state, this.#viewport.columns).length;
    const body = this.tableHeight() + 2;
    return n > body ? n - (body - 1) : 0;
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

  #status(tone: Status['tone'], text: string): void {
    if (tone === 'error') this.#lastError = text;
    this.#dispatch({ type: 'status', status: { tone, text } });
  }

  /** The last error said, whole: the status line cuts it to the width, `!` shows it all. */
  #lastError: string | undefined;

  /**
   * `!`: the error on the status line, else what the status line cut (it says `! shows all`:
   * an export's file name at 80 columns), else the last error said, whole.
   */
  showLastError(): void {
    const shown = this.statusShown();
    if (shown && shown.tone !== 'error' && statusText(shown, this.#viewport.columns).cut)
      return this.#overlay({ kind: 'message', title: 'The status line', text: shown.text });
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
  current(): CurrentList | undefined {
    return this.#pages.current();
  }

  /** What the table draws (src/ui/list-pages.ts): its page, or while it loads the page last drawn. */
  tableView(): { data: unknown; list: ListState; own: boolean } | undefined {
    return this.#pages.tableView();
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
    return !!c && c.rows === undefined && !this.#pages.failed(c) && this.#rowKey(k, c.r);
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
    if (c && this.#pages.failed(c) && this.#backFromFailed(c)) return;
    if (c?.rows !== undefined) this.#pages.arrived();
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

  /**
   * The page on screen could not be loaded: the keys typed for it are dropped, and when the
   * page left for it still has its rows, the list is back on that page (true), said with the error.
   */
  #backFromFailed(c: CurrentList): boolean {
    const err = this.cache.peek(c.spec).error;
    const from = this.#pages.leaveFailed(c);
    const waiting = this.#queued.length;
    this.#queued = [];
    if (!from) return false;
    // Back on the page whose rows the screen shows: its number, its keys, its rows.
    this.#seenError = err;
    this.#dispatch({ type: 'update-list', patch: { page: from.page, selected: from.selected } });
    const dropped = waiting ? `; the ${waiting} key${waiting === 1 ? '' : 's'} typed meanwhile were not applied` : '';
    this.#status('error', `page ${c.ls.page} could not be loaded (still on page ${from.page}${dropped}): ${this.describe(err)}`);
    return true;
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

  /** Starts an action on the marked rows (when the action takes several), else the selected row. */
  startAction(def: ActionDef): void {
    startAction(this.#host, def);
  }

  /** Ctrl-S: the page on screen as a CSV file. */
  exportView(): Promise<void> {
    return exportView(this.#host);
  }

  // -------------------------------------------------------------------------------------------
  // Keys: those of every screen here, the rest by the mode on screen (src/ui/modes/)

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
    // Pasted text is typed into a prompt; elsewhere its characters would run as keys.
    if (k.paste && !takesText(s.overlay))
      return this.#status('info', 'pasted text is taken only by a prompt (/ filter, : switch, a form): nothing done');
    if (s.overlay) return overlayKey(this.#host, s.overlay, k);
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
    if (s.view === 'home') return homeKey(this.#host, k);
    if (s.view === 'list') return listKey(this.#host, k);
    if (s.view === 'detail') return detailKey(this.#host, k);
  }
}
