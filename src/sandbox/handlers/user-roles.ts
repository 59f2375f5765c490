/**
 * Role handlers: /cms/roles (list, create, update, delete, members), and the role assignments
 * of users (/cms/users/roles, /cms/users/{user_id}/role, assign, promote, demote, remove) from
 * user-role-assignments.ts.
 */
import { SandboxError, type HandlerContext, type HandlerTable } from '../types.js';
import {
  bool,
  caller,
  callerPriority,
  getRoleByName,
  HELD_ROLES_CTE,
  nowIso,
  paging,
  recomputePrimary,
  type RoleRow,
} from './user-common.js';
import { roleAssignmentHandlers } from './user-role-assignments.js';

/** Role names travel in paths (/cms/roles/{role}/users): letters, digits, '.', '_' and '-'. */
const ROLE_NAME = /^[A-Za-z][A-Za-z0-9._-]*$/;
/** Priority of a new role when none is given: just above `user`. */
const DEFAULT_ROLE_PRIORITY = 15;

/** A role row, with the holder and permission counts when the query counted them. */
type RoleListRow = RoleRow & { user_count?: number; permission_count?: number };

function roleItem(ctx: HandlerContext, r: RoleListRow) {
  const names = ctx.db
    .prepare('SELECT user_id, username FROM users WHERE user_id IN (?, ?)')
    .all(r.created_by_user ?? -1, r.modified_by_user ?? -1) as Array<{
    user_id: number;
    username: string;
  }>;
  const nameOf = (id: number | null) => (id === null ? null : (names.find((n) => n.user_id === id)?.username ?? id));
  return {
    role_id: r.role_id,
    role_name: r.role_name,
    display_name: r.display_name,
    description: r.description,
    priority: r.priority,
    is_system_role: bool(r.is_system_role),
    is_active: bool(r.is_active),
    user_count: r.user_count ?? countHolders(ctx, r.role_name),
    permission_count:
      r.permission_count ??
      (ctx.db.prepare('SELECT COUNT(*) AS n FROM role_permissions WHERE role_name = ?').get(r.role_name) as { n: number }).n,
    permissions: (
      ctx.db
        .prepare('SELECT permission_name FROM role_permissions WHERE role_name = ? ORDER BY permission_name')
        .all(r.role_name) as Array<{ permission_name: string }>
    ).map((p) => p.permission_name),
    created_by_user: nameOf(r.created_by_user),
    created_date: r.created_date,
    modified_by_user: nameOf(r.modified_by_user),
    modified_date: r.modified_date,
  };
}

function countHolders(ctx: HandlerContext, role: string): number {
  return (
    ctx.db.prepare(`WITH ${HELD_ROLES_CTE} SELECT COUNT(DISTINCT user_id) AS n FROM held WHERE role_name = ? COLLATE NOCASE`).get(role) as {
      n: number;
    }
  ).n;
}

function mustGetRoleById(ctx: HandlerContext, id: number): RoleRow {
  const r = ctx.db.prepare('SELECT * FROM roles WHERE role_id = ?').get(id) as RoleRow | undefined;
  if (!r) throw new SandboxError(404, `role ${id} not found`, 'ROLE_NOT_FOUND');
  return r;
}

export const roleHandlers: HandlerTable = {
  'roles.list': (ctx) => {
    const { page, page_size } = ctx.query;
    const total = (ctx.db.prepare('SELECT COUNT(*) AS n FROM roles').get() as { n: number }).n;
    const { offset, total_pages } = paging(total, page, page_size);
    const rows = ctx.db
      .prepare(
        `WITH ${HELD_ROLES_CTE}
         SELECT r.*, (SELECT COUNT(DISTINCT h.user_id) FROM held h WHERE h.role_name = r.role_name COLLATE NOCASE) AS user_count,
                (SELECT COUNT(*) FROM role_permissions rp WHERE rp.role_name = r.role_name) AS permission_count
           FROM roles r ORDER BY r.priority DESC, r.role_id ASC LIMIT ? OFFSET ?`,
      )
      .all(page_size, offset) as RoleListRow[];
    return { data: { roles: rows.map((r) => roleItem(ctx, r)), current_page: page, page_size, total_pages, total_rows: total } };
  },

  'roles.create': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    if (!ROLE_NAME.test(b.role_name)) {
      throw new SandboxError(
        400,
        "role_name may hold letters, digits, '.', '_' and '-' and must start with a letter",
        'INVALID_ROLE_NAME',
        [{ field: 'role_name', message: 'invalid characters' }],
      );
    }
    const priority = b.priority ?? DEFAULT_ROLE_PRIORITY;
    if (me.role !== 'superadmin' && priority >= callerPriority(ctx.db, me)) {
      throw new SandboxError(403, 'you cannot create a role ranked at or above your own', 'FORBIDDEN');
    }
    const at = nowIso(ctx);
    const id = ctx.db.transaction(() => {
      if (getRoleByName(ctx.db, b.role_name))
        throw new SandboxError(409, `role '${b.role_name}' already exists`, 'ROLE_EXISTS', [
          { field: 'role_name', message: 'already exists' },
        ]);
      const r = ctx.db
        .prepare(
          `INSERT INTO roles (role_name, display_name, description, priority, is_system_role, is_active, created_by_user, created_date)
           VALUES (?, ?, ?, ?, 0, 1, ?, ?)`,
        )
        .run(b.role_name, b.display_name, b.description ?? null, priority, me.user_id, at);
      return Number(r.lastInsertRowid);
    })();
    ctx.audit('roles', 'create', { role_id: id, role_name: b.role_name, priority });
    const role = roleItem(ctx, mustGetRoleById(ctx, id));
    return { message: 'role created', data: { success: true, message: 'role created', ...role } };
  },

  'roles.update': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    const r = mustGetRoleById(ctx, ctx.params.role_id);
    const renaming = b.role_name !== undefined && b.role_name !== r.role_name;
    const reprioritising = b.priority !== undefined && b.priority !== r.priority;
    const toggling = b.is_active !== undefined && (b.is_active ? 1 : 0) !== r.is_active;
    if (r.is_system_role && (renaming || reprioritising || toggling)) {
      throw new SandboxError(409, 'a system role cannot be renamed, reprioritised or deactivated', 'SYSTEM_ROLE');
    }
    if (me.role !== 'superadmin') {
      const mine = callerPriority(ctx.db, me);
      if (r.priority >= mine || (b.priority ?? 0) >= mine)
        throw new SandboxError(403, 'you cannot change a role ranked at or above your own', 'FORBIDDEN');
    }
    if (renaming && !ROLE_NAME.test(b.role_name)) {
      throw new SandboxError(400, "role_name may hold letters, digits, '.', '_' and '-' and must start with a letter", 'INVALID_ROLE_NAME');
    }
    const at = nowIso(ctx);
    const changed: Record<string, unknown> = {};
    ctx.db.transaction(() => {
      if (renaming) {
        const other = getRoleByName(ctx.db, b.role_name);
        if (other && other.role_id !== r.role_id) throw new SandboxError(409, `role '${b.role_name}' already exists`, 'ROLE_EXISTS');
        ctx.db.prepare('UPDATE user_roles SET role_name = ? WHERE role_name = ?').run(b.role_name, r.role_name);
        ctx.db.prepare('UPDATE role_permissions SET role_name = ? WHERE role_name = ?').run(b.role_name, r.role_name);
        ctx.db.prepare('UPDATE users SET role = ? WHERE role = ? COLLATE NOCASE').run(b.role_name, r.role_name);
        changed.role_name = b.role_name;
      }
      for (const f of ['display_name', 'description', 'priority'] as const) {
        if (b[f] !== undefined && b[f] !== r[f]) changed[f] = b[f];
      }
      if (toggling) changed.is_active = b.is_active ? 1 : 0;
      ctx.db
        .prepare(
          `UPDATE roles SET role_name = ?, display_name = ?, description = ?, priority = ?, is_active = ?, modified_by_user = ?, modified_date = ?
            WHERE role_id = ?`,
        )
        .run(
          b.role_name ?? r.role_name,
          b.display_name ?? r.display_name,
          b.description !== undefined ? b.description : r.description,
          b.priority ?? r.priority,
          b.is_active === undefined ? r.is_active : b.is_active ? 1 : 0,
          me.user_id,
          at,
          r.role_id,
        );
      if (reprioritising) {
        const holders = ctx.db
          .prepare('SELECT DISTINCT user_id FROM user_roles WHERE role_name = ?')
          .all(b.role_name ?? r.role_name) as Array<{ user_id: number }>;
        for (const h of holders) recomputePrimary(ctx.db, h.user_id, at);
      }
    })();
    ctx.audit('roles', 'update', { role_id: r.role_id, role_name: r.role_name, changed });
    const role = roleItem(ctx, mustGetRoleById(ctx, r.role_id));
    return { message: 'role updated', data: { success: true, message: 'role updated', changed_fields: Object.keys(changed), ...role } };
  },

  'roles.delete': (ctx) => {
    const r = mustGetRoleById(ctx, ctx.params.role_id);
    if (r.is_system_role) throw new SandboxError(409, 'system role cannot be deleted', 'SYSTEM_ROLE');
    const me = caller(ctx);
    if (me.role !== 'superadmin' && r.priority >= callerPriority(ctx.db, me))
      throw new SandboxError(403, 'you cannot delete a role ranked at or above your own', 'FORBIDDEN');
    ctx.db.transaction(() => {
      const n = countHolders(ctx, r.role_name);
      if (n > 0) {
        const users = (
          ctx.db
            .prepare(
              `WITH ${HELD_ROLES_CTE} SELECT u.username FROM held h JOIN users u ON u.user_id = h.user_id WHERE h.role_name = ? COLLATE NOCASE ORDER BY u.username LIMIT 10`,
            )
            .all(r.role_name) as Array<{ username: string }>
        ).map((x) => x.username);
        throw new SandboxError(
          409,
          `role '${r.role_name}' is held by ${n} user${n === 1 ? '' : 's'}; remove it from them first`,
          'ROLE_IN_USE',
          undefined,
          { users, user_count: n },
        );
      }
      ctx.db.prepare('DELETE FROM role_permissions WHERE role_name = ?').run(r.role_name);
      ctx.db.prepare('DELETE FROM roles WHERE role_id = ?').run(r.role_id);
    })();
    ctx.audit('roles', 'delete', { role_id: r.role_id, role_name: r.role_name });
    return {
      message: 'role deleted',
      data: { success: true, message: `role '${r.role_name}' deleted`, role_id: r.role_id, role_name: r.role_name },
    };
  },

  'roles.members': (ctx) => {
    const r = getRoleByName(ctx.db, ctx.params.role);
    if (!r) throw new SandboxError(404, `role '${ctx.params.role}' not found`, 'ROLE_NOT_FOUND');
    const { page, limit } = ctx.query;
    const total = countHolders(ctx, r.role_name);
    const { offset, total_pages } = paging(total, page, limit);
    const rows = ctx.db
      .prepare(
        `WITH ${HELD_ROLES_CTE}
         SELECT u.user_id, u.username, u.email, u.full_name, u.status, u.created_date, u.last_login_date,
                ur.assigned_at, a.username AS assigned_by
           FROM (SELECT DISTINCT user_id FROM held WHERE role_name = ? COLLATE NOCASE) h
           JOIN users u ON u.user_id = h.user_id
           LEFT JOIN user_roles ur ON ur.user_id = u.user_id AND ur.role_name = ? COLLATE NOCASE
           LEFT JOIN users a ON a.user_id = ur.assigned_by
          ORDER BY COALESCE(ur.assigned_at, u.created_date) DESC, u.user_id DESC LIMIT ? OFFSET ?`,
      )
      .all(r.role_name, r.role_name, limit, offset) as Array<Record<string, unknown>>;
    return {
      data: {
        role: r.role_name,
        page,
        limit,
        total_count: total,
        total_pages,
        users: rows.map((u) => ({
          user_id: u.user_id,
          username: u.username,
          email: u.email,
          full_name: u.full_name,
          is_active: u.status === 'Active',
          status: u.status,
          assigned_at: u.assigned_at ?? u.created_date,
          assigned_by: u.assigned_by ?? null,
          created_at: u.created_date,
          last_login: u.last_login_date,
        })),
      },
    };
  },

  ...roleAssignmentHandlers,
};
