/**
 * `subctl users`: user accounts (/users*, the API documents' user, auth and CMS area, "Users") and the
 * superadmin views (/cms/superadmin/users, /cms/superadmin/auth/change-password).
 * Passwords come from --password-stdin or a masked prompt, never from argv.
 */
import { cmsSuperadminChangePassword } from '../../api/contract/user-auth.js';
import {
  rolesAssignments,
  usersCreate,
  usersDelete,
  usersGet,
  usersList,
  usersSearch,
  usersUpdate,
} from '../../api/contract/user-accounts.js';
import { CliError, UsageError } from '../../api/errors.js';
import type { ApiClient } from '../../api/client.js';
import { listAll, settleCreate } from '../../bulk/create-state.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printObject } from '../../output/index.js';
import { USER_COLUMNS, USER_SEARCH_COLUMNS } from '../../resources/columns.js';
import { userDetail } from '../../resources/users.js';
import { out, printSummary } from '../common.js';
import { argvSecretTraps, checkSecrets, passwordStdinOption, precheck, readNewPassword, refuseArgvSecrets } from '../auth/secrets.js';
import type { Group } from '../types.js';
import { userArg } from './lookup.js';
import { showVerb } from './show.js';

/** A path id that must be a whole number: checked here so that the body's copy of it is never a guess. */
export function wholeId(value: unknown, name = 'id'): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new UsageError(`invalid input: ${name} must be a whole number, got '${String(value)}'`);
}

export { userDetail };

/**
 * The accounts a search for `username` finds, every page: the staff search (`roles
 * assignments --search`), else the superadmin one when the staff search is refused (403), as
 * resources/users.ts looks users up. The search may match in other fields or by part: the
 * settle stage picks the exact username.
 */
async function* searchUsername(api: ApiClient, body: Record<string, unknown>, signal: AbortSignal) {
  let seen = false;
  try {
    for await (const u of listAll(rolesAssignments, (b) => ({ search: b.username }))(api, body, signal)) {
      seen = true;
      yield u;
    }
  } catch (e) {
    if (seen || !(e instanceof CliError && e.status === 403)) throw e;
    yield* listAll(usersSearch, (b) => ({ search_keyword: b.username }))(api, body, signal);
  }
}

/** A user's role as one name: `role` as text or as an object with `role_name` (platforms write both). */
const roleName = (role: unknown) =>
  role && typeof role === 'object' && 'role_name' in role ? (role as { role_name: unknown }).role_name : role;

export const usersGroup: Group = {
  name: 'users',
  // A table of verbs: read whole.
  build: (cmd, bind) => {
    // The confirmation of `users delete` names the account, looked up on a terminal.
    let deleting: string | undefined;
    verbsBuilder(() => [
      {
        name: 'list',
        examples: ['subctl users list --role admin --status Active', 'subctl users list --all --fields user_id,username,email -o csv'],
        endpoint: usersList,
        columns: USER_COLUMNS,
        aliases: ['ls'],
      },
      showVerb,
      {
        name: 'get',
        examples: ['subctl users get 17', 'subctl users get 17 -o json'],
        endpoint: usersGet,
        args: ['id'],
        names: ['id'],
        prepare: userArg('id'),
        render: async (data: Record<string, unknown>, ctx) => {
          // Scripts get the answer as the server sent it; a table shows one flat record.
          if (ctx.globals.output !== 'table') return printObject(data, out(ctx));
          const flat = userDetail(data);
          const first = Object.fromEntries(USER_COLUMNS.filter((k) => k in flat).map((k) => [k, flat[k]]));
          await printObject({ ...first, ...flat }, out(ctx));
        },
      },
      {
        name: 'create',
        examples: [
          'subctl users create --username jdoe --email jdoe@example.com --role support --password-stdin < jdoe.pw',
          'subctl users create --from-csv new-staff.csv --dry-run',
        ],
        endpoint: usersCreate,
        summary: 'create a user account (201); password from a masked prompt or --password-stdin (bulk: a password column)',
        // A bulk create whose answer was lost is settled by finding its username (never by its password).
        bulk: {
          settle: settleCreate({
            keys: ['username'],
            find: searchUsername,
            compare: ['email', 'full_name', 'role', 'chatgpt_user_id'],
            view: (u) => ({ ...u, role: roleName(u.role) }),
            idOf: (u) => u.user_id,
          }),
        },
        hide: ['password'],
        extraOptions: [passwordStdinOption(), ...argvSecretTraps('password')],
        prepare: async (input, ctx, opts) => {
          refuseArgvSecrets(opts, 'password');
          // Bulk input (--from-csv/--from-ndjson) carries each row's password in the file.
          if (opts.fromCsv !== undefined || opts.fromNdjson !== undefined) {
            if (input.body.password === undefined)
              throw new UsageError('bulk users create needs a password column (passwords never travel in argv)');
            return;
          }
          await precheck(usersCreate, input, { password: 'password' });
          input.body.password = await readNewPassword(ctx, opts, 'Password');
          await checkSecrets(usersCreate, input, { password: 'password' });
        },
      },
      {
        name: 'update',
        examples: ['subctl users update 17 --status Inactive', 'subctl users update 17 --full-name "Siobhan Anderson" --role support'],
        endpoint: usersUpdate,
        args: ['id'],
        hide: ['user_id'],
        // The API wants user_id in the body as well: it is the path id.
        names: ['id'],
        prepare: userArg('id', (input) => {
          input.body.user_id = wholeId(input.params.id);
        }),
      },
      {
        name: 'delete',
        examples: ['subctl users delete 17 --yes', 'subctl users delete 17 --dry-run'],
        endpoint: usersDelete,
        args: ['id'],
        destructive: true,
        names: ['id'],
        prepare: userArg('id'),
        override: async (input, ctx) => {
          // On a terminal, name the account in the question (a 404 ends here, nothing deleted).
          if (ctx.interactive() && !ctx.globals.yes) {
            const api = await ctx.api();
            const u = userDetail(
              (await api.call(usersGet, { params: { id: input.params.id } } as never, { signal: ctx.signal })) as Record<string, unknown>,
            );
            deleting = `delete user ${String(input.params.id)} (${[u.username, u.email, u.role].filter(Boolean).join(', ')}) and everything of theirs`;
          }
          return undefined;
        },
        describe: (i: VerbInput) => deleting ?? `delete user ${String(i.params.id)} and everything of theirs`,
      },
      {
        name: 'search',
        examples: [
          'subctl users search --search-keyword anderson --status Active',
          'subctl users search --last-login-days 90 --sort-by last_login_date -o csv',
        ],
        endpoint: usersSearch,
        summary: 'superadmin: every user with activity and referrals, filtered and sorted; statistics after the rows',
        columns: USER_SEARCH_COLUMNS,
        extras: (data, ctx) => printSummary(ctx, 'Statistics', data.statistics),
      },
      {
        name: 'set-password',
        examples: ['subctl users set-password 17', 'subctl users set-password 17 --password-stdin < new-password.txt'],
        endpoint: cmsSuperadminChangePassword,
        summary: "superadmin: set a user's password (signs them out everywhere); new password from a masked prompt or --password-stdin",
        args: ['user_id'],
        hide: ['new_password'],
        bulk: false,
        extraOptions: [passwordStdinOption('the new password'), ...argvSecretTraps('password', 'new-password')],
        names: ['user_id'],
        prepare: userArg('user_id', async (input, ctx, opts) => {
          refuseArgvSecrets(opts, 'password', 'new-password');
          const secrets = { new_password: 'new password' };
          await precheck(cmsSuperadminChangePassword, input, secrets);
          input.body.new_password = await readNewPassword(ctx, opts);
          await checkSecrets(cmsSuperadminChangePassword, input, secrets);
        }),
      },
    ])(cmd, bind);
  },
};
