/**
 * The bulk engine: `--from-csv FILE|-` / `--from-ndjson FILE|-` on every write verb.
 *
 * 1. Every row is turned into the verb's input (columns named by contract field or flag; the
 *    command line's flags are defaults for every row) and checked against the contract before
 *    anything is sent; errors name the line and the field. `--dry-run` stops there with the plan.
 * 2. Rows run with `--concurrency N` over the client's keep-alive pool. The journal records each
 *    row before it is sent and after it is answered.
 * 3. Running the same command again resumes: finished rows are skipped; a row whose answer
 *    never came is checked against the server where the contract allows (the verb's `verify`),
 *    run again only when the check proves it was not applied, and otherwise reported as unknown
 *    and left alone. A row the server refused for a passing reason that proves it was not
 *    applied (408, 429, 503) is sent again; other refusals (4xx) stay failed. A 5xx that does not
 *    say whether the row was applied (500, 502, 504 ...) is settled like a lost answer.
 *    `--restart` discards the journal on purpose.
 * 4. A report (`--report FILE`, CSV) accounts for every row; exit 0 when all rows were applied,
 *    8 when some failed or are unknown, 130 after Ctrl-C (in-flight rows are awaited).
 */
import { closeSync, createWriteStream } from 'node:fs';
import { openNoFollow } from '../config/safe-files.js';
import { dirname, join } from 'node:path';
import { finished as streamFinished } from 'node:stream/promises';
import { fillPath, type ApiClient } from '../api/client.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import { flagName } from '../api/contract/common.js';
import { fieldsOfEndpoint, hasPart } from '../api/contract/fast.js';
import { CliError, LocalError, localError, UsageError, ValidationError } from '../api/errors.js';
import { isSecretKey, redactBody } from '../api/redact.js';
import { builtin } from '../builtin.js';
import type { Ctx } from '../cli/context.js';
import { printList } from '../output/index.js';
import type { InputRow } from './input.js';
import { earlierRows, writeRowsFile, type EarlierRow } from './earlier.js';
import { Journal, runDigests, type JournalEvent, type RowRecord } from './journal.js';

export interface BulkInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

export type VerifyResult = 'applied' | 'absent' | 'unknown';

/** What a verb tells the engine (a subset of VerbSpec, kept apart so the engine stays generic). */
export interface BulkVerb {
  /** `subscriptions manage`, for the journal name and messages. */
  command: string;
  endpoint: AnyEndpoint;
  destructive?: boolean;
  /** Column aliases -> contract field (`subscription_id` -> `id` for a path id). */
  aliases?: Record<string, string>;
  /** Converts a raw value to the field's type (the CLI's flag conversion). */
  convert: (field: string, raw: unknown) => unknown;
  /** Cross-field checks and derived values, per row (may throw UsageError). */
  prepare?: (input: BulkInput) => void | Promise<void>;
  /** For `--dry-run`: each row's current state and the change, when the verb can tell. */
  preview?: (api: ApiClient, rows: PlannedRow[], signal: AbortSignal) => Promise<Map<number, string>>;
  /** Was this row applied? Called for rows whose answer never came. */
  verify?: (api: ApiClient, rows: Array<{ row: PlannedRow; sentAt: number }>, signal: AbortSignal, answered: Array<{ row: PlannedRow; sentAt: number }>) => Promise<Map<number, VerifyResult>>;
}

export interface PlannedRow {
  line: number;
  key: string;
  input: BulkInput;
  /** The input as checked by the contract, sent as is. */
  validated: ReturnType<typeof import('../api/client.js').validateInput>;
}

export interface BulkOptions {
  concurrency: number;
  reportFile?: string;
  /** Send every row, whatever this input's journal or earlier runs say. */
  restart: boolean;
  /** Rows an earlier run of another input applied are skipped (else the run is refused, exit 2). */
  skipApplied?: boolean;
  dryRun: boolean;
  /** Per-attempt time-out, also how long an unanswered row may still be in flight on the server. */
  timeoutMs: number;
}

const KEY_FIELDS = /(^id$|_id$|_code$|^username$|^email$|^batch_id$|^role_name$)/;

/**
 * Refusals that prove the row was not applied and may succeed later: a run of the same command
 * sends such a row again (a bulk run under a rate limit or a brief outage converges by running
 * it again, without `--restart` applying the finished rows twice).
 */
/** Answers that say the row was not applied and may be sent again as it is (401: the credential, not the row, was refused). */
export const RETRY_ON_RESUME = new Set([401, 408, 429, 503]);

/** A 5xx answer that does not tell whether the request was applied (a gateway's 502/504, a 500). */
const isAmbiguousStatus = (status: number) => status >= 500 && !RETRY_ON_RESUME.has(status);

const keyFields = new Map<string, boolean>();
/** A column that names what a row is about (an id, a code, a user), not a secret; decided once per name. */
function isKeyField(k: string): boolean {
  let yes = keyFields.get(k);
  if (yes === undefined) keyFields.set(k, (yes = KEY_FIELDS.test(k) && !isSecretKey(k)));
  return yes;
}

/** What the report calls a row: its path parameters, else its identifying fields (at most 3). */
function keyOf(input: BulkInput): string {
  let key = '';
  let n = 0;
  for (const k in input.params) {
    if (n === 3) return key;
    key += `${n++ ? ' ' : ''}${k}=${String(input.params[k])}`;
  }
  if (n) return key;
  for (const place of [input.body, input.query]) {
    for (const k in place) {
      const v = place[k];
      if (v === undefined || typeof v === 'object' || !isKeyField(k)) continue;
      if (n === 3) return key;
      key += `${n++ ? ' ' : ''}${k}=${String(v)}`;
    }
  }
  return key;
}

function createdIdOf(data: unknown): unknown {
  if (!data || typeof data !== 'object') return undefined;
  const d = data as Record<string, unknown>;
  const k = Object.keys(d).find((key) => key.endsWith('_id') && (typeof d[key] === 'number' || typeof d[key] === 'string'));
  return k ? d[k] : undefined;
}

/** Turns input rows into validated inputs; all errors at once, naming line and field. */
export async function planRows(verb: BulkVerb, rows: InputRow[], defaults: BulkInput): Promise<PlannedRow[]> {
  const ep = verb.endpoint;
  const places = new Map<string, 'params' | 'query' | 'body'>();
  for (const [f, place] of fieldsOfEndpoint(ep)) if (!places.has(f)) places.set(f, place);
  const { validateInput } = await import('../api/client.js');
  const parts = { params: hasPart(ep, 'params'), query: hasPart(ep, 'query'), body: hasPart(ep, 'body') };
  const errors: string[] = [];
  const planned: PlannedRow[] = [];
  // Column names repeat on every row: normalised once each.
  const names = new Map<string, string>();
  const normalize = (col: string) => {
    let n = names.get(col);
    if (n === undefined) {
      const f = col.replace(/^--/, '').replace(/-/g, '_').toLowerCase();
      n = verb.aliases?.[f] ?? f;
      names.set(col, n);
    }
    return n;
  };
  // Unknown columns are an error of the whole file, said once.
  const columns = new Set<string>();
  for (const r of rows) for (const c in r.record) columns.add(c);
  const unknown = [...columns].filter((c) => !places.has(normalize(c)));
  // Each column's field and place, worked out once (the rows of a CSV file share them).
  const target = new Map([...columns].map((c) => [c, { field: normalize(c), place: places.get(normalize(c))! }]));
  if (unknown.length) {
    throw new UsageError(`unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `'${c}'`).join(', ')}: ${verb.command} takes ${[...places.keys(), ...Object.keys(verb.aliases ?? {})].join(', ')}`);
  }
  // Two columns for one field (`extend_days` and `extend-days`, `id` and `subscription_id`): which
  // one counts is not the tool's to guess (one of them silently won, and CSV and NDJSON chose
  // differently).
  const byField = new Map<string, string[]>();
  for (const [c, t] of target) byField.set(t.field, [...(byField.get(t.field) ?? []), c]);
  const twice = [...byField].filter(([, cs]) => cs.length > 1);
  if (twice.length) {
    // NDJSON lines may each use another of them (`id` on one, `subscription_id` on the next).
    for (const r of rows) {
      const both = twice.map(([f, cs]) => [f, cs.filter((c) => c in r.record)] as const).filter(([, cs]) => cs.length > 1);
      if (both.length) {
        throw new UsageError(`line ${r.line}: ${both.map(([f, cs]) => `columns ${cs.map((c) => `'${c}'`).join(' and ')} both give ${f}`).join('; ')}: keep one of each`, {
          hint: 'fix the input and run again; nothing was sent',
        });
      }
    }
  }
  for (const r of rows) {
    const input: BulkInput = { params: { ...defaults.params }, query: { ...defaults.query }, body: { ...defaults.body } };
    try {
      for (const col in r.record) {
        const t = target.get(col)!;
        input[t.place][t.field] = verb.convert(t.field, r.record[col]);
      }
      // Awaited only when there is one: a turn of the microtask queue per row adds up.
      if (verb.prepare) await verb.prepare(input);
      const validated = validateInput(ep, { params: parts.params ? input.params : undefined, query: parts.query ? input.query : undefined, body: parts.body ? input.body : undefined });
      planned.push({ line: r.line, key: keyOf(input), input, validated });
    } catch (e) {
      if (e instanceof ValidationError) {
        for (const p of e.problems) errors.push(`line ${r.line}: ${p.field ? `${p.field} (${flagName(p.field.split('.')[0])}): ` : ''}${p.message}`);
      } else if (e instanceof CliError) errors.push(`line ${r.line}: ${e.message}`);
      else throw e;
    }
  }
  if (errors.length) {
    const shown = errors.slice(0, 25);
    throw new ValidationError(
      shown.map((m) => ({ field: '', message: m })).concat(errors.length > 25 ? [{ field: '', message: `... and ${errors.length - 25} more` }] : []),
      undefined,
      `fix the input and run again; nothing was sent`,
    );
  }
  if (!planned.length) throw new UsageError('the input has no rows');
  return planned;
}

export async function runBulk(ctx: Ctx, verb: BulkVerb, rows: InputRow[], defaults: BulkInput, opts: BulkOptions): Promise<number> {
  const planned = await planRows(verb, rows, defaults);
  const ep = verb.endpoint;
  const g = ctx.globals;
  const out = { format: g.output, fields: g.fields, io: ctx.io, noColor: g.noColor };

  if (opts.dryRun) {
    let changes = new Map<number, string>();
    if (verb.preview) changes = await verb.preview(await ctx.api(), planned, ctx.signal);
    const fate = dryRunFate(ctx, verb, planned, opts);
    await printList(
      planned.map((p) => ({
        line: p.line,
        key: p.key,
        request: `${ep.method} ${fillPath(ep.path, p.input.params)}`,
        ...(Object.keys(p.input.query).length ? { query: redactBody(p.input.query) } : {}),
        // A password column (bulk `users create`) is in the file, never on the screen.
        ...(hasPart(ep, 'body') ? { body: redactBody(p.input.body) } : {}),
        ...(verb.preview ? { change: changes.get(p.line) ?? 'current state not found' } : {}),
        ...(fate ? { run: fate.rows.get(p.line) ?? 'send' } : {}),
      })),
      { ...out, columns: ['line', 'key', 'request', 'body', ...(verb.preview ? ['change'] : []), ...(fate ? ['run'] : [])] },
    );
    ctx.note(`dry run: ${planned.length} rows checked, nothing sent${fate ? `; ${fate.summary}` : ''}`);
    return 0;
  }

  // A report that cannot be written is found before anything is sent (exit 2), not after.
  if (opts.reportFile && opts.reportFile !== '-') {
    try {
      closeSync(openNoFollow(opts.reportFile, 'a', 0o600));
    } catch (e) {
      throw reportError(opts.reportFile, e);
    }
  }

  const api = await ctx.api();
  const { target, digests, journal, legacy } = journalsOf(ctx, verb, planned);
  // One run of these rows at a time: a second one started beside it (an overlapping cron job,
  // a second terminal) would read the same journal, find nothing finished and send every row
  // again. It stops here, exit 5, before reading the journal; a lock whose process is gone (a
  // killed run) is taken over.
  const { acquireLock } = await import('../config/lock.js');
  // The same rows from another file (in another order, with a blank line, its columns
  // reordered: another journal) are held back too: the lock of the row set, whatever the order.
  // Two such runs started together both sent every row (each saw nothing of the other).
  const prints = digests.fingerprints();
  const what = { command: `${verb.command} run of these ${planned.length} rows` };
  const lock = acquireLock(`${journal.path}.lock`, what);
  let setLock: { release(): void } | undefined;
  try {
    setLock = acquireLock(rowSetLockPath(journal.path, verb.command, target, prints), what);
    return await runLocked();
  } finally {
    setLock?.release();
    lock.release();
  }

  async function runLocked(): Promise<number> {
    // A journal of an earlier version (its name did not include the target) is this run's.
    if (opts.restart) {
      journal.discard();
      legacy.discard();
    } else if (journal.adopt(legacy.path)) ctx.note(`the journal of this run, from an earlier version of subctl, is now ${journal.path}`);
    const known = journal.load();
    const resuming = known.size > 0;
    // A new run: rows whose request an earlier run (of another input: the file with its failed
    // rows fixed or taken out) applied are not sent again unasked (earlier.ts).
    const head = { command: verb.command, endpoint: ep.name, target };
    const fingerprints = resuming ? undefined : prints;
    const earlier = fingerprints && !opts.restart ? earlierRows(journal.path, head, fingerprints, digests.fingerprintsV1) : [];
    if (earlier.length && !opts.skipApplied) throw earlierRefusal(verb.command, planned, earlier);
    // One pool of --concurrency connections (more would only open while others are released).
    if (planned.length > 1) api.preferThroughput(opts.concurrency);

    if (!resuming && verb.destructive) await ctx.confirm(`${verb.command}: ${planned.length} rows (${ep.method} ${ep.path})`);
    if (fingerprints) writeRowsFile(journal.path, head, [...fingerprints]);
    if (earlier.length) {
      // --skip-applied: recorded as this run's, so the report and a resumed run account for them.
      const events: JournalEvent[] = earlier.map((e) =>
        e.state === 'applied'
          ? { line: e.line, state: 'done', at: Date.now(), via: 'earlier', message: `applied by an earlier run (started ${e.at}); skipped` }
          : { line: e.line, state: 'unknown', at: Date.now(), via: 'earlier', message: `an earlier run (started ${e.at}) sent it and never learned whether it was applied; left alone` },
      );
      journal.append(...events);
      for (const ev of events) known.set(ev.line, { line: ev.line, state: ev.state, attempt: 0, via: ev.via, message: ev.message });
      const applied = earlier.filter((e) => e.state === 'applied').length;
      const nRows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
      ctx.note(`--skip-applied: ${nRows(applied)} applied by earlier runs skipped${earlier.length > applied ? `, ${nRows(earlier.length - applied)} whose outcome an earlier run never learned left alone (reported unknown)` : ''}`);
    }

    const state = new Map<number, RowRecord>(known);
    const todo: PlannedRow[] = [];
    const inFlightBefore: Array<{ row: PlannedRow; sentAt: number }> = [];
    let skipped = 0;
    for (const p of planned) {
      const rec = known.get(p.line);
      if (!rec) todo.push(p);
      else if (rec.state === 'failed' && rec.status !== undefined && RETRY_ON_RESUME.has(rec.status)) todo.push(p);
      else if (rec.state === 'done' || rec.state === 'failed') skipped++;
      else if (rec.state === 'unknown' && rec.via === 'absent') todo.push(p);
      else if (rec.state === 'unknown' && rec.via === 'earlier') continue;
      else inFlightBefore.push({ row: p, sentAt: rec.sentAt ?? 0 });
    }

    // Rows whose answer never came: settle them against the server before anything else runs.
    const settled = { applied: 0, absent: 0, unknown: 0 };
    const notSentYet = todo.length;
    // The rows of this input the server answered (this run or an earlier one of its journal): on
    // a server that says what it applied only through a log, their entries are theirs, and must
    // not vouch for a row with the same request whose answer was lost.
    const answered = () => {
      const out: Array<{ row: PlannedRow; sentAt: number }> = [];
      for (const p of planned) {
        const rec = state.get(p.line);
        if (rec?.state === 'done' && rec.sentAt !== undefined && rec.via !== 'earlier') out.push({ row: p, sentAt: rec.sentAt });
      }
      return out;
    };
    if (inFlightBefore.length) {
      const { results, failure } = await verifyRows(ctx, api, verb, inFlightBefore, opts.timeoutMs, answered());
      for (const { row } of inFlightBefore) {
        const r = results.get(row.line) ?? 'unknown';
        settled[r]++;
        if (r === 'applied') {
          journal.append({ line: row.line, state: 'done', at: Date.now(), via: 'verified', message: 'applied (answer lost; confirmed on the server)' });
          state.set(row.line, { ...state.get(row.line)!, state: 'done', via: 'verified', message: 'applied (answer lost; confirmed on the server)' });
        } else if (r === 'absent') {
          journal.append({ line: row.line, state: 'unknown', at: Date.now(), via: 'absent', message: 'not applied (answer lost; confirmed absent on the server): sent again' });
          todo.push(row);
        } else {
          const message = failure
            ? `answer lost, and the check against the server failed (${failure}): left alone; the next run checks it again`
            : 'answer lost and the server cannot tell whether it was applied: left alone';
          journal.append({ line: row.line, state: 'unknown', at: Date.now(), message });
          state.set(row.line, { ...state.get(row.line)!, state: 'unknown', message: failure ? message : 'answer lost; not verifiable: left alone' });
        }
      }
      todo.sort((a, b) => a.line - b.line);
    }
    if (resuming) {
      // Each row counted once: the in-flight rows sent again are theirs, not among those to run.
      const inFlight = inFlightBefore.length
        ? ` (${settled.applied} found applied, ${settled.absent} found not applied and sent again, ${settled.unknown} left unknown)`
        : '';
      ctx.note(`resuming ${verb.command}: ${skipped} rows finished earlier, ${inFlightBefore.length} were in flight${inFlight}, ${notSentYet} to run (journal ${journal.path}; --restart discards it)`);
    }

    // The run.
    const started = Date.now();
    let done = 0;
    let failed = 0;
    let interrupted = false;
    /** The first error that is not a row's own (the journal could not be written): the run stops. */
    let broken: unknown;
    /** A 401: the credential was refused (expired, revoked), so every further row would be too; the run stops. */
    let refused: CliError | undefined;
    const stopped = () => interrupted || broken !== undefined || refused !== undefined;
    const lost: Array<{ row: PlannedRow; sentAt: number; status?: number }> = [];
    const progress = ctx.io.stderrIsTTY && !g.quiet ? setInterval(() => showProgress(false), 200) : undefined;
    let shownWidth = 0;
    function showProgress(final: boolean) {
      const secs = (Date.now() - started) / 1000;
      const rate = (done + failed) / Math.max(secs, 0.001);
      const left = todo.length - done - failed;
      const eta = rate > 0 ? Math.ceil(left / rate) : 0;
      const text = `${done + failed}/${todo.length} rows, ${failed} failed, ${rate.toFixed(0)} rows/s${final ? '' : `, ${eta}s left`}`;
      // Spaces over what a longer earlier line left to the right (the final line has no "left");
      // spaces rather than an erase sequence, which a TERM=dumb terminal would print.
      ctx.io.stderr.write(`\r${text}${' '.repeat(Math.max(0, shownWidth - text.length))}${final ? '\n' : ''}`);
      shownWidth = text.length;
    }
    let next = 0;
    const stopOnAbort = () => {
      interrupted = true;
    };
    ctx.signal.addEventListener('abort', stopOnAbort, { once: true });
    const worker = async () => {
      // A row's `done` goes out with the worker's next `sent`, and with the records of every other
      // worker of the same turn, in one write; the row is sent once that write is done, so `sent`
      // is on disk before its request leaves. Rows answered together leave together.
      let finished: JournalEvent | undefined;
      while (!stopped() && next < todo.length) {
        const row = todo[next++];
        const sentAt = Date.now();
        const sent: JournalEvent = { line: row.line, state: 'sent', at: sentAt };
        await (finished ? journal.appendSoon(finished, sent) : journal.appendSoon(sent));
        finished = undefined;
        try {
          // No abort signal: a row in flight when Ctrl-C comes is awaited (up to the time-out).
          const res = await api.callFull(ep, row.validated as never, { detached: true, prevalidated: true });
          const created = createdIdOf(res.data);
          finished = { line: row.line, state: 'done', at: Date.now(), status: res.status, created_id: created, message: res.message ?? undefined };
          if (stopped() || next >= todo.length) {
            journal.append(finished);
            finished = undefined;
          }
          state.set(row.line, { line: row.line, state: 'done', attempt: 1, sentAt, status: res.status, created_id: created, message: res.message ?? undefined });
          done++;
        } catch (e) {
          const err = e as CliError;
          if (err instanceof CliError && err.status !== undefined && !isAmbiguousStatus(err.status)) {
            const message = RETRY_ON_RESUME.has(err.status) ? `${err.message} (not applied: run the command again to send it again)` : err.message;
            journal.append({ line: row.line, state: 'failed', at: Date.now(), status: err.status, message });
            state.set(row.line, { line: row.line, state: 'failed', attempt: 1, status: err.status, message });
            failed++;
            if (err.status === 401) refused ??= err;
          } else if (err instanceof CliError) {
            // No answer (network, time-out), or a 5xx that does not say: the request may or may
            // not have been applied.
            lost.push({ row, sentAt, status: err.status });
            failed++;
          } else throw e;
        }
      }
    };
    // The journal could not be written (a full disk): every worker stops taking rows, the rows in
    // flight are awaited, and the run ends with that error. A row is never sent without its `sent`
    // on disk; the next run checks the rows whose answer was not recorded against the server.
    const stopOnError = async () => {
      try {
        await worker();
      } catch (e) {
        broken ??= e;
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(opts.concurrency, Math.max(todo.length, 1)) }, stopOnError));
      if (broken !== undefined) throw broken;
    } finally {
      if (progress) {
        clearInterval(progress);
        showProgress(true);
      }
      ctx.signal.removeEventListener('abort', stopOnAbort);
    }
    if (lost.length) {
      const { results, failure } = await verifyRows(ctx, api, verb, lost, opts.timeoutMs, answered());
      for (const { row, status } of lost) {
        const r = results.get(row.line) ?? 'unknown';
        const what = status === undefined ? 'no answer' : `HTTP ${status} without saying whether it was applied`;
        const message =
          r === 'applied'
            ? `applied (${status === undefined ? 'answer lost' : `HTTP ${status}`}; confirmed on the server)`
            : r === 'absent'
              ? `not applied (${what}; confirmed absent): run the command again to retry`
              : failure
                ? `${what}, and the check against the server failed (${failure}): left alone; the next run checks it again`
                : `${what} and the server cannot tell whether it was applied: left alone`;
        journal.append({ line: row.line, state: r === 'applied' ? 'done' : 'unknown', at: Date.now(), status, via: r === 'applied' ? 'verified' : r === 'absent' ? 'absent' : undefined, message });
        state.set(row.line, { line: row.line, state: r === 'applied' ? 'done' : 'unknown', attempt: 1, status, message, via: r });
      }
    }
    journal.close();

    // Report and summary, over every row of the input.
    const counts = { applied: 0, failed: 0, unknown: 0, pending: 0 };
    const report = planned.map((p) => {
      const rec = state.get(p.line);
      const outcome = !rec || rec.state === 'sent' ? 'pending' : rec.state === 'done' ? 'applied' : rec.state;
      counts[outcome as keyof typeof counts]++;
      return { line: p.line, key: p.key, outcome, http_status: rec?.status ?? '', message: rec?.message ?? '', created_id: rec?.created_id ?? '' };
    });
    // The report is written whole or its failure is the run's error, after the summary (the rows
    // were run either way; the journal holds their outcomes).
    let reportFailure: unknown;
    if (opts.reportFile) {
      const toFile = opts.reportFile !== '-';
      const stream = toFile ? createWriteStream(opts.reportFile, { mode: 0o600 }) : ctx.io.stdout;
      try {
        await printList(report, { format: 'csv', columns: ['line', 'key', 'outcome', 'http_status', 'message', 'created_id'], io: { ...ctx.io, stdout: stream as never, stdoutIsTTY: false } });
        if (toFile) {
          (stream as NodeJS.WritableStream).end();
          await streamFinished(stream as NodeJS.WritableStream);
        }
      } catch (e) {
        if (toFile) (stream as NodeJS.WritableStream & { destroy(): void }).destroy();
        // Rows were sent: never the usage error's "nothing was sent" (exit 2), always exit 1.
        const cause = e instanceof LocalError ? e.cause : e;
        reportFailure = toFile ? (localError(cause, `the report ${opts.reportFile}`) ?? new LocalError(`cannot write the report ${opts.reportFile}: ${errorText(cause)}`, 'EIO', cause)) : e;
      }
    }
    const summary = `${verb.command}: ${planned.length} rows: ${counts.applied} applied${skipped ? ` (${skipped} finished in earlier runs)` : ''}, ${counts.failed} failed, ${counts.unknown} unknown${counts.pending ? `, ${counts.pending} not run${interrupted ? ' (interrupted)' : refused ? ' (the credential was refused)' : ''}` : ''}${opts.reportFile && opts.reportFile !== '-' && reportFailure === undefined ? `; report ${opts.reportFile}` : ''}`;
    if (!g.quiet || counts.failed || counts.unknown || interrupted) ctx.io.stderr.write(`${summary}\n`);
    if ((!opts.reportFile || reportFailure !== undefined) && (counts.failed || counts.unknown) && !g.quiet) {
      for (const r of report.filter((x) => x.outcome === 'failed' || x.outcome === 'unknown').slice(0, 10)) {
        ctx.io.stderr.write(`  line ${r.line} ${r.key}: ${r.outcome}${r.http_status ? ` (HTTP ${r.http_status})` : ''} ${r.message}\n`);
      }
    }
    if (reportFailure !== undefined) {
      if (!interrupted) throw reportFailure;
      ctx.warn((reportFailure as Error).message);
    }
    if (interrupted) return 130;
    // The server's 401, with its hint (sign in again); the next run sends the rows not applied.
    if (refused) throw refused;
    return counts.failed || counts.unknown || counts.pending ? 8 : 0;
  }
}

/**
 * The refusal of a new run whose rows include some an earlier run applied: exit 2, nothing
 * sent, the rows named, and the two ways on.
 */
/**
 * The journal of a run of these rows on the context's platform, and the one an earlier version
 * named it by (without the platform), from one pass of the digests: as the run and its dry run
 * read them.
 */
/**
 * The lock of a set of rows (`<bulk dir>/<command>-rows-<digest>.lock`): the digest of the command,
 * the platform and the rows' fingerprints sorted, so the same rows in any order, from any file,
 * take the same lock.
 */
function rowSetLockPath(journalPath: string, command: string, target: string, prints: Map<number, string>): string {
  const h = builtin('node:crypto').createHash('sha256');
  h.update(`${command}\0${target}\0`);
  h.update([...prints.values()].sort().join('\n'));
  return join(dirname(journalPath), `${command.replace(/[^a-z0-9-]+/gi, '-')}-rows-${h.digest('hex').slice(0, 24)}.lock`);
}

function journalsOf(ctx: Ctx, verb: BulkVerb, planned: PlannedRow[]) {
  const target = targetKey(ctx.target());
  const stateDir = ctx.paths().stateDir;
  const name = verb.command.replace(/\s+/g, '-');
  const digests = runDigests(verb.command, verb.endpoint.name, planned, target);
  return { target, digests, journal: new Journal(stateDir, name, digests.digest), legacy: new Journal(stateDir, name, digests.legacy) };
}

/**
 * For `--dry-run`: what a run of these rows would do with each row that this input's journal (a
 * resume) or an earlier run of another input (earlier.ts) already knows, read the way the run
 * reads them, without taking the lock or writing anything; undefined when a run would send
 * every row (then the plan's columns stay as they were).
 */
function dryRunFate(ctx: Ctx, verb: BulkVerb, planned: PlannedRow[], opts: BulkOptions): { rows: Map<number, string>; summary: string } | undefined {
  if (opts.restart) return undefined;
  const { target, digests, journal, legacy } = journalsOf(ctx, verb, planned);
  let known = journal.load();
  if (!known.size) known = legacy.load();
  const rows = new Map<number, string>();
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  if (known.size) {
    let skip = 0;
    let again = 0;
    let check = 0;
    for (const p of planned) {
      const rec = known.get(p.line);
      if (!rec) continue;
      const why = rec.message ? ` (${rec.message})` : '';
      if (rec.state === 'done') {
        skip++;
        rows.set(p.line, `skip: applied by the run this resumes${rec.via === 'earlier' ? ' (skipped there as applied by an earlier run)' : ''}`);
      } else if (rec.state === 'failed' && rec.status !== undefined && RETRY_ON_RESUME.has(rec.status)) {
        again++;
        rows.set(p.line, `send again: refused with ${rec.status} by the run this resumes`);
      } else if (rec.state === 'failed') {
        skip++;
        rows.set(p.line, `skip: failed in the run this resumes${rec.status !== undefined ? ` with ${rec.status}` : ''}${why}`);
      } else if (rec.state === 'unknown' && rec.via === 'absent') {
        again++;
        rows.set(p.line, 'send again: found not applied by the run this resumes');
      } else if (rec.state === 'unknown' && rec.via === 'earlier') {
        skip++;
        rows.set(p.line, `skip: an earlier run sent it and never learned its outcome${why}`);
      } else {
        // Sent, or left unknown: a run checks it against the server before anything else.
        check++;
        rows.set(p.line, 'check first: sent by the run this resumes, its answer never came; sent again only if the server shows it was not applied');
      }
    }
    const parts = [count(skip, 'row'), `${again} sent again`, `${check} checked on the server first`];
    return { rows, summary: `a run resumes the journal ${journal.path}: ${parts[0]} skipped, ${parts[1]}, ${parts[2]}, ${planned.length - skip - again - check} not sent yet (--restart sends every row)` };
  }
  const earlier = earlierRows(journal.path, { command: verb.command, endpoint: verb.endpoint.name, target }, digests.fingerprints(), digests.fingerprintsV1);
  if (!earlier.length) return undefined;
  for (const e of earlier) {
    const what = e.state === 'applied' ? `applied by an earlier run (started ${e.at})` : `sent by an earlier run (started ${e.at}), its outcome never learned`;
    rows.set(e.line, opts.skipApplied ? `skip: ${what}` : `stop: ${what}`);
  }
  return {
    rows,
    summary: opts.skipApplied
      ? `--skip-applied: a run skips ${count(earlier.length, 'row')} an earlier run sent and sends ${planned.length - earlier.length}`
      : `a run stops before sending anything (exit 2): ${count(earlier.length, 'row')} ${earlier.length === 1 ? 'was' : 'were'} sent by an earlier run with another input (--skip-applied sends only the others; --restart sends every row)`,
  };
}

function earlierRefusal(command: string, planned: PlannedRow[], earlier: EarlierRow[]): UsageError {
  const keyOf = new Map(planned.map((p) => [p.line, p.key]));
  const shown = earlier
    .slice(0, 10)
    .map((e) => `line ${e.line} (${keyOf.get(e.line)}${e.state === 'maybe' ? ', sent, its outcome never learned' : ''})`)
    .join(', ');
  const more = earlier.length > 10 ? ` and ${earlier.length - 10} more` : '';
  const when = [...new Set(earlier.map((e) => e.at))].sort();
  const n = earlier.length;
  return new UsageError(
    `${n} of these ${planned.length} rows ${n === 1 ? 'was' : 'were'} already sent to this platform by an earlier run of ${command} with another input (started ${when.join(', ')}): ${shown}${more}; nothing was sent`,
    { hint: '--skip-applied sends only the rows no earlier run sent; --restart sends every row again' },
  );
}

/** Which platform a run's rows go to, for its journal: the embedded sandbox, or the base address without a trailing slash. */
function targetKey(t: { baseUrl: string; sandbox: boolean } | undefined): string {
  if (!t) return '';
  if (t.sandbox) return 'sandbox';
  try {
    const u = new URL(t.baseUrl);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return t.baseUrl;
  }
}

/** The report file cannot be opened before the run: nothing was sent (exit 2), or the machine failed (exit 1). */
function reportError(file: string, e: unknown): CliError {
  return (
    localError(e, `the report ${file}`) ??
    new UsageError(`cannot write the report ${file}: ${errorText(e)}`, { hint: 'check that its directory exists and that you may write there, or leave --report out' })
  );
}

/** `ENOENT: no such file or directory` without Node's `, open '<path>'` tail (the path is named already). */
function errorText(e: unknown): string {
  return String((e as Error)?.message ?? e).replace(/, \w+ '.*'$/, '');
}

/** Waits until the rows can no longer be in flight on the server, then asks the verb's verifier. */
async function verifyRows(
  ctx: Ctx,
  api: ApiClient,
  verb: BulkVerb,
  rows: Array<{ row: PlannedRow; sentAt: number }>,
  timeoutMs: number,
  answered: Array<{ row: PlannedRow; sentAt: number }>,
): Promise<{ results: Map<number, VerifyResult>; failure?: string }> {
  if (!verb.verify) return { results: new Map(rows.map((r) => [r.row.line, 'unknown' as VerifyResult])) };
  const latest = Math.max(...rows.map((r) => r.sentAt));
  const wait = latest + timeoutMs - Date.now();
  if (wait > 0) {
    ctx.note(`checking ${rows.length} unanswered row(s) against the server in ${(wait / 1000).toFixed(1)} s (once they can no longer be in flight)`);
    await new Promise((r) => setTimeout(r, wait));
  }
  try {
    return { results: await verb.verify(api, rows, ctx.signal, answered) };
  } catch (e) {
    // The check itself failed (the network, the server): the rows are unknown for that reason,
    // not because the server cannot tell; the next run checks them again.
    const failure = (e as Error).message;
    ctx.warn(`could not check unanswered rows: ${failure}`);
    return { results: new Map(rows.map((r) => [r.row.line, 'unknown' as VerifyResult])), failure };
  }
}
