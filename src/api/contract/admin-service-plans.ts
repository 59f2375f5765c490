/**
 * Service-plan links (the API documents' administrator area, "Service-plan links"): 7 endpoints under
 * /admin/service-plans. Follows the pattern of admin-services.ts.
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
import { adminPaging, deleteFlags, ServiceType } from './admin-common.js';

export const ServicePlanSortBy = lazy(() => z.enum(['ServiceCode', 'PlanCode', 'CreatedDate']));
export const ServicePlanManageAction = lazy(() => z.enum(['activate', 'deactivate', 'update', 'delete']));

export const ServicePlanLink = lazy(() =>
  loose({
    service_plan_id: num(),
    service_code: str(),
    service_name: str(),
    service_type: str(),
    plan_code: str(),
    plan_name: str(),
    plan_description: str(),
    is_available: bool(),
    total_codes_count: num(),
    unused_codes_count: num(),
    active_subscriptions_count: num(),
    created_date: dateTime(),
    last_updated: dateTime(),
  }),
);

/** "service, plan and statistics fields, including ..." (point 3): the named ones; the rest pass through. */
export const ServicePlanInfo = lazy(() =>
  loose({
    ...ServicePlanLink().shape,
    base_service_url: str(),
    requires_auth: bool(),
    provider_name: str(),
    last_code_generated_date: dateTime(),
    next_code_expiry_date: dateTime(),
    last_subscription_date: dateTime(),
    // The spec does not say whether created_by is a username or a {username, full_name} object.
    created_by: anything(),
  }),
);

export const ServicePlanSubscription = lazy(() =>
  loose({
    subscription_id: num(),
    user_id: num(),
    username: str(),
    full_name: str(),
    email: str(),
    status: str(),
    start_date: dateTime(),
    end_date: dateTime(),
    payment_method: str(),
    auto_renewal: bool(),
    renewal_count: num(),
    total_usage_count: num(),
    last_usage_date: dateTime(),
  }),
);

export const ServicePlanUsageCode = lazy(() =>
  loose({
    code_id: num(),
    code_value: str(),
    batch_id: str(),
    is_used: bool(),
    used_by: num(),
    used_by_username: str(),
    used_by_full_name: str(),
    used_date: dateTime(),
    expiry_date: dateTime(),
    created_date: dateTime(),
    created_by_username: str(),
  }),
);

const servicePlanListQuery = lazy(() => ({
  page_number: pageNumber(),
  page_size: pageSize(20),
  service_code: z.string().max(50).optional(),
  plan_code: z.string().max(50).optional(),
  service_type: ServiceType().optional(),
  is_available: q.bool().optional(),
  has_unused_codes: q.bool().optional(),
  sort_by: ServicePlanSortBy().default('CreatedDate'),
  sort_order: SortOrder().default('DESC'),
}));

const servicePlanListData = lazy(() => loose({ pagination: Pagination(), service_plans: listOf(ServicePlanLink()) }));

export const servicePlansList = endpoint({
  name: 'service-plans.list',
  area: 'admin',
  method: 'GET',
  path: '/admin/service-plans',
  summary: 'List service-plan links, filtered, sorted and paged',
  schemas: () => ({
    query: z.object(servicePlanListQuery()),
    response: servicePlanListData(),
  }),
  access: 'admin',
  paging: adminPaging('service_plans'),
});

export const servicePlansListAlt = endpoint({
  name: 'service-plans.list-alt',
  area: 'admin',
  method: 'GET',
  path: '/admin/service-plans/list',
  summary: 'List service-plan links (the /list variant; same query)',
  schemas: () => ({
    query: z.object(servicePlanListQuery()),
    response: servicePlanListData(),
  }),
  access: 'admin',
  paging: adminPaging('service_plans'),
});

export const servicePlansDetail = endpoint({
  name: 'service-plans.detail',
  area: 'admin',
  method: 'GET',
  path: '/admin/service-plans/{id}/detail',
  summary: 'One service-plan link with its subscriptions and usage codes',
  schemas: () => ({
    params: z.object({ id: q.int() }),
    response: loose({
      service_plan_info: ServicePlanInfo(),
      subscriptions: listOf(ServicePlanSubscription()),
      usage_codes: listOf(ServicePlanUsageCode()),
    }),
  }),
  access: 'admin',
});

export const servicePlansCreate = endpoint({
  name: 'service-plans.create',
  area: 'admin',
  method: 'POST',
  path: '/admin/service-plans',
  summary: 'Link a subscription plan to a service',
  schemas: () => ({
    body: z.object({
      service_code: z.string().max(50),
      plan_code: z.string().max(50),
      is_available: z.boolean().optional(),
    }),
    response: loose({ message: str(), service_plan_id: num() }),
  }),
  access: 'admin',
});

export const servicePlansUpdate = endpoint({
  name: 'service-plans.update',
  area: 'admin',
  method: 'PUT',
  path: '/admin/service-plans',
  summary: 'Update a service-plan link (every field optional)',
  schemas: () => ({
    body: z.object({
      service_plan_id: z.number().int().optional(),
      service_code: z.string().max(50).optional(),
      plan_code: z.string().max(50).optional(),
      new_service_id: z.number().int().optional(),
      new_plan_id: z.number().int().optional(),
      is_available: z.boolean().optional(),
    }),
    response: anything(),
  }),
  access: 'admin',
});

export const servicePlansManage = endpoint({
  name: 'service-plans.manage',
  area: 'admin',
  method: 'PUT',
  path: '/admin/service-plans/manage',
  summary: 'Activate, deactivate, update or delete a service-plan link',
  // Point 5 marks only service_plan_id optional, so service_code and plan_code are required.
  schemas: () => ({
    body: z.object({
      action: ServicePlanManageAction(),
      service_code: z.string().max(50),
      plan_code: z.string().max(50),
      service_plan_id: z.number().int().optional(),
    }),
    response: loose({ message: str() }),
  }),
  access: 'admin',
});

export const servicePlansDelete = endpoint({
  name: 'service-plans.delete',
  area: 'admin',
  method: 'DELETE',
  path: '/admin/service-plans',
  summary: 'Delete a service-plan link by service_plan_id, or by plan_id and service_id',
  schemas: () => ({
    body: z.object({
      service_plan_id: z.number().int().optional(),
      plan_id: z.number().int().optional(),
      service_id: z.number().int().optional(),
      ...deleteFlags(),
    }),
    response: anything(),
  }),
  access: 'admin',
});

export const servicePlanEndpoints = [
  servicePlansList,
  servicePlansListAlt,
  servicePlansDetail,
  servicePlansCreate,
  servicePlansUpdate,
  servicePlansManage,
  servicePlansDelete,
];
