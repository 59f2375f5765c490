/**
 * Handlers of the user / auth / CMS area (the API documents' user, auth and CMS area), keyed by the contract
 * endpoint's name. Decisions the specification leaves open: src/sandbox/README-decisions-user.md.
 */
import type { HandlerTable } from '../types.js';
import { accountHandlers } from './user-accounts.js';
import { authHandlers } from './user-auth.js';
import { endUserHandlers } from './user-enduser.js';
import { referralHandlers } from './user-referrals.js';
import { roleHandlers } from './user-roles.js';

export const userHandlers: HandlerTable = {
  ...authHandlers,
  ...accountHandlers,
  ...roleHandlers,
  ...referralHandlers,
  ...endUserHandlers,
};
