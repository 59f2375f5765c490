/**
 * The settle stage: rows whose answer never came (a kill, a time-out, a reset, a 5xx or an
 * unreadable 2xx to a write) are settled by the platform's state, read again and compared with
 * what the journal recorded before each was sent (manage-state.ts), or by looking a created code
 * up (create-state.ts). Applied, not applied (sent again), or undecidable (reported unknown, with
 * the command that checks it, and never sent again). Nothing here reads a clock of the platform.
 */
import type { ApiClient } from '../api/client.js';
import { pause } from '../api/retry.js';
import type { BulkVerb, PlannedRow, Settled } from './types.js';

export interface Unanswered {
  row: PlannedRow;
  sentAt: number;
  before: unknown;
  status?: number;
}

export interface SettleOutcome {
  results: Map<number, Settled>;
  /** The check itself failed (the network, the server): the rows stay as they were, for the next run. */
  failure?: string;
  /** Ctrl-C came while waiting or checking. */
  interrupted: boolean;
}

/** Waits until the rows can no longer be in flight on the platform (the time-out after the last was sent), then checks them. */
export async function settleRows(
  api: ApiClient,
  verb: BulkVerb,
  rows: Unanswered[],
  opts: { timeoutMs: number; signal: AbortSignal; note: (text: string) => void; warn: (text: string) => void },
): Promise<SettleOutcome> {
  const results = new Map<number, Settled>();
  if (!verb.settle) {
    for (const r of rows) results.set(r.row.line, { result: 'unknown' });
    return { results, interrupted: false };
  }
  const wait = Math.max(...rows.map((r) => r.sentAt)) + opts.timeoutMs - Date.now();
  if (wait > 0) {
    opts.note(
      `checking ${rows.length} unanswered row(s) against the platform in ${(wait / 1000).toFixed(1)} s (once they can no longer be in flight)`,
    );
    await pause(wait, opts.signal);
  }
  if (opts.signal.aborted) return { results, interrupted: true };
  try {
    return { results: await verb.settle(api, rows, opts.signal), interrupted: opts.signal.aborted };
  } catch (e) {
    if (opts.signal.aborted) return { results, interrupted: true };
    const failure = (e as Error).message;
    opts.warn(`could not check unanswered rows: ${failure}`);
    return { results, failure, interrupted: false };
  }
}

/** A value as one shell word. */
const word = (v: unknown) => (/^[\w.@:/+-]+$/.test(String(v)) ? String(v) : `'${String(v).replace(/'/g, `'\\''`)}'`);

/** Per create endpoint, the command that finds what a row created (create-state.ts settles by the same look-up). */
const CREATE_CHECKS: Record<string, (b: Record<string, unknown>) => string> = {
  'services.create': (b) => `subctl services get --service-code ${word(b.service_code)}`,
  'plans.create': (b) => `subctl plans list --plan-code ${word(b.plan_code)}`,
  'service-plans.create': (b) => `subctl service-plans list --service-code ${word(b.service_code)} --plan-code ${word(b.plan_code)}`,
  'roles.create': (b) =>
    `subctl roles list --all -o json | jq '.[] | select(.role_name == "${String(b.role_name).replace(/[^\w.-]/g, '')}")'`,
  'users.create': (b) => `subctl roles assignments --search ${word(b.username)}`,
  'usage-codes.generate': (b) => `subctl usage-codes list --batch-id ${word(b.batch_id)}`,
};

/** The command that checks an undecidable row by hand. */
export function checkCommand(row: PlannedRow): string {
  const id = row.input.params.id;
  const endpoint = row.target.split(' ')[0];
  if (endpoint === 'subscriptions.manage' && id !== undefined)
    return `subctl subscriptions list --all -o json | jq '.[] | select(.subscription_id == ${Number(id)})'`;
  const create = CREATE_CHECKS[endpoint];
  if (create) return create(row.input.body);
  return `subctl audit list --module ${endpoint.split('.')[0]}`;
}
