/**
 * Every command group, in the order `subctl --help` lists them.
 */
import type { Group } from './types.js';
import { servicesGroup } from './services/index.js';
import { apiGroup } from './api/index.js';
import { configGroup } from './config/index.js';
import { authGroup } from './auth/index.js';
import { sandboxGroup } from './sandbox/index.js';
import {
  auditGroup,
  cleanupGroup,
  dashboardGroup,
  plansGroup,
  servicePlansGroup,
  subscriptionsGroup,
  usageCodesGroup,
  walletGroup,
} from './admin/index.js';

export const groups: Group[] = [
  authGroup,
  servicesGroup,
  servicePlansGroup,
  plansGroup,
  subscriptionsGroup,
  usageCodesGroup,
  walletGroup,
  dashboardGroup,
  auditGroup,
  cleanupGroup,
  apiGroup,
  configGroup,
  sandboxGroup,
];
