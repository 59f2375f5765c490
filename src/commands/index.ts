/**
 * Every command group, in the order `subctl --help` lists them.
 */
import type { Group } from './types.js';
import { servicesGroup } from './services/index.js';
import { apiGroup } from './api/index.js';
import { configGroup } from './config/index.js';
import { authGroup } from './auth/index.js';
import { sandboxGroup } from './sandbox/index.js';
import { usersGroup } from './users/index.js';
import { rolesGroup } from './roles/index.js';
import { referralsGroup } from './referrals/index.js';
import { devicesGroup, profileGroup } from './profile/index.js';
import { meGroup } from './me/index.js';
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
  usersGroup,
  rolesGroup,
  referralsGroup,
  profileGroup,
  devicesGroup,
  meGroup,
  apiGroup,
  configGroup,
  sandboxGroup,
];
