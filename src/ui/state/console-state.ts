/**
 * The console's state and its reducer: which screen is up, each resource's list position
 * (page, filters, sort, selection, marks: kept when switching away and back), the overlay
 * (switcher, filter, form, confirmation, progress, help) and the status line.
 */
import type { ActionDef, Progress } from '../actions.js';
import type { FormState } from '../form-model.js';
import type { CallSpec, Row } from '../resources.js';

export interface ListState {
  resource: string;
  page: number;
  size: number;
  filters: Record<string, unknown>;
  sortBy?: string;
  sortOrder?: 'ASC' | 'DESC';
  /** Index of the selected row within the page. */
  selected: number;
  /** Marked rows by key, across pages. */
  marked: Record<string, Row>;
}

export interface DetailState {
  resource: string;
  row: Row;
  scroll: number;
}

export type Overlay =
  | { kind: 'help'; scroll: number }
  | { kind: 'switcher'; text: string; choice: number }
  | { kind: 'filter'; text: string; errors: string[] }
  | { kind: 'form'; form: FormState; action: ActionDef; rows: Row[] }
  | {
      kind: 'confirm';
      action: ActionDef;
      rows: Row[];
      inputs: CallSpec[];
      /** Lines above the list of rows (all of them for one row). */
      lines: string[];
      /** One line per row (several rows): as many as fit, scrolled with ↑↓ PgUp/PgDn (confirm-window.ts). */
      items: string[];
      /** Lines below the list. */
      tail: string[];
      /** First row of the list on screen. */
      scroll: number;
      /** Text to type (delete); otherwise y confirms. */
      typed?: string;
      text: string;
    }
  | { kind: 'progress'; title: string; progress: Progress }
  /** A text too long for the status line, whole (`!`: the last error). */
  | { kind: 'message'; title: string; text: string };

export interface Status {
  tone: 'info' | 'ok' | 'error' | 'busy';
  text: string;
}

export interface ConsoleState {
  view: 'home' | 'list' | 'detail';
  resource?: string;
  lists: Record<string, ListState>;
  detail?: DetailState;
  overlay?: Overlay;
  status?: Status;
  autoRefresh: boolean;
  readOnly: boolean;
  /** First line of the dashboard on screen (it scrolls when taller than the screen). */
  homeScroll: number;
  /** Where each jump (a user's subscriptions, a row's user) came from: Esc goes back there. */
  trail?: Array<Pick<ConsoleState, 'view' | 'resource' | 'detail'> & { list?: ListState }>;
}

export type ConsoleAction =
  | { type: 'home' }
  | { type: 'list'; resource: string; size: number }
  /** The terminal's height changed: the resource's pages are `size` rows now. */
  | { type: 'resize-list'; resource: string; size: number }
  | { type: 'update-list'; patch: Partial<ListState> }
  | { type: 'detail'; row: Row }
  | { type: 'detail-scroll'; scroll: number }
  | { type: 'home-scroll'; scroll: number }
  | { type: 'back' }
  | { type: 'overlay'; overlay?: Overlay }
  | { type: 'status'; status?: Status }
  | { type: 'toggle-auto' }
  /** A list kept to `filters` (a user's subscriptions, wallet, audit), from the screen in view. */
  | { type: 'jump-list'; resource: string; size: number; filters: Record<string, unknown> }
  /** A row's detail on another resource (a subscription's user), from the screen in view. */
  | { type: 'jump-detail'; resource: string; row: Row };

export function initialState(opts: { readOnly: boolean; autoRefresh?: boolean }): ConsoleState {
  return { view: 'home', lists: {}, autoRefresh: opts.autoRefresh ?? true, readOnly: opts.readOnly, homeScroll: 0 };
}

export function currentList(s: ConsoleState): ListState | undefined {
  return s.resource ? s.lists[s.resource] : undefined;
}

/**
 * `ls` in pages of `size` rows, on the page that holds the row that was selected: the 37th row
 * of the listing, the 17th of page 2 in pages of 20, is the 3rd of page 3 in pages of 17.
 */
function repaged(ls: ListState, size: number): ListState {
  if (ls.size === size) return ls;
  const index = (ls.page - 1) * ls.size + ls.selected;
  return { ...ls, size, page: Math.floor(index / size) + 1, selected: index % size };
}

/** Another filter or sort: the rows the list shows are not the same rows. */
function listingChanged(a: ListState, b: ListState): boolean {
  return a.sortBy !== b.sortBy || a.sortOrder !== b.sortOrder || JSON.stringify(a.filters) !== JSON.stringify(b.filters);
}

/** The screen a jump leaves, kept so that Esc comes back to it, its list too. */
function trailTo(s: ConsoleState): NonNullable<ConsoleState['trail']> {
  return [...(s.trail ?? []), { view: s.view, resource: s.resource, detail: s.detail, list: currentList(s) }];
}

/** A jump to a list kept to what the row names (a user's subscriptions): page 1 of it, filtered. */
function jumpList(s: ConsoleState, a: Extract<ConsoleAction, { type: 'jump-list' }>): ConsoleState {
  const trail = trailTo(s);
  const existing = s.lists[a.resource];
  const list: ListState = {
    resource: a.resource,
    page: 1,
    size: existing?.size ?? a.size,
    filters: a.filters,
    selected: 0,
    marked: {},
  };
  return {
    ...s,
    view: 'list',
    resource: a.resource,
    lists: { ...s.lists, [a.resource]: list },
    overlay: undefined,
    detail: undefined,
    status: undefined,
    trail,
  };
}

/** A jump to the detail of what the row names (a subscription's user). */
function jumpDetail(s: ConsoleState, a: Extract<ConsoleAction, { type: 'jump-detail' }>): ConsoleState {
  const trail = trailTo(s);
  return {
    ...s,
    view: 'detail',
    resource: a.resource,
    detail: { resource: a.resource, row: a.row, scroll: 0 },
    overlay: undefined,
    status: undefined,
    trail,
  };
}

export function consoleReducer(s: ConsoleState, a: ConsoleAction): ConsoleState {
  switch (a.type) {
    // Going to another screen clears the status line: it says what just happened, and what
    // happened on the last screen is not about this one.
    case 'home':
      return { ...s, view: 'home', overlay: undefined, detail: undefined, status: undefined, trail: undefined };
    case 'list': {
      const existing = s.lists[a.resource];
      const list: ListState = existing
        ? repaged(existing, a.size)
        : { resource: a.resource, page: 1, size: a.size, filters: {}, selected: 0, marked: {} };
      return {
        ...s,
        view: 'list',
        resource: a.resource,
        lists: { ...s.lists, [a.resource]: list },
        overlay: undefined,
        detail: undefined,
        status: undefined,
      };
    }
    case 'resize-list': {
      const existing = s.lists[a.resource];
      if (!existing || existing.size === a.size) return s;
      return { ...s, lists: { ...s.lists, [a.resource]: repaged(existing, a.size) } };
    }
    case 'update-list': {
      const cur = currentList(s);
      if (!cur) return s;
      const next = { ...cur, ...a.patch };
      // Marks belong to the rows a filter and a sort show: another filter or sort clears them, so
      // that an action key never acts on a marked row the list no longer shows.
      if (!('marked' in a.patch) && listingChanged(cur, next)) next.marked = {};
      return { ...s, lists: { ...s.lists, [cur.resource]: next } };
    }
    case 'detail':
      if (!s.resource) return s;
      return { ...s, view: 'detail', detail: { resource: s.resource, row: a.row, scroll: 0 }, overlay: undefined, status: undefined };
    case 'detail-scroll':
      return s.detail ? { ...s, detail: { ...s.detail, scroll: Math.max(0, a.scroll) } } : s;
    case 'home-scroll':
      return { ...s, homeScroll: Math.max(0, a.scroll) };
    case 'jump-list':
      return jumpList(s, a);
    case 'jump-detail':
      return jumpDetail(s, a);
    case 'back':
      if (s.trail?.length) {
        // The screen as it was, its list too (a jump to the same resource replaced it).
        const { list, ...from } = s.trail[s.trail.length - 1];
        const lists = list ? { ...s.lists, [list.resource]: list } : s.lists;
        return { ...s, ...from, lists, trail: s.trail.slice(0, -1), overlay: undefined, status: undefined };
      }
      if (s.view === 'detail') return { ...s, view: 'list', detail: undefined, status: undefined };
      if (s.view === 'list') return { ...s, view: 'home', status: undefined };
      return s;
    case 'overlay':
      return { ...s, overlay: a.overlay };
    case 'status':
      return { ...s, status: a.status };
    case 'toggle-auto':
      return { ...s, autoRefresh: !s.autoRefresh };
  }
}
