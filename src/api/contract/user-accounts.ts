/**
 * Accounts (spec/user-auth-cms-area.md, point 7 "Users" and "CMS profile, devices, roles"):
 * user accounts, the superadmin user list, the CMS profile, devices, roles and role
 * assignments. 21 endpoints.
 */
import { z } from './z.js';
import {
  anything,
  bool,
  date,
  dateTime,
  endpoint,
  lazy,
  listOf,
  loose,
  num,
  pageNumber,
  pageSize,
  q,
  SortOrder,
  str,
  stringList,
} from './common.js';

/** Account status (point 3, User). */
export const UserStatus = lazy(() => z.enum(['Active', 'Inactive', 'Banned', 'Pending']));
/** List filters: the account statuses plus Suspended, which one list filter names (point 3). */
export const UserStatusFilter = lazy(() => z.enum(['Active', 'Inactive', 'Banned', 'Pending', 'Suspended']));
export const Gender = lazy(() => z.enum(['Male', 'Female', 'Other']));
export const SuperadminUserSortBy = lazy(() => z.enum(['created_date', 'last_login_date', 'username', 'email', 'status']));

/** A required text value: present and not empty. */
const required = () => z.string().min(1);

// ---------------------------------------------------------------------------------------------
// Responses

export const UserDetail = lazy(() =>
  loose({
    chatgpt_user_id: str(),
    created_by_username: str(),
    created_date: dateTime(),
    email: str(),
    full_name: str(),
    last_login_date: dateTime(),
    permissions: listOf(str()),
    role: str(),
    status: str(),
    user_id: num(),
    username: str(),
  }),
);

export const UserCreated = lazy(() =>
  loose({ email: str(), full_name: str(), role: str(), status: str(), user_id: num(), username: str() }),
);

export const AdminUserInfo = lazy(() =>
  loose({
    active_role_count: num(),
    activity_status: str(),
    created_by_full_name: str(),
    created_by_username: str(),
    created_date: dateTime(),
    days_since_created: num(),
    days_since_last_login: num(),
    email: str(),
    full_name: str(),
    last_login_date: dateTime(),
    referral_count: num(),
    role_names: anything(),
    status: str(),
    times_referred: num(),
    user_id: num(),
    username: str(),
  }),
);

export const AdminUserStatistics = lazy(() =>
  loose({
    active_users: num(),
    banned_users: num(),
    first_user_created: dateTime(),
    inactive_users: num(),
    last_user_created: dateTime(),
    logged_in_this_month: num(),
    logged_in_this_week: num(),
    logged_in_today: num(),
    never_logged_in: num(),
    pending_users: num(),
    total_users: num(),
    unique_creators: num(),
  }),
);

export const Device = lazy(() =>
  loose({
    created_date: dateTime(),
    device_id: z.union([str(), num()]),
    device_name: str(),
    device_token: str(),
    device_type: str(),
    ip_address: str(),
    is_active: bool(),
    is_current_device: bool(),
    is_currently_logged_in: bool(),
    last_activity_time: dateTime(),
    last_login_date: dateTime(),
    login_time: dateTime(),
    logout_time: dateTime(),
    session_id: str(),
    user_agent: str(),
  }),
);

export const Role = lazy(() =>
  loose({
    created_by_user: anything(),
    created_date: dateTime(),
    description: str(),
    display_name: str(),
    is_active: bool(),
    is_system_role: bool(),
    modified_by_user: anything(),
    modified_date: dateTime(),
    permission_count: num(),
    priority: num(),
    role_id: num(),
    role_name: str(),
    user_count: num(),
  }),
);

export const ProfileBasicInfo = lazy(() =>
  loose({
    chatgpt_user_id: str(),
    created_by_username: str(),
    created_date: dateTime(),
    email: str(),
    full_name: str(),
    last_login_date: dateTime(),
    role: str(),
    status: str(),
    user_id: num(),
    username: str(),
  }),
);
export const LoginHistoryEntry = lazy(() =>
  loose({ ip_address: str(), login_id: num(), login_status: str(), login_time: dateTime(), user_agent: str() }),
);
export const GrantedPermission = lazy(() => loose({ granted_by_username: str(), granted_date: dateTime(), permission_name: str() }));
export const ProfileReferralInfo = lazy(() =>
  loose({
    expiry_date: dateTime(),
    is_active: bool(),
    referral_code: str(),
    referral_date: dateTime(),
    referral_id: num(),
    referrer_email: str(),
    referrer_username: str(),
    usage_limit: num(),
    used_count: num(),
  }),
);

export const UserInRole = lazy(() =>
  loose({
    assigned_at: dateTime(),
    assigned_by: anything(),
    created_at: dateTime(),
    email: str(),
    full_name: str(),
    is_active: bool(),
    last_login: dateTime(),
    user_id: num(),
    username: str(),
  }),
);
export const UserWithRole = lazy(() => loose({ ...UserInRole().shape, permissions: listOf(str()), role: str(), role_level: num() }));
export const RoleSummary = lazy(() =>
  loose({
    admins: num(),
    agents: num(),
    managers: num(),
    super_admins: num(),
    support: num(),
    total_users: num(),
    unassigned_role: num(),
    users: num(),
  }),
);
export const UserRoleDetail = lazy(() =>
  loose({
    all_available_roles: listOf(loose({ description: str(), is_assigned: bool(), role_level: num(), role_name: str() })),
    current_roles: anything(),
    email: str(),
    full_name: str(),
    permissions: listOf(str()),
    primary_role: str(),
    role_level: num(),
    user_id: num(),
    username: str(),
  }),
);

// ---------------------------------------------------------------------------------------------
// Users

const userId = lazy(() => z.object({ id: q.int() }));

export const usersCreate = endpoint({
  name: 'users.create',
  area: 'user',
  method: 'POST',
  path: '/users',
  summary: 'Create a user account',
  schemas: () => ({
    body: z.object({
      email: required(),
      password: required(),
      role: required(),
      username: required(),
      chatgpt_user_id: z.string().optional(),
      full_name: z.string().optional(),
    }),
    response: UserCreated(),
  }),
  access: 'admin',
  successStatus: 201,
});

export const usersList = endpoint({
  name: 'users.list',
  area: 'user',
  method: 'GET',
  path: '/users',
  summary: 'List user accounts, filtered by role and status, paged',
  schemas: () => ({
    query: z.object({
      page: pageNumber(),
      page_size: pageSize(10),
      role: z.string().optional(),
      status: UserStatusFilter().optional(),
    }),
    response: loose({ current_page: num(), page_size: num(), total_count: num(), total_pages: num(), users: listOf(UserDetail()) }),
  }),
  access: 'admin',
  paging: { page: 'page', size: 'page_size', items: 'users', info: '', defaultSize: 10, maxSize: 100 },
});

export const usersGet = endpoint({
  name: 'users.get',
  area: 'user',
  method: 'GET',
  path: '/users/{id}',
  summary: 'One user account with its permissions',
  // The key holding the detail is not shown: accept it nested under `user` or flat.
  schemas: () => ({
    params: userId(),
    response: loose({ ...UserDetail().shape, user: UserDetail() }),
  }),
  access: 'admin',
});

export const usersUpdate = endpoint({
  name: 'users.update',
  area: 'user',
  method: 'PUT',
  path: '/users/{id}',
  summary: 'Update a user account',
  schemas: () => ({
    params: userId(),
    body: z.object({
      /** Required by the API in the body as well; the CLI fills it from the path id. */
      user_id: z.number().int(),
      chatgpt_user_id: z.string().optional(),
      email: z.string().optional(),
      full_name: z.string().optional(),
      role: z.string().optional(),
      status: UserStatus().optional(),
      username: z.string().optional(),
    }),
    response: anything(),
  }),
  access: 'admin',
});

export const usersDelete = endpoint({
  name: 'users.delete',
  area: 'user',
  method: 'DELETE',
  path: '/users/{id}',
  summary: 'Delete a user account',
  schemas: () => ({
    params: userId(),
    response: loose({ message: str(), success: bool(), user_id: num(), username: str() }),
  }),
  access: 'admin',
});

export const usersSearch = endpoint({
  name: 'users.search',
  area: 'user',
  method: 'GET',
  path: '/cms/superadmin/users',
  summary: 'Superadmin: every user with activity, referrals and statistics; filtered, sorted, paged',
  schemas: () => ({
    query: z.object({
      page_number: pageNumber(),
      page_size: pageSize(20),
      status: UserStatusFilter().optional(),
      search_keyword: z.string().optional(),
      role: z.string().optional(),
      created_date_from: q.date().optional(),
      created_date_to: q.date().optional(),
      created_by: q.int().optional(),
      last_login_days: q.int({ min: 0 }).optional(),
      has_referrals: q.bool().optional(),
      sort_by: SuperadminUserSortBy().default('created_date'),
      sort_order: SortOrder().default('DESC'),
    }),
    response: loose({
      users: listOf(AdminUserInfo()),
      statistics: AdminUserStatistics(),
      page_info: loose({ page_number: num(), page_size: num(), total_count: num(), total_pages: num() }),
    }),
  }),
  access: 'superadmin',
  paging: { page: 'page_number', size: 'page_size', items: 'users', info: 'page_info', defaultSize: 20, maxSize: 100 },
});

// ---------------------------------------------------------------------------------------------
// Profile and devices

export const profileGet = endpoint({
  name: 'profile.get',
  area: 'user',
  method: 'GET',
  path: '/cms/users/profile',
  summary: "The caller's profile: basic info, login history, permissions, referral info",
  schemas: () => ({
    response: loose({
      basic_info: ProfileBasicInfo(),
      login_history: listOf(LoginHistoryEntry()),
      permissions: listOf(GrantedPermission()),
      // One referral record or several: the specification does not say.
      referral_info: z.union([ProfileReferralInfo(), listOf(ProfileReferralInfo())]),
    }),
  }),
  access: 'user',
});

export const profileUpdate = endpoint({
  name: 'profile.update',
  area: 'user',
  method: 'PUT',
  path: '/cms/users/profile',
  summary: "Update the caller's profile",
  schemas: () => ({
    body: z.object({
      full_name: z.string().min(1).max(100),
      address: z.string().max(255).optional(),
      city: z.string().max(100).optional(),
      country: z.string().max(100).optional(),
      postal_code: z.string().max(20).optional(),
      profile_picture_url: z.string().max(500).optional(),
      phone_number: z.string().min(10).max(20).optional(),
      gender: Gender().optional(),
      date_of_birth: date().optional(),
    }),
    response: anything(),
  }),
  access: 'user',
});

export const devicesList = endpoint({
  name: 'devices.list',
  area: 'user',
  method: 'GET',
  path: '/cms/users/devices',
  summary: "The caller's devices and sessions",
  schemas: () => ({
    query: z.object({ include_inactive: q.bool().optional() }),
    response: loose({ devices: listOf(Device()), device_count: num() }),
  }),
  access: 'user',
});

export const devicesRemove = endpoint({
  name: 'devices.remove',
  area: 'user',
  method: 'DELETE',
  path: '/cms/users/devices/{id}',
  summary: "Remove one of the caller's devices (ends its session)",
  // Device ids travel as text (the X-Device-ID header), so the path id is not forced to a number.
  schemas: () => ({
    params: z.object({ id: z.string().min(1) }),
    response: anything(),
  }),
  access: 'user',
});

// ---------------------------------------------------------------------------------------------
// Roles

const roleId = lazy(() => z.object({ role_id: q.int() }));
const cmsUserId = lazy(() => z.object({ user_id: q.int() }));
const roleFields = lazy(() => ({
  role_name: z.string().min(2).max(50),
  display_name: z.string().min(2).max(100),
  description: z.string().optional(),
  priority: z.number().int().optional(),
}));
/** Reason and notes travel with every role change (point 6). */
const roleChangeNote = lazy(() => ({ reason: z.string().optional(), notes: z.string().optional() }));

export const rolesList = endpoint({
  name: 'roles.list',
  area: 'user',
  method: 'GET',
  path: '/cms/roles',
  summary: 'List roles with their user and permission counts',
  schemas: () => ({
    query: z.object({ page: pageNumber(), page_size: pageSize(20) }),
    response: loose({ current_page: num(), page_size: num(), roles: listOf(Role()), total_pages: num(), total_rows: num() }),
  }),
  access: 'staff',
  paging: { page: 'page', size: 'page_size', items: 'roles', info: '', defaultSize: 20, maxSize: 100 },
});

export const rolesCreate = endpoint({
  name: 'roles.create',
  area: 'user',
  method: 'POST',
  path: '/cms/roles',
  summary: 'Create a role',
  schemas: () => ({
    body: z.object(roleFields()),
    response: anything(),
  }),
  access: 'admin',
});

export const rolesUpdate = endpoint({
  name: 'roles.update',
  area: 'user',
  method: 'PUT',
  path: '/cms/roles/{role_id}',
  summary: 'Update a role (every field optional)',
  schemas: () => ({
    params: roleId(),
    body: z.object({
      role_name: roleFields().role_name.optional(),
      display_name: roleFields().display_name.optional(),
      description: roleFields().description,
      priority: roleFields().priority,
      is_active: z.boolean().optional(),
    }),
    response: anything(),
  }),
  access: 'admin',
});

export const rolesDelete = endpoint({
  name: 'roles.delete',
  area: 'user',
  method: 'DELETE',
  path: '/cms/roles/{role_id}',
  summary: 'Delete a role (409 when it cannot go)',
  schemas: () => ({
    params: roleId(),
    response: anything(),
  }),
  access: 'admin',
});

export const rolesMembers = endpoint({
  name: 'roles.members',
  area: 'user',
  method: 'GET',
  path: '/cms/roles/{role}/users',
  summary: 'The users holding a role, paged',
  schemas: () => ({
    params: z.object({ role: z.string().min(1) }),
    query: z.object({ page: pageNumber(), limit: pageSize(20) }),
    response: loose({ limit: num(), page: num(), role: str(), total_count: num(), total_pages: num(), users: listOf(UserInRole()) }),
  }),
  access: 'staff',
  paging: { page: 'page', size: 'limit', items: 'users', info: '', defaultSize: 20, maxSize: 100 },
});

export const rolesAssignments = endpoint({
  name: 'roles.assignments',
  area: 'user',
  method: 'GET',
  path: '/cms/users/roles',
  summary: 'Users with their roles and a count per role, searched and paged',
  schemas: () => ({
    query: z.object({
      page: pageNumber(),
      limit: pageSize(20),
      search: z.string().optional(),
      role_filter: z.string().optional(),
    }),
    response: loose({
      users: listOf(UserWithRole()),
      summary: RoleSummary(),
      limit: num(),
      page: num(),
      total_count: num(),
      total_pages: num(),
    }),
  }),
  access: 'staff',
  paging: { page: 'page', size: 'limit', items: 'users', info: '', defaultSize: 20, maxSize: 100 },
});

export const rolesOf = endpoint({
  name: 'roles.of',
  area: 'user',
  method: 'GET',
  path: '/cms/users/{user_id}/role',
  summary: "One user's roles, level, permissions and the roles available",
  schemas: () => ({
    params: cmsUserId(),
    response: UserRoleDetail(),
  }),
  access: 'staff',
});

export const rolesAssign = endpoint({
  name: 'roles.assign',
  area: 'user',
  method: 'POST',
  path: '/cms/users/{user_id}/assign-role',
  summary: 'Give a user one or several roles (new_roles; new_role is the legacy single form)',
  schemas: () => ({
    params: cmsUserId(),
    body: z
      .object({
        new_roles: stringList(z.string().min(1)).optional(),
        new_role: z.string().min(1).optional(),
        ...roleChangeNote(),
      })
      .refine((b) => (b.new_roles?.length ?? 0) > 0 || b.new_role !== undefined, {
        message: 'give new_roles (or the legacy new_role)',
        path: ['new_roles'],
      }),
    response: anything(),
  }),
  access: 'admin',
});

export const rolesPromote = endpoint({
  name: 'roles.promote',
  area: 'user',
  method: 'POST',
  path: '/cms/users/{user_id}/promote',
  summary: 'Promote a user to the next role (or to new_role)',
  schemas: () => ({
    params: cmsUserId(),
    body: z.object({ new_role: z.string().min(1).optional(), ...roleChangeNote() }),
    response: anything(),
  }),
  access: 'admin',
});

export const rolesDemote = endpoint({
  name: 'roles.demote',
  area: 'user',
  method: 'POST',
  path: '/cms/users/{user_id}/demote',
  summary: 'Demote a user to the previous role (or to new_role)',
  schemas: () => ({
    params: cmsUserId(),
    body: z.object({ new_role: z.string().min(1).optional(), ...roleChangeNote() }),
    response: anything(),
  }),
  access: 'admin',
});

export const rolesRemove = endpoint({
  name: 'roles.remove',
  area: 'user',
  method: 'POST',
  path: '/cms/users/{user_id}/remove-role',
  summary: "Remove a user's role (back to user)",
  schemas: () => ({
    params: cmsUserId(),
    body: z.object(roleChangeNote()),
    response: anything(),
  }),
  access: 'admin',
});

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
