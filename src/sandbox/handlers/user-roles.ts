/**
 * Role handlers: /cms/roles (list, create, update, delete, members) and the role assignments
 * of users (/cms/users/roles, /cms/users/{user_id}/role, assign, promote, demote, remove).
 */
import { SandboxError, type HandlerContext, type HandlerTable } from '../types.js';
import {
  bool,
  caller,
  callerPriority,
  getRoleByName,
  guardRank,
  heldRoles,
  HELD_ROLES_CTE,
  likeAny,
  mustGetUser,
  nowIso,
  paging,
  permissionsOf,
  priorityOf,
  recomputePrimary,
  setRoles,
  type RoleRow,
  type UserRow,
} from './user-common.js';

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

function assignableRole(ctx: HandlerContext, name: string): RoleRow {
  const r = getRoleByName(ctx.db, name);
  if (!r)
    throw new SandboxError(400, `unknown role '${name}'`, 'UNKNOWN_ROLE', [{ field: 'new_roles', message: `unknown role '${name}'` }]);
  if (!r.is_active)
    throw new SandboxError(400, `role '${r.role_name}' is not active`, 'ROLE_INACTIVE', [
      { field: 'new_roles', message: `inactive role '${name}'` },
    ]);
  return r;
}

/**
 * Who may change whose roles: nobody their own (400); otherwise the rank rule (`guardRank`): a
 * superadmin anyone's; anyone else only a user ranked below them, and only to roles ranked
 * below them (403).
 */
function guardChange(ctx: HandlerContext, target: UserRow, grant: RoleRow[]) {
  if (target.user_id === caller(ctx).user_id) throw new SandboxError(400, 'you cannot change your own roles', 'SELF_ROLE_CHANGE');
  guardRank(ctx, target, grant, 'change the roles of');
}

/** Active system roles, lowest priority first: the promote/demote ladder. */
function ladder(ctx: HandlerContext): RoleRow[] {
  return ctx.db.prepare('SELECT * FROM roles WHERE is_system_role = 1 AND is_active = 1 ORDER BY priority ASC').all() as RoleRow[];
}

function roleChangeResult(ctx: HandlerContext, target: UserRow, before: string[], action: string, message: string) {
  const after = heldRoles(ctx.db, target.user_id);
  const primary = after[0]?.role_name ?? 'user';
  ctx.audit('roles', action, {
    user_id: target.user_id,
    username: target.username,
    previous_roles: before,
    current_roles: after.map((r) => r.role_name),
    primary_role: primary,
    reason: ctx.body.reason ?? null,
    notes: ctx.body.notes ?? null,
  });
  return {
    message,
    data: {
      success: true,
      message,
      user_id: target.user_id,
      username: target.username,
      previous_role: target.role,
      previous_roles: before,
      new_role: primary,
      primary_role: primary,
      current_roles: after.map((r) => r.role_name),
      role_level: after[0]?.priority ?? 0,
      reason: ctx.body.reason ?? null,
      notes: ctx.body.notes ?? null,
    },
  };
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

  'roles.assignments': (ctx) => {
    const { page, limit, search, role_filter } = ctx.query;
    const where: string[] = [];
    const args: unknown[] = [];
    if (search) {
      where.push("(u.username LIKE ? ESCAPE '\\' OR u.email LIKE ? ESCAPE '\\' OR u.full_name LIKE ? ESCAPE '\\')");
      const p = likeAny(search);
      args.push(p, p, p);
    }
    if (role_filter) {
      where.push('(u.role = ? COLLATE NOCASE OR EXISTS (SELECT 1 FROM user_roles ur WHERE ur.user_id = u.user_id AND ur.role_name = ?))');
      args.push(role_filter, role_filter);
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM users u ${w}`).get(...args) as { n: number }).n;
    const { offset, total_pages } = paging(total, page, limit);
    const rows = ctx.db
      .prepare(
        `SELECT u.*, COALESCE(r.priority, 0) AS role_level, ur.assigned_at, a.username AS assigned_by
           FROM users u LEFT JOIN roles r ON r.role_name = u.role
           LEFT JOIN user_roles ur ON ur.user_id = u.user_id AND ur.role_name = u.role COLLATE NOCASE
           LEFT JOIN users a ON a.user_id = ur.assigned_by
           ${w}
          ORDER BY role_level DESC, u.username ASC LIMIT ? OFFSET ?`,
      )
      .all(...args, limit, offset) as Array<UserRow & Record<string, unknown>>;
    const s = ctx.db
      .prepare(
        `SELECT COUNT(*) AS total_users,
                COALESCE(SUM(role = 'superadmin'), 0) AS super_admins, COALESCE(SUM(role = 'admin'), 0) AS admins,
                COALESCE(SUM(role = 'manager'), 0) AS managers, COALESCE(SUM(role = 'support'), 0) AS support,
                COALESCE(SUM(role = 'agent'), 0) AS agents, COALESCE(SUM(role = 'user'), 0) AS users,
                -- Users whose role is one made by an administrator: so that the buckets add up to total_users.
                COALESCE(SUM(role NOT IN ('superadmin', 'admin', 'manager', 'support', 'agent', 'user')), 0) AS other_roles,
                COALESCE(SUM(NOT EXISTS (SELECT 1 FROM user_roles ur WHERE ur.user_id = users.user_id)
                             OR NOT EXISTS (SELECT 1 FROM roles r WHERE r.role_name = users.role)), 0) AS unassigned_role
           FROM users`,
      )
      .get();
    return {
      data: {
        users: rows.map((u) => ({
          user_id: u.user_id,
          username: u.username,
          email: u.email,
          full_name: u.full_name,
          role: u.role,
          role_level: u.role_level,
          roles: heldRoles(ctx.db, u.user_id).map((h) => h.role_name),
          permissions: permissionsOf(ctx.db, u.user_id),
          is_active: u.status === 'Active',
          status: u.status,
          assigned_at: u.assigned_at ?? u.created_date,
          assigned_by: u.assigned_by ?? null,
          created_at: u.created_date,
          last_login: u.last_login_date,
        })),
        summary: s,
        page,
        limit,
        total_count: total,
        total_pages,
      },
    };
  },

  'roles.of': (ctx) => {
    const u = mustGetUser(ctx.db, ctx.params.user_id);
    const held = heldRoles(ctx.db, u.user_id);
    const all = ctx.db.prepare('SELECT * FROM roles WHERE is_active = 1 ORDER BY priority DESC, role_id').all() as RoleRow[];
    const heldNames = new Set(held.map((h) => h.role_name.toLowerCase()));
    return {
      data: {
        user_id: u.user_id,
        username: u.username,
        email: u.email,
        full_name: u.full_name,
        primary_role: u.role,
        role_level: priorityOf(ctx.db, u.role),
        current_roles: held.map((h) => h.role_name),
        all_available_roles: all.map((r) => ({
          role_name: r.role_name,
          display_name: r.display_name,
          description: r.description,
          role_level: r.priority,
          is_system_role: bool(r.is_system_role),
          is_assigned: heldNames.has(r.role_name.toLowerCase()),
        })),
        permissions: permissionsOf(ctx.db, u.user_id),
      },
    };
  },

  'roles.assign': (ctx) => {
    const me = caller(ctx);
    const u = mustGetUser(ctx.db, ctx.params.user_id);
    const names: string[] = ctx.body.new_roles?.length ? ctx.body.new_roles : [ctx.body.new_role];
    const unknown = names.filter((n) => !getRoleByName(ctx.db, n));
    if (unknown.length) {
      throw new SandboxError(
        400,
        `unknown role${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
        'UNKNOWN_ROLE',
        unknown.map((n) => ({ field: 'new_roles', message: `unknown role '${n}'` })),
      );
    }
    const roles = names.map((n) => assignableRole(ctx, n));
    guardChange(ctx, u, roles);
    const before = heldRoles(ctx.db, u.user_id).map((h) => h.role_name);
    ctx.db.transaction(() =>
      setRoles(
        ctx.db,
        u.user_id,
        roles.map((r) => r.role_name),
        me.user_id,
        nowIso(ctx),
      ),
    )();
    return roleChangeResult(ctx, u, before, 'assign', `roles of ${u.username} set to ${roles.map((r) => r.role_name).join(', ')}`);
  },

  'roles.promote': (ctx) => {
    const me = caller(ctx);
    const u = mustGetUser(ctx.db, ctx.params.user_id);
    const cur = priorityOf(ctx.db, u.role);
    let next: RoleRow | undefined;
    if (ctx.body.new_role) {
      next = assignableRole(ctx, ctx.body.new_role);
      if (next.priority <= cur) throw new SandboxError(400, `'${next.role_name}' does not rank above '${u.role}'`, 'NOT_A_PROMOTION');
    } else {
      next = ladder(ctx).find((r) => r.priority > cur);
      if (!next) throw new SandboxError(400, `${u.username} already holds the highest role`, 'ALREADY_HIGHEST');
    }
    guardChange(ctx, u, [next]);
    const before = heldRoles(ctx.db, u.user_id);
    const target = next;
    ctx.db.transaction(() => {
      const keep = before.filter((h) => h.role_name.toLowerCase() !== u.role.toLowerCase()).map((h) => h.role_name);
      setRoles(ctx.db, u.user_id, [target.role_name, ...keep], me.user_id, nowIso(ctx));
    })();
    return roleChangeResult(
      ctx,
      u,
      before.map((h) => h.role_name),
      'promote',
      `${u.username} promoted from ${u.role} to ${target.role_name}`,
    );
  },

  'roles.demote': (ctx) => {
    const me = caller(ctx);
    const u = mustGetUser(ctx.db, ctx.params.user_id);
    const cur = priorityOf(ctx.db, u.role);
    let next: RoleRow | undefined;
    if (ctx.body.new_role) {
      next = assignableRole(ctx, ctx.body.new_role);
      if (next.priority >= cur) throw new SandboxError(400, `'${next.role_name}' does not rank below '${u.role}'`, 'NOT_A_DEMOTION');
    } else {
      next = [...ladder(ctx)].reverse().find((r) => r.priority < cur);
      if (!next) throw new SandboxError(400, `${u.username} already holds the lowest role`, 'ALREADY_LOWEST');
    }
    guardChange(ctx, u, [next]);
    const before = heldRoles(ctx.db, u.user_id);
    const target = next;
    ctx.db.transaction(() => {
      const keep = before.filter((h) => h.priority < target.priority).map((h) => h.role_name);
      setRoles(ctx.db, u.user_id, [target.role_name, ...keep], me.user_id, nowIso(ctx));
    })();
    return roleChangeResult(
      ctx,
      u,
      before.map((h) => h.role_name),
      'demote',
      `${u.username} demoted from ${u.role} to ${target.role_name}`,
    );
  },

  'roles.remove': (ctx) => {
    const me = caller(ctx);
    const u = mustGetUser(ctx.db, ctx.params.user_id);
    guardChange(ctx, u, []);
    const before = heldRoles(ctx.db, u.user_id).map((h) => h.role_name);
    ctx.db.transaction(() => setRoles(ctx.db, u.user_id, ['user'], me.user_id, nowIso(ctx)))();
    return roleChangeResult(ctx, u, before, 'remove', `roles of ${u.username} removed; back to user`);
  },
};
