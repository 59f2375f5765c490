/**
 * `subctl plans`: subscription plans (the API documents' administrator area).
 */
import { listAll, settleCreate } from '../../bulk/create-state.js';
import { plansCreate, plansDelete, plansList, plansListAlt, plansReport, plansUpdate } from '../../api/contract/admin-plans.js';
import { itemFieldsOf } from '../../api/contract/common.js';
import { UsageError } from '../../api/errors.js';
import { listRows } from '../../cli/paging.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printList, printObject } from '../../output/index.js';
import type { Group } from '../types.js';
import { out } from '../common.js';
import { PLAN_COLUMNS } from './common.js';

export const plansGroup: Group = {
  name: 'plans',
  build: verbsBuilder(() => [
    {
      name: 'list',
      examples: ['subctl plans list --duration-unit months --is-active true', 'subctl plans list --price-from 10 --price-to 50 -o json'],
      endpoint: plansList,
      columns: PLAN_COLUMNS,
      aliases: ['ls'],
    },
    {
      name: 'list-alt',
      examples: ['subctl plans list-alt --plan-code PRO-M'],
      endpoint: plansListAlt,
      columns: PLAN_COLUMNS,
      summary: 'the same list from /admin/subscription-plans/list',
    },
    {
      name: 'report',
      examples: ['subctl plans report --include-stats true', 'subctl plans report --duration-unit months -o json'],
      endpoint: plansReport,
      render: async (data, ctx) => {
        const rows = listRows(ctx, plansReport, data, '');
        if (!rows) return void (await printObject(data, out(ctx)));
        await printList(
          rows,
          out(ctx, [...PLAN_COLUMNS, 'auto_renewal', 'max_usage_per_day'], () => itemFieldsOf(plansReport, '')),
        );
      },
    },
    {
      name: 'create',
      examples: [
        'subctl plans create --plan-code PRO-M --plan-name "Pro monthly" --price 19.99 --currency USD --duration 1 --duration-unit months --credit-amount 1000 --credit-unit requests',
      ],
      endpoint: plansCreate,
      // A bulk create whose answer was lost is settled by finding its plan code in the list.
      bulk: {
        settle: settleCreate({
          keys: ['plan_code'],
          find: listAll(plansList, (b) => ({ plan_code: b.plan_code })),
          compare: ['plan_name', 'price', 'currency', 'duration', 'duration_unit', 'credit_amount', 'credit_unit', 'is_active'],
          idOf: (item) => item.plan_id,
        }),
      },
    },
    {
      name: 'update',
      examples: ['subctl plans update 7 --price 24.99', 'subctl plans update 7 --no-is-active --dry-run'],
      endpoint: plansUpdate,
      args: ['id'],
      hide: ['plan_id'],
      // The contract keeps plan_id in the body too; it is the path id.
      prepare: (i) => {
        i.body.plan_id = i.params.id;
      },
    },
    {
      name: 'delete',
      examples: ['subctl plans delete --plan-code PRO-M --force-delete --delete-related-data --yes', 'subctl plans delete 7 --dry-run'],
      endpoint: plansDelete,
      args: ['plan_id|plan_code?'],
      destructive: true,
      prepare: (i) => {
        if (i.body.plan_code === undefined && i.body.plan_id === undefined)
          throw new UsageError('plans delete needs --plan-code or --plan-id');
      },
      describe: (i: VerbInput) => `delete plan ${String(i.body.plan_code ?? `#${i.body.plan_id}`)}`,
    },
  ]),
};
