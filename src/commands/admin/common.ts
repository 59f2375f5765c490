/**
 * The default columns of the administrator lists: src/resources/columns.ts (shared by the
 * commands and the console), named here for the commands.
 */
export { CODE_COLUMNS, PLAN_COLUMNS, SERVICE_PLAN_COLUMNS, SUBSCRIPTION_COLUMNS, WALLET_COLUMNS } from '../../resources/columns.js';
