/**
 * The pages of the list on screen: which page's answer the table draws (its own, or while it
 * loads the page last drawn), the page facts of each listing, and moving between pages.
 */
import type { QueryCache, QuerySpec } from './query-cache.js';
import { queryKey } from './query-cache.js';
import { resourceByName, type ResourceDef, type Row } from './resources.js';
import { listSpec, pageOf } from './specs.js';
import { currentList, type ConsoleAction, type ConsoleState, type ListState, type Status } from './state/console-state.js';

/**
 * The list on screen: its definition, state, request and its page's rows. `rows` is undefined
 * while the page is not in (loading, or failed).
 */
export interface CurrentList {
  r: ResourceDef;
  ls: ListState;
  spec: QuerySpec;
  data?: unknown;
  rows?: Row[];
  totalPages?: number;
  totalRecords?: number;
  /** The page's own word on whether a page follows it (`has_next_page`), where the platform gives one. */
  hasNext?: boolean;
}

/** What the pages need of the controller: its state, and a way to change it and to say so. */
export interface PagesHost {
  cache: QueryCache;
  state(): ConsoleState;
  dispatch(a: ConsoleAction): void;
  say(tone: Status['tone'], text: string): void;
}

export class ListPages {
  readonly #h: PagesHost;

  /** Page facts of each listing (resource, filters, sort, page size) last seen. */
  readonly #facts = new Map<string, { totalPages?: number; totalRecords?: number }>();

  /** The page of each resource last drawn with its own rows: what its table shows while another page loads. */
  readonly #shown = new Map<string, { key: string; data: unknown; list: ListState }>();

  /** The page key that left a page whose rows were on screen: shown again if the new page cannot be loaded. */
  #from: { listing: string; page: number; selected: number } | undefined;

  constructor(host: PagesHost) {
    this.#h = host;
  }

  /** The list on screen (see CurrentList): keys that act on rows wait while `rows` is undefined. */
  current(): CurrentList | undefined {
    const s = this.#h.state();
    const ls = currentList(s);
    const r = ls && resourceByName(ls.resource);
    if (!ls || !r) return undefined;
    const spec = listSpec(r, ls);
    const key = queryKey(spec);
    const cache = this.#h.cache;
    let data = cache.peek(spec).data;
    if (data !== undefined) this.#shown.set(r.name, { key, data, list: ls });
    // Older than 5 minutes, a page's answer is acted on only while that page is the one on
    // screen (it stays there until asked again); going back to it, the table shows the page it
    // came from until the page is in again, and keys must not act on rows not drawn.
    else if (this.#shown.get(r.name)?.key === key) data = cache.peek(spec, { expired: true }).data;
    // Every page of a listing has the same page facts: while a page loads, those of the last
    // page seen of it stand in, so page keys pressed meanwhile still count.
    const listing = this.listing(r, ls);
    if (data === undefined) return { r, ls, spec, ...this.#facts.get(listing) };
    const page = pageOf(r, ls, data);
    this.#facts.set(listing, { totalPages: page.totalPages, totalRecords: page.totalRecords });
    return { r, ls, spec, data, ...page };
  }

  /** A listing (resource, filters, sort, page size) whatever its page. */
  listing(r: ResourceDef, ls: ListState): string {
    return queryKey(listSpec(r, { ...ls, page: 0 }));
  }

  /**
   * What the table draws: its page's answer; while that page loads, the page of the resource
   * last shown (`own` false: keys wait for the page); nothing once the page failed (its error
   * is shown, never another page's rows under its number).
   */
  tableView(): { data: unknown; list: ListState; own: boolean } | undefined {
    const c = this.current();
    if (!c) return undefined;
    if (c.data !== undefined) return { data: c.data, list: c.ls, own: true };
    if (this.failed(c)) return undefined;
    const shown = this.#shown.get(c.r.name);
    return shown && { data: shown.data, list: shown.list, own: false };
  }

  /** The page on screen could not be loaded (and is not being asked again). */
  failed(c: { spec: QuerySpec; rows?: Row[] }): boolean {
    if (c.rows !== undefined) return false;
    const q = this.#h.cache.peek(c.spec);
    return q.error !== undefined && !q.loading;
  }

  selectedRow(): Row | undefined {
    const c = this.current();
    if (!c?.rows?.length) return undefined;
    return c.rows[Math.min(c.ls.selected, c.rows.length - 1)];
  }

  /**
   * The page on screen `c` failed: the page left for it, when that page's rows are still at hand
   * (the caller goes back to it); undefined otherwise. Either way the page left is forgotten.
   */
  leaveFailed(c: CurrentList): { page: number; selected: number } | undefined {
    const from = this.#from;
    this.#from = undefined;
    const back =
      from && from.listing === this.listing(c.r, c.ls) && from.page !== c.ls.page ? listSpec(c.r, { ...c.ls, page: from.page }) : undefined;
    return from && back && this.#h.cache.peek(back, { expired: true }).data !== undefined ? from : undefined;
  }

  /** The page on screen is in: the page left for it is no longer needed. */
  arrived(): void {
    this.#from = undefined;
  }

  goPage(page: number): void {
    const h = this.#h;
    const c = this.current();
    if (!c) return;
    if (page < 1) {
      h.say('info', 'first page');
      return;
    }
    const last = c.totalPages;
    // Still loading the first page of this listing: nothing says how many pages there are yet.
    if (c.rows === undefined && last === undefined) return h.say('info', 'loading…');
    if (last !== undefined && page > last) {
      h.say('info', 'last page');
      return;
    }
    // A short page is the last, unless the platform says a page follows (it may serve fewer rows than asked).
    if (last === undefined && page > c.ls.page && c.rows !== undefined && c.rows.length < c.ls.size && c.hasNext !== true) {
      h.say('info', 'last page');
      return;
    }
    const listing = this.listing(c.r, c.ls);
    if (c.rows !== undefined) this.#from = { listing, page: c.ls.page, selected: c.ls.selected };
    else if (this.#from?.listing !== listing) this.#from = undefined;
    h.dispatch({ type: 'update-list', patch: { page, selected: 0 } });
    h.dispatch({ type: 'status', status: undefined });
    // A page that failed before is asked again now, not once the screen is drawn: until then it
    // would look failed, and keys typed with this one (`PgDn j`) would not wait for it.
    const to = this.current();
    if (to && h.cache.peek(to.spec).error !== undefined && to.rows === undefined) void h.cache.load(to.spec);
  }
}
