/**
 * Roles and role assignments (point 7 "CMS profile, devices, roles" of the user, auth and CMS
 * area). Part of the contract file user-accounts.ts.
 */
import { z } from './z.js';
import { anything, bool, dateTime, endpoint, lazy, listOf, loose, num, pageNumber, pageSize, q, str, stringList } from './common.js';

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
