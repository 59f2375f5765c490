/**
 * `--dry-run`: the plan, summarised by action, with what a run would do with each row as the
 * run's journal and earlier runs tell it (read without taking a lock or writing anything), and
 * each row's current state and change where the verb can tell.
 */
import { fillPath } from '../api/client.js';
import { hasPart } from '../api/contract/parts.js';
import { redactBody } from '../api/redact.js';
import { printList } from '../output/index.js';
import { earlierRows, otherRuns } from './earlier.js';
import { fateOf, type Fate } from './resume.js';
import { byAction, runOf } from './run.js';
import type { BulkCtx, BulkOptions, BulkVerb, PlannedRow } from './types.js';

const SAID: Record<Fate, string> = {
  send: 'send',
  check: 'check first: sent by an earlier attempt, its answer never came; sent again only if the platform shows it was not applied',
  applied: 'skip: applied by an earlier attempt of this run',
  failed: 'skip: failed in an earlier attempt of this run (correct the row to send it again)',
  unknown: 'skip: an earlier attempt could not tell whether it was applied',
  other: 'skip: settled by another run',
};

/** What a run would do with each row, and the summary line. */
function fates(ctx: BulkCtx, verb: BulkVerb, planned: PlannedRow[], opts: BulkOptions): { rows: Map<number, string>; summary: string } {
  const rows = new Map<number, string>();
  if (opts.restart) return { rows, summary: '--restart: a run sends every row' };
  const { journal, head } = runOf(ctx, verb, planned, opts);
  const known = journal.load();
  const count: Partial<Record<Fate, number>> = {};
  for (const p of planned) {
    const f = fateOf(known.get(p.identity), p);
    count[f] = (count[f] ?? 0) + 1;
    rows.set(p.line, SAID[f]);
  }
  if (known.size) {
    const parts = (Object.keys(count) as Fate[]).map(
      (f) => `${count[f]} ${f === 'send' ? 'to send' : f === 'check' ? 'to check first' : f}`,
    );
    return { rows, summary: `a run resumes the journal ${journal.path}: ${parts.join(', ')}` };
  }
  if (opts.runId !== undefined) return { rows, summary: `a new run '${opts.runId}' sends every row` };
  const earlier = earlierRows(otherRuns(journal.path, head), new Map(planned.map((p) => [p.line, p.identity])));
  for (const e of earlier) {
    const what =
      e.state === 'applied'
        ? `applied by an earlier run (started ${e.at})`
        : `sent by an earlier run (started ${e.at}), its outcome never learned`;
    rows.set(e.line, opts.skipApplied ? `skip: ${what}` : `stop: ${what}`);
  }
  if (!earlier.length) return { rows, summary: 'a run sends every row' };
  const n = earlier.length;
  return {
    rows,
    summary: opts.skipApplied
      ? `--skip-applied: a run skips ${n} row${n === 1 ? '' : 's'} an earlier run sent and sends ${planned.length - n}`
      : `a run stops before sending anything (exit 2): ${n} row${n === 1 ? '' : 's'} ${n === 1 ? 'was' : 'were'} sent by an earlier run with another input (--skip-applied sends only the others; --run-id NAME or --restart sends every row)`,
  };
}

export async function dryRun(ctx: BulkCtx, verb: BulkVerb, planned: PlannedRow[], opts: BulkOptions): Promise<number> {
  const ep = verb.endpoint;
  const g = ctx.globals;
  const api = await ctx.api();
  const changes = verb.preview ? await verb.preview(api, planned, ctx.signal) : new Map<number, string>();
  const fate = fates(ctx, verb, planned, opts);
  await printList(
    planned.map((p) => ({
      line: p.line,
      key: p.key,
      request: `${ep.method} ${fillPath(ep.path, p.input.params)}`,
      ...(Object.keys(p.input.query).length ? { query: redactBody(p.input.query) } : {}),
      // A password column (bulk `users create`) is in the file, never on the screen.
      ...(hasPart(ep, 'body') ? { body: redactBody(p.input.body) } : {}),
      ...(verb.preview ? { change: changes.get(p.line) ?? 'current state not found' } : {}),
      run: fate.rows.get(p.line) ?? 'send',
    })),
    {
      format: g.output,
      fields: g.fields,
      io: ctx.io,
      noColor: g.noColor,
      columns: ['line', 'key', 'request', 'body', ...(verb.preview ? ['change'] : []), 'run'],
    },
  );
  ctx.note(`dry run: ${planned.length} rows (${byAction(planned, verb)}) checked, nothing sent; ${fate.summary}`);
  return 0;
}
