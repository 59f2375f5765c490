import { afterAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes } from '../support/sandbox.js';
import { Harness } from './user-harness.js';

afterAll(closeAllTestSandboxes);

const roleId = (h: Harness, name: string) =>
  (h.db.prepare('SELECT role_id FROM roles WHERE role_name = ?').get(name) as any).role_id as number;
const rolesOf = (h: Harness, id: number) =>
  (h.db.prepare('SELECT role_name FROM user_roles WHERE user_id = ? ORDER BY role_name').all(id) as any[]).map((r) => r.role_name);
const primary = (h: Harness, id: number) => (h.db.prepare('SELECT role FROM users WHERE user_id = ?').get(id) as any).role;

describe('roles: list, create, update, delete', () => {
  it('lists roles by priority with counts, paged', async () => {
    const h = await Harness.create();
    const r = await h.call('roles.list', { as: 'agent' });
    expect(r.data).toMatchObject({ current_page: 1, page_size: 20, total_pages: 1 });
    expect(r.data.total_rows).toBe(9);
    const names = r.data.roles.map((x: any) => x.role_name);
    expect(names.slice(0, 3)).toEqual(['superadmin', 'admin', 'manager']);
    const prios = r.data.roles.map((x: any) => x.priority);
    expect([...prios].sort((a, b) => b - a)).toEqual(prios);
    const sys = r.data.roles.filter((x: any) => x.is_system_role).map((x: any) => [x.role_name, x.priority]);
    expect(sys).toEqual([
      ['superadmin', 100],
      ['admin', 80],
      ['manager', 60],
      ['support', 40],
      ['agent', 20],
      ['user', 10],
    ]);
    const user = r.data.roles.find((x: any) => x.role_name === 'user');
    expect(user.user_count).toBeGreaterThan(5);
    expect(user.permission_count).toBe(4);
    const p2 = await h.call('roles.list', { as: 'agent', query: { page: '2', page_size: '4' } });
    expect(p2.data.roles).toHaveLength(4);
    expect(p2.data.total_pages).toBe(3);
    expect((await h.call('roles.list', { as: 'enduser' })).status).toBe(403);
  });

  it('create: 409 for a taken name, 400 for a bad name, 403 above the caller', async () => {
    const h = await Harness.create();
    const r = await h.call('roles.create', {
      as: 'admin',
      body: { role_name: 'billing', display_name: 'Billing', description: 'Invoices, "refunds", credits' },
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({
      role_name: 'billing',
      priority: 15,
      is_system_role: false,
      is_active: true,
      user_count: 0,
      created_by_user: 'admin',
    });
    expect((await h.call('roles.create', { as: 'admin', body: { role_name: 'BILLING', display_name: 'Again' } })).status).toBe(409);
    expect((await h.call('roles.create', { as: 'admin', body: { role_name: 'has space', display_name: 'Bad' } })).status).toBe(400);
    expect((await h.call('roles.create', { as: 'admin', body: { role_name: 'boss', display_name: 'Boss', priority: 90 } })).status).toBe(
      403,
    );
    expect(
      (await h.call('roles.create', { as: 'superadmin', body: { role_name: 'boss', display_name: 'Boss', priority: 90 } })).status,
    ).toBe(200);
    expect((await h.call('roles.create', { as: 'manager', body: { role_name: 'x', display_name: 'xx' } })).status).toBe(403);
  });

  it('update: renames carry to holders; system roles keep name, priority and activity (409)', async () => {
    const h = await Harness.create();
    const id = roleId(h, 'auditor');
    const r = await h.call('roles.update', {
      as: 'superadmin',
      params: { role_id: String(id) },
      body: { role_name: 'compliance', priority: 65, description: 'Reads "everything"' },
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ role_name: 'compliance', priority: 65, modified_by_user: 'superadmin' });
    expect(rolesOf(h, 3)).toContain('compliance');
    // Priority 65 now outranks manager (60): the seeded manager's primary role follows.
    expect(primary(h, 3)).toBe('compliance');
    const sys = roleId(h, 'support');
    expect(
      (await h.call('roles.update', { as: 'superadmin', params: { role_id: String(sys) }, body: { role_name: 'helpdesk' } })).status,
    ).toBe(409);
    expect((await h.call('roles.update', { as: 'superadmin', params: { role_id: String(sys) }, body: { priority: 5 } })).status).toBe(409);
    expect((await h.call('roles.update', { as: 'superadmin', params: { role_id: String(sys) }, body: { is_active: false } })).status).toBe(
      409,
    );
    expect(
      (await h.call('roles.update', { as: 'superadmin', params: { role_id: String(sys) }, body: { description: 'Helps' } })).status,
    ).toBe(200);
    expect((await h.call('roles.update', { as: 'superadmin', params: { role_id: '9999' }, body: { description: 'x' } })).status).toBe(404);
    expect(
      (await h.call('roles.update', { as: 'superadmin', params: { role_id: String(id) }, body: { role_name: 'beta-tester' } })).status,
    ).toBe(409);
  });

  it('delete: 409 for a system role, 409 naming the holders of a held role, then deletes once free', async () => {
    const h = await Harness.create();
    const sys = await h.call('roles.delete', { as: 'superadmin', params: { role_id: String(roleId(h, 'agent')) } });
    expect(sys.status).toBe(409);
    expect(sys.error).toMatchObject({ code: 'SYSTEM_ROLE', message: 'system role cannot be deleted' });
    const id = roleId(h, 'auditor');
    const held = await h.call('roles.delete', { as: 'admin', params: { role_id: String(id) } });
    expect(held.status).toBe(409);
    const n = (h.db.prepare("SELECT COUNT(*) AS n FROM user_roles WHERE role_name = 'auditor'").get() as any).n;
    expect(held.error!.message).toContain(`held by ${n} user`);
    expect(held.error!.users).toContain('manager');
    expect((held.error!.users as string[]).length).toBeLessThanOrEqual(10);
    expect(held.error!.user_count).toBe(n);
    // The legacy moderator role is held by nobody: it goes.
    const free = await h.call('roles.delete', { as: 'admin', params: { role_id: String(roleId(h, 'moderator')) } });
    expect(free.status).toBe(200);
    expect(h.db.prepare("SELECT 1 FROM roles WHERE role_name = 'moderator'").get()).toBeUndefined();
    expect((await h.call('roles.delete', { as: 'admin', params: { role_id: '9999' } })).status).toBe(404);
    expect(h.audits.filter((a) => a.module === 'roles' && a.action === 'delete')).toHaveLength(1);
  });
});

describe('role members and assignments', () => {
  it('members of a role, paged; 404 for an unknown role', async () => {
    const h = await Harness.create({ scale: 0.3 });
    const r = await h.call('roles.members', { as: 'support', params: { role: 'user' }, query: { limit: '5' } });
    expect(r.data).toMatchObject({ role: 'user', page: 1, limit: 5 });
    expect(r.data.users).toHaveLength(5);
    expect(r.data.total_pages).toBe(Math.ceil(r.data.total_count / 5));
    expect(r.data.users[0]).toHaveProperty('assigned_at');
    expect((await h.call('roles.members', { as: 'support', params: { role: 'ghosts' } })).status).toBe(404);
  });

  it('assignments: search, role filter and per-role summary', async () => {
    const h = await Harness.create({ scale: 0.3 });
    const r = await h.call('roles.assignments', { as: 'admin' });
    const total = (h.db.prepare('SELECT COUNT(*) AS n FROM users').get() as any).n;
    expect(r.data.summary.total_users).toBe(total);
    const s = r.data.summary;
    expect(s.super_admins + s.admins + s.managers + s.support + s.agents + s.users + s.other_roles).toBe(total);
    expect(s.other_roles).toBe(0);
    // A user whose role an administrator made is counted too (in no bucket, the sum fell short).
    h.db
      .prepare(
        "INSERT INTO roles (role_name, display_name, priority, is_system_role, is_active, created_date) VALUES ('qa-team', 'QA', 15, 0, 1, '2026-01-01T00:00:00.000Z')",
      )
      .run();
    h.db.prepare("UPDATE users SET role = 'qa-team' WHERE user_id = (SELECT MAX(user_id) FROM users WHERE role = 'user')").run();
    const again = (await h.call('roles.assignments', { as: 'admin' })).data.summary;
    expect(again.other_roles).toBe(1);
    expect(again.super_admins + again.admins + again.managers + again.support + again.agents + again.users + again.other_roles).toBe(total);
    expect(r.data.users[0]).toMatchObject({ role: 'superadmin', role_level: 100 });
    expect(r.data.users[0].permissions).toContain('superadmin.passwords');
    const found = await h.call('roles.assignments', { as: 'admin', query: { search: 'Eve Enduser' } });
    expect(found.data.users.map((u: any) => u.username)).toEqual(['enduser']);
    const beta = await h.call('roles.assignments', { as: 'admin', query: { role_filter: 'beta-tester', limit: '100' } });
    expect(beta.data.users.every((u: any) => u.roles.includes('beta-tester'))).toBe(true);
  });

  it('of: primary role, level, current and available roles, permissions', async () => {
    const h = await Harness.create();
    const r = await h.call('roles.of', { as: 'agent', params: { user_id: '3' } });
    expect(r.data).toMatchObject({ user_id: 3, username: 'manager', primary_role: 'manager', role_level: 60 });
    expect(r.data.current_roles).toEqual(['manager', 'auditor']);
    expect(r.data.all_available_roles.find((x: any) => x.role_name === 'auditor')).toMatchObject({ is_assigned: true, role_level: 45 });
    expect(r.data.all_available_roles.find((x: any) => x.role_name === 'admin')).toMatchObject({ is_assigned: false });
    expect(r.data.all_available_roles.some((x: any) => x.role_name === 'moderator')).toBe(false); // inactive
    expect((await h.call('roles.of', { as: 'agent', params: { user_id: '99999' } })).status).toBe(404);
  });
});

describe('assign, promote, demote, remove', () => {
  it('assign several roles: primary = highest priority; unknown role 400; reason in the audit', async () => {
    const h = await Harness.create();
    const r = await h.call('roles.assign', {
      as: 'admin',
      params: { user_id: '6' },
      body: { new_roles: ['agent', 'beta-tester', 'support'], reason: 'Hired', notes: 'Team "Blue", EMEA' },
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ primary_role: 'support', current_roles: ['support', 'agent', 'beta-tester'] });
    expect(primary(h, 6)).toBe('support');
    const audit = h.audits.find((a) => a.action === 'assign')!;
    expect(audit.module).toBe('roles');
    expect(audit.details).toMatchObject({ reason: 'Hired', notes: 'Team "Blue", EMEA', previous_roles: ['user'] });
    const bad = await h.call('roles.assign', { as: 'admin', params: { user_id: '6' }, body: { new_roles: ['agent', 'wizard'] } });
    expect(bad.status).toBe(400);
    expect(bad.error!.message).toContain('wizard');
    expect(primary(h, 6)).toBe('support');
    const legacy = await h.call('roles.assign', { as: 'admin', params: { user_id: '6' }, body: { new_role: 'agent' } });
    expect(legacy.data.current_roles).toEqual(['agent']);
    expect((await h.call('roles.assign', { as: 'admin', params: { user_id: '6' }, body: {} })).status).toBe(400);
    expect((await h.call('roles.assign', { as: 'admin', params: { user_id: '6' }, body: { new_role: 'admin' } })).status).toBe(403);
    expect((await h.call('roles.assign', { as: 'admin', params: { user_id: '2' }, body: { new_role: 'agent' } })).status).toBe(400);
    expect((await h.call('roles.assign', { as: 'admin', params: { user_id: '1' }, body: { new_role: 'agent' } })).status).toBe(403);
    expect((await h.call('roles.assign', { as: 'admin', params: { user_id: '9999' }, body: { new_role: 'agent' } })).status).toBe(404);
  });

  it('promote climbs the system ladder, never to or above the caller unless superadmin', async () => {
    const h = await Harness.create();
    const steps: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await h.call('roles.promote', { as: 'admin', params: { user_id: '6' }, body: { reason: 'good work' } });
      expect(r.status).toBe(200);
      steps.push(r.data.primary_role);
    }
    expect(steps).toEqual(['agent', 'support', 'manager']);
    const blocked = await h.call('roles.promote', { as: 'admin', params: { user_id: '6' }, body: {} });
    expect(blocked.status).toBe(403); // admin cannot make an admin
    expect((await h.call('roles.promote', { as: 'superadmin', params: { user_id: '6' }, body: {} })).data.primary_role).toBe('admin');
    expect((await h.call('roles.promote', { as: 'superadmin', params: { user_id: '6' }, body: {} })).data.primary_role).toBe('superadmin');
    const top = await h.call('roles.promote', { as: 'superadmin', params: { user_id: '6' }, body: {} });
    expect(top.status).toBe(400);
    expect(rolesOf(h, 6)).toEqual(['superadmin']);
    const explicit = await h.call('roles.promote', { as: 'admin', params: { user_id: '5' }, body: { new_role: 'auditor' } });
    expect(explicit.data.primary_role).toBe('auditor');
    expect((await h.call('roles.promote', { as: 'admin', params: { user_id: '4' }, body: { new_role: 'agent' } })).status).toBe(400);
  });

  it('demote steps down; at user it is 400; secondary roles above the new one go', async () => {
    const h = await Harness.create();
    const r = await h.call('roles.demote', { as: 'admin', params: { user_id: '3' }, body: { reason: 'reorg' } });
    expect(r.status).toBe(200);
    // manager (+auditor 45) -> support (40): auditor outranks support and is dropped.
    expect(r.data.current_roles).toEqual(['support']);
    expect((await h.call('roles.demote', { as: 'admin', params: { user_id: '3' }, body: {} })).data.primary_role).toBe('agent');
    expect((await h.call('roles.demote', { as: 'admin', params: { user_id: '3' }, body: {} })).data.primary_role).toBe('user');
    const low = await h.call('roles.demote', { as: 'admin', params: { user_id: '3' }, body: {} });
    expect(low.status).toBe(400);
    expect(low.error!.code).toBe('ALREADY_LOWEST');
    expect((await h.call('roles.demote', { as: 'manager', params: { user_id: '4' }, body: {} })).status).toBe(403); // needs admin
    expect((await h.call('roles.demote', { as: 'admin', params: { user_id: '1' }, body: {} })).status).toBe(403);
  });

  it('remove sets the user back to user', async () => {
    const h = await Harness.create();
    const r = await h.call('roles.remove', { as: 'admin', params: { user_id: '3' }, body: { reason: 'left the company' } });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ primary_role: 'user', current_roles: ['user'], previous_roles: ['manager', 'auditor'] });
    expect(primary(h, 3)).toBe('user');
    const login = await h.call('auth.login', { body: { username: 'manager', password: 'sandbox-manager' } });
    expect(login.data.role).toBe('user');
    expect(h.audits.find((a) => a.action === 'remove')!.details).toMatchObject({ reason: 'left the company' });
  });
});
