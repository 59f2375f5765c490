/**
 * The CMS profile and devices (point 7 "CMS profile, devices, roles" of the user, auth and CMS
 * area). Part of the contract file user-accounts.ts.
 */
import { z } from './z.js';
import { Gender } from './user-accounts-users.js';
import { anything, bool, date, dateTime, endpoint, lazy, listOf, loose, num, q, str } from './common.js';

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
