/**
 * `subctl roles` against a real loopback server: roles, their members, and role changes of users.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
const TOKEN = 'tok-roles-test';
const env = (extra: Record<string, string> = {}) => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: TOKEN, ...extra });
const body = (i = 0) => server.requests[i].body as Record<string, unknown>;

const roles = [
  {
    role_id: 1,
    role_name: 'superadmin',
    display_name: 'Super admin',
    priority: 100,
    is_system_role: true,
    is_active: true,
    user_count: 1,
    permission_count: 20,
  },
  {
    role_id: 9,
    role_name: 'auditor',
    display_name: 'Auditor',
    priority: 45,
    is_system_role: false,
    is_active: true,
    user_count: 3,
    permission_count: 2,
  },
];

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(() => ok({ roles, current_page: 1, page_size: 20, total_pages: 1, total_rows: 2 }));
});

describe('roles list / create / update', () => {
  it('list: GET /cms/roles with page/page_size, default columns', async () => {
    const r = await runCli('roles list --page-number 1 --page-size 5', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/roles');
    expect(server.requests[0].query).toEqual({ page: '1', page_size: '5' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0].split('\t')).toEqual([
      'role_id',
      'role_name',
      'display_name',
      'priority',
      'is_system_role',
      'is_active',
      'user_count',
      'permission_count',
    ]);
    expect(lines[2].split('\t')).toEqual(['9', 'auditor', 'Auditor', '45', 'false', 'true', '3', '2']);
  });

  it('create: POST /cms/roles with a typed body', async () => {
    server.setHandler(() => ok({ success: true, role_id: 12, role_name: 'qa' }, 'role created'));
    const r = await runCli('roles create --role-name qa --display-name "Quality" --description "QA team" --priority 30 -o json', {
      env: env(),
    });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('POST');
    expect(server.requests[0].path).toBe('/cms/roles');
    expect(body()).toEqual({ role_name: 'qa', display_name: 'Quality', description: 'QA team', priority: 30 });
    expect(JSON.parse(r.stdout)).toEqual({ success: true, role_id: 12, role_name: 'qa' });
  });

  it('create checks the lengths of the specification before sending', async () => {
    const r = await runCli('roles create --role-name q --display-name Q', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/role_name \(--role-name\)/);
    expect(r.stderr).toMatch(/display_name \(--display-name\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('update <role_id>: PUT /cms/roles/{role_id}, --no-is-active sends false', async () => {
    server.setHandler(() => ok({ success: true }));
    const r = await runCli('roles update 9 --display-name "Auditors" --no-is-active', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('PUT');
    expect(server.requests[0].path).toBe('/cms/roles/9');
    expect(body()).toEqual({ display_name: 'Auditors', is_active: false });
  });
});

describe('roles delete', () => {
  it('off a terminal it needs --yes; with it, DELETE /cms/roles/{role_id}', async () => {
    const r = await runCli('roles delete 9', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes required when not running interactively \(delete role 9\)/);
    expect(server.requests).toHaveLength(0);
    server.setHandler(() => ok(null, 'role deleted'));
    const r2 = await runCli('roles delete 9 --yes', { env: env() });
    expect(r2.code).toBe(0);
    expect(server.requests[0].method).toBe('DELETE');
    expect(server.requests[0].path).toBe('/cms/roles/9');
    expect(r2.stdout).toBe('message\trole deleted\n');
  });

  it('a 409 for a role in use shows the server message and the users holding it, exit 5', async () => {
    server.setHandler(() =>
      fail(409, "role 'auditor' is held by 12 users; remove it from them first", {
        code: 'ROLE_IN_USE',
        message: "role 'auditor' is held by 12 users; remove it from them first",
        users: ['alice', 'bob', 'carol'],
        user_count: 12,
      }),
    );
    const r = await runCli('roles delete 9 --yes', { env: env() });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("error: role 'auditor' is held by 12 users; remove it from them first (HTTP 409)");
    expect(r.stderr).toContain('hint: held by 12 users: alice, bob, carol and 9 more');
    expect(r.stderr).toMatch(/subctl roles members/);
  });

  it('-o json: the error object carries the holders in details', async () => {
    server.setHandler(() => fail(409, 'held', { code: 'ROLE_IN_USE', users: ['alice'], user_count: 1 }));
    const r = await runCli('roles delete 9 --yes -o json', { env: env() });
    expect(r.code).toBe(5);
    const err = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(err.error).toMatchObject({ type: 'rejected', status: 409, code: 'ROLE_IN_USE', details: { users: ['alice'], user_count: 1 } });
  });

  it('a 409 for a system role says so', async () => {
    server.setHandler(() => fail(409, 'system role cannot be deleted', { code: 'SYSTEM_ROLE' }));
    const r = await runCli('roles delete 1 --yes', { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('system role cannot be deleted');
    expect(r.stderr).toMatch(/hint: role 1 is a system role/);
  });

  it('on a terminal "y" deletes', async () => {
    server.setHandler(() => ok(null, 'role deleted'));
    const r = await runCli('roles delete 9', { env: env({ FORCE_COLOR: '0' }), tty: true, answers: ['y'] });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/delete role 9\n {2}profile: default/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('roles members / assignments / of', () => {
  it('members <role>: GET /cms/roles/{role}/users with page and limit', async () => {
    server.setHandler(() =>
      ok({
        users: [
          {
            user_id: 3,
            username: 'alice',
            email: 'a@x',
            full_name: 'Alice',
            is_active: true,
            assigned_at: '2026-01-01T00:00:00Z',
            assigned_by: 'admin',
          },
        ],
        page: 1,
        limit: 20,
        total_count: 1,
        total_pages: 1,
        role: 'auditor',
      }),
    );
    const r = await runCli('roles members auditor --page-size 50 --page 2', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/roles/auditor/users');
    expect(server.requests[0].query).toEqual({ page: '2', limit: '50' });
    expect(r.stdout.split('\n')[1]).toBe('3\talice\ta@x\tAlice\ttrue\t2026-01-01T00:00:00Z\tadmin');
  });

  it('--limit is the global row limit there, never the page size', async () => {
    const all = Array.from({ length: 30 }, (_, i) => ({ user_id: i + 1 }));
    server.setHandler((req) => {
      const page = Number(req.query.page);
      const size = Number(req.query.limit);
      return ok({
        users: all.slice((page - 1) * size, page * size),
        page,
        limit: size,
        total_count: 30,
        total_pages: Math.ceil(30 / size),
      });
    });
    const r = await runCli('roles members auditor --limit 3 -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(all.slice(0, 3));
  });

  it('assignments: --search and --role-filter; the role summary after the rows on stderr', async () => {
    const summary = { total_users: 10, admins: 2, support: 3, users: 5 };
    server.setHandler(() =>
      ok({
        users: [{ user_id: 3, username: 'alice', role: 'support', role_level: 40 }],
        summary,
        page: 1,
        limit: 20,
        total_count: 1,
        total_pages: 1,
      }),
    );
    const r = await runCli('roles assignments --search ali --role-filter support -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/users/roles');
    expect(server.requests[0].query).toEqual({ search: 'ali', role_filter: 'support' });
    expect(JSON.parse(r.stdout)).toEqual([{ user_id: 3, username: 'alice', role: 'support', role_level: 40 }]);
    expect(JSON.parse(r.stderr.trim())).toEqual({ summary });
  });

  it('of <user_id>: GET /cms/users/{user_id}/role; the table lists the available roles apart', async () => {
    const detail = {
      user_id: 17,
      username: 'alice',
      primary_role: 'support',
      role_level: 40,
      permissions: ['audit.read'],
      all_available_roles: [
        { role_name: 'agent', role_level: 20, is_assigned: false, description: 'Agents' },
        { role_name: 'support', role_level: 40, is_assigned: true, description: 'Support' },
      ],
    };
    server.setHandler(() => ok(detail));
    const r = await runCli('roles of 17', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/users/17/role');
    expect(r.stdout).toContain('primary_role\tsupport');
    expect(r.stdout).toContain('\nAvailable roles (2)\nrole_name\trole_level\tis_assigned\tdescription\nagent\t20\tfalse\tAgents\n');
    const j = await runCli('roles of 17 -o json', { env: env() });
    expect(JSON.parse(j.stdout)).toEqual(detail);
  });
});

describe('role changes', () => {
  it('the exact form of the command-line specification: assign 17 --new-roles support,agent --reason "rota"', async () => {
    server.setHandler(() => ok({ success: true, current_roles: ['support', 'agent'] }, 'roles assigned'));
    const r = await runCli('roles assign 17 --new-roles support,agent --reason "rota" ', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('POST');
    expect(server.requests[0].path).toBe('/cms/users/17/assign-role');
    expect(body()).toEqual({ new_roles: ['support', 'agent'], reason: 'rota' });
  });

  it('assign with the legacy --new-role and --notes', async () => {
    const r = await runCli('roles assign 17 --new-role support --notes "covering"', { env: env() });
    expect(r.code).toBe(0);
    expect(body()).toEqual({ new_role: 'support', notes: 'covering' });
  });

  it('assign with --new-role and --new-roles naming different roles exits 2, nothing sent (one was dropped without a word); the same role in both is fine', async () => {
    const r = await runCli('roles assign 17 --new-role agent --new-roles support', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --new-role agent and --new-roles support name different roles: give one of them');
    expect(server.requests).toHaveLength(0);
    const same = await runCli('roles assign 17 --new-role agent --new-roles agent', { env: env() });
    expect(same.code, same.stderr).toBe(0);
  });

  it('assign without any role exits 2 naming --new-roles', async () => {
    const r = await runCli('roles assign 17 --reason x', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/new_roles \(--new-roles\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('promote and demote: POST with the optional role, reason and notes', async () => {
    await runCli('roles promote 17 --reason "good work"', { env: env() });
    await runCli('roles demote 17 --new-role agent --notes n', { env: env() });
    expect(server.requests.map((q) => [q.method, q.path, q.body])).toEqual([
      ['POST', '/cms/users/17/promote', { reason: 'good work' }],
      ['POST', '/cms/users/17/demote', { new_role: 'agent', notes: 'n' }],
    ]);
  });

  it('remove is destructive: --yes off a terminal, then POST /cms/users/{id}/remove-role', async () => {
    const r = await runCli('roles remove 17 --reason left', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/remove every role of user 17/);
    expect(server.requests).toHaveLength(0);
    const r2 = await runCli('roles remove 17 --reason left --yes', { env: env() });
    expect(r2.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/users/17/remove-role');
    expect(body()).toEqual({ reason: 'left' });
  });

  it('changing your own roles is the server message, exit 5; a forbidden change exit 3', async () => {
    server.setHandler(() => fail(400, 'you cannot change your own roles'));
    const r = await runCli('roles promote 1', { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('you cannot change your own roles');
    server.setHandler(() => fail(403, "you cannot grant 'admin'"));
    const r2 = await runCli('roles assign 5 --new-roles admin', { env: env() });
    expect(r2.code).toBe(3);
  });
});
