/**
 * Referrals (the API documents' user, auth and CMS area, "Referrals"): generating, using, validating,
 * updating and deactivating referral codes, the caller's codes and statistics, and the staff
 * and admin views. 15 endpoints.
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
  Pagination,
  q,
  SortOrder,
  str,
} from './common.js';

export const ReferralStatusFilter = lazy(() => z.enum(['active', 'inactive', 'expired']));
export const ReferralSortBy = lazy(() => z.enum(['ReferralDate', 'Username', 'ReferralCode']));

/** error_code's type is not shown: accept text or a number. */
const errorCode = lazy(() => z.union([z.string(), z.number()]));

/** Referral codes are 3-50 characters (point 5). */
const referralCode = () => z.string().min(3).max(50);

// ---------------------------------------------------------------------------------------------
// Responses

export const ReferralGeneration = lazy(() =>
  loose({
    description: str(),
    error_code: errorCode(),
    expiry_date: dateTime(),
    message: str(),
    referral_code: str(),
    referral_id: num(),
    success: bool(),
    usage_limit: num(),
  }),
);

export const ReferralValidation = lazy(() =>
  loose({
    days_remaining: num(),
    error_code: errorCode(),
    expiry_date: dateTime(),
    is_valid: bool(),
    message: str(),
    referral_code: str(),
    referral_id: num(),
    referrer_full_name: str(),
    referrer_id: num(),
    referrer_username: str(),
    remaining_uses: num(),
    success: bool(),
    usage_limit: num(),
    used_count: num(),
  }),
);

/** Items of the referral lists: their fields are not shown. */
const Item = lazy(() => loose({}));
const items = lazy(() => listOf(Item()));

/** Referral lists page with page_number/page_size (size 10 by default) and a pagination block. */
const referralPaging = (key: string) => ({
  page: 'page_number',
  size: 'page_size',
  items: key,
  info: 'pagination',
  defaultSize: 10,
  maxSize: 100,
});
const referralPage = lazy(() => ({ page_number: pageNumber(), page_size: pageSize(10) }));
const referralUserId = lazy(() => z.object({ user_id: q.int() }));

// ---------------------------------------------------------------------------------------------
// The caller's referral codes

export const referralsGenerate = endpoint({
  name: 'referrals.generate',
  area: 'user',
  method: 'POST',
  path: '/cms/referral/generate',
  summary: 'Generate a referral code',
  schemas: () => ({
    body: z.object({
      description: z.string().min(3).max(255),
      expiry_days: z.number().int().min(1).max(365),
      usage_limit: z.number().int().min(1).max(1000),
    }),
    response: ReferralGeneration(),
  }),
  access: 'user',
});

export const referralsUse = endpoint({
  name: 'referrals.use',
  area: 'user',
  method: 'POST',
  path: '/cms/referral/use',
  summary: 'Record that a new user signed up with a referral code',
  schemas: () => ({
    body: z.object({ new_user_id: z.number().int().min(1), referral_code: referralCode() }),
    response: ReferralValidation(),
  }),
  access: 'user',
});

export const referralsValidate = endpoint({
  name: 'referrals.validate',
  area: 'user',
  method: 'POST',
  path: '/cms/referral/validate',
  summary: 'Check a referral code: validity, referrer, remaining uses',
  schemas: () => ({
    body: z.object({ referral_code: referralCode() }),
    response: ReferralValidation(),
  }),
  access: 'public',
});

export const referralsUpdate = endpoint({
  name: 'referrals.update',
  area: 'user',
  method: 'PUT',
  path: '/cms/referral/update',
  summary: "Change a referral code's usage limit or expiry date",
  schemas: () => ({
    body: z.object({
      referral_code_id: z.number().int().min(1),
      new_usage_limit: z.number().int().min(1).max(1000).optional(),
      new_expiry_date: date().optional(),
    }),
    response: anything(),
  }),
  access: 'user',
});

export const referralsDeactivate = endpoint({
  name: 'referrals.deactivate',
  area: 'user',
  method: 'DELETE',
  path: '/cms/referral/deactivate',
  summary: 'Deactivate a referral code, with a reason',
  schemas: () => ({
    body: z.object({ referral_code_id: z.number().int().min(1), reason: z.string().min(3).max(255) }),
    response: anything(),
  }),
  access: 'user',
});

export const referralsMine = endpoint({
  name: 'referrals.mine',
  area: 'user',
  method: 'GET',
  path: '/cms/referral/my-codes',
  summary: "The caller's referral codes, searched and paged",
  schemas: () => ({
    query: z.object({ include_inactive: q.bool().optional(), search_keyword: z.string().optional(), ...referralPage() }),
    response: loose({ codes: items(), summary: anything(), pagination: Pagination() }),
  }),
  access: 'user',
  paging: referralPaging('codes'),
});

export const referralsStats = endpoint({
  name: 'referrals.stats',
  area: 'user',
  method: 'GET',
  path: '/cms/referral/statistics',
  summary: "The caller's referral statistics: summary, per-code usage, daily and monthly",
  schemas: () => ({
    response: loose({ summary: anything(), statistics: anything(), code_usage: items(), daily_stats: items(), monthly_stats: items() }),
  }),
  access: 'user',
});

export const referralsInfo = endpoint({
  name: 'referrals.info',
  area: 'user',
  method: 'GET',
  path: '/cms/referral/info/{user_id}',
  summary: 'Referral information of one user',
  schemas: () => ({
    params: referralUserId(),
    response: loose({ user_details: anything(), code_details: anything(), codes: items(), summary: anything(), statistics: anything() }),
  }),
  access: 'staff',
});

export const referralsReferred = endpoint({
  name: 'referrals.referred',
  area: 'user',
  method: 'GET',
  path: '/cms/referred-users',
  summary: 'The users the caller referred',
  schemas: () => ({
    query: z.object(referralPage()),
    response: loose({ referred_users: items(), summary: anything(), pagination: Pagination() }),
  }),
  access: 'user',
  paging: referralPaging('referred_users'),
});

export const referralsSearch = endpoint({
  name: 'referrals.search',
  area: 'user',
  method: 'GET',
  path: '/cms/referral-codes/search',
  summary: 'Search referral codes',
  schemas: () => ({
    query: z.object({ search_keyword: z.string().optional(), ...referralPage() }),
    response: loose({ referral_codes: items(), pagination: Pagination() }),
  }),
  access: 'staff',
  paging: referralPaging('referral_codes'),
});

// ---------------------------------------------------------------------------------------------
// Admin views

export const referralsAdminSearch = endpoint({
  name: 'referrals.admin-search',
  area: 'user',
  method: 'GET',
  path: '/cms/admin/referral-codes/search',
  summary: 'Admin: search every referral code',
  schemas: () => ({
    query: z.object({ search_keyword: z.string().optional(), ...referralPage() }),
    response: loose({ referral_codes: items(), pagination: Pagination() }),
  }),
  access: 'admin',
  paging: referralPaging('referral_codes'),
});

export const referralsAdminList = endpoint({
  name: 'referrals.admin-list',
  area: 'user',
  method: 'GET',
  path: '/cms/admin/referrals',
  summary: 'Admin: every referral, filtered, sorted and paged',
  schemas: () => ({
    query: z.object({
      filter_status: ReferralStatusFilter().optional(),
      filter_date_from: q.date().optional(),
      filter_date_to: q.date().optional(),
      search_keyword: z.string().optional(),
      ...referralPage(),
      sort_by: ReferralSortBy().default('ReferralDate'),
      sort_order: SortOrder().default('DESC'),
    }),
    response: loose({ referrals: items(), summary: anything(), pagination: Pagination() }),
  }),
  access: 'admin',
  paging: referralPaging('referrals'),
});

export const referralsAdminReferred = endpoint({
  name: 'referrals.admin-referred',
  area: 'user',
  method: 'GET',
  path: '/cms/admin/referred-users',
  summary: 'Admin: every referred user',
  schemas: () => ({
    query: z.object({ search_keyword: z.string().optional(), ...referralPage() }),
    response: loose({ referred_users: items(), summary: anything(), pagination: Pagination() }),
  }),
  access: 'admin',
  paging: referralPaging('referred_users'),
});

export const referralsAdminUserReferred = endpoint({
  name: 'referrals.admin-user-referred',
  area: 'user',
  method: 'GET',
  path: '/cms/admin/users/{user_id}/referred-users',
  summary: 'Admin: the users one user referred',
  schemas: () => ({
    params: referralUserId(),
    query: z.object(referralPage()),
    response: loose({ referred_users: items(), user_details: anything(), summary: anything(), pagination: Pagination() }),
  }),
  access: 'admin',
  paging: referralPaging('referred_users'),
});

export const referralsAdminUserStats = endpoint({
  name: 'referrals.admin-user-stats',
  area: 'user',
  method: 'GET',
  path: '/cms/admin/users/{user_id}/statistics',
  summary: "Admin: one user's referral statistics over a period of days",
  schemas: () => ({
    params: referralUserId(),
    query: z.object({ stats_period: q.int({ min: 1, max: 365 }).default(30) }),
    response: loose({
      user_summary: anything(),
      statistics: anything(),
      code_usage: items(),
      daily_activity: items(),
      daily_stats: items(),
      monthly_stats: items(),
    }),
  }),
  access: 'admin',
});

export const referralEndpoints = [
  referralsGenerate,
  referralsUse,
  referralsValidate,
  referralsUpdate,
  referralsDeactivate,
  referralsMine,
  referralsStats,
  referralsInfo,
  referralsReferred,
  referralsSearch,
  referralsAdminSearch,
  referralsAdminList,
  referralsAdminReferred,
  referralsAdminUserReferred,
  referralsAdminUserStats,
];
