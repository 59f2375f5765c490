/**
 * The credential check: which token a command would send (SUBCTL_TOKEN, --token-file, the
 * profile's sign-in), and whether the server still accepts it. Missing, expired or refused is
 * exit 3 (see src/commands/doctor/index.ts).
 */
import { CliError, HttpError } from '../../api/errors.js';
import { readBoolean, readLabel } from '../../api/read-values.js';
import type { Credential } from '../../config/credentials.js';
import { DOCTOR_TIMEOUT_MS, type DoctorRun } from './types.js';

export async function checkCredential(s: DoctorRun): Promise<void> {
  const { ctx, env, g, add, configOk, name, where, reached } = s;
  if (!configOk && !env.SUBCTL_TOKEN && !g.tokenFile) {
    add('credential', 'warn', 'not checked: the configuration is unreadable', 'fix the profile check first');
  } else {
    try {
      const { resolveToken } = await import('../../config/credentials.js');
      // Only where it may go: a sign-in issued for another platform is not sent (to validate it).
      const signIn = configOk ? ctx.usableSignIn() : {};
      const stored = signIn.stored;
      if (signIn.withheldFrom !== undefined) {
        add(
          'credential',
          'warn',
          `the stored sign-in of profile "${name}" was issued for ${signIn.withheldFrom}: its token is not sent to ${where.sandbox ? 'the sandbox' : (ctx.plannedTarget() ?? '?')}`,
          `sign in there (\`subctl auth login --profile ${name}\`), or point the profile back at ${signIn.withheldFrom}`,
        );
      }
      const warnings: string[] = [];
      const tok = resolveToken(env, g.tokenFile, stored, { warn: (m) => warnings.push(m.replace(/^warning: /, '')) });
      const from =
        tok.source === 'env'
          ? 'SUBCTL_TOKEN'
          : tok.source === 'token-file'
            ? `--token-file ${g.tokenFile}`
            : tok.source === 'profile'
              ? `stored in ${ctx.credentials().where(name)}`
              : '';
      // The fix for the token that was refused: a sign-in stores one that SUBCTL_TOKEN and
      // --token-file go on overriding.
      const login =
        tok.source === 'env'
          ? "set a valid token in SUBCTL_TOKEN, or unset it to use the profile's sign-in"
          : tok.source === 'token-file'
            ? `put a valid token in ${String(g.tokenFile)}, or leave out --token-file to use the profile's sign-in`
            : `subctl auth login --profile ${name}${where.sandbox ? ' --sandbox' : ''} (or set SUBCTL_TOKEN for scripts)`;
      if (!tok.token) {
        if (where.sandbox) add('credential', 'ok', 'none stored: the embedded sandbox signs in as its seeded admin');
        else add('credential', 'fail', `profile "${name}" has no credential (no SUBCTL_TOKEN, no --token-file, nothing stored)`, login);
      } else if (!reached?.ok || !s.api) {
        if (!reached?.ok)
          add('credential', 'warn', `present (${from}); not validated: the server did not answer`, 'fix the reachability check first');
        else {
          // Not the sandbox: a client for the checked address, with the doctor's time-out.
          if (g.timeout === undefined) g.timeout = DOCTOR_TIMEOUT_MS;
          if (g.retries === undefined) g.retries = 0;
          s.api = await ctx.api();
        }
      }
      if (tok.token && s.reached?.ok && s.api) await validateToken(s, s.api, tok.token, { from, login, warnings, stored });
    } catch (e) {
      add('credential', 'fail', (e as Error).message, e instanceof CliError && e.hint ? e.hint : 'fix the token source');
    }
  }
}

interface TokenSource {
  /** Where the token comes from, for the detail. */
  from: string;
  /** What to do when the server refuses it. */
  login: string;
  /** Warnings about the token's file (its mode). */
  warnings: string[];
  stored?: Credential;
}

/** Asks the server whether the token is valid (`/auth/validate-session`). */
async function validateToken(
  s: DoctorRun,
  api: NonNullable<DoctorRun['api']>,
  token: string,
  { from, login, warnings, stored }: TokenSource,
): Promise<void> {
  const { ctx, g, add } = s;
  const { authValidateSession } = await import('../../api/contract/user-auth.js');
  try {
    const v = (await api.call(authValidateSession, { body: { token } }, { signal: ctx.signal })) as Record<string, unknown> | null;
    const who = [
      v?.username ? `user ${String(v.username)}` : undefined,
      v?.role ? `role ${readLabel(v.role, ['role_name', 'name']) ?? JSON.stringify(v.role)}` : undefined,
    ]
      .filter(Boolean)
      .join(', ');
    const extra = warnings.length ? `; ${warnings.join('; ')}` : '';
    const valid = readBoolean(v?.valid);
    if (valid === undefined) {
      // An answer that does not say (empty, or without `valid`: a gateway or portal answering in
      // the platform's place) proves nothing about the token: it is not called revoked.
      add(
        'credential',
        'warn',
        `present (${from}); not validated: the answer of POST /auth/validate-session ${v === undefined || v === null ? 'was empty' : 'does not say whether it is valid'}`,
        'run `subctl doctor --verbose` to see the exchange; a gateway or proxy in front of the platform may be answering in its place',
      );
    } else if (valid)
      add(
        'credential',
        warnings.length ? 'warn' : 'ok',
        `valid${who ? ` (${who})` : ''}; ${from}${extra}`,
        warnings.length ? `chmod 600 ${g.tokenFile}` : null,
      );
    else {
      const stale =
        stored?.expires_at && Date.parse(stored.expires_at) < ctx.now().getTime() ? ` (it expired at ${stored.expires_at})` : '';
      add(
        'credential',
        'fail',
        `expired or revoked${stale}: ${typeof v?.message === 'string' ? v.message : 'the server does not know this token'}; ${from}`,
        login,
      );
    }
  } catch (e) {
    if (e instanceof HttpError && (e.status === 401 || e.status === 403))
      add('credential', 'fail', `refused by the server (HTTP ${e.status}): ${e.message}; ${from}`, login);
    else if (e instanceof HttpError && e.status === 404)
      add(
        'credential',
        'warn',
        `present (${from}); not validated: the server has no /auth/validate-session`,
        'run a read command (e.g. `subctl services list --limit 1`) to see whether it is accepted',
      );
    else
      add(
        'credential',
        'warn',
        `present (${from}); not validated: ${(e as Error).message}`,
        'run `subctl doctor --verbose` to see the exchange',
      );
  }
}
