/**
 * Subscriptions and maintenance (the API documents' administrator area, "Subscriptions and maintenance"):
 * 5 endpoints. Follows the pattern of admin-services.ts.
 */
import { z } from './z.js';
import {
  anything,
  bool,
  dateTime,
  endpoint,
  lazy,
  listOf,
  loose,
  num,
  pageNumber,
  pageSize,
  Pagination,
  q,
  SortOrder,
  str,
} from './common.js';
import { adminPaging, deleteFlags, PaymentMethod } from './admin-common.js';

export const SubscriptionStatus = lazy(() => z.enum(['active', 'expired', 'cancelled', 'paused']));
export const SubscriptionManageAction = lazy(() => z.enum(['extend', 'pause', 'resume', 'cancel', 'add_credits']));
export const SubscriptionSortBy = lazy(() => z.enum(['Username', 'ServiceCode', 'StartDate', 'EndDate', 'CreatedDate']));

export const UserSubscription = lazy(() =>
  loose({
    subscription_id: num(),
    user_id: num(),
    username: str(),
    full_name: str(),
    email: str(),
    service_code: str(),
    service_name: str(),
    plan_code: str(),
    plan_name: str(),
    status: str(),
    start_date: dateTime(),
    end_date: dateTime(),
    is_expired: bool(),
    auto_renewal: bool(),
    payment_method: str(),
    price: num(),
    currency: str(),
    total_credits: num(),
    used_credits: num(),
    remaining_credits: num(),
    renewal_count: num(),
    activation_code: str(),
    activation_batch: str(),
    created_date: dateTime(),
    last_updated: dateTime(),
  }),
);

/** The subscription detail adds the reset dates (point 3). */
export const UserSubscriptionDetail = lazy(() =>
  loose({ ...UserSubscription().shape, last_reset_date: dateTime(), next_reset_date: dateTime() }),
);

const subscriptionListQuery = lazy(() => ({
  page_number: pageNumber(),
  page_size: pageSize(20),
  user_id: q.int().optional(),
  username: z.string().optional(),
  service_code: z.string().max(50).optional(),
  plan_code: z.string().max(50).optional(),
  status: SubscriptionStatus().optional(),
  payment_method: PaymentMethod().optional(),
  start_date_from: q.date().optional(),
  start_date_to: q.date().optional(),
  end_date_from: q.date().optional(),
  end_date_to: q.date().optional(),
  auto_renewal: q.bool().optional(),
  is_expired: q.bool().optional(),
  sort_by: SubscriptionSortBy().default('CreatedDate'),
  sort_order: SortOrder().default('DESC'),
}));

const subscriptionListData = lazy(() => loose({ pagination: Pagination(), subscriptions: listOf(UserSubscription()) }));

export const subscriptionsList = endpoint({
  name: 'subscriptions.list',
  area: 'admin',
  method: 'GET',
  path: '/admin/subscriptions',
  summary: 'List user subscriptions, filtered, sorted and paged',
  schemas: () => ({
    query: z.object(subscriptionListQuery()),
    response: subscriptionListData(),
  }),
  access: 'admin',
  paging: adminPaging('subscriptions'),
});

export const subscriptionsListAlt = endpoint({
  name: 'subscriptions.list-alt',
  area: 'admin',
  method: 'GET',
  path: '/admin/subscriptions/list',
  summary: 'List user subscriptions (the /list variant; same query)',
  schemas: () => ({
    query: z.object(subscriptionListQuery()),
    response: subscriptionListData(),
  }),
  access: 'admin',
  paging: adminPaging('subscriptions'),
});

export const subscriptionsManage = endpoint({
  name: 'subscriptions.manage',
  area: 'admin',
  method: 'PUT',
  path: '/admin/subscriptions/{id}/manage',
  summary: 'Extend, pause, resume, cancel or add credits to a subscription',
  // The spec shows subscription_id, action, message; the subscription's new state
  // (status, end_date, remaining_credits, total_credits) is the sandbox's decision.
  schemas: () => ({
    params: z.object({ id: q.int() }),
    body: z.object({
      action: SubscriptionManageAction(),
      reason: z.string().max(500),
      extend_days: z.number().int().optional(),
      extend_credits: z.number().int().optional(),
    }),
    response: loose({
      subscription_id: num(),
      action: str(),
      message: str(),
      status: str(),
      end_date: dateTime(),
      remaining_credits: num(),
      total_credits: num(),
    }),
  }),
  access: 'admin',
});

export const subscriptionsDelete = endpoint({
  name: 'subscriptions.delete',
  area: 'admin',
  method: 'DELETE',
  path: '/admin/subscriptions',
  summary: 'Delete a subscription by subscription_id, or by user_id and service_id',
  schemas: () => ({
    body: z.object({
      subscription_id: z.number().int().optional(),
      user_id: z.number().int().optional(),
      service_id: z.number().int().optional(),
      ...deleteFlags(),
    }),
    response: anything(),
  }),
  access: 'admin',
});

export const cleanupRun = endpoint({
  name: 'cleanup.run',
  area: 'admin',
  method: 'POST',
  path: '/admin/maintenance/cleanup-subscription-data',
  summary: 'Clean up old subscription data (dry_run only counts)',
  // The fields of cleanup_summary are not shown (point 3).
  schemas: () => ({
    body: z.object({
      cleanup_expired_days: z.number().int().min(0).optional(),
      cleanup_inactive_tokens_days: z.number().int().min(0).optional(),
      cleanup_usage_logs_days: z.number().int().min(0).optional(),
      dry_run: z.boolean().optional(),
    }),
    response: loose({ cleanup_summary: anything(), message: str() }),
  }),
  access: 'admin',
});

export const subscriptionEndpoints = [subscriptionsList, subscriptionsListAlt, subscriptionsManage, subscriptionsDelete, cleanupRun];
