/**
 * `subctl services`: /admin/services* (spec/admin-area.md point 7, "Services").
 */
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
  await section(ctx, 'Plans', data.service_plans, ['service_plan_id', 'plan_code', 'plan_name', 'price', 'currency', 'duration', 'duration_unit', 'is_available', 'active_subscriptions']);
  await section(ctx, 'Active subscriptions', data.active_subscriptions, ['subscription_id', 'username', 'plan_code', 'status', 'end_date', 'remaining_credits']);
  await section(ctx, 'Top users', data.top_users, ['user_id', 'username', 'full_name', 'active_subscriptions', 'total_usage', 'last_usage_date']);
  const stats = Array.isArray(data.usage_statistics) ? (data.usage_statistics as Record<string, number | string>[]) : [];
  if (ctx.io.stdoutIsTTY && stats.length) {
    const sorted = [...stats].sort((a, b) => String(a.stat_date).localeCompare(String(b.stat_date)));
    ctx.io.stdout.write(`\nUsage ${String(sorted[0].stat_date).slice(0, 10)} .. ${String(sorted[sorted.length - 1].stat_date).slice(0, 10)}\n`);
    ctx.io.stdout.write(`  usage         ${sparkline(sorted.map((s) => Number(s.total_usage) || 0))}  max ${Math.max(...sorted.map((s) => Number(s.total_usage) || 0))}\n`);
    ctx.io.stdout.write(`  unique users  ${sparkline(sorted.map((s) => Number(s.unique_users) || 0))}  max ${Math.max(...sorted.map((s) => Number(s.unique_users) || 0))}\n`);
  } else {
    await section(ctx, 'Usage statistics', stats, ['stat_date', 'stat_type', 'total_usage', 'unique_users', 'new_subscriptions', 'active_subscriptions']);
  }
}

export const servicesGroup: Group = {
  name: 'services',
  summary: 'services offered through plans (/admin/services)',
  build: verbsBuilder(() => [
    { name: 'list', endpoint: servicesList, columns: SERVICE_COLUMNS, aliases: ['ls'] },
    { name: 'list-alt', endpoint: servicesListAlt, columns: SERVICE_COLUMNS, summary: 'the same list from /admin/services/list' },
    {
      name: 'get',
      endpoint: servicesDetail,
      summary: 'one service: its details, plans, active subscriptions, top users and usage',
      args: ['service_id|service_code?'],
      prepare: (input) => needsIdentifier(input.query, 'services get'),
      render: renderDetail,
    },
    {
      name: 'report',
      endpoint: servicesReport,
      render: async (data, ctx) => {
        await printList(Array.isArray(data) ? data : [], out(ctx, [...SERVICE_COLUMNS, 'today_usage_count'], () => itemFieldsOf(servicesReport, '')));
      },
    },
    { name: 'create', endpoint: servicesCreate },
    { name: 'update', endpoint: servicesUpdate, args: ['id'] },
    {
      name: 'delete',
      endpoint: servicesDelete,
      args: ['service_id|service_code?'],
      destructive: true,
      prepare: (input) => needsIdentifier(input.body, 'services delete'),
      describe: (input: VerbInput) =>
        `delete service ${String(input.body.service_code ?? `#${input.body.service_id}`)}${input.body.force_delete ? ' (force)' : ''}${input.body.delete_related_data ? ' with its related data' : ''}`,
    },
  ]),
};
