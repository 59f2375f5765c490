/**
 * Token routing: which sign-in a run may send, and to where. A profile's sign-in belongs to the
 * platform it was made on (recorded with it, else the profile's address): another one, named by
 * --base-url or SUBCTL_BASE_URL or set on the profile since (`config set base-url`), gets
 * neither its token nor its session.
 */
import { resolveSessionId, resolveToken, type Credential } from '../config/credentials.js';
import type { Profile } from '../config/store.js';
import type { IO } from '../io.js';
import type { GlobalOptions } from './globals.js';
import { sameTarget, signedOutOfSandbox, type Target } from './target.js';

/** The stored sign-in where it may be used, else where it was issued (`withheldFrom`). */
export function usableSignInFor(
  c: Credential,
  planned: string | undefined,
  profile: Profile | undefined,
): { stored?: Credential; withheldFrom?: string } {
  const issuedFor = c.base_url || profile?.base_url || 'sandbox';
  return planned === undefined || sameTarget(planned, issuedFor) ? { stored: c } : { withheldFrom: issuedFor };
}

export interface SignInNow {
  token?: string;
  sessionId?: string;
  source: Target['tokenSource'];
  /** The token is the embedded sandbox's seeded admin's. */
  admin: boolean;
}

/**
 * Reads the sign-in again by the rules the client was made with: the profile (its username
 * says whether it signed in), its stored credential, SUBCTL_TOKEN and --token-file first, the
 * sandbox's admin last.
 */
export function signInReader(
  io: IO,
  globals: GlobalOptions,
  read: { profile(): Profile | undefined; stored(): Credential | undefined },
  sandboxAdmin: string | undefined,
): () => SignInNow {
  return () => {
    const p = read.profile();
    const again = read.stored();
    const r = resolveToken(io.env, globals.tokenFile, again);
    const out = signedOutOfSandbox(p);
    const t = r.token ?? (!out ? sandboxAdmin : undefined);
    return { token: t, sessionId: resolveSessionId(io.env, again), source: r.source, admin: t !== undefined && t === sandboxAdmin };
  };
}
