/**
 * The bulk engine: `--from-csv FILE|-` / `--from-ndjson FILE|-` on every write verb, in stages:
 *
 * 1. plan (plan.ts): rows checked against the contract before anything is sent, each given its
 *    identity in the run (endpoint, target, action, occurrence); `--dry-run` stops there (dry-run.ts).
 * 2. lock (claim.ts): the run's own lock, and its rows claimed against overlapping runs.
 * 3. settle (settle.ts): rows an earlier attempt of the run sent without learning the answer are
 *    checked against the platform's state before anything else is sent.
 * 4. send (send.ts): the rows, each recorded with what it will change before it leaves.
 * 5. report (report.ts): every row accounted for, and the exit code.
 *
 * A run is named by `--run-id`, or by the command, the platform and its rows' identities
 * (platform.ts): the same name resumes, and a finished run sends nothing and says so.
 */
import { closeSync } from 'node:fs';
import { InterruptedError, UsageError } from '../api/errors.js';
import type { ApiClient } from '../api/client.js';
import { openNoFollow } from '../config/safe-files.js';
import type { BulkCtx as Ctx } from './types.js';
import { claimRows } from './claim.js';
import { printCreated } from './created.js';
import { runStartedAt, type EarlierRow, type RowsHead } from './earlier.js';
import type { InputRow } from './input.js';
import { Journal, type JournalEvent, type RowRecord } from './journal.js';
import { planRows } from './plan.js';
import { platformKey, runDigest } from './platform.js';
import { finishRun, reportError } from './report.js';
import { countFates, fateOf } from './resume.js';
import { sendRows } from './send.js';
import { checkCommand, settleRows, type Unanswered } from './settle.js';
import type { BulkInput, BulkOptions, BulkVerb, PlannedRow } from './types.js';

export type { BulkInput, BulkOptions, BulkVerb, PlannedRow } from './types.js';

/** The run's journal on the context's platform, and what its row file says of it. */
export function runOf(ctx: Ctx, verb: BulkVerb, planned: PlannedRow[], opts: Pick<BulkOptions, 'runId'>) {
  const platform = platformKey(ctx.target());
  const digest = runDigest(verb.command, platform, planned, opts.runId);
  const journal = new Journal(ctx.paths().stateDir, verb.command.replace(/\s+/g, '-'), digest);
  const head: RowsHead = {
    command: verb.command,
    endpoint: verb.endpoint.name,
    target: platform,
    profile: ctx.profileName(),
    ...(opts.runId !== undefined ? { run_id: opts.runId } : {}),
  };
  return { platform, journal, head };
}

/**
 * `extend 200, add_credits 100`: the plan by action, for the confirmation and the dry run; rows
 * without an action by the verb's own (`create 40`).
 */
export function byAction(planned: PlannedRow[], verb: BulkVerb): string {
  const n = new Map<string, number>();
  for (const p of planned) {
    const a = p.input.body.action ?? p.input.query.action;
    const what = typeof a === 'string' ? a : verb.command.split(' ').at(-1)!;
    n.set(what, (n.get(what) ?? 0) + 1);
  }
  return [...n].map(([a, k]) => `${a} ${k}`).join(', ');
}

export async function runBulk(ctx: Ctx, verb: BulkVerb, rows: InputRow[], defaults: BulkInput, opts: BulkOptions): Promise<number> {
  const planned = await planRows(verb, rows, defaults, ctx.signal);
  if (opts.dryRun) {
    const { dryRun } = await import('./dry-run.js');
    return dryRun(ctx, verb, planned, opts);
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
  if (ctx.signal.aborted) throw new InterruptedError();
  const { journal, head } = runOf(ctx, verb, planned, opts);
  if (opts.restart) journal.discard();
  const known = journal.load();
  const resuming = known.size > 0;
  const fates = countFates(planned, known);
  if (resuming && fates.send === 0 && fates.check === 0) return finishedRun(ctx, api, verb, planned, known, journal, opts);
  if (!resuming && verb.destructive)
    await ctx.confirm(
      `${verb.command}: ${planned.length} rows (${byAction(planned, verb)}; ${verb.endpoint.method} ${verb.endpoint.path})`,
    );
  const claim = await claimRows(journal.path, head, planned, {
    lookBack: !resuming && !opts.restart && opts.runId === undefined,
    pending: (p) => ['send', 'check'].includes(fateOf(known.get(p.identity), p)),
    signal: ctx.signal,
    note: (t) => ctx.note(t),
    what: `${verb.command} run of these ${planned.length} rows`,
  });
  try {
    if (claim.earlier.length && !opts.skipApplied) throw earlierRefusal(verb.command, planned, claim.earlier);
    return await runClaimed(ctx, api, verb, planned, journal, known, opts, [
      ...claim.overlapping.map((o) => ({ ...o, via: 'other' as const })),
      ...claim.earlier.map((e) => ({ ...e, via: 'earlier' as const })),
    ]);
  } finally {
    journal.close();
    claim.lock.release();
  }
}

/** A finished run asked again: nothing is sent, and stderr says so even with `-q`, so that cron mails it. */
async function finishedRun(
  ctx: Ctx,
  api: ApiClient,
  verb: BulkVerb,
  planned: PlannedRow[],
  known: Map<string, RowRecord>,
  journal: Journal,
  opts: BulkOptions,
): Promise<number> {
  const last = Math.max(...[...known.values()].map((r) => r.at));
  const started = runStartedAt(journal.path);
  const name = opts.runId !== undefined ? `run '${opts.runId}'` : 'this run of these rows';
  ctx.io.stderr.write(
    `${verb.command}: ${name} finished at ${new Date(last).toISOString()}${started ? ` (started ${started})` : ''}, ${planned.length} rows: nothing sent. ` +
      `To apply the file again, name a new run: --run-id NAME (for a monthly grant, --run-id ${new Date().toISOString().slice(0, 7)}); journal ${journal.path}\n`,
  );
  const skipped = planned.filter((p) => ['applied', 'failed'].includes(fateOf(known.get(p.identity), p))).length;
  // What no attempt printed (it stopped before, or stdout held the report) is printed now.
  await printCreated(ctx, api, verb, { planned, state: known, journal, answered: new Map() }, opts);
  journal.close();
  return finishRun(ctx, { command: verb.command, planned, state: known, reportFile: opts.reportFile, skipped, interrupted: false });
}

async function runClaimed(
  ctx: Ctx,
  api: ApiClient,
  verb: BulkVerb,
  planned: PlannedRow[],
  journal: Journal,
  known: Map<string, RowRecord>,
  opts: BulkOptions,
  others: Array<EarlierRow & { via: 'earlier' | 'other' }>,
): Promise<number> {
  const state = new Map<string, RowRecord>(known);
  recordOthers(ctx, journal, planned, state, others);
  const todo: PlannedRow[] = [];
  const checks: Unanswered[] = [];
  let skipped = 0;
  for (const p of planned) {
    const rec = state.get(p.identity);
    const fate = fateOf(rec, p);
    if (fate === 'send') todo.push(p);
    else if (fate === 'check') checks.push({ row: p, sentAt: rec?.sentAt ?? 0, before: rec?.before });
    else if (fate === 'applied' || fate === 'failed') skipped++;
  }
  let interrupted = false;
  if (checks.length) {
    const s = await settleChecked(ctx, api, verb, journal, state, checks, opts, true);
    interrupted = s.interrupted;
    todo.push(...s.again);
    todo.sort((a, b) => a.line - b.line);
    ctx.note(
      `resuming ${verb.command}: ${skipped} rows finished earlier, ${checks.length} were in flight (${s.applied} found applied, ${s.again.length} found not applied and sent again, ${s.unknown} left unknown), ${todo.length - s.again.length} to run (journal ${journal.path}; --restart discards it)`,
    );
  } else if (known.size) {
    ctx.note(
      `resuming ${verb.command}: ${skipped} rows finished earlier, ${todo.length} to run (journal ${journal.path}; --restart discards it)`,
    );
  }
  let refused;
  let answered = new Map<string, Array<Record<string, unknown>>>();
  if (!interrupted && !ctx.signal.aborted && todo.length) {
    if (todo.length > 1) api.preferThroughput(opts.concurrency);
    const progress = startProgress(ctx, todo.length);
    try {
      const sent = await sendRows({
        api,
        verb,
        journal,
        todo,
        concurrency: opts.concurrency,
        signal: ctx.signal,
        reader: verb.readState?.(api, todo, ctx.signal),
        state,
        onAnswer: progress.update,
      });
      progress.end();
      interrupted = sent.interrupted;
      refused = sent.refused;
      if (sent.stateFailure !== undefined && !interrupted)
        ctx.warn(`could not read the targets' state before sending (${sent.stateFailure}): the rows not sent are left for the next run`);
      answered = sent.created;
      if (sent.lost.length)
        interrupted = (await settleChecked(ctx, api, verb, journal, state, sent.lost, opts, false)).interrupted || interrupted;
    } finally {
      progress.end();
    }
  }
  await printCreated(ctx, api, verb, { planned, state, journal, answered }, opts);
  interrupted ||= ctx.signal.aborted;
  return finishRun(ctx, { command: verb.command, planned, state, reportFile: opts.reportFile, skipped, interrupted, refused });
}

/** Rows settled by other runs (earlier ones, `--skip-applied`; overlapping ones), recorded as this run's. */
function recordOthers(
  ctx: Ctx,
  journal: Journal,
  planned: PlannedRow[],
  state: Map<string, RowRecord>,
  others: Array<EarlierRow & { via: 'earlier' | 'other' }>,
): void {
  if (!others.length) return;
  const byLine = new Map(planned.map((p) => [p.line, p]));
  const events: JournalEvent[] = others.map((e) => {
    const p = byLine.get(e.line)!;
    const whose = e.via === 'other' ? `the run going on beside this one (started ${e.at})` : `an earlier run (started ${e.at})`;
    return e.state === 'applied'
      ? { row: p.identity, line: p.line, state: 'done', at: Date.now(), via: e.via, message: `applied by ${whose}; skipped` }
      : {
          row: p.identity,
          line: p.line,
          state: 'unknown',
          at: Date.now(),
          via: e.via,
          message: `${whose} sent it and never learned whether it was applied; left alone`,
        };
  });
  journal.append(...events);
  for (const ev of events)
    state.set(ev.row, { row: ev.row, line: ev.line, state: ev.state, attempt: 0, via: ev.via, message: ev.message, at: ev.at });
  const rows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
  for (const [via, said] of [
    ['earlier', '--skip-applied: ROWS applied by earlier runs skipped'],
    ['other', 'ROWS applied by a run going on beside this one skipped'],
  ] as const) {
    const mine = others.filter((e) => e.via === via);
    if (!mine.length) continue;
    const applied = mine.filter((e) => e.state === 'applied').length;
    ctx.note(
      `${said.replace('ROWS', rows(applied))}${mine.length > applied ? `, ${rows(mine.length - applied)} whose outcome another run never learned left alone (reported unknown)` : ''}`,
    );
  }
}

/**
 * Settles unanswered rows and records the outcome. `resend`: rows found not applied are sent by
 * this attempt (a resume) rather than by the next one.
 */
async function settleChecked(
  ctx: Ctx,
  api: ApiClient,
  verb: BulkVerb,
  journal: Journal,
  state: Map<string, RowRecord>,
  rows: Unanswered[],
  opts: BulkOptions,
  resend: boolean,
) {
  const out = { applied: 0, unknown: 0, again: [] as PlannedRow[], interrupted: false };
  const { results, failure, interrupted } = await settleRows(api, verb, rows, {
    timeoutMs: opts.timeoutMs,
    signal: ctx.signal,
    note: (t) => ctx.note(t),
    warn: (t) => ctx.warn(t),
  });
  out.interrupted = interrupted;
  for (const { row, status, sentAt, before } of rows) {
    const r = results.get(row.line);
    const prev = state.get(row.identity);
    const base = { row: row.identity, line: row.line, at: Date.now(), status };
    const what = status === undefined ? 'answer lost' : `HTTP ${status} without saying whether it was applied`;
    let ev: JournalEvent;
    if (!r) {
      // Not checked (Ctrl-C, or the check failed): the next attempt checks it again.
      if (interrupted) continue;
      ev = {
        ...base,
        state: 'unknown',
        via: 'unchecked',
        message: `${what}, and the check against the platform failed (${failure}): the next run checks it again`,
      };
    } else if (r.result === 'applied') {
      out.applied++;
      ev = { ...base, state: 'done', via: 'verified', created_id: r.createdId, message: `applied (${what}; confirmed on the platform)` };
    } else if (r.result === 'absent') {
      ev = {
        ...base,
        state: 'failed',
        via: 'absent',
        message: `not applied (${what}; confirmed on the platform)${resend ? ': sent again' : ': the next run sends it again'}`,
      };
      if (resend) out.again.push(row);
    } else {
      out.unknown++;
      ev = {
        ...base,
        state: 'unknown',
        message: `${what}, and the platform's state cannot tell whether it was applied: left alone; check with: ${checkCommand(row)}`,
      };
    }
    journal.append(ev);
    state.set(row.identity, {
      ...prev,
      ...ev,
      attempt: prev?.attempt ?? 1,
      sentAt,
      before,
      settledBy: prev?.attempt ?? 1,
      fp: undefined,
    } as RowRecord);
  }
  return out;
}

function startProgress(ctx: Ctx, total: number) {
  if (!ctx.io.stderrIsTTY || ctx.globals.quiet) return { update: undefined, end: () => {} };
  const started = Date.now();
  let answered = 0;
  let failed = 0;
  let width = 0;
  const show = (final: boolean) => {
    const rate = answered / Math.max((Date.now() - started) / 1000, 0.001);
    const eta = rate > 0 ? Math.ceil((total - answered) / rate) : 0;
    const text = `${answered}/${total} rows, ${failed} failed, ${rate.toFixed(0)} rows/s${final ? '' : `, ${eta}s left`}`;
    // Spaces over what a longer earlier line left (no erase sequence: a TERM=dumb terminal prints it).
    ctx.io.stderr.write(`\r${text}${' '.repeat(Math.max(0, width - text.length))}${final ? '\n' : ''}`);
    width = text.length;
  };
  const timer = setInterval(() => show(false), 200);
  let ended = false;
  return {
    update: (d: number, f: number) => {
      answered = d + f;
      failed = f;
    },
    end: () => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      show(true);
    },
  };
}

/** The refusal of a new run whose rows an earlier run of another input sent: exit 2, nothing sent, the two ways on. */
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
    {
      hint: '--skip-applied sends only the rows no earlier run sent; --run-id NAME starts a new run that sends every row; --restart sends every row again',
    },
  );
}
