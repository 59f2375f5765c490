/**
 * Creates whose answer was lost, settled by looking the created item up by what the row named it
 * (its code, its name, its pair of codes): one mechanism for every create verb, which says only
 * how its items are found (a get by code, or a list filtered by the code, every page) and which
 * of the row's fields the item shows.
 *
 * - found under the row's exact name, with the row's fields where the item shows them: applied,
 *   with the id the look-up gives;
 * - not found: not applied (sent again);
 * - found with other fields (someone else created that name), or only under another case of
 *   the name (the platform's spelling, or someone else's item): undecidable, reported unknown.
 *
 * Candidates are matched here, never by the platform's reading of a filter (exact, prefix, a
 * search in several fields, or ignored), and values are read in any of the spellings platforms
 * answer (`"19.99"`, `1` for true, ids as text). Nothing depends on the platform's clock.
 */
import type { ApiClient } from '../api/client.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import { CliError } from '../api/errors.js';
import { readBoolean, readId, readNumber } from '../api/read-values.js';
import { walkPages } from '../api/page-walk.js';
import type { PlannedRow, Settled } from './types.js';

type Item = Record<string, unknown>;

/** Reads the items that may be the one a row created (a get: one or none; a list: every page). */
type Finder = (api: ApiClient, body: Item, signal: AbortSignal) => AsyncIterable<Item>;

export interface CreateLookup {
  /** The body fields that name the created item, together unique on the platform. */
  keys: string[];
  find: Finder;
  /** Body fields compared with the found item, where the item shows them. */
  compare?: string[];
  /** The item with its fields under the body's names, where the answer names them otherwise. */
  view?: (item: Item) => Item;
  /** The created item's id (the report's `created_id`). */
  idOf: (item: Item, body: Item) => unknown;
}

const isItem = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);
const fold = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : typeof v === 'number' ? String(v) : undefined);

/**
 * The one item `endpoint` answers for the row's keys (`services get --service-code X`), none on
 * a 404. A key the answer leaves out is the one asked for: the platform answered for it.
 */
export function getOne(endpoint: AnyEndpoint, query: (body: Item) => Item, pick: (data: unknown) => unknown = (d) => d): Finder {
  return async function* (api, body, signal) {
    const q = query(body);
    let data: unknown;
    try {
      data = await api.call(endpoint, { query: q } as never, { signal });
    } catch (e) {
      if (e instanceof CliError && e.status === 404) return;
      throw e;
    }
    const item = pick(data);
    if (isItem(item)) yield { ...q, ...item };
  };
}

/** Every row of the list `endpoint` (all pages) under the filter `query` gives for the row; filters may be none. */
export function listAll(endpoint: AnyEndpoint, query: (body: Item) => Item = () => ({})): Finder {
  return (api, body, signal) =>
    walkPages(api, endpoint, { query: query(body) }, { startPage: 1, size: endpoint.paging?.maxSize ?? 100, ahead: 1, signal });
}

/** The row's value and the item's, the same in any spelling the platform may answer (text trimmed, case aside). */
function sameValue(want: unknown, got: unknown): boolean {
  if (typeof want === 'boolean') return readBoolean(got) === want;
  if (typeof want === 'number') return readNumber(got) === want;
  if (typeof want === 'string') return typeof got === 'string' || typeof got === 'number' ? fold(got) === fold(want) : false;
  return JSON.stringify(want) === JSON.stringify(got);
}

/** Applied, not applied or undecidable for one row, by the items its look-up finds. */
async function settleOne(lookup: CreateLookup, api: ApiClient, body: Item, signal: AbortSignal): Promise<Settled> {
  const view = lookup.view ?? ((i: Item) => i);
  let near = false;
  for await (const raw of lookup.find(api, body, signal)) {
    const item = view(raw);
    if (lookup.keys.every((k) => item[k] === body[k])) {
      // A field the item does not show is not held against it; one it shows must be the row's.
      const differs = (lookup.compare ?? []).some((f) => body[f] !== undefined && item[f] !== undefined && !sameValue(body[f], item[f]));
      if (differs) return { result: 'unknown' };
      const id = lookup.idOf(raw, body);
      return { result: 'applied', createdId: readId(id) ?? id };
    }
    if (lookup.keys.every((k) => fold(item[k]) !== undefined && fold(item[k]) === fold(body[k]))) near = true;
  }
  return { result: near ? 'unknown' : 'absent' };
}

/**
 * A verb's `settle` for creates: each unanswered row looked up by its keys. A row without them
 * (a key cell empty) is undecidable; a look-up that fails ends the check (the rows stay for the
 * next run's check).
 */
export function settleCreate(lookup: CreateLookup) {
  return async (api: ApiClient, rows: Array<{ row: PlannedRow; before: unknown }>, signal: AbortSignal): Promise<Map<number, Settled>> => {
    const out = new Map<number, Settled>();
    for (const { row } of rows) {
      const body = row.input.body;
      const named = lookup.keys.every((k) => (typeof body[k] === 'string' && body[k] !== '') || typeof body[k] === 'number');
      out.set(row.line, named ? await settleOne(lookup, api, body, signal) : { result: 'unknown' });
    }
    return out;
  };
}
