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
