/**
 * `subctl auth`: sign in and out. Passwords come from a masked prompt on a terminal or from
 * stdin with --password-stdin, never from argv. Tokens are stored per profile (OS keyring, or a
 * 0600 file when no keyring answers).
 */
import { Option } from 'commander';
import { endpointByName } from '../../api/contract/index.js';
import { UsageError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { printObject } from '../../output/index.js';
import type { Group } from '../types.js';

/** Reads lines from stdin (for --password-stdin): the first `n` lines, without their newlines. */
export async function readStdinLines(ctx: Ctx, n: number, flag: string): Promise<string[]> {
  if (ctx.io.stdinIsTTY) throw new UsageError(`${flag} reads from a pipe: printf '%s\\n' "$PASSWORD" | subctl ... ${flag}`);
  const chunks: Buffer[] = [];
  for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
  const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  const got = lines.slice(0, n);
  if (got.length < n || got.some((l) => l === '')) {
    throw new UsageError(`${flag} expects ${n === 1 ? 'the password on the first line' : `${n} lines (old and new password)`} of standard input`);
  }
  return got;
}

/** A password from --password-stdin or a masked prompt. */
export async function readPassword(ctx: Ctx, opts: Record<string, unknown>, label = 'Password'): Promise<string> {
  if (opts.passwordStdin) return (await readStdinLines(ctx, 1, '--password-stdin'))[0];
  return ctx.promptSecret(label, '--password-stdin');
}

function out(ctx: Ctx) {
  return { format: ctx.globals.output, fields: ctx.globals.fields, io: ctx.io, noColor: ctx.globals.noColor };
}

/** Records where the profile points after a sign-in made with --base-url or the sandbox. */
function rememberTarget(ctx: Ctx, name: string) {
  const t = ctx.target();
  if (!t) return;
  const current = ctx.config().getProfile(name)?.base_url;
  const want = t.sandbox ? 'sandbox' : t.baseUrl;
  if (current !== want && (t.sandbox || ctx.globals.baseUrl || !current)) ctx.config().upsertProfile(name, { base_url: want });
}

export const authGroup: Group = {
  name: 'auth',
  summary: 'sign in and out, tokens and sessions',
  build(cmd, bind) {
    addGlobalOptions(
      cmd
        .command('login')
        .description('sign in and store the token in the profile (--cms: staff login with a device id and a session)')
        .addOption(new Option('--username <name>', 'account name (prompted on a terminal)'))
        .addOption(new Option('--password-stdin', 'read the password from standard input'))
        .addOption(new Option('--cms', 'staff login (/cms/auth/login) with the X-Device-ID header; stores the session id too'))
        .action((_o, c) => {
          const opts = c.optsWithGlobals() as Record<string, unknown>;
          bind(async (ctx) => {
            const name = ctx.profileName();
            let username = opts.username as string | undefined;
            if (!username) {
              if (!ctx.interactive()) throw new UsageError('--username is required when not running interactively');
              username = (await ctx.promptLine('Username: ')).trim();
            }
            const password = await readPassword(ctx, opts);
            const cms = opts.cms === true;
            if (cms) ctx.config().upsertProfile(name, { device_id: ctx.config().deviceId(name) });
            const api = await ctx.api();
            const ep = endpointByName(cms ? 'cms.auth.login' : 'auth.login');
            const data = (await api.call(ep, { body: { username, password } } as never, { signal: ctx.signal })) as Record<string, unknown>;
            const token = data.token as string | undefined;
            if (!token) throw new UsageError(`sign-in refused: ${String(data.error_message ?? data.message ?? 'no token in the answer')}`);
            const where = ctx.credentials().set(name, {
              token,
              session_id: cms ? (data.session_id as string | undefined) : undefined,
              user_id: data.user_id as number | undefined,
              username: (data.username as string | undefined) ?? username,
              role: data.role as string | undefined,
            });
            rememberTarget(ctx, name);
            ctx.config().upsertProfile(name, { username: (data.username as string | undefined) ?? username, role: data.role as string | undefined });
            ctx.note(`signed in as ${String(data.username ?? username)} (${String(data.role ?? 'unknown role')}) on profile '${name}'; token stored in ${where === 'keyring' ? 'the OS keyring' : ctx.paths().credentialsFile}`);
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
            const name = ctx.profileName();
            const stored = ctx.credentials().get(name);
            if (!stored?.token) {
              ctx.note(`profile '${name}' is not signed in`);
              return 0;
            }
            const api = await ctx.api();
            try {
              if (stored.session_id) await api.call(endpointByName('cms.auth.logout'), { body: {} } as never, { signal: ctx.signal });
              else await api.call(endpointByName('auth.logout'), { body: { user_id: stored.user_id, token: stored.token } } as never, { signal: ctx.signal });
            } finally {
              ctx.credentials().delete(name);
            }
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
            const name = ctx.profileName();
            const stored = ctx.credentials().get(name);
            if (!stored?.token) throw new UsageError(`profile '${name}' is not signed in`, { hint: `subctl auth login --profile ${name}` });
            const api = await ctx.api();
            const data = (await api.call(endpointByName('auth.refresh'), { body: { token: stored.token } } as never, { signal: ctx.signal })) as Record<string, unknown>;
            const expiresIn = data.expires_in as number | undefined;
            ctx.credentials().set(name, {
              ...stored,
              token: data.token as string,
              expires_at: expiresIn ? new Date(ctx.now().getTime() + expiresIn * 1000).toISOString() : undefined,
            });
            ctx.note(`token refreshed for profile '${name}'${expiresIn ? `; valid ${Math.round(expiresIn / 60)} min` : ''}`);
          })(c.optsWithGlobals());
        }),
    );
    addGlobalOptions(
      cmd
        .command('status')
        .description('profile, base address, signed-in user and role, where the credential lives')
        .action((_o, c) => {
          bind(async (ctx) => {
            const name = ctx.profileName();
            const profile = ctx.profile();
            const stored = ctx.credentials().get(name);
            const { resolveToken } = await import('../../config/credentials.js');
            const tok = resolveToken(ctx.io.env, ctx.globals.tokenFile, stored);
            const api = await ctx.api();
            const target = ctx.target()!;
            const status: Record<string, unknown> = {
              profile: name,
              base_url: target.sandbox ? 'SANDBOX' : target.baseUrl,
              username: stored?.username ?? profile?.username ?? null,
              role: stored?.role ?? profile?.role ?? null,
              token_source: tok.source,
              credential: stored ? ctx.credentials().where(name) : null,
              session: stored?.session_id ? 'yes (cms)' : 'no',
            };
            if (tok.token) {
              const v = (await api.call(endpointByName('auth.validate-session'), { body: { token: tok.token } } as never, { signal: ctx.signal })) as Record<string, unknown>;
              status.valid = v.valid ?? null;
              if (v.username) status.username = v.username;
              if (v.role) status.role = v.role;
            } else status.valid = false;
            await printObject(status, out(ctx));
            return status.valid === false ? 3 : 0;
          })(c.optsWithGlobals());
        }),
    );
  },
};
