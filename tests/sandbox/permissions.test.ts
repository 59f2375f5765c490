/**
 * The permissions the sandbox reports (CMS login, profile, users.get) against the access rule
 * the server applies (`roleAllows`): for every system role, a permission is reported exactly
 * when the role may call every endpoint it stands for (schema-user.ts, PERMISSION_ENDPOINTS),
 * and the server answers so over HTTP (403 for the others, never for the reported ones).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../src/api/contract/index.js';
import type { AnyEndpoint } from '../../src/api/contract/common.js';
import { roleAllows } from '../../src/sandbox/auth.js';
import { isAdminRole, permissionsOf } from '../../src/sandbox/handlers/user-common.js';
import { SEEDED_ACCOUNTS, type Role } from '../../src/sandbox/schema-core.js';
import { PERMISSION_ENDPOINTS, PERMISSIONS, ROLE_PERMISSIONS, SYSTEM_ROLES } from '../../src/sandbox/schema-user.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { openDatabase } from '../../src/sandbox/db.js';
import { call, closeAllTestSandboxes, startTestSandbox, tempDataFile } from '../support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ scale: 0.05 });
});
afterAll(closeAllTestSandboxes);

const byName = new Map(endpoints.map((e) => [e.name, e]));
const mayCall = (role: Role, e: AnyEndpoint) => e.access === 'public' || roleAllows(e.access, role, e.method);

/** The permissions `role` may hold under the access rule. */
function derived(role: Role): string[] {
  return Object.entries(PERMISSION_ENDPOINTS)
    .filter(([name, names]) =>
      names.length ? names.every((n) => mayCall(role, byName.get(n)!)) : name === 'referrals.admin' && isAdminRole(role),
    )
    .map(([name]) => name)
    .sort();
}

const roles = SYSTEM_ROLES.map((r) => r.role_name as Role);

describe('reported permissions follow the access rule', () => {
  it('every permission names known endpoints; every endpoint that needs an account is under exactly one', () => {
    expect(Object.keys(PERMISSION_ENDPOINTS).sort()).toEqual(Object.keys(PERMISSIONS).sort());
    for (const names of Object.values(PERMISSION_ENDPOINTS)) for (const n of names) expect(byName.has(n), n).toBe(true);
    for (const e of endpoints) {
      const under = Object.entries(PERMISSION_ENDPOINTS)
        .filter(([, names]) => names.includes(e.name))
        .map(([p]) => p);
      if (e.access === 'public') expect(under, e.name).toEqual([]);
      else expect(under, e.name).toHaveLength(1);
    }
  });

  it.each(roles)('%s: reported = what the access rule allows', (role) => {
    expect([...ROLE_PERMISSIONS[role]].sort()).toEqual(derived(role));
  });

  it('the documented lists are gone where they promised too much', () => {
    expect(ROLE_PERMISSIONS.agent).not.toContain('users.read');
    expect(ROLE_PERMISSIONS.support).not.toContain('audit.read');
    expect(ROLE_PERMISSIONS.manager).not.toContain('services.manage');
    expect(ROLE_PERMISSIONS.manager).toEqual(expect.arrayContaining(['users.read', 'audit.read', 'dashboard.read', 'services.read']));
  });

  it('migration user-002 brings a data file made before to these lists (custom roles untouched)', () => {
    const file = tempDataFile('perm-migration');
    let db = openDatabase(file);
    // What user-001 wrote before: the promises the server did not keep, and no services.read.
    db.exec(`DELETE FROM schema_migrations WHERE id = 'user-002';
      DELETE FROM permissions WHERE permission_name IN ('services.read', 'roles.read', 'referrals.report');
      DELETE FROM role_permissions WHERE role_name IN ('agent', 'support', 'manager');
      INSERT INTO role_permissions VALUES ('agent', 'users.read', NULL, '2024-01-01T00:00:00.000Z'), ('support', 'audit.read', NULL, '2024-01-01T00:00:00.000Z'),
        ('manager', 'services.manage', NULL, '2024-01-01T00:00:00.000Z');
      INSERT INTO roles (role_name, display_name, priority, created_date) VALUES ('custom', 'Custom', 30, '2024-01-01T00:00:00.000Z');
      INSERT INTO role_permissions VALUES ('custom', 'users.read', NULL, '2024-01-01T00:00:00.000Z');`);
    db.close();
    db = openDatabase(file);
    const grants = (role: string) =>
      db.prepare('SELECT permission_name FROM role_permissions WHERE role_name = ? ORDER BY permission_name').pluck().all(role) as string[];
    for (const role of roles) expect(grants(role), role).toEqual([...ROLE_PERMISSIONS[role]].sort());
    expect(grants('custom')).toEqual(['users.read']);
    expect(db.prepare("SELECT description FROM permissions WHERE permission_name = 'services.read'").pluck().get()).toBe(
      PERMISSIONS['services.read'],
    );
    db.close();
  });

  it('every seeded account reports only what its primary role may do (custom roles included)', () => {
    const users = sb.db.prepare('SELECT user_id, role FROM users').all() as Array<{ user_id: number; role: Role }>;
    expect(users.length).toBeGreaterThan(20);
    for (const u of users) {
      // A custom primary role is a user's to the server (roleAllows): what a user may do, and no
      // more (an `auditor` was reported audit.read and refused the audit log).
      const deciding = (roles.includes(u.role) ? u.role : 'user') as Role;
      expect(permissionsOf(sb.db, u.user_id), `${u.role} ${u.user_id}`).toEqual(derived(deciding));
    }
  });

  it("a user made a custom role's holder reports a user's permissions, and the server agrees", async () => {
    const admin = sb.tokenFor('admin');
    const made = await call(sb, 'POST', '/cms/roles', {
      token: admin,
      body: {
        role_name: 'auditor2',
        display_name: 'Auditor',
        description: 'reads audit',
        priority: 15,
        permissions: ['audit.read', 'users.read'],
      },
    });
    expect([200, 201]).toContain(made.status);
    const u = sb.db.prepare("SELECT user_id FROM users WHERE role = 'user' ORDER BY user_id LIMIT 1").get() as { user_id: number };
    const up = await call(sb, 'PUT', `/users/${u.user_id}`, { token: admin, body: { user_id: u.user_id, role: 'auditor2' } });
    expect(up.status).toBe(200);
    expect(permissionsOf(sb.db, u.user_id)).toEqual(derived('user'));
    expect(permissionsOf(sb.db, u.user_id)).not.toContain('audit.read');
  });

  it('the system roles\' descriptions say what they may do (agent and support "read accounts", manager "manages services" were refused)', () => {
    const rows = sb.db.prepare('SELECT role_name, description FROM roles WHERE is_system_role = 1').all() as Array<{
      role_name: string;
      description: string;
    }>;
    const by = Object.fromEntries(rows.map((r) => [r.role_name, r.description]));
    for (const r of SYSTEM_ROLES) expect(by[r.role_name]).toBe(r.description);
    expect(by.agent).not.toMatch(/accounts|subscriptions/);
    expect(by.support).not.toMatch(/accounts|subscriptions/);
    expect(by.manager).not.toMatch(/manages/);
  });
});

/**
 * A request that reaches the rights check and no handler: ids in the path are not numbers and
 * bodies are not JSON, so an allowed call stops at 400 (the rights come first, 403).
 */
async function probe(e: AnyEndpoint, token: string): Promise<number> {
  const path = e.path.replace(/\{\w+\}/g, 'x');
  const r = await call(sb, e.method, path, { token, body: e.method === 'GET' ? undefined : '{', headers: { 'x-device-id': 'probe' } });
  return r.status;
}

/** Calls that would run a handler despite the probe (no path id, no body schema): checked by the rule above only. */
const runsAnyway = (e: AnyEndpoint) => e.method !== 'GET' && !e.path.includes('{') && !e.body;

describe('over HTTP', () => {
  it.each(SEEDED_ACCOUNTS.map((a) => [a.username, a.role, a.password] as const))(
    "%s (%s): CMS login reports the role's permissions; the server agrees",
    async (username, role, password) => {
      const login = await call(sb, 'POST', '/cms/auth/login', {
        body: { username, password },
        headers: { 'x-device-id': `perm-${username}` },
      });
      expect(login.status).toBe(200);
      const reported: string[] = login.json.data.permissions;
      expect([...reported].sort()).toEqual([...ROLE_PERMISSIONS[role]].sort());
      const token: string = login.json.data.token;
      for (const [perm, names] of Object.entries(PERMISSION_ENDPOINTS)) {
        for (const n of names) {
          const e = byName.get(n)!;
          if (runsAnyway(e)) continue;
          const status = await probe(e, token);
          if (reported.includes(perm)) expect(status, `${role} ${perm} ${e.method} ${e.path}`).not.toBe(403);
          else expect(status, `${role} ${perm} ${e.method} ${e.path}`).toBe(403);
        }
      }
    },
  );
});
