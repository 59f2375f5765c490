/**
 * User accounts (point 7 "Users" of the user, auth and CMS area): create, list, show, update,
 * delete, and the superadmin search. Part of the contract file user-accounts.ts.
 */
import { z } from './z.js';
import { anything, bool, dateTime, endpoint, lazy, listOf, loose, num, pageNumber, pageSize, q, SortOrder, str } from './common.js';

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
