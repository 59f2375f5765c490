/**
 * Accounts (spec/user-auth-cms-area.md, point 7 "Users" and "CMS profile, devices, roles"):
 * user accounts, the superadmin user list, the CMS profile, devices, roles and role
 * assignments. 21 endpoints. The endpoints are declared by sub-area in user-accounts-users.ts,
 * user-accounts-profile.ts and user-accounts-roles.ts; this file is the area the contract index
 * and routes.ts name.
 */
import { usersCreate, usersList, usersGet, usersUpdate, usersDelete, usersSearch } from './user-accounts-users.js';
import { profileGet, profileUpdate, devicesList, devicesRemove } from './user-accounts-profile.js';
import {
  rolesList,
  rolesCreate,
  rolesUpdate,
  rolesDelete,
  rolesMembers,
  rolesAssignments,
  rolesOf,
  rolesAssign,
  rolesPromote,
  rolesDemote,
  rolesRemove,
} from './user-accounts-roles.js';

export { usersCreate, usersList, usersGet, usersUpdate, usersDelete, usersSearch } from './user-accounts-users.js';
export { profileGet, profileUpdate, devicesList, devicesRemove } from './user-accounts-profile.js';
export {
  rolesList,
  rolesCreate,
  rolesUpdate,
  rolesDelete,
  rolesMembers,
  rolesAssignments,
  rolesOf,
  rolesAssign,
  rolesPromote,
  rolesDemote,
  rolesRemove,
} from './user-accounts-roles.js';

export const accountEndpoints = [
  usersCreate,
  usersList,
  usersGet,
  usersUpdate,
  usersDelete,
  usersSearch,
  profileGet,
  profileUpdate,
  devicesList,
  devicesRemove,
  rolesList,
  rolesCreate,
  rolesUpdate,
  rolesDelete,
  rolesMembers,
  rolesAssignments,
  rolesOf,
  rolesAssign,
  rolesPromote,
  rolesDemote,
  rolesRemove,
];
