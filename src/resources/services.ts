/**
 * The service detail (GET /admin/services/detail) as `services get` and the console's detail
 * screen show it: the service, its plans, active subscriptions and top users, then its usage
 * statistics (a chart on a terminal for `services get`, a table otherwise and in the console).
 */
import { PLAN_TERMS } from './columns.js';
import type { DetailShape, DetailTable } from './details.js';

/** The usage statistics: the columns of their table, and the date that orders them for a chart. */
interface UsageTable extends DetailTable {
  dateField: string;
}

export const SERVICE_DETAIL: DetailShape & { usage: UsageTable } = {
  record: { title: 'Service', key: 'service_info' },
  tables: [
    {
      title: 'Plans',
      key: 'service_plans',
      columns: ['service_plan_id', ...PLAN_TERMS, 'is_available', 'active_subscriptions'],
    },
    {
      title: 'Active subscriptions',
      key: 'active_subscriptions',
      columns: ['subscription_id', 'username', 'plan_code', 'status', 'end_date', 'remaining_credits'],
    },
    {
      title: 'Top users',
      key: 'top_users',
      columns: ['user_id', 'username', 'full_name', 'active_subscriptions', 'total_usage', 'last_usage_date'],
    },
  ],
  usage: {
    title: 'Usage statistics',
    key: 'usage_statistics',
    columns: ['stat_date', 'stat_type', 'total_usage', 'unique_users', 'new_subscriptions', 'active_subscriptions'],
    dateField: 'stat_date',
  },
};

/** Usage statistics oldest first (a copy), by their date as text: the order of a chart's points. */
export function usageByDate<T extends Record<string, unknown>>(stats: readonly T[]): T[] {
  const at = SERVICE_DETAIL.usage.dateField;
  return [...stats].sort((a, b) => String(a[at]).localeCompare(String(b[at])));
}
