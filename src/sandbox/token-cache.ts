/**
 * The bearer tokens' accounts remembered for reads (GET), for as long as the database is
 * unchanged (its data stamp, read once per request), with their expiry (checked against the
 * clock on every request). Answers themselves are always computed: every list is a query.
 */
import { tokenAccount, tokenRow } from './auth.js';
import { currentDataStamp } from './db.js';
import type { AuthUser, DB } from './types.js';

/** Token accounts remembered for reads, at most. */
const MAX_TOKEN_ROWS = 1000;

/** A bearer token's account as remembered for reads: null when unknown, revoked or Banned/Inactive. */
interface TokenEntry {
  user: Readonly<AuthUser> | null;
  /** Its expiry, in ms since the epoch (NaN: never valid). */
  expires: number;
}

export interface TokenCache {
  /** Drops what was remembered under another data stamp than the current one; answers the stamp. */
  sync(): string;
  /**
   * `tokenUser(tokenRow(db, token), at)`, its account remembered until the data changes (call
   * `sync` first, in the same tick). The expiry is compared in milliseconds, which orders the
   * ISO times the sandbox writes as their text does; one that does not parse counts as expired.
   */
  user(token: string, at: Date): AuthUser | null;
}

export function tokenCache(db: DB): TokenCache {
  const tokens = new Map<string, TokenEntry>();
  let cachesStamp = '';
  return {
    sync() {
      const stamp = currentDataStamp(db);
      if (stamp !== cachesStamp) {
        tokens.clear();
        cachesStamp = stamp;
      }
      return stamp;
    },
    user(token, at) {
      let e = tokens.get(token);
      if (e === undefined) {
        const row = tokenRow(db, token);
        const user = tokenAccount(row);
        e = { user: user && Object.freeze(user), expires: row ? Date.parse(row.expires_at) : NaN };
        if (tokens.size >= MAX_TOKEN_ROWS) tokens.clear();
        tokens.set(token, e);
      }
      return e.user !== null && at.getTime() < e.expires ? e.user : null;
    },
  };
}
