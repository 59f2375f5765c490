/**
 * Role assignments: the roles users hold (/cms/users/roles, /cms/users/{user_id}/role) and
 * changing them (assign, promote, demote, remove), under the rank rule. Roles themselves:
 * user-roles.ts.
 */
import { SandboxError, type HandlerContext, type HandlerTable } from '../types.js';
import {
  bool,
  caller,
  getRoleByName,
  guardRank,
  heldRoles,
  likeAny,
  mustGetUser,
  nowIso,
  paging,
  permissionsOf,
  priorityOf,
  setRoles,
  type RoleRow,
  type UserRow,
} from './user-common.js';

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

export const roleAssignmentHandlers: HandlerTable = {
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
