/**
 * Services (the API documents' administrator area, "Services"): 7 endpoints under /admin/services.
 * This file is the pattern every other contract file follows.
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
import { deleteFlags, ServiceType } from './admin-common.js';

export const CreditResetCycle = lazy(() => z.enum(['daily', 'weekly', 'monthly', 'yearly']));
export const ServiceSortBy = lazy(() => z.enum(['ServiceCode', 'ServiceName', 'ServiceType', 'CreatedDate']));
/** Service report type filter (point 9): a different vocabulary from service_type. */
export const ServiceReportType = lazy(() => z.enum(['api', 'webhook', 'integration', 'external']));

export const Service = lazy(() =>
  loose({
    service_id: num(),
    service_code: str(),
    service_name: str(),
    service_type: str(),
    provider_name: str(),
    is_active: bool(),
    requires_auth: bool(),
    created_date: dateTime(),
    last_updated: dateTime(),
    last_usage_date: dateTime(),
    active_subscriptions_count: num(),
    available_plans_count: num(),
  }),
);

const Person = lazy(() => loose({ username: str(), full_name: str() }));

export const ServiceInfo = lazy(() =>
  loose({
    ...Service().shape,
    access_pattern: str(),
    base_service_url: str(),
    description: str(),
    credit_reset_cycle: str(),
    cancelled_subscriptions_count: num(),
    expired_subscriptions_count: num(),
    total_plans_count: num(),
    total_subscriptions_count: num(),
    total_usage_count: num(),
    total_codes_generated: num(),
    used_codes_count: num(),
    unused_codes_count: num(),
    created_by: Person(),
    updated_by: Person(),
  }),
);

export const ServicePlanLinkDetail = lazy(() =>
  loose({
    service_plan_id: num(),
    plan_id: num(),
    plan_code: str(),
    plan_name: str(),
    price: num(),
    currency: str(),
    duration: num(),
    duration_unit: str(),
    credit_amount: num(),
    credit_unit: str(),
    max_usage_per_day: num(),
    auto_renewal: bool(),
    is_available: bool(),
    plan_is_active: bool(),
    active_subscriptions: num(),
    total_codes: num(),
    unused_codes: num(),
    link_created_by_username: str(),
    link_created_date: dateTime(),
  }),
);

export const TopUser = lazy(() =>
  loose({
    user_id: num(),
    username: str(),
    full_name: str(),
    email: str(),
    total_subscriptions: num(),
    active_subscriptions: num(),
    total_renewals: num(),
    total_usage: num(),
    last_usage_date: dateTime(),
  }),
);

export const UsageStatistic = lazy(() =>
  loose({
    stat_date: str(),
    stat_type: str(),
    total_usage: num(),
    unique_users: num(),
    new_subscriptions: num(),
    active_subscriptions: num(),
  }),
);

const serviceListQuery = lazy(() => ({
  page_number: pageNumber(),
  page_size: pageSize(20),
  service_code: z.string().max(50).optional(),
  service_name: z.string().max(200).optional(),
  service_type: ServiceType().optional(),
  provider_name: z.string().max(100).optional(),
  is_active: q.bool().optional(),
  created_date_from: q.date().optional(),
  created_date_to: q.date().optional(),
  sort_by: ServiceSortBy().default('CreatedDate'),
  sort_order: SortOrder().default('DESC'),
}));

const serviceListData = lazy(() => loose({ pagination: Pagination(), services: listOf(Service()) }));
const adminPaging = (items: string) => ({
  page: 'page_number',
  size: 'page_size',
  items,
  info: 'pagination',
  defaultSize: 20,
  maxSize: 100,
});

export const servicesList = endpoint({
  name: 'services.list',
  area: 'admin',
  method: 'GET',
  path: '/admin/services',
  summary: 'List services, filtered, sorted and paged',
  schemas: () => ({
    query: z.object(serviceListQuery()),
    response: serviceListData(),
  }),
  access: 'admin',
  paging: adminPaging('services'),
});

export const servicesListAlt = endpoint({
  name: 'services.list-alt',
  area: 'admin',
  method: 'GET',
  path: '/admin/services/list',
  summary: 'List services (the /list variant; same query family, all optional)',
  schemas: () => ({
    query: z.object(serviceListQuery()),
    response: serviceListData(),
  }),
  access: 'admin',
  paging: adminPaging('services'),
});

export const servicesDetail = endpoint({
  name: 'services.detail',
  area: 'admin',
  method: 'GET',
  path: '/admin/services/detail',
  summary: 'One service with its plans, active subscriptions, top users and usage statistics',
  schemas: () => ({
    query: z.object({ service_id: q.int().optional(), service_code: z.string().max(50).optional() }),
    response: loose({
      service_info: ServiceInfo(),
      service_plans: listOf(ServicePlanLinkDetail()),
      active_subscriptions: anything(),
      top_users: listOf(TopUser()),
      usage_statistics: listOf(UsageStatistic()),
    }),
  }),
  access: 'admin',
});

export const servicesReport = endpoint({
  name: 'services.report',
  area: 'admin',
  method: 'GET',
  path: '/admin/services/report',
  summary: 'Service report: every service with today_usage_count',
  schemas: () => ({
    query: z.object({
      service_code: z.string().max(50).optional(),
      service_type: ServiceReportType().optional(),
      is_active: q.bool().optional(),
      include_stats: q.bool().default(false),
    }),
    response: listOf(loose({ ...Service().shape, today_usage_count: num() })),
  }),
  access: 'admin',
});

const serviceFields = lazy(() => ({
  service_name: z.string().max(200),
  service_type: ServiceType(),
  provider_name: z.string().max(100),
  base_service_url: z.string().max(500),
  access_pattern: z.string().max(200),
  credit_reset_cycle: CreditResetCycle(),
  description: z.string().max(1000).optional(),
  is_active: z.boolean().optional(),
  requires_auth: z.boolean().optional(),
}));

export const servicesCreate = endpoint({
  name: 'services.create',
  area: 'admin',
  method: 'POST',
  path: '/admin/services',
  summary: 'Create a service',
  schemas: () => ({
    body: z.object({ service_code: z.string().max(50), ...serviceFields() }),
    response: loose({ message: str(), service_id: num() }),
  }),
  access: 'admin',
});

export const servicesUpdate = endpoint({
  name: 'services.update',
  area: 'admin',
  method: 'PUT',
  path: '/admin/services/{id}',
  summary: 'Update a service (every field optional; service_code cannot change)',
  schemas: () => ({
    params: z.object({ id: q.int() }),
    body: z.object({
      service_name: serviceFields().service_name.optional(),
      service_type: serviceFields().service_type.optional(),
      provider_name: serviceFields().provider_name.optional(),
      base_service_url: serviceFields().base_service_url.optional(),
      access_pattern: serviceFields().access_pattern.optional(),
      credit_reset_cycle: serviceFields().credit_reset_cycle.optional(),
      description: serviceFields().description,
      is_active: serviceFields().is_active,
      requires_auth: serviceFields().requires_auth,
    }),
    response: anything(),
  }),
  access: 'admin',
});

export const servicesDelete = endpoint({
  name: 'services.delete',
  area: 'admin',
  method: 'DELETE',
  path: '/admin/services',
  summary: 'Delete a service by service_code or service_id',
  schemas: () => ({
    body: z.object({
      service_id: z.number().int().optional(),
      service_code: z.string().max(50).optional(),
      ...deleteFlags(),
    }),
    response: loose({ message: str(), affected_records: num() }),
  }),
  access: 'admin',
});

export const serviceEndpoints = [
  servicesList,
  servicesListAlt,
  servicesDetail,
  servicesReport,
  servicesCreate,
  servicesUpdate,
  servicesDelete,
];
