/**
 * Handlers of the administrator area (the API documents' administrator area), keyed by the contract endpoint's
 * name. Decisions the specification leaves open: src/sandbox/README-decisions.md.
 */
import type { HandlerTable } from '../types.js';
import { miscHandlers } from './admin-misc.js';
import { planHandlers } from './admin-plans.js';
import { servicePlanHandlers } from './admin-service-plans.js';
import { serviceHandlers } from './admin-services.js';
import { subscriptionHandlers } from './admin-subscriptions.js';

export const adminHandlers: HandlerTable = {
  ...serviceHandlers,
  ...servicePlanHandlers,
  ...planHandlers,
  ...subscriptionHandlers,
  ...miscHandlers,
};
