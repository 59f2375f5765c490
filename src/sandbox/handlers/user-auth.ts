/**
 * Authentication handlers: /auth/*, /cms/auth/*, the superadmin password change and account
 * verification.
 */
import { builtin } from '../../builtin.js';
import { hashPassword, issueToken, lookupToken, revokeToken, verifyPassword } from '../auth.js';
import { SandboxError, type DB, type HandlerContext, type HandlerTable } from '../types.js';
import { caller, DAY_MS, getUser, isAdminRole, nowIso, permissionsOf, revokeAllTokens, setRoles, type UserRow } from './user-common.js';

/** Reset tokens live one hour; verification codes ten minutes. */
const RESET_TTL_MS = 3_600_000;
const VERIFICATION_TTL_MS = 10 * 60_000;

function header(ctx: HandlerContext, name: string): string | undefined {
  const v = ctx.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function recordLogin(ctx: HandlerContext, userId: number | null, username: string, status: string, deviceId: string | null = null) {
  ctx.db
    .prepare(
      'INSERT INTO login_history (user_id, username, login_status, ip_address, user_agent, device_id, login_time) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .run(userId, username, status, ctx.ip, ctx.userAgent, deviceId, nowIso(ctx));
}

/**
 * Checks credentials: 401 INVALID_CREDENTIALS for an unknown account or a wrong password
 * (the same message for both), 403 for Banned or Inactive accounts. Records the attempt.
 */
function authenticate(ctx: HandlerContext, username: string, password: string, deviceId: string | null = null): UserRow {
  const u = ctx.db.prepare('SELECT * FROM users WHERE username = ? OR email = ?').get(username, username) as UserRow | undefined;
  if (!u || !verifyPassword(password, u.password_hash)) {
    recordLogin(ctx, u?.user_id ?? null, username, 'FAILED', deviceId);
    ctx.audit('auth', 'login_failed', { username, user_id: u?.user_id ?? null });
    throw new SandboxError(401, 'invalid username or password', 'INVALID_CREDENTIALS');
  }
  if (u.status === 'Banned' || u.status === 'Inactive') {
    recordLogin(ctx, u.user_id, u.username, 'BLOCKED', deviceId);
    ctx.audit('auth', 'login_blocked', { user_id: u.user_id, username: u.username, status: u.status });
    throw new SandboxError(403, `account is ${u.status.toLowerCase()}`, u.status === 'Banned' ? 'ACCOUNT_BANNED' : 'ACCOUNT_INACTIVE');
  }
  recordLogin(ctx, u.user_id, u.username, 'SUCCESS', deviceId);
  ctx.db.prepare('UPDATE users SET last_login_date = ? WHERE user_id = ?').run(nowIso(ctx), u.user_id);
  return u;
}

function guessDevice(ua: string): { name: string; type: string } {
  const s = ua.toLowerCase();
  if (s.includes('subctl')) return { name: 'subctl', type: 'cli' };
  if (s.includes('ipad') || s.includes('tablet')) return { name: 'Tablet', type: 'tablet' };
  if (s.includes('iphone') || s.includes('android') || s.includes('mobile')) return { name: 'Mobile', type: 'mobile' };
  if (s.includes('curl') || s.includes('node') || s.includes('undici')) return { name: 'API client', type: 'cli' };
  return { name: 'Browser', type: 'desktop' };
}

/** Inserts or refreshes the (device_id, user) row for a new CMS session. */
function upsertDevice(ctx: HandlerContext, userId: number, deviceId: string, sessionId: string | null) {
  const at = nowIso(ctx);
  const g = guessDevice(ctx.userAgent ?? '');
  const name = header(ctx, 'x-device-name') ?? g.name;
  const type = header(ctx, 'x-device-type') ?? g.type;
  ctx.db
    .prepare(
      `INSERT INTO devices (device_id, user_id, device_name, device_type, device_token, ip_address, user_agent, is_active, session_id,
                            login_time, logout_time, last_activity_time, created_date)
       VALUES (@device_id, @user_id, @name, @type, NULL, @ip, @ua, @active, @session, @login, NULL, @at, @at)
       ON CONFLICT (device_id, user_id) DO UPDATE SET
         ip_address = excluded.ip_address, user_agent = excluded.user_agent,
         is_active = CASE WHEN @session IS NULL THEN devices.is_active ELSE 1 END,
         session_id = COALESCE(@session, devices.session_id),
         login_time = COALESCE(@login, devices.login_time),
         logout_time = CASE WHEN @session IS NULL THEN devices.logout_time ELSE NULL END,
         last_activity_time = excluded.last_activity_time`,
    )
    .run({
      device_id: deviceId,
      user_id: userId,
      name,
      type,
      ip: ctx.ip,
      ua: ctx.userAgent,
      active: sessionId ? 1 : 0,
      session: sessionId,
      login: sessionId ? at : null,
      at,
    });
}

/** Marks the device of a token logged out (CMS sessions). */
function endDeviceSession(db: DB, token: string, at: string) {
  const t = db.prepare('SELECT user_id, device_id, session_id FROM tokens WHERE token = ?').get(token) as
    { user_id: number; device_id: string | null; session_id: string | null } | undefined;
  if (!t || (!t.device_id && !t.session_id)) return;
  db.prepare(
    `UPDATE devices SET is_active = 0, logout_time = ?, last_activity_time = ?
      WHERE user_id = ? AND ((? IS NOT NULL AND device_id = ?) OR (? IS NOT NULL AND session_id = ?))`,
  ).run(at, at, t.user_id, t.device_id, t.device_id, t.session_id, t.session_id);
}

function createReset(ctx: HandlerContext, email: string) {
  const u = ctx.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
  if (!u) throw new SandboxError(404, 'no account with that email', 'USER_NOT_FOUND');
  const token = `rst_${builtin('node:crypto').randomBytes(18).toString('base64url')}`;
  const at = ctx.now();
  const expiry = new Date(at.getTime() + RESET_TTL_MS).toISOString();
  ctx.db
    .prepare('INSERT INTO password_resets (reset_token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)')
    .run(token, u.user_id, at.toISOString(), expiry);
  ctx.audit('auth', 'request_reset', { user_id: u.user_id, username: u.username });
  return {
    message: 'password reset requested',
    data: {
      success: true,
      message: 'a reset token was issued (the sandbox returns it here instead of sending it by email)',
      error_code: null,
      user_id: u.user_id,
      username: u.username,
      email: u.email,
      reset_token: token,
      expiry_date: expiry,
    },
  };
}

/** Uses a reset token: it must exist, be unused and unexpired (and belong to userId when given). */
function useReset(ctx: HandlerContext, token: string, newPassword: string, userId?: number) {
  const at = nowIso(ctx);
  return ctx.db.transaction(() => {
    const r = ctx.db.prepare('SELECT * FROM password_resets WHERE reset_token = ?').get(token) as
      { reset_token: string; user_id: number; expires_at: string; used_at: string | null } | undefined;
    if (!r || (userId !== undefined && r.user_id !== userId)) throw new SandboxError(400, 'invalid reset token', 'INVALID_RESET_TOKEN');
    if (r.used_at) throw new SandboxError(400, 'reset token already used', 'RESET_TOKEN_USED');
    if (r.expires_at <= at) throw new SandboxError(400, 'reset token expired', 'RESET_TOKEN_EXPIRED');
    const done = ctx.db.prepare('UPDATE password_resets SET used_at = ? WHERE reset_token = ? AND used_at IS NULL').run(at, token);
    if (done.changes !== 1) throw new SandboxError(400, 'reset token already used', 'RESET_TOKEN_USED');
    ctx.db.prepare('UPDATE users SET password_hash = ? WHERE user_id = ?').run(hashPassword(newPassword), r.user_id);
    const revoked = revokeAllTokens(ctx.db, r.user_id, at);
    const u = getUser(ctx.db, r.user_id)!;
    ctx.audit('auth', 'reset_password', { user_id: u.user_id, username: u.username, sessions_revoked: revoked });
    return {
      message: 'password reset',
      data: { success: true, message: 'password reset; sign in with the new password', user_id: u.user_id, username: u.username },
    };
  })();
}

function changeOwnPassword(ctx: HandlerContext, module: string) {
  const me = caller(ctx);
  const u = getUser(ctx.db, me.user_id)!;
  if (!verifyPassword(ctx.body.old_password, u.password_hash))
    throw new SandboxError(400, 'old password is incorrect', 'INVALID_OLD_PASSWORD');
  if (ctx.body.old_password === ctx.body.new_password)
    throw new SandboxError(400, 'new password must differ from the old one', 'PASSWORD_UNCHANGED');
  const at = nowIso(ctx);
  ctx.db.prepare('UPDATE users SET password_hash = ? WHERE user_id = ?').run(hashPassword(ctx.body.new_password), u.user_id);
  const revoked = revokeAllTokens(ctx.db, u.user_id, at, me.token);
  ctx.audit(module, 'change_password', { user_id: u.user_id, username: u.username, other_sessions_revoked: revoked });
  return {
    message: 'password changed',
    data: { success: true, message: 'password changed; other sessions were signed out', user_id: u.user_id },
  };
}

export const authHandlers: HandlerTable = {
  'auth.login': (ctx) => {
    const u = authenticate(ctx, ctx.body.username, ctx.body.password);
    const t = issueToken(ctx.db, u.user_id, { now: ctx.now() });
    ctx.audit('auth', 'login', { user_id: u.user_id, username: u.username });
    return {
      message: 'login successful',
      data: {
        user_id: u.user_id,
        username: u.username,
        email: u.email,
        full_name: u.full_name,
        role: u.role,
        token: t.token,
        expires_at: t.expires_at,
        expires_in: t.expires_in,
        login_result: 'SUCCESS',
        error_code: null,
        error_message: null,
      },
    };
  },

  'auth.logout': (ctx) => {
    const me = caller(ctx);
    const at = nowIso(ctx);
    const target = ctx.body.token as string | undefined;
    const targetUser = ctx.body.user_id as number | undefined;
    let revoked: number;
    if (target && target !== me.token) {
      const t = ctx.db.prepare('SELECT user_id FROM tokens WHERE token = ?').get(target) as { user_id: number } | undefined;
      if (!t) throw new SandboxError(404, 'token not found', 'TOKEN_NOT_FOUND');
      if (t.user_id !== me.user_id && !isAdminRole(me.role)) throw new SandboxError(403, 'you may only end your own sessions', 'FORBIDDEN');
      endDeviceSession(ctx.db, target, at);
      revokeToken(ctx.db, target, ctx.now());
      revoked = 1;
    } else if (targetUser !== undefined && targetUser !== me.user_id) {
      if (!isAdminRole(me.role)) throw new SandboxError(403, 'you may only end your own sessions', 'FORBIDDEN');
      if (!getUser(ctx.db, targetUser)) throw new SandboxError(404, `user ${targetUser} not found`, 'USER_NOT_FOUND');
      revoked = revokeAllTokens(ctx.db, targetUser, at);
      ctx.db.prepare('UPDATE devices SET is_active = 0, logout_time = ? WHERE user_id = ? AND is_active = 1').run(at, targetUser);
    } else {
      endDeviceSession(ctx.db, me.token, at);
      revokeToken(ctx.db, me.token, ctx.now());
      revoked = 1;
    }
    ctx.audit('auth', 'logout', { user_id: targetUser ?? me.user_id, tokens_revoked: revoked });
    return { message: 'logged out', data: { success: true, message: 'logged out', tokens_revoked: revoked } };
  },

  'auth.refresh': (ctx) => {
    const old = ctx.body.token as string;
    const who = lookupToken(ctx.db, old, ctx.now());
    if (!who) throw new SandboxError(401, 'invalid or expired token', 'INVALID_TOKEN');
    return ctx.db.transaction(() => {
      const row = ctx.db.prepare('SELECT session_id, device_id FROM tokens WHERE token = ?').get(old) as {
        session_id: string | null;
        device_id: string | null;
      };
      revokeToken(ctx.db, old, ctx.now());
      const t = issueToken(ctx.db, who.user_id, { now: ctx.now(), sessionId: row.session_id, deviceId: row.device_id });
      ctx.audit('auth', 'refresh', { user_id: who.user_id, username: who.username });
      return { message: 'token refreshed', data: { token: t.token, expires_in: t.expires_in, expires_at: t.expires_at } };
    })();
  },

  'auth.forgot-password': (ctx) => createReset(ctx, ctx.body.email),

  'auth.reset-password': (ctx) => useReset(ctx, ctx.body.reset_token, ctx.body.new_password, ctx.body.user_id),

  'auth.change-password': (ctx) => changeOwnPassword(ctx, 'auth'),

  'auth.validate-session': (ctx) => {
    const who = lookupToken(ctx.db, ctx.body.token, ctx.now());
    if (!who)
      return {
        message: 'session is not valid',
        data: { valid: false, user_id: null, username: null, role: null, message: 'token unknown, revoked or expired' },
      };
    ctx.db
      .prepare('UPDATE devices SET last_activity_time = ? WHERE user_id = ? AND session_id = ? AND is_active = 1')
      .run(nowIso(ctx), who.user_id, who.session_id);
    return {
      message: 'session is valid',
      data: { valid: true, user_id: who.user_id, username: who.username, role: who.role, message: 'session is valid' },
    };
  },

  'cms.auth.login': (ctx) => {
    const deviceId = header(ctx, 'x-device-id');
    if (!deviceId) throw new SandboxError(400, 'X-Device-ID header is required', 'DEVICE_ID_REQUIRED');
    const u = authenticate(ctx, ctx.body.username, ctx.body.password, deviceId);
    const sessionId = builtin('node:crypto').randomBytes(16).toString('hex');
    return ctx.db.transaction(() => {
      upsertDevice(ctx, u.user_id, deviceId, sessionId);
      const t = issueToken(ctx.db, u.user_id, { now: ctx.now(), sessionId, deviceId });
      ctx.audit('auth', 'cms_login', { user_id: u.user_id, username: u.username, device_id: deviceId });
      return {
        message: 'login successful',
        data: {
          success: true,
          message: 'login successful',
          error_code: null,
          token: t.token,
          expires_at: t.expires_at,
          session_id: sessionId,
          user_id: u.user_id,
          username: u.username,
          email: u.email,
          full_name: u.full_name,
          role: u.role,
          permissions: permissionsOf(ctx.db, u.user_id),
        },
      };
    })();
  },

  'cms.auth.register': (ctx) => {
    const deviceId = header(ctx, 'x-device-id');
    if (!deviceId) throw new SandboxError(400, 'X-Device-ID header is required', 'DEVICE_ID_REQUIRED');
    const b = ctx.body;
    const at = nowIso(ctx);
    return ctx.db.transaction(() => {
      const clash = ctx.db.prepare('SELECT username, email FROM users WHERE username = ? OR email = ?').get(b.username, b.email) as
        { username: string; email: string } | undefined;
      if (clash) {
        const field = clash.username.toLowerCase() === String(b.username).toLowerCase() ? 'username' : 'email';
        throw new SandboxError(409, `${field} is already taken`, field === 'username' ? 'USERNAME_TAKEN' : 'EMAIL_TAKEN', [
          { field, message: 'already taken' },
        ]);
      }
      const r = ctx.db
        .prepare(
          `INSERT INTO users (username, email, full_name, password_hash, role, status, phone_number, address, is_verified, created_date)
           VALUES (?, ?, ?, ?, 'user', 'Pending', ?, ?, 0, ?)`,
        )
        .run(b.username, b.email, b.full_name ?? null, hashPassword(b.password), b.phone_number ?? null, b.address ?? null, at);
      const userId = Number(r.lastInsertRowid);
      setRoles(ctx.db, userId, ['user'], null, at);
      if (b.address || b.phone_number) {
        ctx.db
          .prepare('INSERT INTO profiles (user_id, address, phone_number, modified_date) VALUES (?, ?, ?, ?)')
          .run(userId, b.address ?? null, b.phone_number ?? null, at);
      }
      upsertDevice(ctx, userId, deviceId, null);
      let referral: Record<string, unknown> | null = null;
      if (b.referral_code) referral = applyReferral(ctx.db, b.referral_code, userId, at);
      ctx.audit('auth', 'register', { user_id: userId, username: b.username, referral_code: b.referral_code ?? null });
      return {
        message: 'registered',
        data: {
          success: true,
          user_id: userId,
          status: 'Pending',
          error_code: null,
          message: 'registered; verify the account (generate-verification, then verify) to activate it',
          referral,
        },
      };
    })();
  },

  'cms.auth.logout': (ctx) => {
    const me = caller(ctx);
    const at = nowIso(ctx);
    endDeviceSession(ctx.db, me.token, at);
    revokeToken(ctx.db, me.token, ctx.now());
    ctx.audit('auth', 'cms_logout', { user_id: me.user_id, session_id: me.session_id });
    return { message: 'logged out', data: { success: true, message: 'logged out', session_id: me.session_id } };
  },

  'cms.auth.change-password': (ctx) => changeOwnPassword(ctx, 'auth'),

  'cms.auth.request-reset': (ctx) => createReset(ctx, ctx.body.email),

  'cms.auth.reset-password-token': (ctx) => useReset(ctx, ctx.body.reset_token, ctx.body.new_password),

  'cms.superadmin.change-password': (ctx) => {
    const me = caller(ctx);
    const u = getUser(ctx.db, ctx.body.user_id);
    if (!u) throw new SandboxError(404, `user ${ctx.body.user_id} not found`, 'USER_NOT_FOUND');
    const at = nowIso(ctx);
    ctx.db.prepare('UPDATE users SET password_hash = ? WHERE user_id = ?').run(hashPassword(ctx.body.new_password), u.user_id);
    const revoked = revokeAllTokens(ctx.db, u.user_id, at, u.user_id === me.user_id ? me.token : undefined);
    ctx.audit('auth', 'superadmin_change_password', { user_id: u.user_id, username: u.username, sessions_revoked: revoked });
    return {
      message: 'password changed',
      data: { success: true, message: `password of ${u.username} changed`, user_id: u.user_id, username: u.username },
    };
  },

  'cms.verification.generate': (ctx) => {
    const me = caller(ctx);
    const at = ctx.now();
    const code = String(builtin('node:crypto').randomInt(100000, 1000000));
    const expires = new Date(at.getTime() + VERIFICATION_TTL_MS).toISOString();
    ctx.db.transaction(() => {
      // A new code replaces the earlier unused ones of the same type.
      ctx.db
        .prepare('UPDATE verification_codes SET expires_at = ? WHERE user_id = ? AND type = ? AND used_at IS NULL AND expires_at > ?')
        .run(at.toISOString(), me.user_id, ctx.body.type, at.toISOString());
      ctx.db
        .prepare('INSERT INTO verification_codes (user_id, type, code, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
        .run(me.user_id, ctx.body.type, code, at.toISOString(), expires);
    })();
    ctx.audit('auth', 'generate_verification', { user_id: me.user_id, type: ctx.body.type });
    return {
      message: 'verification code generated',
      data: {
        success: true,
        type: ctx.body.type,
        code,
        expires_at: expires,
        message: `a ${ctx.body.type} verification code was issued (the sandbox returns it here instead of sending it)`,
      },
    };
  },

  'cms.verification.verify': (ctx) => {
    const me = caller(ctx);
    const at = nowIso(ctx);
    try {
      return ctx.db.transaction(() => {
        const row = ctx.db
          .prepare(
            'SELECT * FROM verification_codes WHERE user_id = ? AND type = ? AND code = ? AND used_at IS NULL ORDER BY id DESC LIMIT 1',
          )
          .get(me.user_id, ctx.body.type, ctx.body.code) as { id: number; expires_at: string } | undefined;
        // A failed attempt is audited after the transaction rolls back (see below), so it stays.
        if (!row) throw new SandboxError(422, 'invalid verification code', 'INVALID_VERIFICATION_CODE', undefined, { reason: 'invalid' });
        if (row.expires_at <= at)
          throw new SandboxError(422, 'verification code expired', 'VERIFICATION_CODE_EXPIRED', undefined, { reason: 'expired' });
        ctx.db.prepare('UPDATE verification_codes SET used_at = ? WHERE id = ?').run(at, row.id);
        ctx.db
          .prepare(
            "UPDATE users SET is_verified = 1, status = CASE WHEN status = 'Pending' THEN 'Active' ELSE status END WHERE user_id = ?",
          )
          .run(me.user_id);
        const u = getUser(ctx.db, me.user_id)!;
        ctx.audit('auth', 'verify', { user_id: me.user_id, type: ctx.body.type, status: u.status });
        return {
          message: 'account verified',
          data: { success: true, verified: true, type: ctx.body.type, status: u.status, message: 'account verified' },
        };
      })();
    } catch (e) {
      if (e instanceof SandboxError && e.status === 422)
        ctx.audit('auth', 'verify_failed', { user_id: me.user_id, type: ctx.body.type, reason: e.extra?.reason });
      throw e;
    }
  },
};

/**
 * Records that `newUserId` used `code`, atomically: the code must exist, be active, unexpired
 * and have room left (400 otherwise, 404 unknown), the new user not its owner (400) nor
 * already referred (409). Call inside a transaction.
 */
export function applyReferral(db: DB, code: string, newUserId: number, at: string) {
  const c = db.prepare('SELECT * FROM referral_codes WHERE referral_code = ?').get(code) as
    | {
        referral_id: number;
        user_id: number;
        referral_code: string;
        usage_limit: number;
        used_count: number;
        expiry_date: string | null;
        is_active: number;
      }
    | undefined;
  if (!c) throw new SandboxError(404, 'referral code not found', 'REFERRAL_NOT_FOUND');
  if (c.user_id === newUserId) throw new SandboxError(400, 'a user cannot use their own referral code', 'SELF_REFERRAL');
  if (db.prepare('SELECT 1 FROM referral_uses WHERE new_user_id = ?').get(newUserId)) {
    throw new SandboxError(409, 'this user was already referred', 'ALREADY_REFERRED');
  }
  const bumped = db
    .prepare(
      `UPDATE referral_codes SET used_count = used_count + 1, modified_date = ?
        WHERE referral_id = ? AND is_active = 1 AND used_count < usage_limit AND (expiry_date IS NULL OR expiry_date > ?)`,
    )
    .run(at, c.referral_id, at);
  if (bumped.changes !== 1) {
    if (!c.is_active) throw new SandboxError(400, 'referral code is deactivated', 'REFERRAL_DEACTIVATED');
    if (c.expiry_date && c.expiry_date <= at) throw new SandboxError(400, 'referral code has expired', 'REFERRAL_EXPIRED');
    throw new SandboxError(400, 'referral code has no uses left', 'REFERRAL_EXHAUSTED');
  }
  db.prepare('INSERT INTO referral_uses (referral_id, referrer_id, new_user_id, used_date) VALUES (?, ?, ?, ?)').run(
    c.referral_id,
    c.user_id,
    newUserId,
    at,
  );
  const after = db.prepare('SELECT used_count, usage_limit, expiry_date FROM referral_codes WHERE referral_id = ?').get(c.referral_id) as {
    used_count: number;
    usage_limit: number;
    expiry_date: string | null;
  };
  return {
    referral_id: c.referral_id,
    referral_code: c.referral_code,
    referrer_id: c.user_id,
    used_count: after.used_count,
    usage_limit: after.usage_limit,
    remaining_uses: after.usage_limit - after.used_count,
    expiry_date: after.expiry_date,
    days_remaining: after.expiry_date ? Math.max(0, Math.ceil((Date.parse(after.expiry_date) - Date.parse(at)) / DAY_MS)) : null,
  };
}
