/**
 * The default columns of the administrator lists (shared by the commands and the console). No
 * contract here: each group's file loads only its own endpoints, so a command builds only the
 * schemas it needs.
 */
export const SERVICE_PLAN_COLUMNS = ['service_plan_id', 'service_code', 'plan_code', 'is_available', 'unused_codes_count', 'active_subscriptions_count'];
export const PLAN_COLUMNS = ['plan_id', 'plan_code', 'plan_name', 'price', 'currency', 'duration', 'duration_unit', 'is_active'];
export const SUBSCRIPTION_COLUMNS = ['subscription_id', 'username', 'service_code', 'plan_code', 'status', 'end_date', 'remaining_credits'];
export const CODE_COLUMNS = ['code_id', 'code_value', 'batch_id', 'plan_code', 'is_used', 'is_expired', 'expiry_date'];
export const WALLET_COLUMNS = ['transaction_id', 'username', 'transaction_type', 'amount', 'currency', 'status', 'transaction_date'];
export const AUDIT_COLUMNS = ['id', 'created_at', 'username', 'module', 'action', 'details'];
