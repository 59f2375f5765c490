/**
 * `subctl users` against a real loopback server: list, get, create (201), update, delete,
 * search (superadmin, with its statistics) and set-password.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
const TOKEN = 'tok-users-test';
const env = (extra: Record<string, string> = {}) => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: TOKEN, ...extra });
const body = (i = 0) => server.requests[i].body as Record<string, unknown>;

const users = [
  {
    user_id: 1,
    username: 'admin',
    email: 'admin@x',
    full_name: 'Ada Admin',
    role: 'admin',
    status: 'Active',
    last_login_date: '2026-01-02T03:04:05Z',
    permissions: ['users.write'],
  },
  { user_id: 7, username: 'bob', email: 'bob@x', full_name: 'Bob, "B"', role: 'admin', status: 'Active', last_login_date: null },
];

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(() => ok({ users, current_page: 1, page_size: 10, total_count: 2, total_pages: 1 }));
});

describe('users list', () => {
  it('the exact form of the command-line specification: --role admin --status Active', async () => {
    const r = await runCli('users list --role admin --status Active', { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const req = server.requests[0];
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/users');
    expect(req.query).toEqual({ role: 'admin', status: 'Active' });
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0].split('\t')).toEqual(['user_id', 'username', 'email', 'full_name', 'role', 'status', 'last_login_date']);
    expect(lines[1].split('\t')).toEqual(['1', 'admin', 'admin@x', 'Ada Admin', 'admin', 'Active', '2026-01-02T03:04:05Z']);
    expect(lines).toHaveLength(3);
  });

  it('paging flags go out as page and page_size; -o json prints the users array', async () => {
    const r = await runCli('users list --page-number 2 --page-size 25 -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].query).toEqual({ page: '2', page_size: '25' });
    expect(JSON.parse(r.stdout)).toEqual(users);
  });

  it('--all walks the pages with page/page_size until the last one', async () => {
    const all = Array.from({ length: 130 }, (_, i) => ({ user_id: i + 1, username: `u${i + 1}` }));
    server.setHandler((req) => {
      const page = Number(req.query.page);
      const size = Number(req.query.page_size);
      return ok({
        users: all.slice((page - 1) * size, page * size),
        current_page: page,
        page_size: size,
        total_count: all.length,
        total_pages: Math.ceil(all.length / size),
      });
    });
    const r = await runCli('users list --all -o ndjson', { env: env() });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).user_id),
    ).toEqual(all.map((u) => u.user_id));
    expect(server.requests.map((q) => q.query.page).sort()).toEqual(['1', '2']);
  });

  it('an unknown status value exits 2 naming the flag; nothing is sent', async () => {
    const r = await runCli('users list --status Sleeping', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/status \(--status\)/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('users get', () => {
  it('GET /users/{id}; json prints the answer as sent, a table the flat record', async () => {
    const answer = { user: users[0], permissions: ['users.write', 'users.read'] };
    server.setHandler(() => ok(answer));
    const r = await runCli('users get 1 -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('GET');
    expect(server.requests[0].path).toBe('/users/1');
    expect(JSON.parse(r.stdout)).toEqual(answer);
    const t = await runCli('users get 1', { env: env() });
    expect(t.stdout).toMatch(/^user_id\t1\nusername\tadmin\n/);
    expect(t.stdout).toContain('permissions\t["users.write","users.read"]');
  });

  it('a non-integer id exits 2; an unknown one exits 4', async () => {
    const r = await runCli('users get 1.5', { env: env() });
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    server.setHandler(() => fail(404, 'user 99 not found'));
    const r2 = await runCli('users get 99', { env: env() });
    expect(r2.code).toBe(4);
    expect(r2.stderr).toContain('user 99 not found');
  });
});

describe('users create', () => {
  it('POST /users with typed fields and the password from stdin; the 201 answer is printed', async () => {
    const created = { user_id: 50, username: 'carol', email: 'carol@x', role: 'support', full_name: 'Carol', status: 'Active' };
    server.setHandler(() => ({ status: 201, json: { status: true, message: 'user created', data: created, error: null } }));
    const r = await runCli(
      'users create --email carol@x --username carol --role support --full-name Carol --chatgpt-user-id cg-1 --password-stdin -o json',
      {
        env: env(),
        stdin: 'carol-pass-1\n',
      },
    );
    expect(r.code).toBe(0);
    const req = server.requests[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/users');
    expect(req.body).toEqual({
      email: 'carol@x',
      username: 'carol',
      role: 'support',
      full_name: 'Carol',
      chatgpt_user_id: 'cg-1',
      password: 'carol-pass-1',
    });
    expect(JSON.parse(r.stdout)).toEqual(created);
  });

  it('on a terminal the password is asked for twice, masked', async () => {
    server.setHandler(() => ({ status: 201, json: { status: true, message: 'user created', data: { user_id: 51 } } }));
    const r = await runCli('users create --email d@x --username dan --role user', {
      env: env({ FORCE_COLOR: '0' }),
      tty: true,
      answers: ['dan-pass-12', 'dan-pass-12'],
    });
    expect(r.code).toBe(0);
    expect(body().password).toBe('dan-pass-12');
    expect(r.stderr).not.toContain('dan-pass-12');
  });

  it('bulk: --from-csv takes each password from its row (a file, not argv); without the column it refuses', async () => {
    server.setHandler(() => ({ status: 201, json: { status: true, message: 'user created', data: { user_id: 60 } } }));
    const csv = 'username,email,role,password\nerin,erin@x,user,erin-pass-1\nfay,fay@x,agent,fay-pass-12\n';
    const r = await runCli('users create --from-csv - --yes', { env: env(), stdin: csv });
    expect(r.code, r.stderr).toBe(0);
    expect(
      server.requests
        .map((q) => q.body)
        .sort((a, b) => String((a as { username: string }).username).localeCompare(String((b as { username: string }).username))),
    ).toEqual([
      { username: 'erin', email: 'erin@x', role: 'user', password: 'erin-pass-1' },
      { username: 'fay', email: 'fay@x', role: 'agent', password: 'fay-pass-12' },
    ]);
    server.requests.length = 0;
    const r2 = await runCli('users create --from-csv - --yes', { env: env(), stdin: 'username,email,role\ngus,gus@x,user\n' });
    expect(r2.code).not.toBe(0);
    expect(r2.stderr).toMatch(/password column/);
    expect(server.requests).toHaveLength(0);
  });

  it('missing required flags are named before the password is read', async () => {
    const r = await runCli('users create --email d@x --password-stdin', { env: env(), stdin: 'pw\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/username \(--username\)/);
    expect(r.stderr).toMatch(/role \(--role\)/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('users update', () => {
  it('PUT /users/{id} with user_id filled from the path id, not offered as a flag', async () => {
    server.setHandler(() => ok(null, 'user updated'));
    const r = await runCli('users update 7 --status Banned --full-name "Bob B"', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('PUT');
    expect(server.requests[0].path).toBe('/users/7');
    expect(body()).toEqual({ user_id: 7, status: 'Banned', full_name: 'Bob B' });
    expect(r.stdout).toBe('message\tuser updated\n');
    const help = await runCli('users update --help', { env: env() });
    expect(help.stdout).not.toMatch(/--user-id/);
    const bad = await runCli('users update 7 --user-id 8', { env: env() });
    expect(bad.code).toBe(2);
  });

  it('a non-integer id exits 2 and sends nothing', async () => {
    const r = await runCli('users update 7x --status Active', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: invalid input: id (argument): expected a whole number, got '7x'");
    expect(server.requests).toHaveLength(0);
  });
});

describe('users delete', () => {
  it('off a terminal it needs --yes; nothing is sent without it', async () => {
    const r = await runCli('users delete 7', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes required when not running interactively \(delete user 7/);
    expect(server.requests).toHaveLength(0);
  });

  it('with --yes: DELETE /users/{id} and the answer', async () => {
    server.setHandler(() => ok({ success: true, user_id: 7, username: 'bob', message: 'user deleted' }));
    const r = await runCli('users delete 7 --yes -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].method).toBe('DELETE');
    expect(server.requests[0].path).toBe('/users/7');
    expect(JSON.parse(r.stdout)).toMatchObject({ success: true, username: 'bob' });
  });

  it('on a terminal the question names the account (looked up first); "n" deletes nothing', async () => {
    server.setHandler(() => ok({ user: users[1], permissions: [] }));
    const r = await runCli('users delete 7', { env: env({ FORCE_COLOR: '0' }), tty: true, answers: ['n'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/delete user 7 \(bob, bob@x, admin\)/);
    expect(r.stderr).toMatch(/profile: default/);
    expect(server.requests.map((q) => q.method)).toEqual(['GET']);
  });
});

describe('users search (superadmin)', () => {
  const statistics = { total_users: 2, active_users: 2, banned_users: 0, never_logged_in: 1 };
  const answer = {
    users: [
      {
        user_id: 1,
        username: 'admin',
        email: 'admin@x',
        full_name: 'Ada',
        role_names: 'admin',
        status: 'Active',
        activity_status: 'Active today',
        last_login_date: null,
        referral_count: 3,
      },
    ],
    statistics,
    page_info: { page_number: 1, page_size: 20, total_count: 1, total_pages: 1 },
  };

  it('sends every filter and sort under its query name', async () => {
    server.setHandler(() => ok(answer));
    const r = await runCli(
      'users search --status Active --search-keyword ad --role admin --created-date-from 2026-01-01 --created-date-to 2026-01-31 --created-by 1 --last-login-days 7 --has-referrals --sort-by username --sort-order ASC --page-number 2 --page-size 50 -o json',
      { env: env() },
    );
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/superadmin/users');
    expect(server.requests[0].query).toEqual({
      status: 'Active',
      search_keyword: 'ad',
      role: 'admin',
      created_date_from: '2026-01-01',
      created_date_to: '2026-01-31',
      created_by: '1',
      last_login_days: '7',
      has_referrals: 'true',
      sort_by: 'username',
      sort_order: 'ASC',
      page_number: '2',
      page_size: '50',
    });
    expect(JSON.parse(r.stdout)).toEqual(answer.users);
    // The statistics block goes to stderr as its own JSON object: stdout stays one document.
    expect(JSON.parse(r.stderr.trim())).toEqual({ statistics });
  });

  it('a table prints the users, then the statistics on stderr', async () => {
    server.setHandler(() => ok(answer));
    const r = await runCli('users search --no-has-referrals', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].query).toEqual({ has_referrals: 'false' });
    expect(r.stdout.split('\n')[0].split('\t')).toEqual([
      'user_id',
      'username',
      'email',
      'full_name',
      'role_names',
      'status',
      'activity_status',
      'last_login_date',
      'referral_count',
    ]);
    expect(r.stderr).toMatch(/^\nStatistics\n/);
    expect(r.stderr).toMatch(/\n {2}total_users +2\n/);
    expect(r.stderr).toMatch(/never_logged_in +1/);
  });

  it('a bad sort or date exits 2 naming the flag', async () => {
    for (const [line, flag] of [
      ['users search --sort-by age', '--sort-by'],
      ['users search --created-date-from 2026-13-01', '--created-date-from'],
      ['users search --page-size 500', '--page-size'],
    ]) {
      const r = await runCli(line, { env: env() });
      expect(r.code, line).toBe(2);
      expect(r.stderr, line).toContain(flag);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a non-superadmin gets exit 3 with the server message', async () => {
    server.setHandler(() => fail(403, 'role admin may not call users.search'));
    const r = await runCli('users search', { env: env() });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('may not call users.search');
  });
});

describe('users set-password (superadmin)', () => {
  it('POST /cms/superadmin/auth/change-password with user_id from the path and the password from stdin', async () => {
    server.setHandler(() => ok(null, 'password changed'));
    const r = await runCli('users set-password 17 --password-stdin', { env: env(), stdin: 'reset-pass-99\n' });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('POST');
    expect(server.requests[0].path).toBe('/cms/superadmin/auth/change-password');
    expect(body()).toEqual({ user_id: 17, new_password: 'reset-pass-99' });
  });

  it('--dry-run checks the password as a real run does and prints the request with it masked; nothing is sent', async () => {
    const r = await runCli('users set-password 17 --password-stdin --dry-run -o json', { env: env(), stdin: 'reset-pass-99\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      request: 'POST /cms/superadmin/auth/change-password',
      body: { user_id: 17, new_password: '***' },
    });
    expect(r.stdout).not.toContain('reset-pass-99');
    const short = await runCli('users set-password 17 --password-stdin --dry-run', { env: env(), stdin: 'short\n' });
    expect(short.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('a short password is refused locally; a bad id before any password is read', async () => {
    const r = await runCli('users set-password 17 --password-stdin', { env: env(), stdin: 'short\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/new password: Too small/);
    const r2 = await runCli('users set-password 17x', { env: env(), tty: true, answers: ['whatever-1', 'whatever-1'] });
    expect(r2.code).toBe(2);
    expect(r2.stderr).not.toMatch(/New password/);
    expect(server.requests).toHaveLength(0);
  });
});
