/**
 * `subctl usage-codes`: list with summary, generate batches (spec/admin-area.md point 7).
 */
import { usageCodesGenerate, usageCodesList } from '../../api/contract/admin-misc.js';
import { verbsBuilder } from '../../cli/verbs.js';
import { printList } from '../../output/index.js';
import type { Group } from '../types.js';
import { out, printSummary } from '../common.js';
import { CODE_COLUMNS } from './common.js';

export const usageCodesGroup: Group = {
  name: 'usage-codes',
  aliases: ['codes'],
  build: verbsBuilder(() => [
    {
      name: 'list',
      examples: ['subctl usage-codes list --batch-id SPRING26 --include-summary true', 'subctl usage-codes list --is-used false --all -o csv'],
      endpoint: usageCodesList,
      columns: CODE_COLUMNS,
      aliases: ['ls'],
      extras: (data, ctx) => printSummary(ctx, 'Summary', data.summary),
    },
    {
      name: 'generate',
      examples: ['subctl usage-codes generate --batch-id SPRING26 --code-count 500 --expiration-days 90 --service-plan-id 3 --code-prefix SPR'],
      endpoint: usageCodesGenerate,
      summary: 'generate a batch of codes; prints the codes to stdout (`> codes.csv` works)',
      render: async (data: Record<string, unknown>, ctx) => {
        const codes = Array.isArray(data?.codes) ? (data.codes as Record<string, unknown>[]) : [];
        const rows = codes.map((c) => ({ batch_id: data.batch_id, ...c }));
        await printList(rows, out(ctx, ['code_value', 'batch_id', 'expiry_date', 'code_id']));
        ctx.note(`generated ${String(data?.generated_count ?? rows.length)} codes in batch ${String(data?.batch_id ?? '')}`);
      },
    },
  ]),
};
