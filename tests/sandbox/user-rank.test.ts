/**
 * The rank rule of README-decisions-user.md ("Who may change roles") on the /users endpoints:
 * PUT /users/{id}, POST /users and DELETE /users/{id} may not do what the role endpoints
 * refuse. Anyone but a superadmin acts only on users whose primary role ranks below theirs,
 * and grants only roles ranking below theirs (403); nothing is written when refused.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes } from '../support/sandbox.js';
import { Harness } from './user-harness.js';

afterAll(closeAllTestSandboxes);

/** Another admin than the seeded `admin` (the seeder forces one among the extra users). */
function otherAdmin(h: Harness): { user_id: number; username: string } {
  return h.db
    .prepare("SELECT user_id, username FROM users WHERE role = 'admin' AND username <> 'admin' ORDER BY user_id LIMIT 1")
    .get() as { user_id: number; username: string };
}

const row = (h: Harness, id: number) =>
  h.db.prepare('SELECT role, status FROM users WHERE user_id = ?').get(id) as { role: string; status: string } | undefined;
const held = (h: Harness, id: number) =>
  (h.db.prepare('SELECT role_name FROM user_roles WHERE user_id = ? ORDER BY role_name').all(id) as Array<{ role_name: string }>).map(
    (r) => r.role_name,
  );

describe('PUT /users/{id}: role changes follow the rank rule', () => {
  it('an admin cannot make a user an admin, nor demote another admin (403, nothing written)', async () => {
    const h = await Harness.create();
    const eve = h.userId('enduser');
    const up = await h.call('users.update', { as: 'admin', params: { id: eve }, body: { user_id: eve, role: 'admin' } });
    expect(up.status).toBe(403);
    expect(up.error).toMatchObject({ code: 'FORBIDDEN', fields: [{ field: 'role' }] });
    expect(up.error!.message).toContain("'admin'");
    expect(row(h, eve)!.role).toBe('user');
    expect(held(h, eve)).toEqual(['user']);

    const peer = otherAdmin(h);
    const down = await h.call('users.update', { as: 'admin', params: { id: peer.user_id }, body: { user_id: peer.user_id, role: 'user' } });
    expect(down.status).toBe(403);
    expect(down.error!.message).toContain(peer.username);
    expect(row(h, peer.user_id)!.role).toBe('admin');
    // The role endpoint refuses the same changes.
    expect(
      (await h.call('roles.assign', { as: 'admin', params: { user_id: eve }, body: { new_roles: ['admin'], reason: 'x' } })).status,
    ).toBe(403);
    expect(
      (await h.call('roles.assign', { as: 'admin', params: { user_id: peer.user_id }, body: { new_roles: ['user'], reason: 'x' } })).status,
    ).toBe(403);
  });

  it("roles below the caller's, on users below the caller, still change; a superadmin changes anyone", async () => {
    const h = await Harness.create();
    const eve = h.userId('enduser');
    const ok = await h.call('users.update', { as: 'admin', params: { id: eve }, body: { user_id: eve, role: 'manager' } });
    expect(ok.status).toBe(200);
    expect(row(h, eve)!.role).toBe('manager');
    const peer = otherAdmin(h);
    const su = await h.call('users.update', {
      as: 'superadmin',
      params: { id: peer.user_id },
      body: { user_id: peer.user_id, role: 'support' },
    });
    expect(su.status).toBe(200);
    expect(row(h, peer.user_id)!.role).toBe('support');
    const up = await h.call('users.update', { as: 'superadmin', params: { id: eve }, body: { user_id: eve, role: 'admin' } });
    expect(up.status).toBe(200);
    expect(row(h, eve)!.role).toBe('admin');
  });
});

describe('PUT /users/{id} status and DELETE /users/{id} of a user ranking at or above the caller', () => {
  it('an admin cannot ban, deactivate or delete a fellow admin (403, nothing written); a superadmin can', async () => {
    const h = await Harness.create();
    const peer = otherAdmin(h);
    const before = row(h, peer.user_id)!.status;
    for (const status of ['Banned', 'Inactive', 'Pending']) {
      const r = await h.call('users.update', { as: 'admin', params: { id: peer.user_id }, body: { user_id: peer.user_id, status } });
      expect(r.status).toBe(403);
      expect(r.error).toMatchObject({ code: 'FORBIDDEN', fields: [{ field: 'status' }] });
    }
    expect(row(h, peer.user_id)!.status).toBe(before);
    const del = await h.call('users.delete', { as: 'admin', params: { id: peer.user_id } });
    expect(del.status).toBe(403);
    expect(del.error!.message).toContain(peer.username);
    expect(row(h, peer.user_id)).toEqual({ role: 'admin', status: before });

    // No other field of a fellow admin changes either: a new email would let the caller ask
    // for its password reset. Someone below still changes.
    const email = (h.db.prepare('SELECT email FROM users WHERE user_id = ?').get(peer.user_id) as { email: string }).email;
    for (const change of [{ full_name: 'Renamed' }, { email: 'mine@example.com' }, { username: 'taken-over' }]) {
      const r = await h.call('users.update', { as: 'admin', params: { id: peer.user_id }, body: { user_id: peer.user_id, ...change } });
      expect(r.status, JSON.stringify(change)).toBe(403);
      expect(r.error!.message).toContain(peer.username);
    }
    expect((h.db.prepare('SELECT email FROM users WHERE user_id = ?').get(peer.user_id) as { email: string }).email).toBe(email);
    const mgr = h.userId('manager');
    expect((await h.call('users.update', { as: 'admin', params: { id: mgr }, body: { user_id: mgr, full_name: 'Renamed' } })).status).toBe(
      200,
    );
    expect((await h.call('users.update', { as: 'admin', params: { id: mgr }, body: { user_id: mgr, status: 'Inactive' } })).status).toBe(
      200,
    );

    expect(
      (await h.call('users.update', { as: 'superadmin', params: { id: peer.user_id }, body: { user_id: peer.user_id, status: 'Banned' } }))
        .status,
    ).toBe(200);
    expect((await h.call('users.delete', { as: 'superadmin', params: { id: peer.user_id } })).status).toBe(200);
    expect(row(h, peer.user_id)).toBeUndefined();
  });
});

describe('POST /users with a role', () => {
  it('an admin cannot create an admin (any case of the name) or a superadmin; roles below are fine', async () => {
    const h = await Harness.create();
    const body = (n: string, role: string) => ({ username: `rank-${n}`, email: `rank-${n}@example.com`, password: 'pw-rank', role });
    for (const role of ['Admin', 'admin', 'superadmin']) {
      const r = await h.call('users.create', { as: 'admin', body: body(role, role) });
      expect(r.status).toBe(403);
      expect(r.error).toMatchObject({ code: 'FORBIDDEN', fields: [{ field: 'role' }] });
      expect(h.db.prepare('SELECT 1 FROM users WHERE username = ?').get(`rank-${role}`)).toBeUndefined();
    }
    expect((await h.call('users.create', { as: 'admin', body: body('m', 'manager') })).status).toBe(201);
    expect((await h.call('users.create', { as: 'admin', body: body('a', 'auditor') })).status).toBe(201);
    const su = await h.call('users.create', { as: 'superadmin', body: body('sa', 'Admin') });
    expect(su.status).toBe(201);
    expect(su.data.role).toBe('admin');
  });
});
