/**
 * `subctl usage-codes`: list with summary, generate batches (the API documents' administrator area).
 */
import type { ApiClient } from '../../api/client.js';
import { usageCodesGenerate, usageCodesList } from '../../api/contract/admin-misc.js';
import { verbsBuilder } from '../../cli/verbs.js';
import { printList } from '../../output/index.js';
import type { Group } from '../types.js';
import { out, printSummary } from '../common.js';
import { CODE_COLUMNS } from './common.js';
import { listAll, settleCreate } from '../../bulk/create-state.js';

const CREATED_COLUMNS = ['code_value', 'batch_id', 'expiry_date', 'code_id'];

/** The codes of a generate answer, each with its batch. */
function codesOf(data: unknown): Array<Record<string, unknown>> {
  const d = (data ?? {}) as Record<string, unknown>;
  const codes = Array.isArray(d.codes) ? (d.codes as Record<string, unknown>[]) : [];
  return codes.map((c) => ({ batch_id: d.batch_id, ...c }));
}

/** Every usage code listed under the row's batch id (every page; the filter may be read loosely). */
const batchList = listAll(usageCodesList, (b) => ({ batch_id: b.batch_id, include_summary: false }));

/** The codes of the row's batch, as a generate answer gives them. */
async function batchCodes(api: ApiClient, body: Record<string, unknown>, signal: AbortSignal): Promise<Array<Record<string, unknown>>> {
  const codes: Array<Record<string, unknown>> = [];
  for await (const c of batchList(api, body, signal)) {
    if (c.batch_id !== body.batch_id) continue;
    codes.push(Object.fromEntries(CREATED_COLUMNS.map((k) => [k, c[k]])));
  }
  return codes;
}

export const usageCodesGroup: Group = {
  name: 'usage-codes',
  aliases: ['codes'],
  build: verbsBuilder(() => [
    {
      name: 'list',
      examples: [
        'subctl usage-codes list --batch-id SPRING26 --include-summary true',
        'subctl usage-codes list --is-used false --all -o csv',
      ],
      endpoint: usageCodesList,
      columns: CODE_COLUMNS,
      aliases: ['ls'],
      extras: (data, ctx) => printSummary(ctx, 'Summary', data.summary),
    },
    {
      name: 'generate',
      examples: [
        'subctl usage-codes generate --batch-id SPRING26 --code-count 500 --expiration-days 90 --service-plan-id 3 --code-prefix SPR',
      ],
      endpoint: usageCodesGenerate,
      summary: 'generate a batch of codes; prints the codes to stdout (`> codes.csv` works)',
      // A bulk run prints every batch's codes; a batch whose answer was lost is found by its id,
      // and its codes are read back from the list.
      bulk: {
        created: { columns: CREATED_COLUMNS, rows: codesOf, readBack: batchCodes },
        settle: settleCreate({
          keys: ['batch_id'],
          find: batchList,
          idOf: (_item, body) => body.batch_id,
        }),
      },
      render: async (data: Record<string, unknown>, ctx) => {
        const rows = codesOf(data);
        await printList(rows, out(ctx, CREATED_COLUMNS));
        ctx.note(`generated ${String(data?.generated_count ?? rows.length)} codes in batch ${String(data?.batch_id ?? '')}`);
      },
    },
  ]),
};
