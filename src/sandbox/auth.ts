/**
 * Sandbox accounts: password hashes, bearer tokens, and who may call what.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Access } from '../api/contract/common.js';
import { prep } from './db.js';
import type { Role } from './schema-core.js';
import type { AuthUser, DB } from './types.js';

// A low scrypt cost: this is a local sandbox that seeds hundreds of accounts, not a vault.
const SCRYPT = { N: 1024, r: 8, p: 1 };

/** `scrypt$<salt>$<hash>`, hex. */
export function hashPassword(password: string, salt = randomBytes(8).toString('hex')): string {
  const h = scryptSync(password, salt, 32, SCRYPT).toString('hex');
  return `scrypt$${salt}$${h}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const [kind, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const got = scryptSync(password, salt, 32, SCRYPT);
  const want = Buffer.from(hash, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
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
  const token = `sbx_${randomBytes(24).toString('base64url')}`;
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

/** The account behind a bearer token, or null when unknown, revoked or expired. */
export function lookupToken(db: DB, token: string, now = new Date()): AuthUser | null {
  // Every request asks this: a cached statement (preparing costs more than the lookup).
  const row = prep(
    db,
    `SELECT t.token, t.session_id, t.expires_at, t.revoked_at, u.user_id, u.username, u.role, u.status
       FROM tokens t JOIN users u ON u.user_id = t.user_id WHERE t.token = ?`,
  ).get(token) as
    | { token: string; session_id: string | null; expires_at: string; revoked_at: string | null; user_id: number; username: string; role: Role; status: string }
    | undefined;
  if (!row || row.revoked_at || row.expires_at <= now.toISOString()) return null;
  if (row.status === 'Banned' || row.status === 'Inactive') return null;
  return { user_id: row.user_id, username: row.username, role: row.role, token: row.token, session_id: row.session_id };
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
