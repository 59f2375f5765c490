/**
 * Authentication (the API documents' user, auth and CMS area, "Authentication" and "CMS authentication"):
 * the ordinary /auth/* calls, the CMS staff /cms/auth/* calls with their device-id header, the
 * superadmin password change and account verification. 16 endpoints.
 */
import { z } from './z.js';
import { anything, bool, dateTime, endpoint, lazy, listOf, loose, num, str } from './common.js';

/** Verification channels (points 4 and 5). */
export const VerificationType = lazy(() => z.enum(['email', 'sms', 'phone']));

/** error_code's type is not shown: accept text or a number. */
const errorCode = lazy(() => z.union([z.string(), z.number()]));

/** A required text value: present and not empty. */
const required = () => z.string().min(1);
/** Passwords being set: the specification's reset minimum (point 9) applies to every new password. */
const newPassword = () => z.string().min(8);

export const LoginResult = lazy(() =>
  loose({
    email: str(),
    error_code: errorCode(),
    error_message: str(),
    full_name: str(),
    login_result: anything(),
    role: str(),
    token: str(),
    user_id: num(),
    username: str(),
  }),
);

export const RefreshResult = lazy(() => loose({ expires_in: num(), token: str() }));

export const SessionValidation = lazy(() => loose({ message: str(), role: str(), user_id: num(), username: str(), valid: bool() }));

export const CmsLoginResult = lazy(() =>
  loose({
    email: str(),
    error_code: errorCode(),
    full_name: str(),
    message: str(),
    permissions: listOf(str()),
    role: str(),
    session_id: str(),
    success: bool(),
    token: str(),
    user_id: num(),
    username: str(),
  }),
);

export const RegisterResult = lazy(() => loose({ error_code: errorCode(), message: str(), success: bool(), user_id: num() }));

export const ResetRequestResult = lazy(() =>
  loose({
    email: str(),
    error_code: errorCode(),
    expiry_date: dateTime(),
    message: str(),
    reset_token: str(),
    success: bool(),
    user_id: num(),
    username: str(),
  }),
);

// ---------------------------------------------------------------------------------------------
// Ordinary authentication

export const authLogin = endpoint({
  name: 'auth.login',
  area: 'user',
  method: 'POST',
  path: '/auth/login',
  summary: 'Log in with username and password; answers a bearer token',
  schemas: () => ({
    body: z.object({ username: required(), password: required() }),
    response: LoginResult(),
  }),
  access: 'public',
});

export const authLogout = endpoint({
  name: 'auth.logout',
  area: 'user',
  method: 'POST',
  path: '/auth/logout',
  summary: "Log out: revoke a token (the caller's when none is given)",
  schemas: () => ({
    body: z.object({ user_id: z.number().int().optional(), token: z.string().optional() }),
    response: anything(),
  }),
  access: 'user',
});

export const authRefresh = endpoint({
  name: 'auth.refresh',
  area: 'user',
  method: 'POST',
  path: '/auth/refresh',
  summary: 'Exchange a token for a fresh one',
  schemas: () => ({
    body: z.object({ token: required() }),
    response: RefreshResult(),
  }),
  access: 'public',
});

export const authForgotPassword = endpoint({
  name: 'auth.forgot-password',
  area: 'user',
  method: 'POST',
  path: '/auth/forgot-password',
  summary: 'Request a password reset token by email',
  schemas: () => ({
    body: z.object({ email: required() }),
    response: ResetRequestResult(),
  }),
  access: 'public',
});

export const authResetPassword = endpoint({
  name: 'auth.reset-password',
  area: 'user',
  method: 'POST',
  path: '/auth/reset-password',
  summary: 'Set a new password with a reset token',
  schemas: () => ({
    body: z.object({ user_id: z.number().int(), reset_token: required(), new_password: newPassword() }),
    response: anything(),
  }),
  access: 'public',
});

export const authChangePassword = endpoint({
  name: 'auth.change-password',
  area: 'user',
  method: 'POST',
  path: '/auth/change-password',
  summary: "Change the caller's password",
  schemas: () => ({
    body: z.object({ old_password: required(), new_password: newPassword() }),
    response: anything(),
  }),
  access: 'user',
});

export const authValidateSession = endpoint({
  name: 'auth.validate-session',
  area: 'user',
  method: 'POST',
  path: '/auth/validate-session',
  summary: 'Check whether a token is a live session',
  schemas: () => ({
    body: z.object({ token: required(), ip_address: z.string().optional(), user_agent: z.string().optional() }),
    response: SessionValidation(),
  }),
  access: 'public',
});

// ---------------------------------------------------------------------------------------------
// CMS staff authentication

export const cmsAuthLogin = endpoint({
  name: 'cms.auth.login',
  area: 'user',
  method: 'POST',
  path: '/cms/auth/login',
  summary: 'CMS staff login (X-Device-ID header); answers a token and a session id',
  schemas: () => ({
    body: z.object({ username: required(), password: required() }),
    response: CmsLoginResult(),
  }),
  access: 'public',
  deviceId: true,
});

export const cmsAuthRegister = endpoint({
  name: 'cms.auth.register',
  area: 'user',
  method: 'POST',
  path: '/cms/auth/register',
  summary: 'Register a CMS account (X-Device-ID header)',
  schemas: () => ({
    body: z.object({
      email: required(),
      password: required(),
      username: required(),
      address: z.string().optional(),
      full_name: z.string().optional(),
      phone_number: z.string().optional(),
      referral_code: z.string().optional(),
    }),
    response: RegisterResult(),
  }),
  access: 'public',
  deviceId: true,
});

export const cmsAuthLogout = endpoint({
  name: 'cms.auth.logout',
  area: 'user',
  method: 'POST',
  path: '/cms/auth/logout',
  summary: "End the caller's CMS session",
  schemas: () => ({
    response: anything(),
  }),
  access: 'user',
});

export const cmsAuthChangePassword = endpoint({
  name: 'cms.auth.change-password',
  area: 'user',
  method: 'POST',
  path: '/cms/auth/change-password',
  summary: "Change the CMS caller's password",
  schemas: () => ({
    body: z.object({ old_password: required(), new_password: newPassword() }),
    response: anything(),
  }),
  access: 'user',
});

export const cmsAuthRequestReset = endpoint({
  name: 'cms.auth.request-reset',
  area: 'user',
  method: 'POST',
  path: '/cms/auth/request-reset',
  summary: 'Request a CMS password reset token by email',
  schemas: () => ({
    body: z.object({ email: required() }),
    response: ResetRequestResult(),
  }),
  access: 'public',
});

export const cmsAuthResetPasswordToken = endpoint({
  name: 'cms.auth.reset-password-token',
  area: 'user',
  method: 'POST',
  path: '/cms/auth/reset-password-token',
  summary: 'Set a new CMS password with a reset token',
  schemas: () => ({
    body: z.object({ reset_token: required(), new_password: newPassword() }),
    response: anything(),
  }),
  access: 'public',
});

export const cmsSuperadminChangePassword = endpoint({
  name: 'cms.superadmin.change-password',
  area: 'user',
  method: 'POST',
  path: '/cms/superadmin/auth/change-password',
  summary: "Superadmin: set any user's password by user_id",
  schemas: () => ({
    body: z.object({ user_id: z.number().int(), new_password: newPassword() }),
    response: anything(),
  }),
  access: 'superadmin',
});

// ---------------------------------------------------------------------------------------------
// Account verification

export const cmsVerificationGenerate = endpoint({
  name: 'cms.verification.generate',
  area: 'user',
  method: 'POST',
  path: '/cms/users/generate-verification',
  summary: 'Send the caller a verification code by email, sms or phone',
  schemas: () => ({
    body: z.object({ type: VerificationType() }),
    response: anything(),
  }),
  access: 'user',
});

export const cmsVerificationVerify = endpoint({
  name: 'cms.verification.verify',
  area: 'user',
  method: 'POST',
  path: '/cms/users/verify',
  summary: "Verify the caller's account with the code received (422 when wrong)",
  schemas: () => ({
    body: z.object({ code: z.string().min(4).max(10), type: VerificationType() }),
    response: anything(),
  }),
  access: 'user',
});

export const authEndpoints = [
  authLogin,
  authLogout,
  authRefresh,
  authForgotPassword,
  authResetPassword,
  authChangePassword,
  authValidateSession,
  cmsAuthLogin,
  cmsAuthRegister,
  cmsAuthLogout,
  cmsAuthChangePassword,
  cmsAuthRequestReset,
  cmsAuthResetPasswordToken,
  cmsSuperadminChangePassword,
  cmsVerificationGenerate,
  cmsVerificationVerify,
];
