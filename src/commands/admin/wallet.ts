/**
 * `subctl wallet`: wallet transactions with their summary (the API documents' administrator area).
 */
import { walletList } from '../../api/contract/admin-misc.js';
import { verbsBuilder } from '../../cli/verbs.js';
import type { Group } from '../types.js';
import { printSummary } from '../common.js';
import { WALLET_COLUMNS } from './common.js';

export const walletGroup: Group = {
  name: 'wallet',
  build: verbsBuilder(() => [
    {
      name: 'list',
      examples: [
        'subctl wallet list --transaction-type refund --date-from 2026-01-01 --date-to 2026-01-31 -o ndjson',
        'subctl wallet list --username siobhan.anderson --limit 20',
      ],
      endpoint: walletList,
      columns: WALLET_COLUMNS,
      aliases: ['ls'],
      extras: (data, ctx) => printSummary(ctx, 'Summary', data.summary),
    },
  ]),
};
