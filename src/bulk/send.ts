/**
 * The send stage: rows go out with `--concurrency N` over the client's keep-alive pool. Each
 * row's `sent` (with what it will change, read ahead by the verb's state reader) is on disk
 * before its request leaves, and its answer after. Rows of one target never fly together: the
 * next one waits for the answer to the one before, and starts from the state that one left.
 * After Ctrl-C nothing more leaves; the rows in flight are awaited (up to the time-out).
 */
import type { ApiClient } from '../api/client.js';
import { RedirectError } from '../api/answer.js';
import { CliError, isAmbiguousStatus } from '../api/errors.js';
import { fingerprintOf, type Journal, type JournalEvent, type RowRecord } from './journal.js';
import type { Unanswered } from './settle.js';
import { RETRY_ON_RESUME, type BulkVerb, type PlannedRow, type StateReader } from './types.js';

export interface SendJob {
  api: ApiClient;
  verb: BulkVerb;
  journal: Journal;
  todo: PlannedRow[];
  concurrency: number;
  signal: AbortSignal;
  reader?: StateReader;
  /** Every row's record, by identity: updated as rows are answered. */
  state: Map<string, RowRecord>;
  /** Called after every answer (progress). */
  onAnswer?: (done: number, failed: number) => void;
}

export interface SendResult {
  lost: Unanswered[];
  done: number;
  failed: number;
  interrupted: boolean;
  /** What the answers made (the verb's `created`), by row identity. */
  created: Map<string, Array<Record<string, unknown>>>;
  /** The targets' state could not be read: the rows without a record were not sent (the next run sends them). */
  stateFailure?: string;
  /**
   * An answer every further row would get too, so the run stopped: a 401 (the credential was
   * refused) or a redirect (the base URL points where the platform is not).
   */
  refused?: CliError;
}

function createdIdOf(data: unknown): unknown {
  if (!data || typeof data !== 'object') return undefined;
  const d = data as Record<string, unknown>;
  const k = Object.keys(d).find((key) => key.endsWith('_id') && (typeof d[key] === 'number' || typeof d[key] === 'string'));
  return k ? d[k] : undefined;
}

/** The row's target for ordering and state: its endpoint and key (rows without a key have none). */
const entityOf = (verb: BulkVerb, row: PlannedRow) => (row.key ? `${verb.endpoint.name} ${row.key}` : undefined);

export async function sendRows(job: SendJob): Promise<SendResult> {
  const { verb, journal, todo } = job;
  const res: SendResult = { lost: [], created: new Map(), done: 0, failed: 0, interrupted: job.signal.aborted };
  /** The first error that is not a row's own (the journal could not be written): the run stops with it. */
  let broken: unknown;
  const stopped = () => res.interrupted || broken !== undefined || res.refused !== undefined || res.stateFailure !== undefined;
  const onAbort = () => (res.interrupted = true);
  job.signal.addEventListener('abort', onAbort, { once: true });
  /** Per target: the answer to its row in flight, and the state its rows leave. */
  const turns = new Map<string, Promise<void>>();
  const current = new Map<string, { state: unknown }>();
  let next = 0;

  const worker = async () => {
    // A row's `done` goes out with the worker's next `sent`, and with the records of every other
    // worker of the same turn, in one write; the row is sent once that write is done.
    let finished: JournalEvent | undefined;
    const flush = () => {
      if (finished) journal.append(finished);
      finished = undefined;
    };
    while (!stopped() && next < todo.length) {
      const row = todo[next++];
      const entity = entityOf(verb, row);
      const prev = entity ? turns.get(entity) : undefined;
      let release = () => {};
      if (entity) turns.set(entity, new Promise<void>((r) => (release = r)));
      try {
        if (prev) await prev;
        const known = entity ? current.get(entity) : undefined;
        const before = known ? known.state : job.reader ? await job.reader.wait(row) : undefined;
        // Without the record a lost answer could not be settled: the row waits for the next run.
        const unread = before === undefined && job.reader?.failure();
        if (unread !== undefined && unread !== false) res.stateFailure ??= (unread as Error)?.message ?? String(unread);
        if (stopped()) break;
        const sentAt = Date.now();
        const sent: JournalEvent = {
          row: row.identity,
          line: row.line,
          state: 'sent',
          at: sentAt,
          ...(before !== undefined ? { before } : {}),
        };
        await (finished ? journal.appendSoon(finished, sent) : journal.appendSoon(sent));
        finished = undefined;
        if (stopped()) {
          recordUnsent(job, row, sentAt, before);
          break;
        }
        const after = await sendOne(job, res, row, sentAt, before, (e) => (finished = e));
        if (entity) current.set(entity, { state: after === LOST ? undefined : after });
      } catch (e) {
        broken ??= e;
      } finally {
        release();
      }
      if (stopped() || next >= todo.length) flush();
    }
    flush();
  };
  try {
    await Promise.all(Array.from({ length: Math.min(job.concurrency, Math.max(todo.length, 1)) }, worker));
  } finally {
    job.signal.removeEventListener('abort', onAbort);
    job.reader?.stop();
  }
  if (broken !== undefined) throw broken;
  return res;
}

/**
 * Sends one row and records its answer; the state it leaves (LOST when its answer was lost).
 * `done` takes the row's `done` record, written with the worker's next `sent`.
 */
async function sendOne(
  job: SendJob,
  res: SendResult,
  row: PlannedRow,
  sentAt: number,
  before: unknown,
  done: (e: JournalEvent) => void,
): Promise<unknown> {
  const { api, verb, journal, state } = job;
  const ep = verb.endpoint;
  const base = { row: row.identity, line: row.line, sentAt, before, attempt: (state.get(row.identity)?.attempt ?? 0) + 1 };
  try {
    // No abort signal: a row in flight when Ctrl-C comes is awaited (up to the time-out).
    const answer = await api.callFull(ep, row.validated as never, { detached: true, prevalidated: true });
    const created = createdIdOf(answer.data);
    done({
      row: row.identity,
      line: row.line,
      state: 'done',
      at: Date.now(),
      status: answer.status,
      created_id: created,
      message: answer.message ?? undefined,
    });
    state.set(row.identity, {
      ...base,
      state: 'done',
      settledBy: base.attempt,
      status: answer.status,
      created_id: created,
      message: answer.message ?? undefined,
      at: Date.now(),
    });
    res.done++;
    if (verb.created) res.created.set(row.identity, verb.created.rows(answer.data));
    job.onAnswer?.(res.done, res.failed);
    return verb.after ? verb.after(before, row) : undefined;
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    res.failed++;
    job.onAnswer?.(res.done, res.failed);
    if (e.status !== undefined && !isAmbiguousStatus(e.status)) {
      const message = RETRY_ON_RESUME.has(e.status) ? `${e.message} (not applied: run the command again to send it again)` : e.message;
      const fp = fingerprintOf(row.input);
      journal.append({ row: row.identity, line: row.line, state: 'failed', at: Date.now(), status: e.status, message, fp });
      state.set(row.identity, { ...base, state: 'failed', settledBy: base.attempt, status: e.status, message, fp, at: Date.now() });
      if (e.status === 401) res.refused ??= e;
      return before;
    }
    // No answer (network, time-out), or one that does not say whether the row was applied.
    res.lost.push({ row, sentAt, before, status: e.status });
    if (e instanceof RedirectError) res.refused ??= e;
    return LOST;
  }
}

/** The `sent` is on disk, the request never left: said so, and sent by the next run. */
function recordUnsent(job: SendJob, row: PlannedRow, sentAt: number, before: unknown): void {
  const { journal, state } = job;
  journal.append({
    row: row.identity,
    line: row.line,
    state: 'failed',
    at: Date.now(),
    via: 'unsent',
    message: 'not sent (interrupted)',
  });
  state.set(row.identity, {
    ...state.get(row.identity),
    row: row.identity,
    line: row.line,
    attempt: (state.get(row.identity)?.attempt ?? 0) + 1,
    sentAt,
    before,
    at: Date.now(),
    state: 'failed',
    via: 'unsent',
    message: 'not sent (interrupted)',
  });
}

/** A row whose answer was lost leaves a state nobody knows. */
const LOST = Symbol('lost');
