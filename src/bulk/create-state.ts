/**
 * Creates whose answer was lost, settled by looking their code up: found means the create was
 * applied (its id read from what the look-up answers), not found (404) means it was not.
 */
import type { ApiClient } from '../api/client.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import { CliError } from '../api/errors.js';
import type { PlannedRow, Settled } from './types.js';

export interface CodeLookup {
  /** The endpoint that reads one item by its code. */
  endpoint: AnyEndpoint;
  /** The row's body field holding the code, and the look-up's query field it goes in. */
  codeField: string;
  queryField: string;
  /** The created item's id in the look-up's answer. */
  idOf: (data: unknown) => unknown;
}

export function settleByCode(lookup: CodeLookup) {
  return async (api: ApiClient, rows: Array<{ row: PlannedRow; before: unknown }>, signal: AbortSignal): Promise<Map<number, Settled>> => {
    const out = new Map<number, Settled>();
    for (const { row } of rows) {
      const code = row.input.body[lookup.codeField];
      if (typeof code !== 'string' || !code) {
        out.set(row.line, { result: 'unknown' });
        continue;
      }
      try {
        const data = await api.call(lookup.endpoint, { query: { [lookup.queryField]: code } } as never, { signal });
        out.set(row.line, { result: 'applied', createdId: lookup.idOf(data) });
      } catch (e) {
        if (e instanceof CliError && e.status === 404) out.set(row.line, { result: 'absent' });
        else throw e;
      }
    }
    return out;
  };
}

/** Creates that have no read by code but a list filtered by it (usage-code batches): found when the list holds any. */
export function settleByListing(lookup: {
  endpoint: AnyEndpoint;
  codeField: string;
  queryField: string;
  items: (data: unknown) => unknown[];
}) {
  return async (api: ApiClient, rows: Array<{ row: PlannedRow; before: unknown }>, signal: AbortSignal): Promise<Map<number, Settled>> => {
    const out = new Map<number, Settled>();
    for (const { row } of rows) {
      const code = row.input.body[lookup.codeField];
      if (typeof code !== 'string' || !code) {
        out.set(row.line, { result: 'unknown' });
        continue;
      }
      const data = await api.call(lookup.endpoint, { query: { [lookup.queryField]: code, page_size: 1 } } as never, { signal });
      out.set(row.line, lookup.items(data).length ? { result: 'applied', createdId: code } : { result: 'absent' });
    }
    return out;
  };
}
