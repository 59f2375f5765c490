/**
 * Account handlers: /users, the superadmin user list (user-search.ts), the CMS profile and devices.
 */
import { hashPassword, revokeToken } from '../auth.js';
import { SandboxError, type HandlerContext, type HandlerTable } from '../types.js';
import {
  bool,
  caller,
  getRoleByName,
  getUser,
  grantedPermissions,
  guardRank,
  isAdminRole,
  mustGetUser,
  nowIso,
  paging,
  revokeAllTokens,
  setRoles,
  userDetail,
  type UserRow,
} from './user-common.js';
import { searchUsers, statusFilter } from './user-search.js';

function knownRole(ctx: HandlerContext, role: string) {
  const r = getRoleByName(ctx.db, role);
  if (!r) throw new SandboxError(400, `unknown role '${role}'`, 'UNKNOWN_ROLE', [{ field: 'role', message: 'unknown role' }]);
  if (!r.is_active)
    throw new SandboxError(400, `role '${r.role_name}' is not active`, 'ROLE_INACTIVE', [{ field: 'role', message: 'inactive role' }]);
  return r;
}

/**
 * Only a superadmin may change any field of another superadmin. (Roles, status and deletes of
 * anyone ranking at or above the caller are the rank rule's: `guardRank`.)
 */
function guardSuperadmin(ctx: HandlerContext, what: string) {
  if (caller(ctx).role !== 'superadmin') throw new SandboxError(403, `only a superadmin may ${what}`, 'FORBIDDEN');
}

function uniqueness(ctx: HandlerContext, username: string | undefined, email: string | undefined, exceptId?: number) {
  if (username !== undefined) {
    const hit = ctx.db.prepare('SELECT user_id FROM users WHERE username = ? AND user_id <> ?').get(username, exceptId ?? -1);
    if (hit) throw new SandboxError(409, 'username is already taken', 'USERNAME_TAKEN', [{ field: 'username', message: 'already taken' }]);
  }
  if (email !== undefined) {
    const hit = ctx.db.prepare('SELECT user_id FROM users WHERE email = ? AND user_id <> ?').get(email, exceptId ?? -1);
    if (hit) throw new SandboxError(409, 'email is already taken', 'EMAIL_TAKEN', [{ field: 'email', message: 'already taken' }]);
  }
}

export const accountHandlers: HandlerTable = {
  'users.create': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    const role = knownRole(ctx, b.role);
    // Creating an account with a role grants it: the rank rule applies as on the role endpoints.
    guardRank(ctx, undefined, [role], 'create', 'role');
    const at = nowIso(ctx);
    return ctx.db.transaction(() => {
      uniqueness(ctx, b.username, b.email);
      const r = ctx.db
        .prepare(
          `INSERT INTO users (username, email, full_name, password_hash, role, status, chatgpt_user_id, is_verified, created_by, created_date)
           VALUES (?, ?, ?, ?, ?, 'Active', ?, 1, ?, ?)`,
        )
        .run(b.username, b.email, b.full_name ?? null, hashPassword(b.password), role.role_name, b.chatgpt_user_id ?? null, me.user_id, at);
      const id = Number(r.lastInsertRowid);
      setRoles(ctx.db, id, [role.role_name], me.user_id, at);
      const u = getUser(ctx.db, id)!;
      ctx.audit('users', 'create', { user_id: id, username: u.username, email: u.email, role: u.role });
      return {
        status: 201,
        message: 'user created',
        data: { user_id: id, username: u.username, email: u.email, full_name: u.full_name, role: u.role, status: u.status },
      };
    })();
  },

  'users.list': (ctx) => {
    const { page, page_size, role, status } = ctx.query;
    const where: string[] = [];
    const args: unknown[] = [];
    if (role) {
      where.push('role = ? COLLATE NOCASE');
      args.push(role);
    }
    const st = statusFilter(status);
    if (st) {
      where.push('status = ?');
      args.push(st);
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM users ${w}`).get(...args) as { n: number }).n;
    const { offset, total_pages } = paging(total, page, page_size);
    const rows = ctx.db
      .prepare(`SELECT * FROM users ${w} ORDER BY created_date DESC, user_id DESC LIMIT ? OFFSET ?`)
      .all(...args, page_size, offset) as UserRow[];
    return {
      data: {
        users: rows.map((u) => userDetail(ctx.db, u)),
        current_page: page,
        page_size,
        total_count: total,
        total_pages,
      },
    };
  },

  'users.get': (ctx) => {
    const u = mustGetUser(ctx.db, ctx.params.id);
    const detail = userDetail(ctx.db, u, true);
    return { data: { user: detail, permissions: detail.permissions } };
  },

  'users.update': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    if (b.user_id !== ctx.params.id) {
      throw new SandboxError(400, 'user_id in the body must match the id in the path', 'USER_ID_MISMATCH', [
        { field: 'user_id', message: 'does not match the path id' },
      ]);
    }
    const u = mustGetUser(ctx.db, ctx.params.id);
    if (u.role === 'superadmin' && u.user_id !== me.user_id) guardSuperadmin(ctx, 'change another superadmin');
    let role: string | undefined;
    if (b.role !== undefined && b.role.toLowerCase() !== u.role.toLowerCase()) {
      const r = knownRole(ctx, b.role);
      if (u.user_id === me.user_id) throw new SandboxError(400, 'you cannot change your own role', 'SELF_ROLE_CHANGE');
      // The same rule as assign-role: a role change here must not be a way around it.
      guardRank(ctx, u, [r], 'change the role of', 'role');
      role = r.role_name;
    }
    if (b.status !== undefined && b.status !== u.status) {
      if (u.user_id === me.user_id && b.status !== 'Active')
        throw new SandboxError(400, 'you cannot deactivate or ban yourself', 'SELF_STATUS_CHANGE');
      // Banning or deactivating ends someone's sessions: only for users ranked below the caller.
      if (u.user_id !== me.user_id) guardRank(ctx, u, [], 'change the status of', 'status');
    }
    // Any other field of someone ranking at or above the caller is theirs to keep too: an admin
    // who could change a fellow admin's email could ask for its password reset (forgot-password
    // answers the token here) and take the account over.
    if (u.user_id !== me.user_id) guardRank(ctx, u, [], 'change');
    const at = nowIso(ctx);
    return ctx.db.transaction(() => {
      uniqueness(ctx, b.username, b.email, u.user_id);
      const sets: string[] = [];
      const args: unknown[] = [];
      const changed: Record<string, unknown> = {};
      for (const f of ['username', 'email', 'full_name', 'chatgpt_user_id', 'status'] as const) {
        if (b[f] !== undefined && b[f] !== (u as unknown as Record<string, unknown>)[f]) {
          sets.push(`${f} = ?`);
          args.push(b[f]);
          changed[f] = b[f];
        }
      }
      if (sets.length) ctx.db.prepare(`UPDATE users SET ${sets.join(', ')} WHERE user_id = ?`).run(...args, u.user_id);
      if (role) {
        setRoles(ctx.db, u.user_id, [role], me.user_id, at);
        changed.role = role;
      }
      let revoked = 0;
      if (changed.status === 'Banned' || changed.status === 'Inactive') revoked = revokeAllTokens(ctx.db, u.user_id, at);
      ctx.audit('users', 'update', { user_id: u.user_id, username: u.username, changed, sessions_revoked: revoked });
      const after = getUser(ctx.db, u.user_id)!;
      return {
        message: Object.keys(changed).length ? 'user updated' : 'nothing to change',
        data: {
          success: true,
          message: Object.keys(changed).length ? 'user updated' : 'nothing to change',
          changed_fields: Object.keys(changed),
          user: userDetail(ctx.db, after, true),
        },
      };
    })();
  },

  'users.delete': (ctx) => {
    const me = caller(ctx);
    const u = mustGetUser(ctx.db, ctx.params.id);
    if (u.user_id === me.user_id) throw new SandboxError(400, 'you cannot delete your own account', 'SELF_DELETE');
    guardRank(ctx, u, [], 'delete');
    ctx.db.transaction(() => {
      // References that keep history: point them at nobody rather than refuse the delete.
      ctx.db.prepare('UPDATE users SET created_by = NULL WHERE created_by = ?').run(u.user_id);
      ctx.db.prepare('UPDATE roles SET created_by_user = NULL WHERE created_by_user = ?').run(u.user_id);
      ctx.db.prepare('UPDATE roles SET modified_by_user = NULL WHERE modified_by_user = ?').run(u.user_id);
      ctx.db.prepare('UPDATE user_roles SET assigned_by = NULL WHERE assigned_by = ?').run(u.user_id);
      ctx.db.prepare('UPDATE role_permissions SET granted_by = NULL WHERE granted_by = ?').run(u.user_id);
      ctx.db.prepare('DELETE FROM tokens WHERE user_id = ?').run(u.user_id);
      ctx.db.prepare('DELETE FROM login_history WHERE user_id = ?').run(u.user_id);
      ctx.db.prepare('DELETE FROM users WHERE user_id = ?').run(u.user_id);
    })();
    ctx.audit('users', 'delete', { user_id: u.user_id, username: u.username, email: u.email });
    return {
      message: 'user deleted',
      data: { success: true, message: `user ${u.username} deleted`, user_id: u.user_id, username: u.username },
    };
  },

  'users.search': searchUsers,

  // -------------------------------------------------------------------------------------------
  // Profile

  'profile.get': (ctx) => {
    const me = caller(ctx);
    const u = mustGetUser(ctx.db, me.user_id);
    const detail = userDetail(ctx.db, u);
    const profile = ctx.db.prepare('SELECT * FROM profiles WHERE user_id = ?').get(u.user_id) as Record<string, unknown> | undefined;
    const history = ctx.db
      .prepare(
        'SELECT login_id, login_status, login_time, ip_address, user_agent FROM login_history WHERE user_id = ? ORDER BY login_time DESC, login_id DESC LIMIT 10',
      )
      .all(u.user_id);
    const ref = ctx.db
      .prepare(
        `SELECT rc.referral_id, rc.referral_code, ru.used_date AS referral_date, rc.expiry_date, rc.is_active, rc.usage_limit, rc.used_count,
                r.username AS referrer_username, r.email AS referrer_email
           FROM referral_uses ru JOIN referral_codes rc ON rc.referral_id = ru.referral_id JOIN users r ON r.user_id = ru.referrer_id
          WHERE ru.new_user_id = ?`,
      )
      .get(u.user_id) as Record<string, unknown> | undefined;
    return {
      data: {
        basic_info: {
          user_id: detail.user_id,
          username: detail.username,
          email: detail.email,
          full_name: detail.full_name,
          role: detail.role,
          status: detail.status,
          chatgpt_user_id: detail.chatgpt_user_id,
          created_by_username: detail.created_by_username,
          created_date: detail.created_date,
          last_login_date: detail.last_login_date,
          is_verified: detail.is_verified,
        },
        profile: {
          address: profile?.address ?? u.address ?? null,
          city: profile?.city ?? null,
          country: profile?.country ?? null,
          postal_code: profile?.postal_code ?? null,
          profile_picture_url: profile?.profile_picture_url ?? null,
          phone_number: profile?.phone_number ?? u.phone_number ?? null,
          gender: profile?.gender ?? null,
          date_of_birth: profile?.date_of_birth ?? null,
        },
        login_history: history,
        permissions: grantedPermissions(ctx.db, u.user_id),
        referral_info: ref ? { ...ref, is_active: bool(ref.is_active) } : null,
      },
    };
  },

  'profile.update': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    const at = nowIso(ctx);
    ctx.db.transaction(() => {
      const cur = (ctx.db.prepare('SELECT * FROM profiles WHERE user_id = ?').get(me.user_id) as Record<string, unknown> | undefined) ?? {};
      const val = (f: string) => (b[f] !== undefined ? b[f] : (cur[f] ?? null));
      ctx.db
        .prepare(
          `INSERT INTO profiles (user_id, address, city, country, postal_code, profile_picture_url, phone_number, gender, date_of_birth, modified_date)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (user_id) DO UPDATE SET address = excluded.address, city = excluded.city, country = excluded.country,
             postal_code = excluded.postal_code, profile_picture_url = excluded.profile_picture_url, phone_number = excluded.phone_number,
             gender = excluded.gender, date_of_birth = excluded.date_of_birth, modified_date = excluded.modified_date`,
        )
        .run(
          me.user_id,
          val('address'),
          val('city'),
          val('country'),
          val('postal_code'),
          val('profile_picture_url'),
          val('phone_number'),
          val('gender'),
          val('date_of_birth'),
          at,
        );
      ctx.db
        .prepare(
          'UPDATE users SET full_name = ?, phone_number = COALESCE(?, phone_number), address = COALESCE(?, address) WHERE user_id = ?',
        )
        .run(b.full_name, b.phone_number ?? null, b.address ?? null, me.user_id);
    })();
    const fields = Object.keys(b).filter((k) => b[k] !== undefined);
    ctx.audit('profile', 'update', { user_id: me.user_id, fields });
    const profile = ctx.db.prepare('SELECT * FROM profiles WHERE user_id = ?').get(me.user_id) as Record<string, unknown>;
    return {
      message: 'profile updated',
      data: { success: true, message: 'profile updated', updated_fields: fields, profile: { ...profile, full_name: b.full_name } },
    };
  },

  // -------------------------------------------------------------------------------------------
  // Devices

  'devices.list': (ctx) => {
    const me = caller(ctx);
    const tok = ctx.db.prepare('SELECT device_id, session_id FROM tokens WHERE token = ?').get(me.token) as
      { device_id: string | null; session_id: string | null } | undefined;
    const at = nowIso(ctx);
    const rows = ctx.db
      .prepare(
        `SELECT d.*, EXISTS (SELECT 1 FROM tokens t WHERE t.user_id = d.user_id AND t.device_id = d.device_id AND t.revoked_at IS NULL AND t.expires_at > ?) AS live
           FROM devices d WHERE d.user_id = ? ${ctx.query.include_inactive ? '' : 'AND d.is_active = 1'}
          ORDER BY d.last_activity_time DESC, d.id DESC`,
      )
      .all(at, me.user_id) as Array<Record<string, unknown>>;
    const devices = rows.map((d) => ({
      device_id: d.device_id,
      device_name: d.device_name,
      device_type: d.device_type,
      device_token: d.device_token,
      ip_address: d.ip_address,
      user_agent: d.user_agent,
      is_active: bool(d.is_active),
      is_current_device:
        !!tok &&
        ((tok.device_id !== null && tok.device_id === d.device_id) || (tok.session_id !== null && tok.session_id === d.session_id)),
      is_currently_logged_in: bool(d.is_active) && bool(d.live),
      session_id: d.session_id,
      login_time: d.login_time,
      last_login_date: d.login_time,
      logout_time: d.logout_time,
      last_activity_time: d.last_activity_time,
      created_date: d.created_date,
    }));
    return { data: { devices, device_count: devices.length } };
  },

  'devices.remove': (ctx) => {
    const me = caller(ctx);
    const id = String(ctx.params.id);
    const find = (userFilter: boolean) =>
      ctx.db
        .prepare(
          `SELECT * FROM devices WHERE (device_id = ? OR CAST(id AS TEXT) = ?) ${userFilter ? 'AND user_id = ?' : ''} ORDER BY (device_id = ?) DESC LIMIT 1`,
        )
        .get(...(userFilter ? [id, id, me.user_id, id] : [id, id, id])) as Record<string, unknown> | undefined;
    // Admins may remove anyone's device; others only their own (a stranger's is "not found").
    const d = find(true) ?? (isAdminRole(me.role) ? find(false) : undefined);
    if (!d) throw new SandboxError(404, `device ${id} not found`, 'DEVICE_NOT_FOUND');
    const at = nowIso(ctx);
    let revoked = 0;
    ctx.db.transaction(() => {
      const toks = ctx.db
        .prepare(
          'SELECT token FROM tokens WHERE user_id = ? AND revoked_at IS NULL AND (device_id = ? OR (? IS NOT NULL AND session_id = ?))',
        )
        .all(d.user_id, d.device_id, d.session_id, d.session_id) as Array<{ token: string }>;
      for (const t of toks) revokeToken(ctx.db, t.token, ctx.now());
      revoked = toks.length;
      ctx.db.prepare('DELETE FROM devices WHERE id = ?').run(d.id);
    })();
    ctx.audit('devices', 'remove', { device_id: d.device_id, user_id: d.user_id, sessions_revoked: revoked });
    return {
      message: 'device removed',
      data: {
        success: true,
        message: 'device removed and its sessions ended',
        device_id: d.device_id,
        user_id: d.user_id,
        sessions_revoked: revoked,
        removed_at: at,
      },
    };
  },
};
