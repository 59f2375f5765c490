/** A write verb run over bulk input (`--from-csv`, `--from-ndjson`): the options checked, the rows read, runBulk. */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../api/errors.js';
import type { Ctx } from './context.js';
import type { VerbInput, VerbSpec } from './verbs.js';

export async function runBulkVerb(
  ctx: Ctx,
  spec: VerbSpec,
  defaults: VerbInput,
  opts: Record<string, unknown>,
  convert: (field: string, raw: unknown) => unknown,
): Promise<number> {
  if (opts.fromCsv !== undefined && opts.fromNdjson !== undefined) throw new UsageError('give --from-csv or --from-ndjson, not both');
  const concurrency = Number(opts.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    throw new UsageError(`--concurrency expects 1-32, got '${String(opts.concurrency)}'`);
  const inputFile = String(opts.fromCsv ?? opts.fromNdjson);
  if (opts.report !== undefined && opts.report !== '-' && inputFile !== '-' && sameFile(String(opts.report), inputFile)) {
    // The report is written as rows finish: it would overwrite the rows being read.
    throw new UsageError(`--report ${String(opts.report)} is the input file: name another file for the report`);
  }
  const { readCsvRows, readNdjsonRows } = await import('../bulk/input.js');
  const { runBulk } = await import('../bulk/run.js');
  const rows =
    opts.fromCsv !== undefined
      ? await readCsvRows(String(opts.fromCsv), ctx.io.stdin)
      : await readNdjsonRows(String(opts.fromNdjson), ctx.io.stdin);
  const cmdName = `${spec.endpoint.name.split('.')[0]} ${spec.name}`;
  const extra = spec.bulk === false ? {} : (spec.bulk ?? {});
  return runBulk(
    ctx,
    {
      command: cmdName,
      endpoint: spec.endpoint,
      // A bulk run is many writes at once: it always asks on a terminal and needs --yes off one.
      destructive: true,
      aliases: extra.aliases,
      preview: extra.preview,
      readState: extra.readState,
      after: extra.after,
      settle: extra.settle,
      created: extra.created,
      convert,
      prepare: spec.prepare ? (input) => spec.prepare!(input, ctx, opts) : undefined,
    },
    rows,
    defaults,
    {
      concurrency,
      reportFile: opts.report as string | undefined,
      restart: opts.restart === true,
      skipApplied: opts.skipApplied === true,
      dryRun: opts.dryRun === true,
      timeoutMs: ctx.globals.timeout ?? ctx.profile()?.timeout ?? 10_000,
      runId: ctx.globals.runId,
    },
  );
}

/** Do `a` and `b` name the same file (through links, `./`, another spelling of the path)? */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    if (realpathSync(a) === realpathSync(b)) return true;
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}
