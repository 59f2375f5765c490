/**
 * The service plan detail (GET /admin/service-plans/{id}) as `service-plans get` and the
 * console's detail screen show it: the link, its subscriptions and its usage codes.
 */
import type { DetailShape } from './details.js';

export const SERVICE_PLAN_DETAIL: DetailShape = {
  record: { title: 'Service plan', key: 'service_plan_info' },
  tables: [
    {
      title: 'Subscriptions',
      key: 'subscriptions',
      columns: ['subscription_id', 'username', 'status', 'start_date', 'end_date', 'auto_renewal', 'total_usage_count'],
    },
    {
      title: 'Usage codes',
      key: 'usage_codes',
      columns: ['code_id', 'code_value', 'batch_id', 'is_used', 'used_by_username', 'expiry_date'],
    },
  ],
};
