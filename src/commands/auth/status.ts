/** `auth status`: the profile, where requests go, who is signed in, and whether the server accepts the token. */
import { Option, type Command } from 'commander';
import { endpointByName } from '../../api/contract/index.js';
import { BadResponseError, CliError, ExitCode } from '../../api/errors.js';
import { readBoolean, readLabel } from '../../api/read-values.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { printObject } from '../../output/index.js';
import type { Group } from '../types.js';
import { out } from '../common.js';

type Bind = Parameters<Group['build']>[1];

const TOKEN_FROM: Record<string, string> = { env: 'in SUBCTL_TOKEN', 'token-file': 'of --token-file' };

export function buildStatus(cmd: Command, bind: Bind): void {
  addGlobalOptions(
    cmd
      .command('status')
      .description('profile, base address, signed-in user and role, where the credential lives')
      .addOption(new Option('--ip-address <ip>', 'the client address to check the session for (sent to /auth/validate-session)'))
      .addOption(new Option('--user-agent <text>', 'the user agent to check the session for (sent to /auth/validate-session)'))
      .action((_o, c) => {
        bind(async (ctx) => {
          const name = ctx.profileName();
          const profile = ctx.profile();
          // The stored sign-in only where it may go: issued for another platform, it is said so
          // and not sent (its token went in the body of validate-session to any address).
          const { stored, withheldFrom } = ctx.usableSignIn();
          const { resolveToken } = await import('../../config/credentials.js');
          const tok = resolveToken(ctx.io.env, ctx.globals.tokenFile, stored);
          const api = await ctx.api();
          const target = ctx.target()!;
          // No credential on the embedded sandbox: it signed in as its seeded admin.
          const token = tok.token ?? target.sandboxAdminToken;
          const status: Record<string, unknown> = {
            profile: name,
            base_url: target.sandbox ? 'SANDBOX' : target.baseUrl,
            username: stored?.username ?? profile?.username ?? null,
            role: stored?.role ?? profile?.role ?? null,
            token_source: tok.token ? tok.source : token ? 'sandbox' : 'none',
            credential: stored ? ctx.credentials().where(name) : null,
            session: stored?.session_id ? 'yes (cms)' : 'no',
            ...(withheldFrom !== undefined
              ? { signed_in_to: withheldFrom, note: `the profile's sign-in was issued for ${withheldFrom}: its token is not sent here` }
              : {}),
          };
          if (token) {
            // The optional fields of validate-session, as given (the specification's ip_address, user_agent).
            const opts = c.opts() as { ipAddress?: string; userAgent?: string };
            const body = {
              token,
              ...(opts.ipAddress !== undefined ? { ip_address: opts.ipAddress } : {}),
              ...(opts.userAgent !== undefined ? { user_agent: opts.userAgent } : {}),
            };
            const answer = await api.callFull(endpointByName('auth.validate-session'), { body } as never, { signal: ctx.signal });
            // No answer at all (a gateway dropped it) says nothing of the token: not "valid: (blank)", exit 0.
            if (answer.envelope === undefined)
              throw new BadResponseError(
                `the answer of POST /auth/validate-session (HTTP ${answer.status}) was empty; the token was not checked`,
                {
                  status: answer.status,
                },
              );
            const v = (answer.data ?? {}) as Record<string, unknown>;
            status.valid = v.valid ?? null;
            if (v.username) status.username = v.username;
            // A role written as an object ({ role_name }) is shown by its name, as the sign-in stored it.
            if (v.role) status.role = readLabel(v.role, ['role_name', 'name']) ?? v.role;
          } else status.valid = false;
          await printObject(status, out(ctx));
          // Exit 3 says it to a script; the reason goes to stderr, so that cron's mail says it too.
          // As the platform wrote it (`false`, `0`, `"false"`): shown as received, read as a boolean.
          if (readBoolean(status.valid) === false)
            throw new CliError(
              'auth',
              ExitCode.auth,
              token
                ? `the platform does not accept the token ${TOKEN_FROM[String(status.token_source)] ?? `of profile '${name}'`}`
                : `not signed in: profile '${name}' has no token`,
              { hint: 'sign in with `subctl auth login` (or set SUBCTL_TOKEN), then run the command again' },
            );
          return 0;
        })(c.optsWithGlobals());
      }),
  );
}
