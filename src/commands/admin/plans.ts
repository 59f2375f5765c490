/**
 * `subctl plans`: subscription plans (spec/admin-area.md point 7).
 */
import { plansCreate, plansDelete, plansList, plansListAlt, plansReport, plansUpdate } from '../../api/contract/admin-plans.js';
import { itemFieldsOf } from '../../api/contract/common.js';
import { UsageError } from '../../api/errors.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printList } from '../../output/index.js';
import type { Group } from '../types.js';
import { out } from '../common.js';
import { PLAN_COLUMNS } from './common.js';

export const plansGroup: Group = {
  name: 'plans',
  build: verbsBuilder(() => [
    { name: 'list', endpoint: plansList, columns: PLAN_COLUMNS, aliases: ['ls'] },
    { name: 'list-alt', endpoint: plansListAlt, columns: PLAN_COLUMNS, summary: 'the same list from /admin/subscription-plans/list' },
    {
      name: 'report',
      endpoint: plansReport,
      render: async (data, ctx) => {
        await printList(Array.isArray(data) ? data : [], out(ctx, [...PLAN_COLUMNS, 'auto_renewal', 'max_usage_per_day'], () => itemFieldsOf(plansReport, '')));
      },
    },
    { name: 'create', endpoint: plansCreate },
    {
      name: 'update',
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
      endpoint: plansDelete,
      args: ['plan_id|plan_code?'],
      destructive: true,
      prepare: (i) => {
        if (i.body.plan_code === undefined && i.body.plan_id === undefined) throw new UsageError('plans delete needs --plan-code or --plan-id');
      },
      describe: (i: VerbInput) => `delete plan ${String(i.body.plan_code ?? `#${i.body.plan_id}`)}`,
    },
  ]),
};
