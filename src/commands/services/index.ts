/**
 * `subctl services`: /admin/services* (the API documents' administrator area, "Services").
 */
import { getOne, settleCreate } from '../../bulk/create-state.js';
import { SERVICE_COLUMNS } from '../../resources/columns.js';
import { SERVICE_DETAIL, usageByDate } from '../../resources/services.js';
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
import { detailTables, out, section } from '../common.js';
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
  const { record, tables, usage } = SERVICE_DETAIL;
  await printObject(data[record.key] ?? {}, { ...out(ctx), format: 'table' });
  await detailTables(ctx, data, tables);
  const stats = Array.isArray(data[usage.key]) ? (data[usage.key] as Record<string, number | string>[]) : [];
  if (ctx.io.stdoutIsTTY && stats.length) {
    const sorted = usageByDate(stats);
    ctx.io.stdout.write(
      `\nUsage ${String(sorted[0][usage.dateField]).slice(0, 10)} .. ${String(sorted[sorted.length - 1][usage.dateField]).slice(0, 10)}\n`,
    );
    for (const [label, field] of [
      ['usage', 'total_usage'],
      ['unique users', 'unique_users'],
    ]) {
      const values = sorted.map((s) => Number(s[field]) || 0);
      ctx.io.stdout.write(`  ${label.padEnd(14)}${sparkline(values)}  max ${Math.max(...values)}\n`);
    }
  } else {
    await section(ctx, usage.title, stats, usage.columns);
  }
}

export const servicesGroup: Group = {
  name: 'services',
  // A table of verbs: read whole.
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
      examples: ['subctl services report --service-type api --include-stats true', 'subctl services report -o csv > services.csv'],
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
            (d) => (d as Record<string, unknown> | null)?.[SERVICE_DETAIL.record.key],
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
