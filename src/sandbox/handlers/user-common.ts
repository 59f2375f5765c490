/**
 * Helpers shared by the user-area handlers: the caller, paging, role priorities, the roles a
 * user holds and the permissions they give.
 */
import { DAY_MS } from '../limits.js';
import { SYSTEM_ROLES } from '../schema-user.js';
import { SandboxError, type AuthUser, type DB, type HandlerContext } from '../types.js';

export { DAY_MS };

export function nowIso(ctx: HandlerContext): string {
  return ctx.now().toISOString();
}

/** The signed-in caller; the framework already answered 401 when access needs one. */
export function caller(ctx: HandlerContext): AuthUser {
  if (!ctx.user) throw new SandboxError(401, 'authentication required', 'UNAUTHORIZED');
  return ctx.user;
}

export function isAdminRole(role: string): boolean {
  return role === 'admin' || role === 'superadmin';
}

export function isStaffRole(role: string): boolean {
  return ['superadmin', 'admin', 'manager', 'support', 'agent'].includes(role);
}

/** `LIKE` pattern matching `s` anywhere, with %, _ and \ escaped (use with ESCAPE '\'). */
export function likeAny(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Page arithmetic. */
export function paging(total: number, page: number, size: number) {
  const total_pages = Math.max(1, Math.ceil(total / size));
  return { offset: (page - 1) * size, total_pages };
}

/** The referral lists' pagination block. */
export function pagination(total: number, page: number, size: number) {
  const { total_pages } = paging(total, page, size);
  return {
    current_page: page,
    page_size: size,
    total_pages,
    total_records: total,
    has_next_page: page < total_pages,
    has_previous_page: page > 1,
  };
}

export const bool = (v: unknown) => v === 1 || v === true;

export interface UserRow {
  user_id: number;
  username: string;
  email: string;
  full_name: string | null;
  password_hash: string;
  role: string;
  status: string;
  chatgpt_user_id: string | null;
  phone_number: string | null;
  address: string | null;
  is_verified: number;
  created_by: number | null;
  created_date: string;
  last_login_date: string | null;
  wallet_balance: number;
  wallet_currency: string;
  last_topup_date: string | null;
}

export function getUser(db: DB, userId: number): UserRow | undefined {
  return db.prepare('SELECT * FROM users WHERE user_id = ?').get(userId) as UserRow | undefined;
}

export function mustGetUser(db: DB, userId: number): UserRow {
  const u = getUser(db, userId);
  if (!u) throw new SandboxError(404, `user ${userId} not found`, 'USER_NOT_FOUND');
  return u;
}

export interface RoleRow {
  role_id: number;
  role_name: string;
  display_name: string;
  description: string | null;
  priority: number;
  is_system_role: number;
  is_active: number;
  created_by_user: number | null;
  created_date: string;
  modified_by_user: number | null;
  modified_date: string | null;
}

export function getRoleByName(db: DB, name: string): RoleRow | undefined {
  return db.prepare('SELECT * FROM roles WHERE role_name = ?').get(name) as RoleRow | undefined;
}

/** A role's priority; unknown roles rank below every known one. */
export function priorityOf(db: DB, role: string): number {
  const r = db.prepare('SELECT priority FROM roles WHERE role_name = ?').get(role) as { priority: number } | undefined;
  return r?.priority ?? 0;
}

/**
 * Every (user_id, role_name) pair held: user_roles rows plus each user's primary role
 * (users.role), so accounts created outside the user area still hold their role.
 */
export const HELD_ROLES_CTE = `held AS (
  SELECT user_id, role_name FROM user_roles
  UNION
  SELECT user_id, role AS role_name FROM users WHERE NOT EXISTS (
    SELECT 1 FROM user_roles ur WHERE ur.user_id = users.user_id AND ur.role_name = users.role COLLATE NOCASE)
)`;

export interface HeldRole {
  role_name: string;
  priority: number;
  description: string | null;
  display_name: string | null;
  assigned_by: number | null;
  assigned_by_username: string | null;
  assigned_at: string | null;
}

/** The roles a user holds, highest priority first. */
export function heldRoles(db: DB, userId: number): HeldRole[] {
  const rows = db
    .prepare(
      `SELECT ur.role_name, COALESCE(r.priority, 0) AS priority, r.description, r.display_name, ur.assigned_by,
              a.username AS assigned_by_username, ur.assigned_at
         FROM user_roles ur LEFT JOIN roles r ON r.role_name = ur.role_name LEFT JOIN users a ON a.user_id = ur.assigned_by
        WHERE ur.user_id = ?`,
    )
    .all(userId) as HeldRole[];
  const u = db.prepare('SELECT role, created_date FROM users WHERE user_id = ?').get(userId) as
    { role: string; created_date: string } | undefined;
  if (u && !rows.some((r) => r.role_name.toLowerCase() === u.role.toLowerCase())) {
    const r = getRoleByName(db, u.role);
    rows.push({
      role_name: u.role,
      priority: r?.priority ?? 0,
      description: r?.description ?? null,
      display_name: r?.display_name ?? null,
      assigned_by: null,
      assigned_by_username: null,
      assigned_at: u.created_date,
    });
  }
  return rows.sort((a, b) => b.priority - a.priority || a.role_name.localeCompare(b.role_name));
}

/** Replaces the roles a user holds and sets users.role to the highest priority one. */
export function setRoles(db: DB, userId: number, roles: string[], by: number | null, at: string): string {
  const names = [...new Set(roles.length ? roles : ['user'])];
  const keep = db.prepare('SELECT role_name, assigned_by, assigned_at FROM user_roles WHERE user_id = ?').all(userId) as Array<{
    role_name: string;
    assigned_by: number | null;
    assigned_at: string;
  }>;
  db.prepare('DELETE FROM user_roles WHERE user_id = ?').run(userId);
  const ins = db.prepare('INSERT OR IGNORE INTO user_roles (user_id, role_name, assigned_by, assigned_at) VALUES (?, ?, ?, ?)');
  for (const n of names) {
    const old = keep.find((k) => k.role_name.toLowerCase() === n.toLowerCase());
    ins.run(userId, n, old ? old.assigned_by : by, old ? old.assigned_at : at);
  }
  return recomputePrimary(db, userId, at);
}

/** users.role = the highest priority role held (from user_roles); 'user' when none. */
export function recomputePrimary(db: DB, userId: number, at: string): string {
  const top = db
    .prepare(
      `SELECT ur.role_name FROM user_roles ur LEFT JOIN roles r ON r.role_name = ur.role_name
        WHERE ur.user_id = ? ORDER BY COALESCE(r.priority, 0) DESC, ur.role_name LIMIT 1`,
    )
    .get(userId) as { role_name: string } | undefined;
  let role = top?.role_name;
  if (!role) {
    role = 'user';
    db.prepare('INSERT OR IGNORE INTO user_roles (user_id, role_name, assigned_by, assigned_at) VALUES (?, ?, NULL, ?)').run(
      userId,
      role,
      at,
    );
  }
  db.prepare('UPDATE users SET role = ? WHERE user_id = ?').run(role, userId);
  return role;
}

/**
 * The role that decides what an account may do: its primary role when that is a system role;
 * otherwise `user`, as the server's rule (`roleAllows`) treats a custom role. Only its grants
 * are reported: a custom or secondary role's would be reported and then refused (an `auditor`
 * would "hold" audit.read and get 403 on the audit log).
 */
function decidingRole(db: DB, userId: number): string {
  const u = db.prepare('SELECT role FROM users WHERE user_id = ?').get(userId) as { role: string } | undefined;
  const role = u?.role.toLowerCase();
  return role !== undefined && SYSTEM_ROLE_NAMES.has(role) ? role : 'user';
}
const SYSTEM_ROLE_NAMES = new Set<string>(SYSTEM_ROLES.map((r) => r.role_name));

/** Permission strings of the role that decides what the user may do, sorted. */
export function permissionsOf(db: DB, userId: number): string[] {
  const rows = db
    .prepare(
      `SELECT DISTINCT rp.permission_name FROM role_permissions rp JOIN roles r ON r.role_name = rp.role_name
        WHERE r.is_active = 1 AND rp.role_name = ? ORDER BY rp.permission_name`,
    )
    .all(decidingRole(db, userId)) as Array<{ permission_name: string }>;
  return rows.map((r) => r.permission_name);
}

/** Permission grants of a user (who granted the role that carries each permission, and when). */
export function grantedPermissions(db: DB, userId: number) {
  const out = new Map<
    string,
    { permission_name: string; granted_by_username: string | null; granted_date: string | null; via_role: string }
  >();
  const deciding = decidingRole(db, userId);
  const held = heldRoles(db, userId).filter((h) => h.role_name.toLowerCase() === deciding);
  // A custom primary role: the account may do what a user may, by no assignment of its own.
  const from = held.length
    ? held
    : [
        { role_name: deciding, assigned_by_username: 'system', assigned_at: null } as Pick<
          HeldRole,
          'role_name' | 'assigned_by_username' | 'assigned_at'
        >,
      ];
  for (const r of from) {
    const perms = db
      .prepare(
        `SELECT rp.permission_name FROM role_permissions rp JOIN roles ro ON ro.role_name = rp.role_name
          WHERE ro.is_active = 1 AND rp.role_name = ? ORDER BY rp.permission_name`,
      )
      .all(r.role_name) as Array<{ permission_name: string }>;
    for (const p of perms) {
      if (!out.has(p.permission_name)) {
        out.set(p.permission_name, {
          permission_name: p.permission_name,
          granted_by_username: r.assigned_by_username ?? 'system',
          granted_date: r.assigned_at,
          via_role: r.role_name,
        });
      }
    }
  }
  return [...out.values()].sort((a, b) => a.permission_name.localeCompare(b.permission_name));
}

/** The caller's priority (their primary role's). */
export function callerPriority(db: DB, user: AuthUser): number {
  const u = getUser(db, user.user_id);
  return priorityOf(db, u?.role ?? user.role);
}

/**
 * The rank rule (README-decisions-user.md, "Who may change roles"), for every endpoint that
 * changes someone's roles or standing: a superadmin may do anything; anyone else acts only on a
 * `target` whose primary role ranks below theirs, and grants only roles (`grant`) ranking below
 * theirs (403, naming `field` when the request has one). `doing` completes "you cannot ... <username>".
 * The role endpoints (assign, promote, demote, remove) and PUT, POST and DELETE /users all come
 * here, so that no endpoint allows what another refuses.
 */
export function guardRank(ctx: HandlerContext, target: UserRow | undefined, grant: RoleRow[], doing: string, field?: string): void {
  const me = caller(ctx);
  if (me.role === 'superadmin') return;
  const mine = callerPriority(ctx.db, me);
  const fields = (message: string) => (field ? [{ field, message }] : undefined);
  if (target && priorityOf(ctx.db, target.role) >= mine) {
    const message = `you cannot ${doing} ${target.username}: their role ranks at or above yours`;
    throw new SandboxError(403, message, 'FORBIDDEN', fields(`${target.username}'s role ranks at or above yours`));
  }
  for (const r of grant) {
    if (r.priority >= mine) {
      throw new SandboxError(
        403,
        `you cannot grant '${r.role_name}': it ranks at or above your role`,
        'FORBIDDEN',
        fields(`'${r.role_name}' ranks at or above your role`),
      );
    }
  }
}

/** User detail as the users endpoints answer it. */
export function userDetail(db: DB, u: UserRow, withPermissions = false) {
  const creator = u.created_by
    ? (db.prepare('SELECT username FROM users WHERE user_id = ?').get(u.created_by) as { username: string } | undefined)
    : undefined;
  const d: Record<string, unknown> = {
    user_id: u.user_id,
    username: u.username,
    email: u.email,
    full_name: u.full_name,
    role: u.role,
    status: u.status,
    chatgpt_user_id: u.chatgpt_user_id,
    is_verified: u.is_verified === 1,
    created_by: u.created_by,
    created_by_username: creator?.username ?? null,
    created_date: u.created_date,
    last_login_date: u.last_login_date,
  };
  if (withPermissions) d.permissions = permissionsOf(db, u.user_id);
  return d;
}

/** Revokes every live token of a user (optionally sparing one); returns how many. */
export function revokeAllTokens(db: DB, userId: number, at: string, except?: string): number {
  return db
    .prepare('UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND (? IS NULL OR token <> ?)')
    .run(at, userId, except ?? null, except ?? null).changes;
}

export function daysBetween(fromIso: string, to: Date): number {
  return Math.floor((to.getTime() - Date.parse(fromIso)) / DAY_MS);
}
