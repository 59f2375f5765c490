/**
 * `subctl referrals` against a real loopback server: the caller's codes, checks, statistics
 * and the admin views. Items of these lists are not described by the specification: tables
 * take their columns from the first row.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
const TOKEN = 'tok-referrals-test';
const env = (extra: Record<string, string> = {}) => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: TOKEN, ...extra });
const body = (i = 0) => server.requests[i].body as Record<string, unknown>;
const pagination = (total: number) => ({ current_page: 1, page_size: 10, total_pages: Math.ceil(total / 10), total_records: total });
const codes = [
  { referral_id: 4, referral_code: 'REF-AAAAAA', usage_limit: 100, used_count: 2, status: 'active' },
  { referral_id: 5, referral_code: 'REF-BBBBBB', usage_limit: 10, used_count: 10, status: 'exhausted' },
];

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(() => ok({ success: true }));
});

describe('the caller’s codes', () => {
  it('the exact form of the command-line specification: generate --description "partners" --expiry-days 30 --usage-limit 100', async () => {
    const answer = {
      success: true,
      referral_id: 4,
      referral_code: 'REF-AAAAAA',
      description: 'partners',
      usage_limit: 100,
      expiry_date: '2026-02-01T00:00:00Z',
    };
    server.setHandler(() => ok(answer, 'referral code generated'));
    const r = await runCli('referrals generate --description "partners" --expiry-days 30 --usage-limit 100 -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('POST');
    expect(server.requests[0].path).toBe('/cms/referral/generate');
    expect(body()).toEqual({ description: 'partners', expiry_days: 30, usage_limit: 100 });
    expect(JSON.parse(r.stdout)).toEqual(answer);
  });

  it('generate checks the bounds of the specification before sending', async () => {
    const r = await runCli('referrals generate --description ab --expiry-days 366 --usage-limit 0', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/description \(--description\)/);
    expect(r.stderr).toMatch(/expiry_days \(--expiry-days\)/);
    expect(r.stderr).toMatch(/usage_limit \(--usage-limit\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('validate CODE: exit 0 when valid, 5 when the answer says it is not', async () => {
    server.setHandler(() => ok({ is_valid: true, success: true, referral_code: 'REF-AAAAAA', remaining_uses: 98 }));
    const r = await runCli('referrals validate REF-AAAAAA -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/referral/validate');
    expect(body()).toEqual({ referral_code: 'REF-AAAAAA' });
    expect(JSON.parse(r.stdout)).toMatchObject({ is_valid: true, remaining_uses: 98 });
    server.setHandler(() =>
      ok({ is_valid: false, success: false, referral_code: 'REF-BBBBBB', message: 'referral code has no uses left' }),
    );
    const r2 = await runCli('referrals validate --referral-code REF-BBBBBB -o json', { env: env() });
    expect(r2.code).toBe(5);
    expect(JSON.parse(r2.stdout)).toMatchObject({ is_valid: false });
    expect(r2.stderr).toContain('referral code REF-BBBBBB is not valid: referral code has no uses left');
  });

  it('validate CODE: another platform\'s spelling of false (0, "false") is not valid too: exit 5', async () => {
    for (const is_valid of [0, 'false']) {
      server.setHandler(() => ok({ is_valid, success: 0, referral_code: 'REF-CCCCCC', message: 'referral code not found' }));
      const r = await runCli('referrals validate REF-CCCCCC', { env: env() });
      expect(r.code, String(is_valid)).toBe(5);
      expect(r.stderr).toContain('referral code REF-CCCCCC is not valid: referral code not found');
    }
    server.setHandler(() => ok({ is_valid: 1, success: 1, referral_code: 'REF-CCCCCC' }));
    expect((await runCli('referrals validate REF-CCCCCC', { env: env() })).code).toBe(0);
  });

  it('validate without a code is a usage error', async () => {
    const r = await runCli('referrals validate', { env: env() });
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('use: POST /cms/referral/use with the code and the new user id', async () => {
    const r = await runCli('referrals use REF-AAAAAA --new-user-id 42', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/referral/use');
    expect(body()).toEqual({ referral_code: 'REF-AAAAAA', new_user_id: 42 });
  });

  it('update: PUT /cms/referral/update with the id positional or as a flag', async () => {
    await runCli('referrals update 4 --new-usage-limit 200', { env: env() });
    await runCli('referrals update --referral-code-id 4 --new-expiry-date 2027-01-31', { env: env() });
    expect(server.requests.map((q) => [q.method, q.path, q.body])).toEqual([
      ['PUT', '/cms/referral/update', { referral_code_id: 4, new_usage_limit: 200 }],
      ['PUT', '/cms/referral/update', { referral_code_id: 4, new_expiry_date: '2027-01-31' }],
    ]);
  });

  it('deactivate is destructive: --yes off a terminal, then DELETE with a body', async () => {
    const r = await runCli('referrals deactivate 4 --reason "partner left"', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/deactivate referral code #4 \(reason: partner left\)/);
    expect(server.requests).toHaveLength(0);
    const r2 = await runCli('referrals deactivate 4 --reason "partner left" --yes', { env: env() });
    expect(r2.code).toBe(0);
    expect(server.requests[0].method).toBe('DELETE');
    expect(server.requests[0].path).toBe('/cms/referral/deactivate');
    expect(body()).toEqual({ referral_code_id: 4, reason: 'partner left' });
  });

  it('deactivating twice is the server message, exit 5', async () => {
    server.setHandler(() => fail(409, 'referral code 4 is already deactivated'));
    const r = await runCli('referrals deactivate 4 --reason again --yes', { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('already deactivated');
  });

  it('mine: the codes with columns from the first row, the summary after them on stderr', async () => {
    server.setHandler(() => ok({ codes, summary: { total_codes: 2, total_uses: 12 }, pagination: pagination(2) }));
    const r = await runCli('referrals mine --include-inactive --search-keyword REF --page-size 5', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/referral/my-codes');
    expect(server.requests[0].query).toEqual({ include_inactive: 'true', search_keyword: 'REF', page_size: '5' });
    expect(r.stdout).toBe(
      'referral_id\treferral_code\tusage_limit\tused_count\tstatus\n4\tREF-AAAAAA\t100\t2\tactive\n5\tREF-BBBBBB\t10\t10\texhausted\n',
    );
    expect(r.stderr).toMatch(/Summary\n {2}total_codes +2\n {2}total_uses +12/);
  });

  it('stats: the composite answer as one object', async () => {
    const stats = {
      summary: { total_codes: 2 },
      code_usage: [{ referral_code: 'REF-AAAAAA', uses: 2 }],
      daily_stats: [],
      monthly_stats: [],
    };
    server.setHandler(() => ok(stats));
    const r = await runCli('referrals stats -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/referral/statistics');
    expect(JSON.parse(r.stdout)).toEqual(stats);
  });

  it('info <user_id>, referred, search', async () => {
    server.setHandler((req) => {
      if (req.path.startsWith('/cms/referral/info/')) return ok({ user_details: { user_id: 7 }, codes });
      if (req.path === '/cms/referred-users')
        return ok({ referred_users: [{ user_id: 9, username: 'zed' }], summary: { total: 1 }, pagination: pagination(1) });
      return ok({ referral_codes: codes, pagination: pagination(2) });
    });
    const a = await runCli('referrals info 7 -o json', { env: env() });
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ user_details: { user_id: 7 } });
    const b = await runCli('referrals referred -o json --page 2', { env: env() });
    expect(JSON.parse(b.stdout)).toEqual([{ user_id: 9, username: 'zed' }]);
    const c = await runCli('referrals search --search-keyword AAA -o csv', { env: env() });
    expect(c.stdout.split('\n')[0]).toBe('referral_id,referral_code,usage_limit,used_count,status');
    expect(server.requests.map((q) => [q.path, q.query])).toEqual([
      ['/cms/referral/info/7', {}],
      ['/cms/referred-users', { page_number: '2' }],
      ['/cms/referral-codes/search', { search_keyword: 'AAA' }],
    ]);
  });
});

describe('admin views', () => {
  it('admin-search and admin-referred', async () => {
    server.setHandler((req) =>
      req.path.endsWith('referred-users')
        ? ok({ referred_users: [{ user_id: 9 }], pagination: pagination(1) })
        : ok({ referral_codes: codes, pagination: pagination(2) }),
    );
    const a = await runCli('referrals admin-search --search-keyword REF -o json', { env: env() });
    expect(JSON.parse(a.stdout)).toEqual(codes);
    const b = await runCli('referrals admin-referred --search-keyword z --page-size 20 -o json', { env: env() });
    expect(JSON.parse(b.stdout)).toEqual([{ user_id: 9 }]);
    expect(server.requests.map((q) => [q.path, q.query])).toEqual([
      ['/cms/admin/referral-codes/search', { search_keyword: 'REF' }],
      ['/cms/admin/referred-users', { search_keyword: 'z', page_size: '20' }],
    ]);
  });

  it('admin-list sends every filter and the sort', async () => {
    server.setHandler(() =>
      ok({ referrals: [{ referral_id: 1, username: 'zed' }], summary: { total_referrals: 1 }, pagination: pagination(1) }),
    );
    const r = await runCli(
      'referrals admin-list --filter-status active --filter-date-from 2026-01-01 --filter-date-to 2026-01-31 --search-keyword z --sort-by Username --sort-order ASC --page-number 1 --page-size 10 -o json',
      { env: env() },
    );
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/admin/referrals');
    expect(server.requests[0].query).toEqual({
      filter_status: 'active',
      filter_date_from: '2026-01-01',
      filter_date_to: '2026-01-31',
      search_keyword: 'z',
      sort_by: 'Username',
      sort_order: 'ASC',
      page_number: '1',
      page_size: '10',
    });
    expect(JSON.parse(r.stdout)).toEqual([{ referral_id: 1, username: 'zed' }]);
    expect(JSON.parse(r.stderr.trim())).toEqual({ summary: { total_referrals: 1 } });
  });

  it('admin-list rejects an unknown status or sort before sending', async () => {
    const r = await runCli('referrals admin-list --filter-status gone --sort-by Date', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/filter_status \(--filter-status\)/);
    expect(r.stderr).toMatch(/sort_by \(--sort-by\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('user-referred <user_id> and user-stats <user_id> --stats-period N', async () => {
    server.setHandler((req) =>
      req.path.endsWith('/statistics')
        ? ok({ user_summary: { user_id: 7 }, daily_activity: [], code_usage: [] })
        : ok({
            referred_users: [{ user_id: 9 }],
            user_details: { user_id: 7, username: 'bob' },
            summary: { total: 1 },
            pagination: pagination(1),
          }),
    );
    const a = await runCli('referrals user-referred 7', { env: env() });
    expect(a.code).toBe(0);
    expect(a.stdout).toBe('user_id\n9\n');
    expect(a.stderr).toMatch(/User\n {2}user_id +7\n {2}username +bob/);
    const b = await runCli('referrals user-stats 7 --stats-period 90 -o json', { env: env() });
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual({ user_summary: { user_id: 7 }, daily_activity: [], code_usage: [] });
    expect(server.requests.map((q) => [q.path, q.query])).toEqual([
      ['/cms/admin/users/7/referred-users', {}],
      ['/cms/admin/users/7/statistics', { stats_period: '90' }],
    ]);
    const c = await runCli('referrals user-stats 7 --stats-period 400', { env: env() });
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/stats_period \(--stats-period\)/);
  });
});
