/** `auth login`, `auth logout` and `auth refresh`: a profile's sign-in, stored, revoked and renewed. */
import { Option, type Command } from 'commander';
import { endpointByName } from '../../api/contract/index.js';
import { BadResponseError, CliError, ExitCode, UsageError } from '../../api/errors.js';
import { oneLine } from '../../api/redact.js';
import { readName, readWhole } from '../../api/read-values.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { printObject } from '../../output/index.js';
import type { Group } from '../types.js';
import { out } from '../common.js';
import { readPassword, secretTrap, refuseArgvSecrets } from './secrets.js';
import { logoutRunToken, refreshRunToken, rememberTarget, requireNamedProfile, runToken, signedInElsewhere } from './session.js';

type Bind = Parameters<Group['build']>[1];

/** Signs in (the password from stdin or a masked prompt) and stores the token where it was issued. */
export function buildLogin(cmd: Command, bind: Bind): void {
  addGlobalOptions(
    cmd
      .command('login')
      .description('sign in and store the token in the profile (--cms: staff login with a device id and a session)')
      .addOption(new Option('--username <name>', 'account name (prompted on a terminal)'))
      .addOption(new Option('--password-stdin', 'read the password from standard input'))
      .addOption(new Option('--cms', 'staff login (/cms/auth/login) with the X-Device-ID header; stores the session id too'))
      .addOption(secretTrap('password'))
      .action((_o, c) => {
        const opts = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          refuseArgvSecrets(opts, 'password');
          const name = ctx.profileName();
          let username = opts.username as string | undefined;
          if (!username) {
            if (!ctx.interactive()) throw new UsageError('--username is required when not running interactively');
            username = (await ctx.promptLine('Username: ')).trim();
          }
          const password = await readPassword(ctx, opts);
          const cms = opts.cms === true;
          const wasActive = ctx.config().load().current_profile;
          if (cms) ctx.config().upsertProfile(name, { device_id: ctx.config().deviceId(name) });
          // Signing in needs no token: the embedded sandbox does not sign in as its admin first.
          const api = await ctx.api({ anonymous: true });
          const ep = endpointByName(cms ? 'cms.auth.login' : 'auth.login');
          const data = ((await api.call(ep, { body: { username, password } } as never, { signal: ctx.signal })) ?? {}) as Record<
            string,
            unknown
          >;
          const token = data.token as string | undefined;
          if (!token) {
            // Something was sent: not a usage error. A refusal in the server's words is "not
            // authenticated" (exit 3); an answer without a token or a reason is outside the contract.
            const why = data.error_message ?? data.message;
            if (typeof why === 'string' && why.trim())
              throw new CliError('unauthenticated', ExitCode.auth, `sign-in refused: ${oneLine(why)}`);
            throw new BadResponseError('sign-in refused: no token in the answer');
          }
          const signedInAt = ctx.target();
          const where = ctx.credentials().set(name, {
            token,
            // Where it was issued: it goes to no other address (context.ts).
            base_url: signedInAt ? (signedInAt.sandbox ? 'sandbox' : signedInAt.baseUrl) : undefined,
            session_id: cms ? (data.session_id as string | undefined) : undefined,
            // Another platform's `"7"` and `{ role_name }`: kept as the number and the name that
            // `auth logout` sends and `config list` and the console show (read-values.ts).
            user_id: readWhole(data.user_id),
            username: (data.username as string | undefined) ?? username,
            role: readName('role', data.role),
          });
          rememberTarget(ctx, name);
          ctx
            .config()
            .upsertProfile(name, { username: (data.username as string | undefined) ?? username, role: readName('role', data.role) });
          const nowActive = wasActive !== name && ctx.config().load().current_profile === name ? ' (now the active profile)' : '';
          ctx.note(
            `signed in as ${String(data.username ?? username)} (${readName('role', data.role) ?? 'unknown role'}) on profile '${name}'${nowActive}; token stored in ${where === 'keyring' ? 'the OS keyring' : ctx.paths().credentialsFile}`,
          );
          if (ctx.io.env.SUBCTL_TOKEN?.trim())
            ctx.warn('warning: SUBCTL_TOKEN is set, and commands go on using it rather than this sign-in; unset it to use this one');
          if (ctx.globals.output !== 'table') {
            const { token: _t, session_id: _s, ...visible } = data;
            await printObject(visible, out(ctx));
          }
        })(opts);
      }),
  );
}

/** Revokes the token on the server where it was issued, then forgets it. */
export function buildLogout(cmd: Command, bind: Bind): void {
  addGlobalOptions(
    cmd
      .command('logout')
      .description('revoke the token on the server and forget it')
      .action((_o, c) => {
        bind(async (ctx) => {
          requireNamedProfile(ctx);
          const run = runToken(ctx);
          if (run) return logoutRunToken(ctx, run);
          const name = ctx.profileName();
          // Revoked where it was issued, or not at all: sent elsewhere (--base-url naming another
          // platform), the token in the body would go to that address, and the profile would be
          // said to be signed out while the token stayed valid where it works.
          const { stored, withheldFrom } = ctx.usableSignIn();
          if (withheldFrom !== undefined) throw signedInElsewhere(ctx, name, 'auth logout', withheldFrom);
          if (!stored?.token) {
            ctx.note(`profile '${name}' is not signed in`);
            return 0;
          }
          const api = await ctx.api();
          try {
            if (stored.session_id) await api.call(endpointByName('cms.auth.logout'), { body: {} } as never, { signal: ctx.signal });
            else
              await api.call(
                endpointByName('auth.logout'),
                { body: { user_id: readWhole(stored.user_id), token: stored.token } } as never,
                {
                  signal: ctx.signal,
                },
              );
          } catch (e) {
            ctx.credentials().delete(name);
            // The server no longer takes the token (it expired, or was revoked): that is signed out.
            if (e instanceof CliError && e.status === 401) {
              ctx.note(`signed out of profile '${name}' (the server no longer accepted the token: it had expired or been revoked)`);
              return 0;
            }
            if (e instanceof CliError)
              e.done = `the token is forgotten on this machine (profile '${name}' is signed out here), but the server did not revoke it: it stays valid until it expires`;
            throw e;
          }
          ctx.credentials().delete(name);
          ctx.note(`signed out of profile '${name}'`);
        })(c.optsWithGlobals());
      }),
  );
}

/** Exchanges the stored token for a new one. */
export function buildRefresh(cmd: Command, bind: Bind): void {
  addGlobalOptions(
    cmd
      .command('refresh')
      .description('exchange the stored token for a new one')
      .action((_o, c) => {
        bind(async (ctx) => {
          requireNamedProfile(ctx);
          const run = runToken(ctx);
          if (run) return refreshRunToken(ctx, run);
          const name = ctx.profileName();
          const { stored, withheldFrom } = ctx.usableSignIn();
          if (withheldFrom !== undefined) throw signedInElsewhere(ctx, name, 'auth refresh', withheldFrom);
          // Not signed in: "not authenticated", exit 3, as any command of a signed-out profile.
          if (!stored?.token)
            throw new CliError('unauthenticated', ExitCode.auth, `profile '${name}' is not signed in`, {
              hint: `subctl auth login --profile ${name}`,
            });
          const api = await ctx.api();
          const data = ((await api.call(endpointByName('auth.refresh'), { body: { token: stored.token } } as never, {
            signal: ctx.signal,
          })) ?? {}) as Record<string, unknown>;
          // Storing no token would sign the profile out without a word.
          if (typeof data.token !== 'string' || !data.token)
            throw new BadResponseError('the answer to the token refresh holds no token; the stored token is kept');
          const expiresIn = data.expires_in as number | undefined;
          ctx.credentials().set(name, {
            ...stored,
            token: data.token as string,
            expires_at: expiresIn ? new Date(ctx.now().getTime() + expiresIn * 1000).toISOString() : undefined,
          });
          ctx.note(`token refreshed for profile '${name}'${expiresIn ? `; valid ${Math.round(expiresIn / 60)} min` : ''}`);
          // Asked for as data (-o json ...), the answer: without its token, which is stored.
          if (ctx.globals.outputExplicit) {
            const { printObject } = await import('../../output/index.js');
            await printObject(
              {
                profile: name,
                expires_in: expiresIn ?? null,
                expires_at: expiresIn ? new Date(ctx.now().getTime() + expiresIn * 1000).toISOString() : null,
              },
              out(ctx),
            );
          }
        })(c.optsWithGlobals());
      }),
  );
}
