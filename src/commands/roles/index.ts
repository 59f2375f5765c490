/**
 * `subctl roles`: roles (/cms/roles*) and who holds them (/cms/users/roles,
 * /cms/users/{user_id}/role and its assign, promote, demote, remove actions).
 */
import {
  rolesAssign,
  rolesAssignments,
  rolesCreate,
  rolesDelete,
  rolesDemote,
  rolesList,
  rolesMembers,
  rolesOf,
  rolesPromote,
  rolesRemove,
  rolesUpdate,
} from '../../api/contract/user-accounts.js';
import { HttpError, UsageError } from '../../api/errors.js';
import { listAll, settleCreate } from '../../bulk/create-state.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printObject } from '../../output/index.js';
import { ROLE_ASSIGNMENT_COLUMNS, ROLE_COLUMNS, ROLE_MEMBER_COLUMNS } from '../../resources/columns.js';
import { userArg } from '../users/lookup.js';
import { out, printSummary, section } from '../common.js';
import type { Group } from '../types.js';

/**
 * A 409 on `roles delete` explained: the server's message stays the error; the users holding
 * the role (error.users, error.user_count when the server lists them) and the way out go in the hint.
 */
export function explainRoleConflict(e: unknown, roleId: unknown): unknown {
  if (!(e instanceof HttpError) || e.status !== 409) return e;
  const d = (e.details ?? {}) as { users?: unknown; user_count?: unknown; code?: unknown };
  const users = Array.isArray(d.users)
    ? d.users.map((u) => (u && typeof u === 'object' ? String((u as Record<string, unknown>).username ?? JSON.stringify(u)) : String(u)))
    : [];
  const count = typeof d.user_count === 'number' ? d.user_count : users.length;
  if (users.length) {
    const more = count > users.length ? ` and ${count - users.length} more` : '';
    e.hint =
      `held by ${count} user${count === 1 ? '' : 's'}: ${users.join(', ')}${more}\n` +
      `take the role from them first (\`subctl roles assign <user_id> --new-roles ...\` or \`subctl roles remove <user_id>\`); \`subctl roles members <role_name>\` lists every holder`;
  } else if (d.code === 'SYSTEM_ROLE' || /system role/i.test(e.message)) {
    e.hint = `role ${String(roleId)} is a system role (superadmin, admin, manager, support, agent, user): it cannot be deleted`;
  }
  return e;
}

export const rolesGroup: Group = {
  name: 'roles',
  // A table of verbs: read whole.
  build: verbsBuilder(() => [
    {
      name: 'list',
      examples: ['subctl roles list', 'subctl roles list -o json'],
      endpoint: rolesList,
      columns: ROLE_COLUMNS,
      aliases: ['ls'],
    },
    {
      name: 'create',
      examples: ['subctl roles create --role-name agent --display-name "Support agent" --priority 10'],
      endpoint: rolesCreate,
      // A bulk create whose answer was lost is settled by finding its name among the roles (the
      // list has no filter: every page is read; roles are few).
      bulk: {
        settle: settleCreate({
          keys: ['role_name'],
          find: listAll(rolesList),
          compare: ['display_name', 'description', 'priority'],
          idOf: (item) => item.role_id,
        }),
      },
    },
    { name: 'update', examples: ['subctl roles update 5 --display-name "Senior agent"'], endpoint: rolesUpdate, args: ['role_id'] },
    {
      name: 'delete',
      examples: ['subctl roles delete 5 --yes'],
      endpoint: rolesDelete,
      args: ['role_id'],
      // The override asks and sends itself (to explain a 409); destructive/describe still serve bulk runs.
      destructive: true,
      describe: (i: VerbInput) => `delete role ${String(i.params.role_id)}`,
      override: async (input, ctx) => {
        const api = await ctx.api();
        await ctx.confirm(`delete role ${String(input.params.role_id)}`);
        try {
          const res = await api.callFull(rolesDelete, { params: input.params } as never, { signal: ctx.signal });
          const data = res.data === null || res.data === undefined ? { message: res.message ?? 'role deleted' } : res.data;
          await printObject(data, out(ctx));
          return 0;
        } catch (e) {
          throw explainRoleConflict(e, input.params.role_id);
        }
      },
    },
    {
      name: 'members',
      examples: ['subctl roles members admin', 'subctl roles members support --all -o csv'],
      endpoint: rolesMembers,
      args: ['role'],
      columns: ROLE_MEMBER_COLUMNS,
      summary: 'the users holding a role (by name), paged',
    },
    {
      name: 'assignments',
      examples: ['subctl roles assignments --role-filter admin', 'subctl roles assignments --search anderson'],
      endpoint: rolesAssignments,
      columns: ROLE_ASSIGNMENT_COLUMNS,
      summary: 'users with their roles (--search, --role-filter); the count per role after the rows',
      extras: (data, ctx) => printSummary(ctx, 'Summary', data.summary),
    },
    {
      name: 'of',
      examples: ['subctl roles of 17'],
      endpoint: rolesOf,
      args: ['user_id'],
      names: ['user_id'],
      prepare: userArg('user_id'),
      summary: "one user's roles, level and permissions, and the roles available to them",
      render: async (data: Record<string, unknown>, ctx) => {
        if (ctx.globals.output !== 'table' || !data || typeof data !== 'object') return printObject(data, out(ctx));
        const { all_available_roles: available, ...rest } = data;
        await printObject(rest, out(ctx));
        if (available !== undefined)
          await section(ctx, 'Available roles', available, ['role_name', 'role_level', 'is_assigned', 'description']);
      },
    },
    {
      name: 'assign',
      examples: ['subctl roles assign 17 --new-roles support,agent --reason "rota"'],
      endpoint: rolesAssign,
      args: ['user_id'],
      summary:
        "set a user's roles: --new-roles a,b (replaces the roles held; --new-role is the legacy single form) with --reason and --notes",
      // Both forms with other roles: which one was meant is not the tool's to guess (the
      // sandbox takes --new-roles and drops --new-role without a word).
      names: ['user_id'],
      prepare: userArg('user_id', (i) => {
        const many = i.body.new_roles as string[] | undefined;
        const one = i.body.new_role as string | undefined;
        if (many !== undefined && one !== undefined && !(many.length === 1 && many[0] === one)) {
          throw new UsageError(`--new-role ${one} and --new-roles ${many.join(',')} name different roles: give one of them`);
        }
      }),
    },
    {
      name: 'promote',
      examples: ['subctl roles promote 17 --new-role admin --reason "team lead"'],
      endpoint: rolesPromote,
      args: ['user_id'],
      names: ['user_id'],
      prepare: userArg('user_id'),
      summary: 'promote a user to the next role up (or to --new-role)',
    },
    {
      name: 'demote',
      examples: ['subctl roles demote 17 --new-role user --reason "left the team"'],
      endpoint: rolesDemote,
      args: ['user_id'],
      names: ['user_id'],
      prepare: userArg('user_id'),
      summary: 'demote a user to the next role down (or to --new-role)',
    },
    {
      name: 'remove',
      examples: ['subctl roles remove 17 --reason "account review" --yes'],
      endpoint: rolesRemove,
      args: ['user_id'],
      names: ['user_id'],
      prepare: userArg('user_id'),
      summary: "remove a user's roles: they are left with the role user",
      destructive: true,
      describe: (i: VerbInput) => `remove every role of user ${String(i.params.user_id)} (back to the role user)`,
    },
  ]),
};
