/**
 * What the sign-in verbs share: the refusals that come before anything is sent (a misspelt
 * profile, a sign-in issued for another platform), where the profile points after a sign-in,
 * and the token given for one run (SUBCTL_TOKEN, --token-file) that logout and refresh act on.
 */
import { endpointByName } from '../../api/contract/index.js';
import { BadResponseError, CliError, UsageError } from '../../api/errors.js';
import { readNumber } from '../../api/read-values.js';
import { resolveToken } from '../../config/credentials.js';
import type { Ctx } from '../../cli/context.js';
import { noSuchProfile } from '../../cli/target.js';
import { printObject } from '../../output/index.js';
import { out } from '../common.js';
import { readWhole } from '../../api/read-values.js';

/** A --profile or SUBCTL_PROFILE that names no profile: refused, as every command but login and register refuses it. */
export function requireNamedProfile(ctx: Ctx): void {
  if (ctx.globals.profile !== undefined && !ctx.profile())
    throw noSuchProfile(ctx.profileName(), Object.keys(ctx.config().load().profiles));
}

/**
 * The profile's sign-in was issued for another platform than the one requests go to: what
 * sends its token (in a body, as logout, refresh and status do) is refused, nothing sent.
 */
export function signedInElsewhere(ctx: Ctx, name: string, doing: string, issued: string): UsageError {
  const here = ctx.plannedTarget() ?? '?';
  const named = ctx.globals.baseUrl !== undefined || ctx.globals.sandbox;
  return new UsageError(`profile '${name}' signed in to ${issued}: ${doing} sends its token there, not to ${here}; nothing was sent`, {
    hint: named
      ? 'leave out --base-url, SUBCTL_BASE_URL and --sandbox'
      : `the profile's address changed since it signed in: \`subctl config set base-url ${issued} --profile ${name}\` to go back, or sign in again (\`subctl auth login --profile ${name}\`)`,
  });
}

/** Records where the profile points after a sign-in made with --base-url or the sandbox. */
export function rememberTarget(ctx: Ctx, name: string) {
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

export function runToken(ctx: Ctx): RunToken | undefined {
  const r = resolveToken(ctx.io.env, ctx.globals.tokenFile, undefined, { warn: (m) => ctx.warn(m) });
  if (!r.token) return undefined;
  return { token: r.token, named: r.source === 'env' ? 'SUBCTL_TOKEN' : `--token-file ${ctx.globals.tokenFile}` };
}

/**
 * Revokes the run's token (sent as the bearer and in the body); `user_id` only when a stored
 * sign-in holds that very token, for the server would refuse another account's. No stored
 * credential is touched: none was revoked.
 */
export async function logoutRunToken(ctx: Ctx, run: RunToken): Promise<number> {
  const stored = ctx.credentials().get(ctx.profileName());
  // A user id stored as text (`"7"`, another platform's answer) is sent as the number the contract asks for.
  const userId = stored?.token === run.token ? readWhole(stored.user_id) : undefined;
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
export async function refreshRunToken(ctx: Ctx, run: RunToken): Promise<number> {
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
