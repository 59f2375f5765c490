/**
 * Who the console works for and through: the API client it calls, the header's facts, and an
 * error said as one status line that names what mends it.
 */
import type { AnyEndpoint } from '../api/contract/common.js';
import { CliError } from '../api/errors.js';
import type { CallSpec } from './resources.js';

/** What the console needs of the API client (ApiClient fits; tests may pass a fake). */
export interface ApiLike {
  call(ep: AnyEndpoint, input?: CallSpec, opts?: { signal?: AbortSignal }): Promise<unknown>;
  callFull(ep: AnyEndpoint, input?: CallSpec, opts?: { signal?: AbortSignal }): Promise<{ data: unknown; message?: string }>;
}

/** Who and where: the header's facts. */
export interface Session {
  profile: string;
  /** Base address, or `SANDBOX`. */
  target: string;
  user?: string;
  role?: string;
  /** Where the token came from when not the profile's sign-in (a 401's hint says what mends it). */
  tokenFrom?: 'env' | 'token-file';
}

/**
 * An error as one status line; a 401 says what mends it: signing in again in another shell (or
 * a new token in the token file), then `r`, which reads the sign-in again (SUBCTL_TOKEN cannot
 * change under a running process).
 */
export function describeError(e: unknown, profile: string, tokenFrom?: Session['tokenFrom']): string {
  if (e instanceof CliError) {
    let text = e.message + (e.status ? ` (HTTP ${e.status})` : '');
    const fields = (e.details as { fields?: Array<{ field?: string; message?: string }> } | undefined)?.fields;
    if (Array.isArray(fields) && fields.length)
      text += `: ${fields.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)).join('; ')}`;
    if (e.status === 401) {
      if (tokenFrom === 'env') text += ' — SUBCTL_TOKEN was refused: set a valid one, then restart the console';
      else if (tokenFrom === 'token-file') text += ' — the token file was refused: put a valid token in it, then press r';
      else text += ` — sign in again with \`subctl auth login --profile ${profile}\` (in another shell), then press r`;
    } else if (e.status === 403) text += ' — the signed-in account may not do this';
    return text;
  }
  return e instanceof Error ? e.message : String(e);
}
