/**
 * `subctl auth`: sign in and out. Passwords come from a masked prompt on a terminal or from
 * stdin with --password-stdin, never from argv. Tokens are stored per profile (OS keyring, or a
 * 0600 file when no keyring answers).
 */
import { Option, type Command } from 'commander';
import { endpointByName } from '../../api/contract/index.js';
import type { AnyEndpoint } from '../../api/contract/common.js';
import { flagName } from '../../api/contract/common.js';
import {
  authChangePassword,
  authForgotPassword,
  authResetPassword,
  cmsAuthChangePassword,
  cmsAuthRegister,
  cmsAuthRequestReset,
  cmsAuthResetPasswordToken,
  cmsVerificationGenerate,
  cmsVerificationVerify,
} from '../../api/contract/user-auth.js';
import { BadResponseError, CliError, ExitCode, UsageError, ValidationError } from '../../api/errors.js';
import { oneLine } from '../../api/redact.js';
import { readNumber } from '../../api/read-values.js';
import { resolveToken } from '../../config/credentials.js';
import type { Ctx } from '../../cli/context.js';
import { noSuchProfile } from '../../cli/target.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { buildVerb, convertValue, reaches } from '../../cli/verbs.js';
import { printObject } from '../../output/index.js';
import type { Action } from '../../cli/run.js';
import type { Group } from '../types.js';
import { out } from '../common.js';

/** Reads lines from stdin (for --password-stdin): the first `n` lines, without their newlines. */
export async function readStdinLines(ctx: Ctx, n: number, flag: string): Promise<string[]> {
  if (ctx.io.stdinIsTTY) throw new UsageError(`${flag} reads from a pipe: printf '%s\\n' "$PASSWORD" | subctl ... ${flag}`);
  const chunks: Buffer[] = [];
  for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
  const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  const got = lines.slice(0, n);
  if (got.length < n || got.some((l) => l === '')) {
    throw new UsageError(
      `${flag} expects ${n === 1 ? 'the password on the first line' : `${n} lines (old and new password)`} of standard input`,
    );
  }
  return got;
}

/** A password from --password-stdin or a masked prompt. */
export async function readPassword(ctx: Ctx, opts: Record<string, unknown>, label = 'Password'): Promise<string> {
  if (opts.passwordStdin) return (await readStdinLines(ctx, 1, '--password-stdin'))[0];
  return ctx.promptSecret(label, '--password-stdin');
}

/** The option that reads secrets from standard input. */
export function passwordStdinOption(what = 'the password'): Option {
  return new Option('--password-stdin', `read ${what} from standard input (one a line)`);
}

/**
 * Hidden flags that would put a secret in argv (`--password x`): declared only so that they are
 * refused with a clear message instead of Commander's "unknown option".
 */
export function argvSecretTraps(...names: string[]): Option[] {
  return names.map(secretTrap);
}
function secretTrap(name: string): Option {
  return new Option(`--${name} <value>`).hideHelp();
}

/** Refuses a secret given on the command line (see argvSecretTraps); nothing is sent. */
export function refuseArgvSecrets(opts: Record<string, unknown>, ...names: string[]): void {
  for (const n of names) {
    const attr = n.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (opts[attr] !== undefined) {
      throw new UsageError(`--${n} is not accepted: passwords never travel in argv (they would show in the shell history and in ps)`, {
        hint: `pipe it in: printf '%s\\n' "$PASSWORD" | subctl ... --password-stdin, or run on a terminal to be prompted`,
      });
    }
  }
}

/** A password being set: one line of stdin with --password-stdin, else a masked prompt asked twice. */
export async function readNewPassword(ctx: Ctx, opts: Record<string, unknown>, label = 'New password'): Promise<string> {
  if (opts.passwordStdin) return (await readStdinLines(ctx, 1, '--password-stdin'))[0];
  const first = await ctx.promptSecret(label, '--password-stdin');
  if (first === '') throw new UsageError('empty password: nothing was sent');
  const again = await ctx.promptSecret(`Repeat ${label.charAt(0).toLowerCase()}${label.slice(1)}`, '--password-stdin');
  if (again !== first) throw new UsageError('the two passwords differ: nothing was sent');
  return first;
}

/** A value that satisfies any password rule of the contract: lets the other fields be checked before prompting. */
const PLACEHOLDER_SECRET = 'placeholder-secret';

/**
 * Checks a call against the contract before a secret is asked for, the secret fields
 * (`secrets`: field -> how to name it) standing in with a placeholder.
 */
export async function precheck(
  ep: AnyEndpoint,
  call: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> },
  secrets: Record<string, string>,
) {
  const body = { ...call.body };
  for (const f of Object.keys(secrets)) body[f] = PLACEHOLDER_SECRET;
  await checkSecrets(ep, { ...call, body }, secrets);
}

/**
 * Validates a call whose body holds secrets. A rule broken by a secret is reported by its name
 * (`new password: Too small ...`), never as a flag, since secrets have no flag.
 */
export async function checkSecrets(
  ep: AnyEndpoint,
  call: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> },
  secrets: Record<string, string>,
) {
  const { validateInput } = await import('../../api/client.js');
  try {
    validateInput(ep, call);
  } catch (e) {
    if (!(e instanceof ValidationError) || !e.problems.some((p) => p.field.split('.')[0] in secrets)) throw e;
    const lines = e.problems.map((p) => {
      const root = p.field.split('.')[0];
      return root in secrets ? `${secrets[root]}: ${p.message}` : p.field ? `${p.field} (${flagName(root)}): ${p.message}` : p.message;
    });
    throw new UsageError(lines.length === 1 ? `invalid input: ${lines[0]}` : `invalid input:\n  ${lines.join('\n  ')}`);
  }
}

/** Prints an action's answer the way contract verbs do: its data, or its message when there is none. */
export async function printAnswer(ctx: Ctx, res: { data: unknown; message?: string | null }) {
  const data = res.data === null || res.data === undefined ? { message: res.message ?? 'done' } : res.data;
  if (res.message && ctx.globals.output === 'table' && ctx.io.stdoutIsTTY) ctx.note(res.message);
  await printObject(data, out(ctx));
}

/** A --profile or SUBCTL_PROFILE that names no profile: refused, as every command but login and register refuses it. */
function requireNamedProfile(ctx: Ctx): void {
  if (ctx.globals.profile !== undefined && !ctx.profile())
    throw noSuchProfile(ctx.profileName(), Object.keys(ctx.config().load().profiles));
}

/**
 * The profile's sign-in was issued for another platform than the one requests go to: what
 * sends its token (in a body, as logout, refresh and status do) is refused, nothing sent.
 */
function signedInElsewhere(ctx: Ctx, name: string, doing: string, issued: string): UsageError {
  const here = ctx.plannedTarget() ?? '?';
  const named = ctx.globals.baseUrl !== undefined || ctx.globals.sandbox;
  return new UsageError(`profile '${name}' signed in to ${issued}: ${doing} sends its token there, not to ${here}; nothing was sent`, {
    hint: named
      ? 'leave out --base-url, SUBCTL_BASE_URL and --sandbox'
      : `the profile's address changed since it signed in: \`subctl config set base-url ${issued} --profile ${name}\` to go back, or sign in again (\`subctl auth login --profile ${name}\`)`,
  });
}

/** The profile `auth register` made for its device id (none was there), while it runs. */
let registering: string | undefined;

/** Records where the profile points after a sign-in made with --base-url or the sandbox. */
function rememberTarget(ctx: Ctx, name: string) {
  const t = ctx.target();
  if (!t) return;
  const current = ctx.config().getProfile(name)?.base_url;
  const want = t.sandbox ? 'sandbox' : t.baseUrl;
  if (current !== want && (t.sandbox || ctx.globals.baseUrl || !current)) ctx.config().upsertProfile(name, { base_url: want });
}

/** A token given for this run (SUBCTL_TOKEN, --token-file): logout and refresh act on it, not on a profile. */
interface RunToken {
  token: string;
  /** How it was given, for messages. */
  named: string;
}

function runToken(ctx: Ctx): RunToken | undefined {
  const r = resolveToken(ctx.io.env, ctx.globals.tokenFile, undefined, { warn: (m) => ctx.warn(m) });
  if (!r.token) return undefined;
  return { token: r.token, named: r.source === 'env' ? 'SUBCTL_TOKEN' : `--token-file ${ctx.globals.tokenFile}` };
}

/**
 * Revokes the run's token (sent as the bearer and in the body); `user_id` only when a stored
 * sign-in holds that very token, for the server would refuse another account's. No stored
 * credential is touched: none was revoked.
 */
async function logoutRunToken(ctx: Ctx, run: RunToken): Promise<number> {
  const stored = ctx.credentials().get(ctx.profileName());
  const userId = stored?.token === run.token ? stored.user_id : undefined;
  const api = await ctx.api();
  try {
    if (ctx.io.env.SUBCTL_SESSION_ID?.trim())
      await api.call(endpointByName('cms.auth.logout'), { body: {} } as never, { signal: ctx.signal });
    else
      await api.call(
        endpointByName('auth.logout'),
        { body: { token: run.token, ...(userId !== undefined ? { user_id: userId } : {}) } } as never,
        { signal: ctx.signal },
      );
  } catch (e) {
    if (e instanceof CliError && e.status === 401) {
      ctx.note(
        `the token of ${run.named} was no longer accepted by the server (it had expired or been revoked); no stored credential was touched`,
      );
      return 0;
    }
    throw e;
  }
  ctx.note(`revoked the token of ${run.named}; no stored credential was touched`);
  return 0;
}

/**
 * Exchanges the run's token and prints the new one, for a script to rotate its secret: only
 * to a data format (-o json, ndjson), and refused before sending otherwise, since the old token
 * may stop working and the new one would be lost.
 */
async function refreshRunToken(ctx: Ctx, run: RunToken): Promise<number> {
  const format = ctx.globals.output;
  if (format !== 'json' && format !== 'ndjson') {
    throw new UsageError(
      `auth refresh with the token of ${run.named} prints the new token, which needs -o json (or ndjson); nothing was sent`,
      {
        hint: 'subctl auth refresh -o json',
      },
    );
  }
  const api = await ctx.api();
  const data = ((await api.call(endpointByName('auth.refresh'), { body: { token: run.token } } as never, { signal: ctx.signal })) ??
    {}) as Record<string, unknown>;
  if (typeof data.token !== 'string' || !data.token)
    throw new BadResponseError(`the answer to the token refresh holds no token; the token of ${run.named} is unchanged`);
  const expiresIn = readNumber(data.expires_in);
  await printObject(
    {
      token: data.token,
      expires_in: data.expires_in ?? null,
      expires_at: expiresIn ? new Date(ctx.now().getTime() + expiresIn * 1000).toISOString() : null,
    },
    out(ctx),
  );
  return 0;
}

export const authGroup: Group = {
  name: 'auth',
  build(cmd, bind) {
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
              user_id: data.user_id as number | undefined,
              username: (data.username as string | undefined) ?? username,
              role: data.role as string | undefined,
            });
            rememberTarget(ctx, name);
            ctx
              .config()
              .upsertProfile(name, { username: (data.username as string | undefined) ?? username, role: data.role as string | undefined });
            const nowActive = wasActive !== name && ctx.config().load().current_profile === name ? ' (now the active profile)' : '';
            ctx.note(
              `signed in as ${String(data.username ?? username)} (${String(data.role ?? 'unknown role')}) on profile '${name}'${nowActive}; token stored in ${where === 'keyring' ? 'the OS keyring' : ctx.paths().credentialsFile}`,
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
            // platform), the token in the body went to that address, and the profile was said to
            // be signed out while the token stayed valid where it works.
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
                await api.call(endpointByName('auth.logout'), { body: { user_id: stored.user_id, token: stored.token } } as never, {
                  signal: ctx.signal,
                });
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
              const v = ((await api.call(endpointByName('auth.validate-session'), { body } as never, { signal: ctx.signal })) ??
                {}) as Record<string, unknown>;
              status.valid = v.valid ?? null;
              if (v.username) status.username = v.username;
              if (v.role) status.role = v.role;
            } else status.valid = false;
            await printObject(status, out(ctx));
            return status.valid === false ? 3 : 0;
          })(c.optsWithGlobals());
        }),
    );
    buildAccountVerbs(cmd, bind);
    // The commands written by hand, and the endpoints each one calls.
    const by = (name: string) => cmd.commands.find((c) => c.name() === name)!;
    reaches(by('login'), 'auth.login', 'cms.auth.login --cms');
    reaches(by('logout'), 'auth.logout', 'cms.auth.logout');
    reaches(by('refresh'), 'auth.refresh');
    reaches(by('status'), 'auth.validate-session');
    reaches(by('forgot-password'), 'cms.auth.request-reset --cms');
    reaches(by('reset-password'), 'auth.reset-password', 'cms.auth.reset-password-token --cms');
    reaches(by('change-password'), 'auth.change-password', 'cms.auth.change-password --cms');
    reaches(by('verify'), 'cms.verification.generate --send', 'cms.verification.verify --code');
  },
};

type Bind = (a: Action) => (raw: Record<string, unknown>) => void;

/** The value of an integer flag, typed (left as text when it is not one, so that validation names it). */
const int = (v: unknown) => convertValue(v, { kind: 'integer', optional: true });

/**
 * register, forgot-password, reset-password, change-password, verify: the account flows of
 * /auth/* and /cms/auth/*. Passwords come from --password-stdin or a masked prompt only; reset
 * tokens and verification codes are flags (one-time values that expire within the hour).
 */
function buildAccountVerbs(cmd: Command, bind: Bind) {
  buildVerb(
    cmd,
    {
      name: 'register',
      endpoint: cmsAuthRegister,
      summary: "register a CMS account (sends the profile's X-Device-ID); password from a masked prompt or --password-stdin",
      hide: ['password'],
      bulk: false,
      extraOptions: [passwordStdinOption(), ...argvSecretTraps('password')],
      prepare: async (input, ctx, opts) => {
        refuseArgvSecrets(opts, 'password');
        await precheck(cmsAuthRegister, input, { password: 'password' });
        input.body.password = await readNewPassword(ctx, opts, 'Password');
        // The client sends X-Device-ID from the profile's device_id: make sure there is one.
        registering = ctx.config().getProfile(ctx.profileName()) === undefined ? ctx.profileName() : undefined;
        ctx.config().deviceId(ctx.profileName());
      },
      override: async (input, ctx) => {
        let data: Record<string, unknown> | null;
        try {
          data = ((
            await (await ctx.api({ anonymous: true })).callFull(cmsAuthRegister, { body: input.body } as never, { signal: ctx.signal })
          ).data ?? null) as Record<string, unknown> | null;
        } catch (e) {
          // A registration that failed leaves no profile behind (made here only for its device id).
          if (registering) ctx.config().removeProfile(registering);
          throw e;
        }
        // The profile points where the account is (it was left without an address, and the
        // sign-in it suggests then went to the embedded sandbox).
        const name = ctx.profileName();
        rememberTarget(ctx, name);
        await printAnswer(ctx, { data });
        ctx.note(
          `registered${data?.user_id !== undefined ? ` as user ${String(data.user_id)}` : ''} on profile '${name}'; sign in with \`subctl auth login --profile ${name}\`, then verify the account with \`subctl auth verify --send --type email\``,
        );
        return 0;
      },
    },
    bind,
  );

  buildVerb(
    cmd,
    {
      name: 'forgot-password',
      endpoint: authForgotPassword,
      summary: 'request a password reset token by email (--cms: the CMS account, /cms/auth/request-reset)',
      bulk: false,
      extraOptions: [new Option('--cms', 'the CMS account (/cms/auth/request-reset)')],
      override: async (input, ctx, opts) => {
        if (opts.cms !== true) return undefined;
        const api = await ctx.api();
        await printAnswer(ctx, await api.callFull(cmsAuthRequestReset, { body: input.body } as never, { signal: ctx.signal }));
        return 0;
      },
    },
    bind,
  );

  addGlobalOptions(
    cmd
      .command('reset-password')
      .description(
        'set a new password with the reset token of forgot-password (--cms: the CMS account); new password from a masked prompt or --password-stdin',
      )
      .addOption(new Option('--user-id <id>', 'the account the token was issued for (integer, required without --cms)'))
      .addOption(new Option('--reset-token <token>', 'the one-time reset token (required)'))
      .addOption(new Option('--cms', 'the CMS account (/cms/auth/reset-password-token, no --user-id)'))
      .addOption(passwordStdinOption('the new password'))
      .addOption(secretTrap('password'))
      .addOption(secretTrap('new-password'))
      .action((_o, c) => {
        const opts = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          refuseArgvSecrets(opts, 'password', 'new-password');
          const cms = opts.cms === true;
          if (cms && opts.userId !== undefined)
            throw new UsageError('--user-id is not used with --cms (the CMS reset token names the account)');
          const ep = cms ? cmsAuthResetPasswordToken : authResetPassword;
          const body: Record<string, unknown> = { reset_token: opts.resetToken };
          if (!cms) body.user_id = int(opts.userId);
          const secrets = { new_password: 'new password' };
          await precheck(ep, { body }, secrets);
          body.new_password = await readNewPassword(ctx, opts);
          await checkSecrets(ep, { body }, secrets);
          const api = await ctx.api();
          await printAnswer(ctx, await api.callFull(ep, { body } as never, { signal: ctx.signal }));
        })(opts);
      }),
  );

  addGlobalOptions(
    cmd
      .command('change-password')
      .description(
        "change the signed-in account's password (--cms: the CMS account); old and new from masked prompts, or two lines of stdin with --password-stdin",
      )
      .addOption(new Option('--cms', 'the CMS account (/cms/auth/change-password)'))
      .addOption(passwordStdinOption('the old password (first line) and the new one (second line)'))
      .addOption(secretTrap('password'))
      .addOption(secretTrap('old-password'))
      .addOption(secretTrap('new-password'))
      .action((_o, c) => {
        const opts = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          refuseArgvSecrets(opts, 'password', 'old-password', 'new-password');
          const ep = opts.cms === true ? cmsAuthChangePassword : authChangePassword;
          let old: string;
          let next: string;
          if (opts.passwordStdin) {
            [old, next] = await readStdinLines(ctx, 2, '--password-stdin');
          } else {
            old = await ctx.promptSecret('Current password', '--password-stdin');
            next = await readNewPassword(ctx, opts);
          }
          const body = { old_password: old, new_password: next };
          await checkSecrets(ep, { body }, { old_password: 'old password', new_password: 'new password' });
          const api = await ctx.api();
          await printAnswer(ctx, await api.callFull(ep, { body } as never, { signal: ctx.signal }));
        })(opts);
      }),
  );

  addGlobalOptions(
    cmd
      .command('verify')
      .description('verify the signed-in account: --send --type T asks for a code; --code C --type T checks it')
      .addOption(new Option('--send', 'send a verification code (/cms/users/generate-verification)'))
      .addOption(new Option('--code <code>', 'the code received (4-10 characters; /cms/users/verify)'))
      .addOption(new Option('--type <type>', 'email|sms|phone, required'))
      .action((_o, c) => {
        const opts = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          const send = opts.send === true;
          if (send === (opts.code !== undefined)) {
            throw new UsageError('auth verify needs either --send (ask for a code) or --code CODE (check it)', {
              hint: 'subctl auth verify --send --type email, then subctl auth verify --code 123456 --type email',
            });
          }
          const ep = send ? cmsVerificationGenerate : cmsVerificationVerify;
          const body: Record<string, unknown> = send ? { type: opts.type } : { code: opts.code, type: opts.type };
          const { validateInput } = await import('../../api/client.js');
          validateInput(ep, { body });
          const api = await ctx.api();
          await printAnswer(ctx, await api.callFull(ep, { body } as never, { signal: ctx.signal }));
        })(opts);
      }),
  );
}
