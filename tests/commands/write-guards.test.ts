/**
 * One write on the command line, guarded as a bulk run is: `--dry-run` shows the request and
 * sends nothing, an argument and a flag that name the same field differently are refused (neither
 * wins silently), and the options
 * of a bulk run without its input are refused. All of it before anything is sent: exit 2.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';
import { describeChange } from '../../src/resources/subscriptions.js';

let server: StubServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler((req) => {
    if (req.method === 'GET' && req.path === '/admin/subscriptions') {
      return ok({
        pagination: { total_pages: 1, total_records: 1 },
        subscriptions: [{ subscription_id: 42, status: 'active', end_date: '2026-12-01T00:00:00.000Z' }],
      });
    }
    return ok({ message: 'done' });
  });
  env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', SUBCTL_CONFIG_DIR: join(tempDir('subctl-guards-'), 'cfg') };
});

const writes = () => server.requests.filter((q) => q.method !== 'GET');

describe('--dry-run of one write', () => {
  it('subscriptions manage: the request, the change against the current state; no PUT', async () => {
    const r = await runCli(
      ['subscriptions', 'manage', '42', '--action', 'extend', '--reason', 'ticket 9', '--extend-days', '7', '--dry-run', '-o', 'json'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      request: 'PUT /admin/subscriptions/42/manage',
      body: { action: 'extend', reason: 'ticket 9', extend_days: 7 },
      change: 'active, ends 2026-12-01: end_date: 2026-12-01 -> 2026-12-08',
    });
    expect(r.stderr).toContain('dry run: checked, nothing sent');
    expect(writes()).toEqual([]);
  });

  it('a change the status does not allow is not previewed as if it would happen', async () => {
    server.setHandler(() =>
      ok({
        pagination: { total_pages: 1, total_records: 1 },
        subscriptions: [{ subscription_id: 42, status: 'expired', end_date: '2026-10-01T00:00:00.000Z' }],
      }),
    );
    const r = await runCli(['subscriptions', 'manage', '42', '--action', 'pause', '--reason', 'x', '--dry-run', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).change).toBe(
      'expired, ends 2026-10-01: likely refused by the server: pause needs status active (it is expired)',
    );
    expect(writes()).toEqual([]);
  });

  it('services delete and create: nothing sent, no question asked; a bad value is still exit 2', async () => {
    const del = await runCli(['services', 'delete', 'GPT4', '--dry-run', '--yes', '-o', 'json'], { env });
    expect(del.code, del.stderr).toBe(0);
    expect(JSON.parse(del.stdout)).toEqual({ request: 'DELETE /admin/services', body: { service_code: 'GPT4' } });
    const service = [
      'services',
      'create',
      '--service-code',
      'DRY1',
      '--service-name',
      'Dry',
      '--provider-name',
      'P',
      '--base-service-url',
      'https://p.example',
      '--access-pattern',
      'api',
      '--credit-reset-cycle',
      'monthly',
    ];
    const create = await runCli([...service, '--service-type', 'USAGE_BASED', '--dry-run', '-o', 'json'], { env });
    expect(create.code, create.stderr).toBe(0);
    expect(JSON.parse(create.stdout).request).toBe('POST /admin/services');
    const bad = await runCli([...service, '--service-type', 'NOPE', '--dry-run'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/service_type \(--service-type\)/);
    expect(server.requests).toEqual([]);
  });

  it('a secret in the body is masked in the plan', async () => {
    const r = await runCli(
      [
        'users',
        'create',
        '--username',
        'ann',
        '--email',
        'ann@example.com',
        '--role',
        'user',
        '--password-stdin',
        '--dry-run',
        '-o',
        'json',
      ],
      { env, stdin: 'S3cret-pass!\n' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('S3cret-pass!');
    expect(writes()).toEqual([]);
  });

  it('cleanup takes no bulk input: a file of cleanups would go around cleanup.lock', async () => {
    const r = await runCli(['cleanup', '--from-csv', 'rows.csv', '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--from-csv'");
    expect(server.requests).toEqual([]);
  });

  it("cleanup's own --dry-run is still the platform's dry_run (sent as such)", async () => {
    const r = await runCli(['cleanup', '--dry-run', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(writes()).toHaveLength(1);
    expect(writes()[0].body).toMatchObject({ dry_run: true });
  });
});

describe('the argument and a flag naming the same field', () => {
  it.each([
    [
      ['services', 'delete', 'FI-16', '--service-code', 'FI-15', '--yes'],
      'the argument says service_code FI-16 and --service-code says FI-15: give one of them',
    ],
    [
      ['services', 'delete', '62', '--service-id', '61', '--yes'],
      'the argument says service_id 62 and --service-id says 61: give one of them',
    ],
    [
      ['subscriptions', 'manage', '1037', '--id', '1038', '--action', 'pause', '--reason', 'x', '--yes'],
      'the argument says id 1037 and --id says 1038: give one of them',
    ],
  ])('%j: exit 2, nothing sent', async (argv, message) => {
    const r = await runCli(argv, { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(server.requests).toEqual([]);
  });

  it('the same value twice is no conflict', async () => {
    const r = await runCli(['services', 'delete', 'GPT4', '--service-code', 'GPT4', '--yes'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(writes()).toHaveLength(1);
  });
});

describe('bulk options without bulk input', () => {
  it.each([
    [['--report', 'r.csv'], '--report is for bulk runs'],
    [['--concurrency', '8'], '--concurrency is for bulk runs'],
    [['--restart', '--skip-applied'], '--restart, --skip-applied are for bulk runs'],
    [['--run-id', '2026-12'], '--run-id is for bulk runs'],
  ])('%j: exit 2, nothing sent', async (extra, message) => {
    const r = await runCli(['services', 'delete', 'GPT4', '--yes', ...extra], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${message}: give --from-csv FILE or --from-ndjson FILE`);
    expect(server.requests).toEqual([]);
  });
});

describe('numbers as typed', () => {
  it.each([
    [
      [
        'plans',
        'create',
        '--plan-code',
        'P1',
        '--plan-name',
        'x',
        '--price',
        '0x10',
        '--currency',
        'USD',
        '--duration',
        '1',
        '--duration-unit',
        'days',
        '--credit-amount',
        '1',
        '--credit-unit',
        'requests',
      ],
      "price (--price): expected a number, got '0x10'",
    ],
    [['plans', 'list', '--price-from', '0b11'], "price_from (--price-from): expected a number, got '0b11'"],
    [['services', 'list', '--page-size', ''], "page_size (--page-size): expected a whole number, got ''"],
    [['subscriptions', 'manage', '0x10', '--action', 'pause', '--reason', 'x'], "id (argument): expected a whole number, got '0x10'"],
    [['plans', 'update', 'abc', '--price', '3'], "id (argument): expected a whole number, got 'abc'"],
  ])('%j: refused as typed, exit 2, nothing sent', async (argv, message) => {
    const r = await runCli(argv, { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: invalid input: ${message}`);
    expect(server.requests).toEqual([]);
  });

  it('decimal notation is a number: 1e1, .5, 10., +3, spaces around', async () => {
    const r = await runCli(['plans', 'list', '--price-from', '1e1', '--price-to', ' 12.5 ', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0].query).toMatchObject({ price_from: '10', price_to: '12.5' });
  });

  it('a bulk cell is held to the same rule, with its line', async () => {
    const r = await runCli(['subscriptions', 'manage', '--from-csv', '-', '--dry-run'], {
      env,
      stdin: 'subscription_id,action,reason,extend_days\n1037,extend,a,0x1\n',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("line 2: extend_days (--extend-days): expected a whole number, got '0x1'");
  });

  it('a date that is not YYYY-MM-DD is said to be so once', async () => {
    const r = await runCli(['audit', 'list', '--start-date', 'yesterday'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').filter((l) => l.includes('Invalid date'))).toEqual([
      'error: invalid input: start_date (--start-date): Invalid date: expected YYYY-MM-DD',
    ]);
  });

  it('a missing path id is the missing argument, not a NaN', async () => {
    const r = await runCli(['subscriptions', 'manage', '--action', 'pause', '--reason', 'x'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: missing argument <id>');
    expect(r.stderr).not.toContain('NaN');
  });
});

describe('global options named as given', () => {
  it('SUBCTL_OUTPUT=yaml is named as SUBCTL_OUTPUT; --retries is 0-10 as config set has it', async () => {
    const out = await runCli(['services', 'list'], { env: { ...env, SUBCTL_OUTPUT: 'yaml' } });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("error: SUBCTL_OUTPUT must be one of table, wide, json, ndjson, csv; got 'yaml'");
    const flag = await runCli(['services', 'list', '-o', 'yaml'], { env });
    expect(flag.stderr).toContain("error: --output must be one of table, wide, json, ndjson, csv; got 'yaml'");
    const retries = await runCli(['services', 'list', '--retries', '11'], { env });
    expect(retries.code).toBe(2);
    expect(retries.stderr).toContain("error: --retries expects a whole number from 0 to 10, got '11'");
    // With -o json (typed, or from SUBCTL_OUTPUT), such an error is a JSON object on stderr too.
    for (const [argv, e] of [
      [['services', 'list', '--limit', '0', '-o', 'json'], env],
      [['services', 'list', '--retries', '99'], { ...env, SUBCTL_OUTPUT: 'json' }],
    ] as const) {
      const r = await runCli([...argv], { env: e });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stderr.trim().split('\n').pop()!).error.type).toBe('usage');
    }
    expect(server.requests).toEqual([]);
  });
});

describe('hints that name the way out', () => {
  it('a user not found by `audit user` or `roles of` points at the users; a login refused points at the password', async () => {
    server.setHandler((req) =>
      req.path === '/auth/login' ? fail(401, 'invalid username or password') : fail(404, 'user 999999 not found'),
    );
    for (const argv of [
      ['audit', 'user', '999999'],
      ['roles', 'of', '999999'],
    ]) {
      const r = await runCli(argv, { env });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('hint: check the user id; `subctl users list` shows what exists');
    }
    for (const [argv, hint] of [
      [
        ['me', 'use', 'NOPE', '--usage-amount', '1', '--usage-type', 'api_call'],
        'hint: check the service code; `subctl me services` shows what exists',
      ],
      [
        ['referrals', 'update', '99999', '--new-usage-limit', '5'],
        'hint: check the id or code; `subctl referrals mine` (yours) or `subctl referrals admin-list` shows what exists',
      ],
      // What is missing is named: a subscription, a plan (they said "check the service code").
      [['me', 'auto-renewal', '1', '--auto-renewal'], 'hint: check the subscription id; `subctl me subscriptions` shows yours'],
      [
        ['me', 'buy', '--service-plan-id', '9999', '--payment-method', 'WALLET'],
        'hint: check the plan (--service-plan-id, or --plan-code with --service-code); `subctl me plans` shows what exists',
      ],
    ] as const) {
      const r = await runCli([...argv], { env });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(hint);
    }
    server.setHandler(() => fail(403, 'account is banned'));
    const banned = await runCli(['auth', 'login', '--username', 'bob', '--password-stdin'], { env, stdin: 'whatever1\n' });
    expect(banned.code).toBe(3);
    expect(banned.stderr).toContain('hint: this account may not sign in (banned or inactive)');
    server.setHandler((req) => (req.path === '/auth/login' ? fail(401, 'invalid username or password') : fail(404, 'not found')));
    const login = await runCli(['auth', 'login', '--username', 'admin', '--password-stdin'], { env, stdin: 'wrong\n' });
    expect(login.code).toBe(3);
    expect(login.stderr).toContain('hint: check the username and password (passwords are case-sensitive), then sign in again');
  });
});

describe('api', () => {
  it('--all and --limit are refused (one request is sent, as given): exit 2, nothing sent', async () => {
    for (const flag of [['--all'], ['--limit', '3']]) {
      const r = await runCli(['api', 'GET', '/admin/services', ...flag], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('pages through lists in the group commands');
    }
    expect(server.requests).toEqual([]);
  });

  it('-f key=value is typed by the contract: a code of digits stays text, a page size a number', async () => {
    const r = await runCli(['api', 'GET', '/admin/services', '-f', 'service_code=123', '-f', 'page_size=5', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0].query).toMatchObject({ service_code: '123', page_size: '5' });
    const body = await runCli(
      ['api', 'PUT', '/admin/subscriptions/7/manage', '-f', 'action=extend', '-f', 'reason=12345', '-f', 'extend_days=1'],
      { env },
    );
    expect(body.code, body.stderr).toBe(0);
    expect(server.requests[1].body).toEqual({ action: 'extend', reason: '12345', extend_days: 1 });
  });

  it('a bad field is named as given (-f, or the path), with the endpoint; --input may start with a BOM', async () => {
    const r = await runCli(['api', 'GET', '/admin/services', '-f', 'page_size=abc'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: invalid input: page_size (-f page_size): expected a whole number, got 'abc'");
    expect(r.stderr).toContain(
      'hint: the endpoint is services.list; `subctl services list --help` lists each field with its type and bounds',
    );
    // A number written otherwise than in decimals is refused as typed, as on the flags.
    const hex = await runCli(['api', 'GET', '/admin/services', '-f', 'page_size=0x3'], { env });
    expect(hex.code).toBe(2);
    expect(hex.stderr).toContain("error: invalid input: page_size (-f page_size): expected a whole number, got '0x3'");
    expect(hex.stderr).toContain('hint: the endpoint is services.list');
    expect(server.requests).toEqual([]);
    const p = await runCli(['api', 'PUT', '/admin/services/abc', '-f', 'service_name=x'], { env });
    expect(p.stderr).toContain("id (in the path): expected a number, got 'abc'");
    const bom = await runCli(['api', 'POST', '/admin/subscriptions/7/manage', '--input', '-'], {
      env,
      stdin: '\ufeff{"action":"pause","reason":"bom"}',
    });
    expect(bom.code, bom.stderr).toBe(0);
    expect(server.requests.at(-1)!.body).toEqual({ action: 'pause', reason: 'bom' });
  });
});

describe('a delete that names nothing to delete', () => {
  it('subscriptions delete and service-plans delete need their target: exit 2, nothing sent, also with --dry-run or only the flags', async () => {
    const refused: Array<[string, string]> = [
      [
        'subscriptions delete --yes',
        'subscriptions delete needs a subscription id (argument or --subscription-id), or --user-id with --service-id',
      ],
      ['subscriptions delete --force-delete --yes --dry-run', 'subscriptions delete needs a subscription id'],
      ['subscriptions delete --user-id 5 --yes', 'or --user-id with --service-id'],
      ['subscriptions delete --service-id 1 --delete-related-data --yes', 'or --user-id with --service-id'],
      [
        'service-plans delete --yes --dry-run',
        'service-plans delete needs a link id (argument or --service-plan-id), or --service-id with --plan-id',
      ],
      ['service-plans delete --plan-id 3 --force-delete --yes', 'or --service-id with --plan-id'],
    ];
    for (const [line, message] of refused) {
      const r = await runCli(line, { env });
      expect(r.code, line).toBe(2);
      expect(r.stderr, line).toContain(message);
      expect(r.stderr, line).toMatch(/^error: (subscriptions|service-plans) delete needs /);
      expect(r.stdout, line).toBe('');
    }
    expect(server.requests).toEqual([]);
    // Named, they go as before.
    for (const line of [
      'subscriptions delete 7 --yes',
      'subscriptions delete --user-id 5 --service-id 1 --yes',
      'service-plans delete 9 --yes',
      'service-plans delete --service-id 2 --plan-id 3 --yes',
    ]) {
      const r = await runCli(line, { env });
      expect(r.code, `${line}: ${r.stderr}`).toBe(0);
    }
    expect(writes().map((q) => [q.method, q.path, q.body])).toEqual([
      ['DELETE', '/admin/subscriptions', { subscription_id: 7 }],
      ['DELETE', '/admin/subscriptions', { user_id: 5, service_id: 1 }],
      ['DELETE', '/admin/service-plans', { service_plan_id: 9 }],
      ['DELETE', '/admin/service-plans', { service_id: 2, plan_id: 3 }],
    ]);
  });
});

describe('what a refusal or a preview says', () => {
  it('a 409 naming force_delete hints at the flag to type, --force-delete; a declined prompt gets no --help hint', async () => {
    server.setHandler(() => fail(409, 'subscription 3001 is active; cancel it first or pass force_delete', { code: 'CONFLICT' }));
    const r = await runCli('subscriptions delete 3001 --yes', { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'hint: add --force-delete to delete it anyway (with --delete-related-data what depends on it goes too); `subctl subscriptions delete --help` says more',
    );
    const no = await runCli('subscriptions delete 3001', { env, tty: true, answers: ['n'] });
    expect(no.code).toBe(2);
    expect(no.stderr).toContain('error: cancelled: nothing was changed\n');
    expect(no.stderr).not.toContain('hint:');
  });

  it('extending an expired subscription: the preview says whether it becomes active, from the new end date', () => {
    const now = new Date('2026-11-23T00:00:00Z');
    const sub = { subscription_id: 42, status: 'expired', end_date: '2025-09-28T00:00:00.000Z' };
    expect(describeChange(sub, { action: 'extend', extend_days: 30 }, now)).toEqual([
      'end_date: 2025-09-28 -> 2025-10-28',
      'status: stays expired (the new end date is still past)',
    ]);
    expect(describeChange(sub, { action: 'extend', extend_days: 500 }, now)).toEqual([
      'end_date: 2025-09-28 -> 2027-02-10',
      'status: expired -> active',
    ]);
  });
});
