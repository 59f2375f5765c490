/**
 * A page of a list answer as the command line and the console read it: its rows (found by
 * src/api/rows.ts, never lost silently) and its paging facts.
 */
import type { AnyEndpoint } from './contract/common.js';
import { BadResponseError } from './errors.js';
import { findRows, totalsOf, type Totals } from './rows.js';

/** A page's facts: its number, the size asked, and what the platform said of the list (rows.ts `totalsOf`). */
export interface PageInfo extends Totals {
  page: number;
  size: number;
}

/**
 * The rows of a list answer (src/api/rows.ts finds them); `note` gets the line saying where
 * they came from when not from the contract's key. No rows to be found in a `data` that is not
 * empty is an error naming what the answer held: never an empty list.
 */
export function itemsOf(ep: AnyEndpoint, data: unknown, note?: (text: string) => void): Record<string, unknown>[] {
  const found = findRows(ep, data);
  if (found.note && found.rows) note?.(found.note);
  if (!found.rows) throw noRows(found.note!);
  return found.rows;
}

/** No rows to be found in an answer: exit 6, naming what the answer held. */
export function noRows(note: string): BadResponseError {
  const e = new BadResponseError(note.replace(/^note: /, ''));
  e.hint = '`-o json` (without --all) prints data as received';
  return e;
}

export function pageInfoOf(ep: AnyEndpoint, data: unknown, page: number, size: number): PageInfo {
  return { page, size, ...totalsOf(ep, data) };
}
