/**
 * The default columns of the administrator lists, shared by the commands and the console (which
 * never imports src/commands/). No contract here: a command loads only its own endpoints.
 */
export const SERVICE_COLUMNS = ['service_id', 'service_code', 'service_name', 'service_type', 'is_active', 'active_subscriptions_count'];
export const SERVICE_PLAN_COLUMNS = [
  'service_plan_id',
  'service_code',
  'plan_code',
  'is_available',
  'unused_codes_count',
  'active_subscriptions_count',
];
/** A plan's terms: what it is called, what it costs, for how long (the plans list and a service's plans). */
export const PLAN_TERMS = ['plan_code', 'plan_name', 'price', 'currency', 'duration', 'duration_unit'];
export const PLAN_COLUMNS = ['plan_id', ...PLAN_TERMS, 'is_active'];
export const SUBSCRIPTION_COLUMNS = ['subscription_id', 'username', 'service_code', 'plan_code', 'status', 'end_date', 'remaining_credits'];
export const CODE_COLUMNS = ['code_id', 'code_value', 'batch_id', 'plan_code', 'is_used', 'is_expired', 'expiry_date'];
export const WALLET_COLUMNS = ['transaction_id', 'username', 'transaction_type', 'amount', 'currency', 'status', 'transaction_date'];
export { AUDIT_COLUMNS } from './audit.js';
export const USER_COLUMNS = ['user_id', 'username', 'email', 'full_name', 'role', 'status', 'last_login_date'];
export const USER_SEARCH_COLUMNS = [
  'user_id',
  'username',
  'email',
  'full_name',
  'role_names',
  'status',
  'activity_status',
  'last_login_date',
  'referral_count',
];
export const ROLE_COLUMNS = [
  'role_id',
  'role_name',
  'display_name',
  'priority',
  'is_system_role',
  'is_active',
  'user_count',
  'permission_count',
];
export const ROLE_MEMBER_COLUMNS = ['user_id', 'username', 'email', 'full_name', 'is_active', 'assigned_at', 'assigned_by'];
export const ROLE_ASSIGNMENT_COLUMNS = ['user_id', 'username', 'email', 'full_name', 'role', 'role_level', 'is_active', 'last_login'];
