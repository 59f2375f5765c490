/**
 * `subctl service-plans`: links between services and plans (the API documents' administrator area).
 */
import {
  servicePlansCreate,
  servicePlansDelete,
  servicePlansDetail,
  servicePlansList,
  servicePlansListAlt,
  servicePlansManage,
  servicePlansUpdate,
} from '../../api/contract/admin-service-plans.js';
import { UsageError } from '../../api/errors.js';
import { listAll, settleCreate } from '../../bulk/create-state.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printObject } from '../../output/index.js';
import { SERVICE_PLAN_DETAIL } from '../../resources/service-plans.js';
import type { Group } from '../types.js';
import { detailTables, out } from '../common.js';
import { SERVICE_PLAN_COLUMNS } from './common.js';

export const servicePlansGroup: Group = {
  name: 'service-plans',
  build: verbsBuilder(() => [
    {
      name: 'list',
      examples: ['subctl service-plans list --service-code GPT4', 'subctl service-plans list --is-available true --all -o csv'],
      endpoint: servicePlansList,
      columns: SERVICE_PLAN_COLUMNS,
      aliases: ['ls'],
    },
    {
      name: 'list-alt',
      examples: ['subctl service-plans list-alt --plan-code PRO-M'],
      endpoint: servicePlansListAlt,
      columns: SERVICE_PLAN_COLUMNS,
      summary: 'the same list from /admin/service-plans/list',
    },
    {
      name: 'get',
      examples: ['subctl service-plans get 3', 'subctl service-plans get 3 -o json'],
      endpoint: servicePlansDetail,
      args: ['id'],
      summary: 'one link: its info, its subscriptions and its usage codes',
      render: async (data: Record<string, unknown>, ctx) => {
        // --fields: paths from the answer's root, in every format (as services get).
        if (ctx.globals.output !== 'table' || ctx.globals.fields) return printObject(data, out(ctx));
        await printObject(data[SERVICE_PLAN_DETAIL.record.key] ?? {}, out(ctx));
        await detailTables(ctx, data, SERVICE_PLAN_DETAIL.tables);
      },
    },
    {
      name: 'create',
      examples: ['subctl service-plans create --service-code GPT4 --plan-code PRO-M'],
      endpoint: servicePlansCreate,
      // A bulk link whose answer was lost is settled by finding its service and plan codes in the list.
      bulk: {
        settle: settleCreate({
          keys: ['service_code', 'plan_code'],
          find: listAll(servicePlansList, (b) => ({ service_code: b.service_code, plan_code: b.plan_code })),
          compare: ['is_available'],
          idOf: (item) => item.service_plan_id,
        }),
      },
    },
    {
      name: 'update',
      examples: [
        'subctl service-plans update 3 --is-available false',
        'subctl service-plans update --service-code GPT4 --plan-code PRO-M --new-plan-id 8',
      ],
      endpoint: servicePlansUpdate,
      args: ['service_plan_id?'],
    },
    {
      name: 'manage',
      examples: ['subctl service-plans manage --action deactivate --service-code GPT4 --plan-code PRO-M'],
      endpoint: servicePlansManage,
    },
    {
      name: 'delete',
      examples: ['subctl service-plans delete 3 --yes', 'subctl service-plans delete --service-id 12 --plan-id 7 --force-delete --yes'],
      endpoint: servicePlansDelete,
      args: ['service_plan_id?'],
      destructive: true,
      // Which link: by id, or by its service and plan (see subscriptions delete).
      prepare: (i) => {
        const b = i.body;
        if (b.service_plan_id === undefined && (b.service_id === undefined || b.plan_id === undefined)) {
          throw new UsageError('service-plans delete needs a link id (argument or --service-plan-id), or --service-id with --plan-id');
        }
      },
      describe: (i: VerbInput) => `delete service-plan link ${JSON.stringify(i.body)}`,
    },
  ]),
};
