/**
 * Accounts (the user, auth and CMS area of the API, point 7 "Users" and "CMS profile, devices,
 * roles"): user accounts, the superadmin user list, the CMS profile, devices, roles and role
 * assignments. 21 endpoints, declared by sub-area in user-accounts-users.ts,
 * user-accounts-profile.ts and user-accounts-roles.ts; this file is the area the contract index
 * and routes.ts name.
 */
import * as users from './user-accounts-users.js';
import * as profile from './user-accounts-profile.js';
import * as roles from './user-accounts-roles.js';

export * from './user-accounts-users.js';
export * from './user-accounts-profile.js';
export * from './user-accounts-roles.js';

export const accountEndpoints = [
  users.usersCreate,
  users.usersList,
  users.usersGet,
  users.usersUpdate,
  users.usersDelete,
  users.usersSearch,
  profile.profileGet,
  profile.profileUpdate,
  profile.devicesList,
  profile.devicesRemove,
  roles.rolesList,
  roles.rolesCreate,
  roles.rolesUpdate,
  roles.rolesDelete,
  roles.rolesMembers,
  roles.rolesAssignments,
  roles.rolesOf,
  roles.rolesAssign,
  roles.rolesPromote,
  roles.rolesDemote,
  roles.rolesRemove,
];
