/**
 * Subscription plans (the API documents' administrator area, "Subscription plans"): 6 endpoints under
 * /admin/subscription-plans. Follows the pattern of admin-services.ts.
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
import { adminPaging, deleteFlags } from './admin-common.js';

export const DurationUnit = lazy(() => z.enum(['days', 'months', 'years']));
export const CreditUnit = lazy(() => z.enum(['requests', 'tokens', 'minutes', 'hours']));
/** The plan list filter offers only these three credit units (point 3). */
export const CreditUnitFilter = lazy(() => z.enum(['requests', 'tokens', 'minutes']));
export const PlanSortBy = lazy(() => z.enum(['PlanCode', 'PlanName', 'Price', 'CreatedDate']));

export const SubscriptionPlan = lazy(() =>
  loose({
    plan_id: num(),
    plan_code: str(),
    plan_name: str(),
    price: num(),
    currency: str(),
    duration: num(),
    duration_unit: str(),
    credit_amount: num(),
    credit_unit: str(),
    is_active: bool(),
    linked_services_count: num(),
    active_subscriptions_count: num(),
    revenue_30_days: num(),
    created_date: dateTime(),
    last_updated: dateTime(),
  }),
);

const planListQuery = lazy(() => ({
  page_number: pageNumber(),
  page_size: pageSize(20),
  plan_code: z.string().max(50).optional(),
  plan_name: z.string().max(200).optional(),
  duration_unit: DurationUnit().optional(),
  // The create bound (price at least 0) carried over to the price filters.
  price_from: q.num({ min: 0 }).optional(),
  price_to: q.num({ min: 0 }).optional(),
  has_credits: q.bool().optional(),
  credit_unit: CreditUnitFilter().optional(),
  is_active: q.bool().optional(),
  sort_by: PlanSortBy().default('CreatedDate'),
  sort_order: SortOrder().default('DESC'),
}));

const planListData = lazy(() => loose({ pagination: Pagination(), subscription_plans: listOf(SubscriptionPlan()) }));

export const plansList = endpoint({
  name: 'plans.list',
  area: 'admin',
  method: 'GET',
  path: '/admin/subscription-plans',
  summary: 'List subscription plans, filtered, sorted and paged',
  schemas: () => ({
    query: z.object(planListQuery()),
    response: planListData(),
  }),
  access: 'admin',
  paging: adminPaging('subscription_plans'),
});

export const plansListAlt = endpoint({
  name: 'plans.list-alt',
  area: 'admin',
  method: 'GET',
  path: '/admin/subscription-plans/list',
  summary: 'List subscription plans (the /list variant; same query)',
  schemas: () => ({
    query: z.object(planListQuery()),
    response: planListData(),
  }),
  access: 'admin',
  paging: adminPaging('subscription_plans'),
});

export const plansReport = endpoint({
  name: 'plans.report',
  area: 'admin',
  method: 'GET',
  path: '/admin/subscription-plans/report',
  summary: 'Subscription plan report: every plan with auto_renewal and max_usage_per_day',
  schemas: () => ({
    query: z.object({
      plan_code: z.string().max(50).optional(),
      duration_unit: DurationUnit().optional(),
      is_active: q.bool().optional(),
      include_stats: q.bool().default(false),
    }),
    response: listOf(loose({ ...SubscriptionPlan().shape, auto_renewal: bool(), max_usage_per_day: num() })),
  }),
  access: 'admin',
});

const planFields = lazy(() => ({
  plan_code: z.string().max(50),
  plan_name: z.string().max(200),
  price: z.number().min(0),
  currency: z.string(),
  duration: z.number().int(),
  duration_unit: DurationUnit(),
  credit_amount: z.number().int(),
  credit_unit: CreditUnit(),
  auto_renewal: z.boolean().optional(),
  is_active: z.boolean().optional(),
  max_usage_per_day: z.number().int().optional(),
}));

export const plansCreate = endpoint({
  name: 'plans.create',
  area: 'admin',
  method: 'POST',
  path: '/admin/subscription-plans',
  summary: 'Create a subscription plan',
  schemas: () => ({
    body: z.object(planFields()),
    response: loose({ message: str(), plan_id: num() }),
  }),
  access: 'admin',
});

export const plansUpdate = endpoint({
  name: 'plans.update',
  area: 'admin',
  method: 'PUT',
  path: '/admin/subscription-plans/{id}',
  summary: 'Update a subscription plan (plan_id, the path id, required; every other field optional)',
  schemas: () => ({
    params: z.object({ id: q.int() }),
    body: z.object({
      // Spec: "plan_id required, the others optional". `plans update <id>` and the console fill
      // it from the path id; a request without it (`api PUT ...`) is refused before it is sent.
      plan_id: z.number().int(),
      plan_code: planFields().plan_code.optional(),
      plan_name: planFields().plan_name.optional(),
      price: planFields().price.optional(),
      currency: planFields().currency.optional(),
      duration: planFields().duration.optional(),
      duration_unit: planFields().duration_unit.optional(),
      credit_amount: planFields().credit_amount.optional(),
      credit_unit: planFields().credit_unit.optional(),
      auto_renewal: planFields().auto_renewal,
      is_active: planFields().is_active,
      max_usage_per_day: planFields().max_usage_per_day,
    }),
    response: loose({ message: str() }),
  }),
  access: 'admin',
});

export const plansDelete = endpoint({
  name: 'plans.delete',
  area: 'admin',
  method: 'DELETE',
  path: '/admin/subscription-plans',
  summary: 'Delete a subscription plan by plan_code or plan_id',
  schemas: () => ({
    body: z.object({
      plan_id: z.number().int().optional(),
      plan_code: z.string().max(50).optional(),
      ...deleteFlags(),
    }),
    response: anything(),
  }),
  access: 'admin',
});

export const planEndpoints = [plansList, plansListAlt, plansReport, plansCreate, plansUpdate, plansDelete];
