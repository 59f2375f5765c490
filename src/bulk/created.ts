/**
 * What a bulk create made (`usage-codes generate`: the codes), on stdout in the chosen format:
 * the answers are their only copy. Printed are the items of every row of the run found applied
 * whose items no attempt printed yet: from this attempt's answers, else read back from the
 * platform (a lost answer settled by look-up; an attempt stopped before it printed). The journal
 * then records them as printed, so the next attempt prints only the others.
 */
import type { ApiClient } from '../api/client.js';
import { printList } from '../output/index.js';
import type { Journal, RowRecord } from './journal.js';
import { checkCommand } from './settle.js';
import type { BulkCtx as Ctx, BulkOptions, BulkVerb, PlannedRow } from './types.js';

type Item = Record<string, unknown>;

/** Rows this run applied (not another run) whose items are on no attempt's stdout yet. */
function unprinted(planned: PlannedRow[], state: Map<string, RowRecord>): PlannedRow[] {
  return planned.filter((p) => {
    const r = state.get(p.identity);
    return r?.state === 'done' && !r.printed && r.via !== 'earlier' && r.via !== 'other';
  });
}

export async function printCreated(
  ctx: Ctx,
  api: ApiClient,
  verb: BulkVerb,
  run: { planned: PlannedRow[]; state: Map<string, RowRecord>; journal: Journal; answered: Map<string, Item[]> },
  opts: Pick<BulkOptions, 'reportFile'>,
): Promise<void> {
  const created = verb.created;
  if (!created) return;
  const rows = unprinted(run.planned, run.state);
  if (!rows.length) return;
  if (opts.reportFile === '-') {
    ctx.warn(`the items ${rows.length} rows created are not printed (stdout holds the report); list them on the platform`);
    return;
  }
  const items: Item[] = [];
  const printed: string[] = [];
  const unread: PlannedRow[] = [];
  let readBack = 0;
  for (const p of rows) {
    let got = run.answered.get(p.identity);
    if (!got) {
      // After Ctrl-C nothing more is sent, reads included: the next attempt prints these.
      if (ctx.signal.aborted) continue;
      try {
        got = await created.readBack(api, p.input.body, ctx.signal);
        readBack++;
      } catch {
        unread.push(p);
        continue;
      }
    }
    items.push(...got);
    printed.push(p.identity);
  }
  const g = ctx.globals;
  await printList(items, { format: g.output, fields: g.fields, io: ctx.io, noColor: g.noColor, columns: created.columns });
  run.journal.markPrinted(printed);
  if (readBack) {
    ctx.note(
      `the items ${readBack} rows created were read back from the platform (their answers were lost, or an earlier attempt stopped before printing them)`,
    );
  }
  if (unread.length) {
    ctx.warn(
      `the items ${unread.length} rows created could not be read back (the next run tries again); see ${unread
        .slice(0, 3)
        .map(checkCommand)
        .join('; ')}${unread.length > 3 ? ' ...' : ''}`,
    );
  }
}
