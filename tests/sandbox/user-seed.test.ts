import { openKept } from '../../src/sandbox/keep.js';
import type { DB } from '../../src/sandbox/types.js';
import { describe, expect, it } from 'vitest';
import { allMigrations, migrate } from '../../src/sandbox/db.js';
import { mulberry32 } from '../../src/sandbox/seed.js';
import { ENDUSER_REFERRAL_CODE, seedUsers } from '../../src/sandbox/seed-user.js';
import { SEEDED_ACCOUNTS, USER_STATUSES, ROLES } from '../../src/sandbox/schema-core.js';
import { verifyPassword } from '../../src/sandbox/auth.js';

const NOW = new Date('2026-03-01T09:30:00.000Z');

function seeded(scale: number, seed = 42) {
  const db = openKept(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db, allMigrations());
  db.transaction(() => seedUsers(db, { scale, rng: mulberry32(seed), now: NOW }))();
  return db;
}

const all = (db: DB, sql: string) => db.prepare(sql).all() as any[];
const one = (db: DB, sql: string) => db.prepare(sql).get() as any;

describe('seedUsers', () => {
  it('puts SEEDED_ACCOUNTS first (ids 1..6) with working passwords', () => {
    const db = seeded(1);
    const rows = all(db, 'SELECT user_id, username, role, email, password_hash, status FROM users WHERE user_id <= 6 ORDER BY user_id');
    expect(rows.map((r) => [r.user_id, r.username, r.role, r.email])).toEqual(
      SEEDED_ACCOUNTS.map((a, i) => [i + 1, a.username, a.role, a.email]),
    );
    rows.forEach((r, i) => expect(verifyPassword(SEEDED_ACCOUNTS[i].password, r.password_hash)).toBe(true));
    expect(rows.every((r) => r.status === 'Active')).toBe(true);
    const extra = one(db, 'SELECT password_hash FROM users WHERE user_id = 7').password_hash;
    expect(verifyPassword('sandbox-user', extra)).toBe(true);
  });

  it('adds about 400 users at scale 1, capped at 400 + 50 × (scale − 1)', () => {
    expect(one(seeded(1), 'SELECT COUNT(*) AS n FROM users').n).toBe(406);
    expect(one(seeded(0.1), 'SELECT COUNT(*) AS n FROM users').n).toBe(46);
    expect(one(seeded(3), 'SELECT COUNT(*) AS n FROM users').n).toBe(506);
  });

  it('covers every role and status, with accents, CJK, commas and quotes in names', () => {
    const db = seeded(1);
    expect(new Set(all(db, 'SELECT DISTINCT role FROM users').map((r) => r.role))).toEqual(new Set(ROLES));
    expect(new Set(all(db, 'SELECT DISTINCT status FROM users').map((r) => r.status))).toEqual(new Set(USER_STATUSES));
    const names = all(db, 'SELECT full_name FROM users').map((r) => r.full_name as string);
    expect(names).toContain('José Núñez');
    expect(names).toContain('Zoë Müller');
    expect(names).toContain('山田太郎');
    expect(names.some((n) => n.includes(','))).toBe(true);
    expect(names.some((n) => n.includes('"'))).toBe(true);
    const users = one(db, "SELECT COUNT(*) AS n FROM users WHERE role = 'user'").n;
    expect(users / 406).toBeGreaterThan(0.7);
    expect(one(db, 'SELECT COUNT(*) AS n FROM users WHERE wallet_balance > 0').n).toBeGreaterThan(100);
  });

  it('keeps the invariants the handlers rely on', () => {
    const db = seeded(1);
    // The primary role is the highest-priority role held, and is held.
    const bad = all(
      db,
      `SELECT u.user_id FROM users u WHERE u.role <> (
         SELECT ur.role_name FROM user_roles ur JOIN roles r ON r.role_name = ur.role_name WHERE ur.user_id = u.user_id ORDER BY r.priority DESC LIMIT 1)`,
    );
    expect(bad).toEqual([]);
    // used_count matches the uses; never above the limit; nobody referred twice or by themselves.
    expect(
      all(
        db,
        'SELECT rc.referral_id FROM referral_codes rc WHERE rc.used_count <> (SELECT COUNT(*) FROM referral_uses ru WHERE ru.referral_id = rc.referral_id)',
      ),
    ).toEqual([]);
    expect(one(db, 'SELECT COUNT(*) AS n FROM referral_uses WHERE referrer_id = new_user_id').n).toBe(0);
    expect(one(db, 'SELECT COUNT(*) AS n FROM referral_uses').n).toBeGreaterThan(20);
    expect(one(db, 'SELECT COUNT(*) AS n FROM referral_codes WHERE is_active = 0 AND deactivated_reason IS NOT NULL').n).toBeGreaterThan(0);
    expect(one(db, `SELECT user_id, usage_limit, is_active FROM referral_codes WHERE referral_code = '${ENDUSER_REFERRAL_CODE}'`)).toEqual({
      user_id: 6,
      usage_limit: 50,
      is_active: 1,
    });
    // Six system roles with priorities 100..10, plus the custom ones.
    expect(
      all(db, 'SELECT role_name, priority FROM roles WHERE is_system_role = 1 ORDER BY priority DESC').map((r) => r.role_name),
    ).toEqual([...ROLES]);
    expect(one(db, 'SELECT COUNT(*) AS n FROM roles WHERE is_system_role = 0').n).toBe(3);
    for (const t of ['profiles', 'devices', 'login_history', 'verification_codes', 'role_permissions', 'permissions']) {
      expect(one(db, `SELECT COUNT(*) AS n FROM ${t}`).n, t).toBeGreaterThan(0);
    }
  });

  it('is deterministic: the same seed and clock give the same rows', () => {
    const dump = (db: DB) =>
      ['users', 'user_roles', 'profiles', 'devices', 'login_history', 'referral_codes', 'referral_uses', 'verification_codes'].map((t) =>
        JSON.stringify(all(db, `SELECT * FROM ${t} ORDER BY 1, 2`)),
      );
    expect(dump(seeded(0.3, 9))).toEqual(dump(seeded(0.3, 9)));
    expect(dump(seeded(0.3, 9))).not.toEqual(dump(seeded(0.3, 10)));
  });
});
