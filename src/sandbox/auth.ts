/**
 * Sandbox accounts: password hashes, bearer tokens, and who may call what.
 */
import type { Access } from '../api/contract/common.js';
import { builtin } from '../builtin.js';
import { prep } from './db.js';
import type { Role } from './schema-core.js';
import type { AuthUser, DB } from './types.js';

// node:crypto is loaded when first needed (builtin): the embedded sandbox starting with a token
// that is still good (every command after the first) uses none of it.

// A low scrypt cost: this is a local sandbox that seeds hundreds of accounts, not a vault.
const SCRYPT = { N: 1024, r: 8, p: 1 };

/** `scrypt$<salt>$<hash>`, hex. */
export function hashPassword(password: string, salt = builtin('node:crypto').randomBytes(8).toString('hex')): string {
  const h = builtin('node:crypto').scryptSync(password, salt, 32, SCRYPT).toString('hex');
  return `scrypt$${salt}$${h}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const [kind, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const got = builtin('node:crypto').scryptSync(password, salt, 32, SCRYPT);
  const want = Buffer.from(hash, 'hex');
  return got.length === want.length && builtin('node:crypto').timingSafeEqual(got, want);
}

/** Tokens live 12 hours unless said. */
export const TOKEN_TTL_SECONDS = 12 * 3600;

export function issueToken(
  db: DB,
  userId: number,
  opts: { sessionId?: string | null; deviceId?: string | null; ttlSeconds?: number; now?: Date } = {},
): { token: string; expires_at: string; expires_in: number } {
  const now = opts.now ?? new Date();
  const ttl = opts.ttlSeconds ?? TOKEN_TTL_SECONDS;
  const token = `sbx_${builtin('node:crypto').randomBytes(24).toString('base64url')}`;
  const expires = new Date(now.getTime() + ttl * 1000).toISOString();
  db.prepare('INSERT INTO tokens (token, user_id, session_id, device_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    token,
    userId,
    opts.sessionId ?? null,
    opts.deviceId ?? null,
    now.toISOString(),
    expires,
  );
  return { token, expires_at: expires, expires_in: ttl };
}

/** The device id of the tokens the CLI's embedded sandbox issues to itself (`embeddedToken`). */
export const EMBEDDED_DEVICE = 'subctl-embedded';

/**
 * The embedded sandbox's own sign-in for `userId`: the newest token it issued earlier that is
 * neither revoked nor within an hour of expiry, else a new one. One token per half-day rather
 * than one per command: no write on the way to a command's first request, and the tokens
 * table does not grow with every command. Tokens from real sign-ins are never picked.
 */
export function embeddedToken(db: DB, userId: number, now = new Date()): string {
  const soonest = new Date(now.getTime() + 3600_000).toISOString();
  const row = db
    .prepare(
      'SELECT token FROM tokens WHERE user_id = ? AND device_id = ? AND session_id IS NULL AND revoked_at IS NULL AND expires_at > ? ORDER BY expires_at DESC LIMIT 1',
    )
    .get(userId, EMBEDDED_DEVICE, soonest) as { token: string } | undefined;
  return row?.token ?? issueToken(db, userId, { deviceId: EMBEDDED_DEVICE, now }).token;
}

/** A token's row with its account, as `tokenRow` reads it. */
export interface TokenRow {
  token: string;
  session_id: string | null;
  expires_at: string;
  revoked_at: string | null;
  user_id: number;
  username: string;
  role: Role;
  status: string;
}

/** The row of a bearer token and its account (undefined when unknown), whatever its state. */
export function tokenRow(db: DB, token: string): TokenRow | undefined {
  // Every request asks this: a cached statement (preparing costs more than the lookup). The
  // account's columns come by subqueries on its id, not by a JOIN: the same values, in less
  // time. No account, no row (as the JOIN).
  const row = prep(
    db,
    `SELECT t.token, t.session_id, t.expires_at, t.revoked_at,
       (SELECT u.user_id FROM users u WHERE u.user_id = t.user_id) AS user_id,
       (SELECT u.username FROM users u WHERE u.user_id = t.user_id) AS username,
       (SELECT u.role FROM users u WHERE u.user_id = t.user_id) AS role,
       (SELECT u.status FROM users u WHERE u.user_id = t.user_id) AS status
     FROM tokens t WHERE t.token = ?`,
  ).get(token) as TokenRow | undefined;
  return row && row.user_id !== null ? row : undefined;
}

/** The account a token row stands for at `now`, or null when unknown, revoked, expired, or the account Banned/Inactive. */
export function tokenUser(row: TokenRow | undefined, now: Date): AuthUser | null {
  if (!row || row.expires_at <= now.toISOString()) return null;
  return tokenAccount(row);
}

/** tokenUser without the clock: the account, or null when unknown, revoked or Banned/Inactive. */
export function tokenAccount(row: TokenRow | undefined): AuthUser | null {
  if (!row || row.revoked_at) return null;
  if (row.status === 'Banned' || row.status === 'Inactive') return null;
  return { user_id: row.user_id, username: row.username, role: row.role, token: row.token, session_id: row.session_id };
}

/** The account behind a bearer token, or null when unknown, revoked or expired. */
export function lookupToken(db: DB, token: string, now = new Date()): AuthUser | null {
  return tokenUser(tokenRow(db, token), now);
}

export function revokeToken(db: DB, token: string, now = new Date()): void {
  db.prepare('UPDATE tokens SET revoked_at = ? WHERE token = ? AND revoked_at IS NULL').run(now.toISOString(), token);
}

const STAFF: readonly Role[] = ['superadmin', 'admin', 'manager', 'support', 'agent'];

/**
 * The sandbox's decision on rights (the specification leaves it open):
 * public: anyone; user: any account; staff: agent and up; admin: admin and superadmin,
 * plus manager on read-only (GET) admin endpoints; superadmin: superadmin only.
 */
export function roleAllows(access: Access, role: Role, method: string): boolean {
  switch (access) {
    case 'public':
    case 'user':
      return true;
    case 'staff':
      return STAFF.includes(role);
    case 'admin':
      return role === 'admin' || role === 'superadmin' || (role === 'manager' && method === 'GET');
    case 'superadmin':
      return role === 'superadmin';
  }
}
