/**
 * What the key handlers of each mode (src/ui/modes/*.ts) use of the console's controller
 * (src/ui/controller.ts): its state and the ways to change it, the pages of the list on screen,
 * and the session the requests are made in.
 */
import type { ListPages } from '../list-pages.js';
import type { QueryCache } from '../query-cache.js';
import type { ResourceDef } from '../resources.js';
import type { ApiLike, Session } from '../session.js';
import type { ConsoleAction, ConsoleState, Overlay, Status } from '../state/console-state.js';

export interface ModeHost {
  /** The state as it is now (never a render's snapshot). */
  readonly state: ConsoleState;
  readonly cache: QueryCache;
  readonly pages: ListPages;
  readonly api: ApiLike;
  readonly session: Session;
  readonly signal?: AbortSignal;
  /** Where ctrl-s writes. */
  readonly cwd: string;
  now(): Date;
  dispatch(a: ConsoleAction): void;
  /** A line on the status line (an error is also kept for `!`). */
  say(tone: Status['tone'], text: string): void;
  /** Opens an overlay, or closes the one open (undefined). */
  overlay(o?: Overlay): void;
  /** Rows of the table area for the current terminal height. */
  tableHeight(): number;
  describe(e: unknown): string;
  openHome(): void;
  openResource(name: string): boolean;
  /** Rows per server page of `r` (--page-size, else what fits the terminal). */
  pageSize(r: ResourceDef): number;
  /** Largest scroll of the dashboard and of the detail, as their screens last drew them. */
  homeMaxScroll(): number;
  detailMaxScroll(): number;
  helpMaxScroll(): number;
}
