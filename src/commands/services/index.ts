/**
 * `subctl services`: /admin/services* (spec/admin-area.md point 7, "Services").
 */
import { getOne, settleCreate } from '../../bulk/create-state.js';
import { SERVICE_COLUMNS } from '../../resources/columns.js';
import {
  servicesCreate,
  servicesDelete,
  servicesDetail,
  servicesList,
  servicesListAlt,
  servicesReport,
  servicesUpdate,
} from '../../api/contract/admin-services.js';
import { itemFieldsOf } from '../../api/contract/common.js';
import { UsageError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';
import { listRows } from '../../cli/paging.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printList, printObject, sparkline } from '../../output/index.js';
import { out, section } from '../common.js';
import type { Group } from '../types.js';

export { SERVICE_COLUMNS };

function needsIdentifier(where: Record<string, unknown>, what: string) {
  if (where.service_id === undefined && where.service_code === undefined) {
    throw new UsageError(`${what} needs --service-code or --service-id`);
  }
}

/** The service detail: its five parts, readable on a terminal; one object for json/ndjson/csv. */
async function renderDetail(data: Record<string, unknown>, ctx: Ctx) {
  const g = ctx.globals;
  // With --fields, the paths are picked from the answer as it is, in every format alike (the
  // table view read them from service_info and printed every section around them).
  if (g.output !== 'table' || g.fields) {
    await printObject(data, out(ctx));
    return;
  }
  await printObject(data.service_info ?? {}, { ...out(ctx), format: 'table' });
  await section(ctx, 'Plans', data.service_plans, [
    'service_plan_id',
    'plan_code',
    'plan_name',
    'price',
    'currency',
    'duration',
    'duration_unit',
    'is_available',
    'active_subscriptions',
  ]);
  await section(ctx, 'Active subscriptions', data.active_subscriptions, [
    'subscription_id',
    'username',
    'plan_code',
    'status',
    'end_date',
    'remaining_credits',
  ]);
  await section(ctx, 'Top users', data.top_users, [
    'user_id',
    'username',
    'full_name',
    'active_subscriptions',
    'total_usage',
    'last_usage_date',
  ]);
  const stats = Array.isArray(data.usage_statistics) ? (data.usage_statistics as Record<string, number | string>[]) : [];
  if (ctx.io.stdoutIsTTY && stats.length) {
    const sorted = [...stats].sort((a, b) => String(a.stat_date).localeCompare(String(b.stat_date)));
    ctx.io.stdout.write(
      `\nUsage ${String(sorted[0].stat_date).slice(0, 10)} .. ${String(sorted[sorted.length - 1].stat_date).slice(0, 10)}\n`,
    );
    ctx.io.stdout.write(
      `  usage         ${sparkline(sorted.map((s) => Number(s.total_usage) || 0))}  max ${Math.max(...sorted.map((s) => Number(s.total_usage) || 0))}\n`,
    );
    ctx.io.stdout.write(
      `  unique users  ${sparkline(sorted.map((s) => Number(s.unique_users) || 0))}  max ${Math.max(...sorted.map((s) => Number(s.unique_users) || 0))}\n`,
    );
  } else {
    await section(ctx, 'Usage statistics', stats, [
      'stat_date',
      'stat_type',
      'total_usage',
      'unique_users',
      'new_subscriptions',
      'active_subscriptions',
    ]);
  }
}

export const servicesGroup: Group = {
  name: 'services',
  build: verbsBuilder(() => [
    {
      name: 'list',
      examples: [
        'subctl services list --service-type HYBRID --is-active true --page-size 50 --sort-by ServiceName --sort-order ASC -o json',
        'subctl services list --all --fields service_code,service_name,is_active -o csv',
      ],
      endpoint: servicesList,
      columns: SERVICE_COLUMNS,
      aliases: ['ls'],
    },
    {
      name: 'list-alt',
      examples: ['subctl services list-alt --provider-name OpenAI --page-size 50'],
      endpoint: servicesListAlt,
      columns: SERVICE_COLUMNS,
      summary: 'the same list from /admin/services/list',
    },
    {
      name: 'get',
      examples: ['subctl services get --service-code GPT4', 'subctl services get 12 -o json'],
      endpoint: servicesDetail,
      summary: 'one service: its details, plans, active subscriptions, top users and usage',
      args: ['service_id|service_code?'],
      prepare: (input) => needsIdentifier(input.query, 'services get'),
      render: renderDetail,
    },
    {
      name: 'report',
      examples: ['subctl services report --service-type USAGE_BASED --include-stats true', 'subctl services report -o csv > services.csv'],
      endpoint: servicesReport,
      render: async (data, ctx) => {
        const rows = listRows(ctx, servicesReport, data, '');
        if (!rows) return void (await printObject(data, out(ctx)));
        await printList(
          rows,
          out(ctx, [...SERVICE_COLUMNS, 'today_usage_count'], () => itemFieldsOf(servicesReport, '')),
        );
      },
    },
    {
      name: 'create',
      examples: [
        'subctl services create --service-code GPT4 --service-name "GPT-4 access" --service-type USAGE_BASED --provider-name OpenAI --base-service-url https://api.example.com --access-pattern "/v1/*" --credit-reset-cycle monthly',
        'subctl services create --from-csv services.csv --dry-run',
      ],
      endpoint: servicesCreate,
      // A bulk create whose answer was lost is settled by looking its code up (`services get`).
      bulk: {
        settle: settleCreate({
          keys: ['service_code'],
          find: getOne(
            servicesDetail,
            (b) => ({ service_code: b.service_code }),
            (d) => (d as { service_info?: unknown } | null)?.service_info,
          ),
          compare: [
            'service_name',
            'service_type',
            'provider_name',
            'base_service_url',
            'access_pattern',
            'credit_reset_cycle',
            'description',
            'is_active',
            'requires_auth',
          ],
          idOf: (item) => item.service_id,
        }),
      },
    },
    {
      name: 'update',
      examples: ['subctl services update 12 --service-name "GPT-4 Turbo"', 'subctl services update 12 --no-is-active'],
      endpoint: servicesUpdate,
      args: ['id'],
    },
    {
      name: 'delete',
      examples: ['subctl services delete --service-code GPT4 --force-delete --yes', 'subctl services delete 12 --dry-run'],
      endpoint: servicesDelete,
      args: ['service_id|service_code?'],
      destructive: true,
      prepare: (input) => needsIdentifier(input.body, 'services delete'),
      describe: (input: VerbInput) =>
        `delete service ${String(input.body.service_code ?? `#${input.body.service_id}`)}${input.body.force_delete ? ' (force)' : ''}${input.body.delete_related_data ? ' with its related data' : ''}`,
    },
  ]),
};
