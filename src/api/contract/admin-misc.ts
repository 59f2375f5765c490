/**
 * Usage codes, wallet, audit, dashboard (the API documents' administrator area, "Usage codes, wallet,
 * audit, dashboard"): 6 endpoints. Follows the pattern of admin-services.ts.
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
import { adminPaging, PaymentMethod } from './admin-common.js';

export const UsageCodeSortBy = lazy(() => z.enum(['CodeValue', 'BatchID', 'ServiceCode', 'UsedDate', 'CreatedDate']));
export const TransactionType = lazy(() => z.enum(['topup', 'deduct', 'refund', 'auto_renewal']));
export const WalletSortBy = lazy(() => z.enum(['Username', 'TransactionType', 'Amount', 'TransactionDate']));

export const UsageCode = lazy(() =>
  loose({
    batch_id: str(),
    code_id: num(),
    code_value: str(),
    created_date: dateTime(),
    credit_amount: num(),
    expiry_date: dateTime(),
    is_expired: bool(),
    is_used: bool(),
    plan_code: str(),
    service_code: str(),
    used_by: num(),
    used_by_username: str(),
    used_date: dateTime(),
    used_in_subscription: num(),
  }),
);

export const UsageCodesSummary = lazy(() =>
  loose({
    active_codes: num(),
    average_usage_time: anything(),
    expired_codes: num(),
    top_plan_code: str(),
    top_service_code: str(),
    total_codes: num(),
    total_revenue: num(),
    usage_rate: num(),
    used_codes: num(),
  }),
);

export const WalletTransaction = lazy(() =>
  loose({
    amount: num(),
    balance_after: num(),
    balance_before: num(),
    created_date: dateTime(),
    currency: str(),
    description: str(),
    email: str(),
    payment_method: str(),
    related_subscription_id: num(),
    status: str(),
    transaction_date: dateTime(),
    transaction_id: num(),
    transaction_reference: str(),
    transaction_type: str(),
    user_id: num(),
    username: str(),
  }),
);

export const WalletSummary = lazy(() =>
  loose({
    average_transaction_amount: num(),
    date_range_analyzed: anything(),
    net_amount: num(),
    top_payment_method: str(),
    top_transaction_type: str(),
    total_auto_renewal_amount: num(),
    total_deduct_amount: num(),
    total_refund_amount: num(),
    total_topup_amount: num(),
    transaction_count: num(),
  }),
);

export const AuditLog = lazy(() =>
  loose({
    action: str(),
    created_at: dateTime(),
    details: anything(),
    id: num(),
    ip_address: str(),
    module: str(),
    user_agent: str(),
    user_id: num(),
    username: str(),
  }),
);

export const AuditPage = lazy(() =>
  loose({ logs: listOf(AuditLog()), page: num(), page_size: num(), total_items: num(), total_pages: num() }),
);

export const usageCodesList = endpoint({
  name: 'usage-codes.list',
  area: 'admin',
  method: 'GET',
  path: '/admin/usage-codes/list',
  summary: 'List usage codes, filtered, sorted and paged, with a summary',
  schemas: () => ({
    query: z.object({
      page_number: pageNumber(),
      page_size: pageSize(20),
      batch_id: z.string().max(50).optional(),
      service_code: z.string().max(50).optional(),
      plan_code: z.string().max(50).optional(),
      code_value: z.string().optional(),
      is_used: q.bool().optional(),
      is_expired: q.bool().optional(),
      created_date_from: q.date().optional(),
      created_date_to: q.date().optional(),
      used_date_from: q.date().optional(),
      used_date_to: q.date().optional(),
      sort_by: UsageCodeSortBy().default('CreatedDate'),
      sort_order: SortOrder().default('DESC'),
      include_summary: q.bool().default(true),
    }),
    response: loose({ pagination: Pagination(), summary: UsageCodesSummary(), usage_codes: listOf(UsageCode()) }),
  }),
  access: 'admin',
  paging: adminPaging('usage_codes'),
});

export const usageCodesGenerate = endpoint({
  name: 'usage-codes.generate',
  area: 'admin',
  method: 'POST',
  path: '/admin/usage-codes/generate',
  summary: 'Generate a batch of usage codes for a service-plan link',
  // The spec does not show this answer; this shape is the sandbox's decision.
  schemas: () => ({
    body: z.object({
      batch_id: z.string().min(3).max(50),
      code_count: z.number().int().min(1).max(1000),
      code_prefix: z.string().max(20).optional(),
      expiration_days: z.number().int().min(1).max(365),
      service_plan_id: z.number().int(),
    }),
    response: loose({
      batch_id: str(),
      generated_count: num(),
      expiry_date: str(),
      codes: listOf(loose({ code_id: num(), code_value: str(), expiry_date: str() })),
    }),
  }),
  access: 'admin',
});

export const walletList = endpoint({
  name: 'wallet.list',
  area: 'admin',
  method: 'GET',
  path: '/admin/wallet-transactions/list',
  summary: 'List wallet transactions, filtered, sorted and paged, with a summary',
  // "transactions and summary (exact shape not shown)": the admin-list shape is the sandbox's decision.
  schemas: () => ({
    query: z.object({
      page_number: pageNumber(),
      page_size: pageSize(20),
      user_id: q.int().optional(),
      username: z.string().optional(),
      transaction_type: TransactionType().optional(),
      payment_method: PaymentMethod().optional(),
      amount_from: q.num().optional(),
      amount_to: q.num().optional(),
      date_from: q.date().optional(),
      date_to: q.date().optional(),
      sort_by: WalletSortBy().default('TransactionDate'),
      sort_order: SortOrder().default('DESC'),
    }),
    response: loose({ pagination: Pagination(), transactions: listOf(WalletTransaction()), summary: WalletSummary() }),
  }),
  access: 'admin',
  paging: adminPaging('transactions'),
});

export const dashboardGet = endpoint({
  name: 'dashboard.get',
  area: 'admin',
  method: 'GET',
  path: '/admin/dashboard',
  summary: 'Show the administrator dashboard',
  // The dashboard's fields are not shown (point 3).
  schemas: () => ({
    response: anything(),
  }),
  access: 'admin',
});

const auditQuery = lazy(() => ({
  action: z.string().optional(),
  module: z.string().optional(),
  start_date: q.date().optional(),
  end_date: q.date().optional(),
  page: q.int({ min: 1 }).default(1),
  page_size: pageSize(20),
}));
const auditPaging = { page: 'page', size: 'page_size', items: 'logs', info: '', defaultSize: 20, maxSize: 100 };

export const auditList = endpoint({
  name: 'audit.list',
  area: 'admin',
  method: 'GET',
  path: '/audit',
  summary: 'List audit log entries, filtered and paged',
  schemas: () => ({
    query: z.object({ user_id: q.int().optional(), ...auditQuery() }),
    response: AuditPage(),
  }),
  access: 'admin',
  paging: auditPaging,
});

export const auditUser = endpoint({
  name: 'audit.user',
  area: 'admin',
  method: 'GET',
  path: '/audit/users/{id}',
  summary: "List one user's audit log entries, filtered and paged",
  // "id plus the same query": user_id is left out, the path id already names the user.
  schemas: () => ({
    params: z.object({ id: q.int() }),
    query: z.object(auditQuery()),
    response: AuditPage(),
  }),
  access: 'admin',
  paging: auditPaging,
});

export const adminMiscEndpoints = [usageCodesList, usageCodesGenerate, walletList, dashboardGet, auditList, auditUser];
