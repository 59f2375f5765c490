/**
 * The report stage: one line per row of the input (`--report FILE`, CSV), the summary on
 * stderr, and the exit code: 0 when every row was applied, 8 when some failed, are unknown or
 * were not run, 130 after Ctrl-C.
 */
import { openNoFollow } from '../config/safe-files.js';
import { createWriteStream } from 'node:fs';
import { finished as streamFinished } from 'node:stream/promises';
import { RedirectError } from '../api/answer.js';
import { CliError, LocalError, localError, UsageError } from '../api/errors.js';
import { printList } from '../output/index.js';
import type { RowRecord } from './journal.js';
import type { BulkCtx, PlannedRow } from './types.js';

const REPORT_COLUMNS = ['line', 'key', 'outcome', 'attempt', 'http_status', 'message', 'created_id'];

export interface RunEnd {
  command: string;
  planned: PlannedRow[];
  state: Map<string, RowRecord>;
  reportFile?: string;
  /** Rows finished by earlier attempts of this run. */
  skipped: number;
  interrupted: boolean;
  /** The answer that stopped the run (a 401, a redirect): the run's error. */
  refused?: CliError;
}

/** A row's line of the report. */
function reportRow(p: PlannedRow, rec: RowRecord | undefined) {
  // A lost answer whose check failed is the next run's to settle, as a row not yet run is.
  const waiting = !rec || rec.state === 'sent' || (rec.state === 'unknown' && rec.via === 'unchecked');
  const outcome = waiting ? 'pending' : rec.state === 'done' ? 'applied' : rec.state;
  return {
    line: p.line,
    key: p.key,
    outcome,
    attempt: rec && !waiting && rec.settledBy ? rec.settledBy : '',
    http_status: rec?.status ?? '',
    message: rec?.message ?? '',
    created_id: rec?.created_id ?? '',
  };
}

async function writeReport(ctx: BulkCtx, file: string, report: Array<Record<string, unknown>>): Promise<unknown> {
  const toFile = file !== '-';
  // Opened without following a symlink planted in its place (safe-files.ts).
  const stream = toFile ? createWriteStream(file, { fd: openNoFollow(file, 'w', 0o600) }) : ctx.io.stdout;
  try {
    await printList(report, { format: 'csv', columns: REPORT_COLUMNS, io: { ...ctx.io, stdout: stream as never, stdoutIsTTY: false } });
    if (toFile) {
      (stream as NodeJS.WritableStream).end();
      await streamFinished(stream as NodeJS.WritableStream);
    }
    return undefined;
  } catch (e) {
    if (toFile) (stream as NodeJS.WritableStream & { destroy(): void }).destroy();
    // Rows were sent: never the usage error's "nothing was sent" (exit 2), always exit 1.
    const cause = e instanceof LocalError ? e.cause : e;
    return toFile
      ? (localError(cause, `the report ${file}`) ?? new LocalError(`cannot write the report ${file}: ${errorText(cause)}`, 'EIO', cause))
      : e;
  }
}

/** Why the rows after the answer that stopped the run were not sent. */
const stopReason = (e: CliError) =>
  e instanceof RedirectError ? ' (the platform redirected a row elsewhere)' : ' (the credential was refused)';

/** Writes the report and the summary; the run's exit code. */
export async function finishRun(ctx: BulkCtx, end: RunEnd): Promise<number> {
  const counts = { applied: 0, failed: 0, unknown: 0, pending: 0 };
  let unchecked = 0;
  const report = end.planned.map((p) => {
    const rec = end.state.get(p.identity);
    const r = reportRow(p, rec);
    counts[r.outcome as keyof typeof counts]++;
    if (rec?.via === 'unchecked' && r.outcome === 'pending') unchecked++;
    return r;
  });
  // The report is written whole or its failure is the run's error, after the summary (the rows
  // were run either way; the journal holds their outcomes).
  const reportFailure = end.reportFile ? await writeReport(ctx, end.reportFile, report) : undefined;
  const toFile = end.reportFile && end.reportFile !== '-' && reportFailure === undefined;
  const notSent = counts.pending - unchecked;
  const notRun =
    (notSent ? `, ${notSent} not run${end.interrupted ? ' (interrupted)' : end.refused ? stopReason(end.refused) : ''}` : '') +
    (unchecked ? `, ${unchecked} answer(s) lost and not yet checked (the next run checks them)` : '');
  const summary = `${end.command}: ${end.planned.length} rows: ${counts.applied} applied${end.skipped ? ` (${end.skipped} finished in earlier attempts)` : ''}, ${counts.failed} failed, ${counts.unknown} unknown${notRun}${toFile ? `; report ${end.reportFile}` : ''}`;
  const quiet = ctx.globals.quiet;
  // Said even with -q whenever the run exits 8 for its rows, so that cron mails it.
  if (!quiet || counts.failed || counts.unknown || unchecked || end.interrupted) ctx.io.stderr.write(`${summary}\n`);
  if ((!end.reportFile || reportFailure !== undefined) && (counts.failed || counts.unknown || unchecked) && !quiet) {
    const shown = (x: (typeof report)[number]) =>
      x.outcome === 'failed' || x.outcome === 'unknown' || (x.outcome === 'pending' && x.message);
    for (const r of report.filter(shown).slice(0, 10)) {
      ctx.io.stderr.write(`  line ${r.line} ${r.key}: ${r.outcome}${r.http_status ? ` (HTTP ${r.http_status})` : ''} ${r.message}\n`);
    }
  }
  if (reportFailure !== undefined) {
    if (!end.interrupted) throw reportFailure;
    ctx.warn((reportFailure as Error).message);
  }
  if (end.interrupted) return 130;
  // The server's 401 or redirect, with its hint; the next run sends the rows not applied.
  if (end.refused) throw end.refused;
  return counts.failed || counts.unknown || counts.pending ? 8 : 0;
}

/** The report file cannot be opened before the run: nothing was sent (exit 2), or the machine failed (exit 1). */
export function reportError(file: string, e: unknown): CliError {
  return (
    localError(e, `the report ${file}`) ??
    new UsageError(`cannot write the report ${file}: ${errorText(e)}`, {
      hint: 'check that its directory exists and that you may write there, or leave --report out',
    })
  );
}

/** `ENOENT: no such file or directory` without Node's `, open '<path>'` tail (the path is named already). */
function errorText(e: unknown): string {
  return String((e as Error)?.message ?? e).replace(/, \w+ '.*'$/, '');
}
