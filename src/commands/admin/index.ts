/**
 * The administrator area's groups (spec/admin-area.md): service-plans, plans, subscriptions,
 * usage-codes, wallet, dashboard, audit, cleanup, one file each (so that a command loads only
 * its own group's contract), and what they share (common.ts). Commands are declared from the
 * contract; the few with behaviour of their own live in files beside these.
 */
export { auditGroup } from './audit.js';
export { cleanupGroup } from './cleanup.js';
export { AUDIT_COLUMNS, CODE_COLUMNS, PLAN_COLUMNS, SERVICE_PLAN_COLUMNS, SUBSCRIPTION_COLUMNS, WALLET_COLUMNS } from './common.js';
export { dashboardGroup } from './dashboard.js';
export { plansGroup } from './plans.js';
export { servicePlansGroup } from './service-plans.js';
export { subscriptionsGroup } from './subscriptions.js';
export { usageCodesGroup } from './usage-codes.js';
export { walletGroup } from './wallet.js';
