/**
 * What a `subscriptions manage` row changes, read before it is sent and again when its answer
 * was lost: status, end date and credits of its subscription. The contract cannot read one
 * subscription by id, so the list is walked in pages (newest first, the order files made from
 * `subscriptions list` have), ahead of the rows: a row waits only until its subscription's page
 * has come.
 */
import { readDate, readId, readNumber } from '../api/read-values.js';
import type { ApiClient } from '../api/client.js';
import { subscriptionsList } from '../api/contract/admin-subscriptions.js';
import { walkPages } from '../api/page-walk.js';
import type { PlannedRow, Settled, StateReader } from './types.js';

/** What a manage row can change, as read from the list (values as the platform gave them). */
interface SubState {
  status: string;
  end_date: string;
  total_credits: number;
}

const DAY = 86_400_000;
/** A platform that stores end dates at another time of day or across a time-zone change: up to this far from the exact move still counts. */
const DATE_SLACK_MS = 2 * 3_600_000;

const idOf = (row: PlannedRow) => Number(row.input.params.id);

function stateOf(row: Record<string, unknown>): SubState {
  return { status: String(row.status ?? ''), end_date: String(row.end_date ?? ''), total_credits: readNumber(row.total_credits) ?? NaN };
}

interface SubReader {
  wait(id: number): Promise<SubState | undefined>;
  stop(): void;
  /** Why the walk stopped before it saw every id, once it has ended. */
  failure(): unknown;
}

/** Reads the subscriptions of `ids` as the list walks by; each `wait` resolves when its id was seen or the walk ended. */
function readSubscriptions(api: ApiClient, ids: Set<number>, signal: AbortSignal): SubReader {
  const promises = new Map<number, Promise<SubState | undefined>>();
  const resolvers = new Map<number, (s: SubState | undefined) => void>();
  for (const id of ids) promises.set(id, new Promise<SubState | undefined>((r) => resolvers.set(id, r)));
  const stopper = new AbortController();
  const onAbort = () => stopper.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let failure: unknown;
  const walk = async () => {
    for await (const row of walkPages(
      api,
      subscriptionsList,
      { query: {} },
      { startPage: 1, size: 100, ahead: 4, signal: stopper.signal },
    )) {
      const id = readId(row.subscription_id);
      const resolve = typeof id === 'number' ? resolvers.get(id) : undefined;
      if (!resolve) continue;
      resolvers.delete(id as number);
      resolve(stateOf(row));
      if (resolvers.size === 0) break;
    }
  };
  // A walk that fails (the network, Ctrl-C) leaves the rows it did not reach without a record:
  // their lost answers are then unknown, never guessed.
  void walk()
    .catch((e: unknown) => {
      failure = e;
    })
    .finally(() => {
      signal.removeEventListener('abort', onAbort);
      for (const resolve of resolvers.values()) resolve(undefined);
      resolvers.clear();
    });
  return { wait: (id) => promises.get(id) ?? Promise.resolve(undefined), stop: () => stopper.abort(), failure: () => failure };
}

export function readManageState(api: ApiClient, rows: PlannedRow[], signal: AbortSignal): StateReader {
  const r = readSubscriptions(api, new Set(rows.map(idOf)), signal);
  return { wait: (row) => r.wait(idOf(row)), stop: r.stop, failure: r.failure };
}

/** The state a manage row leaves when applied to `before` (undefined when that cannot be told). */
export function manageAfter(before: unknown, row: PlannedRow): unknown {
  const b = before as SubState | undefined;
  if (!b) return undefined;
  const body = row.input.body;
  switch (body.action) {
    case 'extend': {
      const end = readDate(b.end_date) ?? NaN;
      if (Number.isNaN(end) || !Number.isFinite(Number(body.extend_days))) return undefined;
      return { ...b, end_date: new Date(end + Number(body.extend_days) * DAY).toISOString() };
    }
    case 'add_credits':
      return Number.isFinite(b.total_credits) ? { ...b, total_credits: b.total_credits + Number(body.extend_credits) } : undefined;
    case 'pause':
      return { ...b, status: 'paused' };
    case 'resume':
      return { ...b, status: 'active' };
    case 'cancel':
      return { ...b, status: 'cancelled' };
    default:
      return undefined;
  }
}

/** Applied, not applied, or undecidable: the subscription now against the record before the row and what the row does. */
function judge(before: SubState | undefined, now: SubState | undefined, row: PlannedRow): Settled['result'] {
  if (!before || !now) return 'unknown';
  const body = row.input.body;
  if (body.action === 'extend') {
    const moved = (readDate(now.end_date) ?? NaN) - (readDate(before.end_date) ?? NaN);
    const want = Number(body.extend_days) * DAY;
    if (!Number.isFinite(moved) || !Number.isFinite(want)) return 'unknown';
    if (Math.abs(moved) <= DATE_SLACK_MS) return 'absent';
    return Math.abs(moved - want) <= DATE_SLACK_MS ? 'applied' : 'unknown';
  }
  if (body.action === 'add_credits') {
    const added = now.total_credits - before.total_credits;
    if (!Number.isFinite(added)) return 'unknown';
    if (added === 0) return 'absent';
    return added === Number(body.extend_credits) ? 'applied' : 'unknown';
  }
  const to = (manageAfter(before, row) as SubState | undefined)?.status;
  if (!to || to === before.status) return 'unknown';
  if (now.status === to) return 'applied';
  return now.status === before.status ? 'absent' : 'unknown';
}

export async function settleManage(
  api: ApiClient,
  rows: Array<{ row: PlannedRow; before: unknown }>,
  signal: AbortSignal,
): Promise<Map<number, Settled>> {
  const r = readSubscriptions(api, new Set(rows.map((x) => idOf(x.row))), signal);
  const out = new Map<number, Settled>();
  const now = new Map<number, SubState | undefined>();
  for (const { row } of rows) now.set(row.line, await r.wait(idOf(row)));
  // The check itself failed: the rows stay unsettled (the next run checks them again).
  if (r.failure() !== undefined) throw r.failure();
  for (const { row, before } of rows) out.set(row.line, { result: judge(before as SubState | undefined, now.get(row.line), row) });
  return out;
}
