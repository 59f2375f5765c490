/**
 * The `services` group end to end against a real HTTP server on loopback: the request on the
 * wire, the bytes on stdout, the exit code; TTY and non-TTY.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
const TOKEN = 'tok-services-test';
const env = () => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: TOKEN, SUBCTL_SESSION_ID: 'sess-1' });

const services = [
  {
    service_id: 1,
    service_code: 'GPT4',
    service_name: 'GPT-4 access',
    service_type: 'HYBRID',
    provider_name: 'OpenAI',
    is_active: true,
    active_subscriptions_count: 12,
  },
  {
    service_id: 2,
    service_code: 'DALLE',
    service_name: 'Images, "quoted"',
    service_type: 'HYBRID',
    provider_name: 'OpenAI',
    is_active: true,
    active_subscriptions_count: 3,
  },
];
const pagination = (page: number, size: number, total: number) => ({
  current_page: page,
  page_size: size,
  total_pages: Math.ceil(total / size),
  total_records: total,
  has_next_page: page * size < total,
  has_previous_page: page > 1,
});

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(() => ok({ pagination: pagination(1, 50, 2), services }));
});

describe('services list', () => {
  it('sends the exact form of the command-line specification with every flag mapped to its query name', async () => {
    const r = await runCli(
      'services list --service-type HYBRID --is-active true --page-size 50 --sort-by ServiceName --sort-order ASC -o json',
      { env: env() },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/admin/services');
    expect(req.query).toEqual({ service_type: 'HYBRID', is_active: 'true', page_size: '50', sort_by: 'ServiceName', sort_order: 'ASC' });
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['x-session-id']).toBe('sess-1');
    expect(req.headers.accept).toContain('application/json');
    expect(JSON.parse(r.stdout)).toEqual(services);
  });

  it('--no-is-active sends false; --page is --page-number', async () => {
    const r = await runCli('services list --no-is-active --page 3 -o ndjson', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].query).toEqual({ is_active: 'false', page_number: '3' });
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(services);
  });

  it('off a terminal the table has the default columns, tab-separated, no colour, no note', async () => {
    const r = await runCli('services list', { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0].split('\t')).toEqual([
      'service_id',
      'service_code',
      'service_name',
      'service_type',
      'is_active',
      'active_subscriptions_count',
    ]);
    expect(lines[1].split('\t')).toEqual(['1', 'GPT4', 'GPT-4 access', 'HYBRID', 'true', '12']);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect(r.stderr).toBe('');
  });

  it('on a terminal, says on stderr that rows were left out and which flag shows them', async () => {
    server.setHandler(() => ok({ pagination: pagination(1, 2, 7), services }));
    const r = await runCli('services list --page-size 2', { env: { ...env(), FORCE_COLOR: '0' }, tty: true, columns: 120 });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('GPT4');
    expect(r.stderr).toMatch(/showing rows 1-2 of 7; --page-number 2 for the next page, --all for every row/);
  });

  it('--fields picks and orders the columns, csv is a header and rows', async () => {
    const r = await runCli('services list -o csv --fields service_code,service_name', { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('service_code,service_name\nGPT4,GPT-4 access\nDALLE,"Images, ""quoted"""\n');
  });

  it('--all walks every page in order with the largest page size', async () => {
    const all = Array.from({ length: 250 }, (_, i) => ({ service_id: i + 1, service_code: `S${i + 1}` }));
    server.setHandler((req) => {
      const page = Number(req.query.page_number);
      const size = Number(req.query.page_size);
      return ok({ pagination: pagination(page, size, all.length), services: all.slice((page - 1) * size, page * size) });
    });
    const r = await runCli('services list --all -o ndjson --service-type HYBRID', { env: env() });
    expect(r.code).toBe(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).service_id);
    expect(ids).toEqual(all.map((s) => s.service_id));
    expect(server.requests.map((q) => q.query.page_number).sort()).toEqual(['1', '2', '3']);
    expect(server.requests.every((q) => q.query.page_size === '100' && q.query.service_type === 'HYBRID')).toBe(true);
  });

  it('--limit stops after N rows', async () => {
    const all = Array.from({ length: 250 }, (_, i) => ({ service_id: i + 1 }));
    server.setHandler((req) => {
      const page = Number(req.query.page_number);
      const size = Number(req.query.page_size);
      return ok({ pagination: pagination(page, size, all.length), services: all.slice((page - 1) * size, page * size) });
    });
    const r = await runCli('services list --limit 5 -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((s: { service_id: number }) => s.service_id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('an empty list is success: [] and exit 0', async () => {
    server.setHandler(() => ok({ pagination: pagination(1, 20, 0), services: [] }));
    const r = await runCli('services list -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[]\n');
  });
});

describe('services get / report', () => {
  it('get --service-code GPT4 sends the query and prints the detail object', async () => {
    const detail = {
      service_info: { service_id: 1, service_code: 'GPT4' },
      service_plans: [],
      active_subscriptions: [],
      top_users: [],
      usage_statistics: [],
    };
    server.setHandler(() => ok(detail));
    const r = await runCli('services get --service-code GPT4 -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/admin/services/detail');
    expect(server.requests[0].query).toEqual({ service_code: 'GPT4' });
    expect(JSON.parse(r.stdout)).toEqual(detail);
  });

  it('get and delete take the id or the code as their argument: a whole number is the id (as update takes it), anything else the code', async () => {
    server.setHandler(() =>
      ok({ service_info: { service_id: 14 }, service_plans: [], active_subscriptions: [], top_users: [], usage_statistics: [] }),
    );
    expect((await runCli('services get 14 -o json', { env: env() })).code).toBe(0);
    expect((await runCli('services get GPT4 -o json', { env: env() })).code).toBe(0);
    // A code of digits only goes by its flag.
    expect((await runCli('services get --service-code 2024 -o json', { env: env() })).code).toBe(0);
    expect(server.requests.map((q) => q.query)).toEqual([{ service_id: '14' }, { service_code: 'GPT4' }, { service_code: '2024' }]);
    server.requests.length = 0;
    server.setHandler(() => ok({ message: 'deleted', affected_records: 1 }));
    const del = await runCli('services delete 14 --yes', { env: env() });
    expect(del.code, del.stderr).toBe(0);
    expect((await runCli('plans delete 7 --yes', { env: env() })).code).toBe(0);
    expect((await runCli('plans delete PRO-M --yes', { env: env() })).code).toBe(0);
    expect(server.requests.map((q) => [q.path, q.body])).toEqual([
      ['/admin/services', { service_id: 14 }],
      ['/admin/subscription-plans', { plan_id: 7 }],
      ['/admin/subscription-plans', { plan_code: 'PRO-M' }],
    ]);
    const help = await runCli('services get --help', { env: env() });
    expect(help.stdout).toMatch(/^Usage: subctl services get \[options\] \[service_id\|service_code\]$/m);
  });

  it('get without an identifier is a usage error and sends nothing', async () => {
    const r = await runCli('services get', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--service-code or --service-id/);
    expect(server.requests).toHaveLength(0);
  });

  it('get of an unknown code exits 4 with the server message', async () => {
    server.setHandler(() => fail(404, 'service NOPE not found', { code: 'NOT_FOUND' }));
    const r = await runCli('services get --service-code NOPE', { env: env() });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('service NOPE not found');
  });

  it('report --include-stats sends include_stats=true and prints rows', async () => {
    server.setHandler(() => ok([{ ...services[0], today_usage_count: 42 }]));
    const r = await runCli('services report --include-stats -o csv --fields service_code,today_usage_count', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/admin/services/report');
    expect(server.requests[0].query).toEqual({ include_stats: 'true' });
    expect(r.stdout).toBe('service_code,today_usage_count\nGPT4,42\n');
  });
});

describe('services create / update / delete', () => {
  it('create: the exact form of the command-line specification sends a typed JSON body', async () => {
    server.setHandler(() => ok({ message: 'Service created', service_id: 13 }, 'Service created'));
    const r = await runCli(
      'services create --service-code GPT4 --service-name "GPT-4 access" --service-type USAGE_BASED --provider-name OpenAI --base-service-url https://api.example.com --access-pattern "/v1/*" --credit-reset-cycle monthly -o json',
      { env: env() },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const req = server.requests[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/admin/services');
    expect(req.headers['content-type']).toContain('application/json');
    expect(req.body).toEqual({
      service_code: 'GPT4',
      service_name: 'GPT-4 access',
      service_type: 'USAGE_BASED',
      provider_name: 'OpenAI',
      base_service_url: 'https://api.example.com',
      access_pattern: '/v1/*',
      credit_reset_cycle: 'monthly',
    });
    expect(JSON.parse(r.stdout)).toEqual({ message: 'Service created', service_id: 13 });
  });

  it('create with --is-active false sends a JSON boolean', async () => {
    server.setHandler(() => ok({ service_id: 14 }));
    const r = await runCli(
      'services create --service-code X1 --service-name X --service-type HYBRID --provider-name P --base-service-url https://x --access-pattern "/*" --credit-reset-cycle daily --is-active false --requires-auth',
      { env: env() },
    );
    expect(r.code).toBe(0);
    expect((server.requests[0].body as Record<string, unknown>).is_active).toBe(false);
    expect((server.requests[0].body as Record<string, unknown>).requires_auth).toBe(true);
  });

  it('create with a missing required flag names it, exits 2 and sends nothing', async () => {
    const r = await runCli('services create --service-code GPT4 --service-name X', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/service_type \(--service-type\)/);
    expect(r.stderr).toMatch(/provider_name \(--provider-name\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('update 12: the path id is positional and only given fields are sent', async () => {
    server.setHandler(() => ok(null, 'Service updated'));
    const r = await runCli('services update 12 --service-name "GPT-4 Turbo"', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('PUT');
    expect(server.requests[0].path).toBe('/admin/services/12');
    expect(server.requests[0].body).toEqual({ service_name: 'GPT-4 Turbo' });
  });

  it('update with a non-integer id exits 2 naming the field', async () => {
    const r = await runCli('services update abc --service-name X', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: invalid input: id (argument): expected a whole number, got 'abc'\n");
    expect(server.requests).toHaveLength(0);
  });

  it('values that are not of their type are refused as typed, each with how it was given', async () => {
    const cases: Array<[string, string]> = [
      ['services list --page-size abc', "page_size (--page-size): expected a whole number, got 'abc'"],
      ['services list --page-number 1.5', "page_number (--page-number): expected a whole number, got '1.5'"],
      ['services list --is-active maybe', "is_active (--is-active): expected true or false, got 'maybe'"],
      ['plans list --price-from cheap', "price_from (--price-from): expected a number, got 'cheap'"],
      [
        'subscriptions manage 7 --action extend --reason r --extend-days x --yes',
        "extend_days (--extend-days): expected a whole number, got 'x'",
      ],
    ];
    for (const [line, message] of cases) {
      const r = await runCli(line, { env: env() });
      expect(r.code, line).toBe(2);
      expect(r.stderr, line).toContain(`error: invalid input: ${message}\n`);
    }
    // -o json: the same problems, with how each value was given.
    const j = await runCli('services update abc --service-name X -o json', { env: env() });
    expect(JSON.parse(j.stderr.trim().split('\n').pop()!).error.details).toEqual([
      { field: 'id', flag: 'argument', message: "expected a whole number, got 'abc'" },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('delete: the exact form of the command-line specification sends the body', async () => {
    server.setHandler(() => ok({ message: 'deleted', affected_records: 3 }));
    const r = await runCli('services delete --service-code GPT4 --force-delete --yes -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('DELETE');
    expect(server.requests[0].path).toBe('/admin/services');
    expect(server.requests[0].body).toEqual({ service_code: 'GPT4', force_delete: true });
    expect(JSON.parse(r.stdout)).toEqual({ message: 'deleted', affected_records: 3 });
  });

  it('delete off a terminal without --yes refuses, exits 2 and sends nothing', async () => {
    const r = await runCli('services delete --service-code GPT4', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes required when not running interactively/);
    expect(server.requests).toHaveLength(0);
  });

  it('delete on a terminal asks, naming the profile and the target; "n" sends nothing', async () => {
    const r = await runCli('services delete --service-code GPT4', { env: env(), tty: true, answers: ['n'] });
    expect(r.stderr).toMatch(/delete service GPT4/);
    expect(r.stderr).toMatch(/profile: default/);
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('delete on a terminal with "y" sends the request', async () => {
    server.setHandler(() => ok({ message: 'deleted', affected_records: 1 }));
    const r = await runCli('services delete --service-code GPT4', { env: { ...env(), FORCE_COLOR: '0' }, tty: true, answers: ['y'] });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('a 409 shows the server message and field errors, exit 5; -o json says it once, as one JSON error object on stderr', async () => {
    server.setHandler(() =>
      fail(409, 'service code GPT4 already exists', { code: 'CONFLICT', fields: [{ field: 'service_code', message: 'taken' }] }),
    );
    const r = await runCli(
      'services create --service-code GPT4 --service-name X --service-type HYBRID --provider-name P --base-service-url https://x --access-pattern "/*" --credit-reset-cycle daily -o json',
      { env: env() },
    );
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        type: 'rejected',
        message: 'service code GPT4 already exists',
        status: 409,
        code: 'CONFLICT',
        details: { code: 'CONFLICT', fields: [{ field: 'service_code', message: 'taken' }] },
        hint: 'the server refused the request as sent; `subctl services create --help` lists the fields and their rules',
      },
    });
    expect(r.stderr.split('\n')).toEqual([expect.stringMatching(/^\{/), '']);
    // As text (no -o json): the message, the field errors and the hint, each on its line.
    const text = await runCli(
      'services create --service-code GPT4 --service-name X --service-type HYBRID --provider-name P --base-service-url https://x --access-pattern "/*" --credit-reset-cycle daily',
      { env: env() },
    );
    expect(text.code).toBe(5);
    expect(text.stderr).toBe(
      'error: service code GPT4 already exists (HTTP 409)\n  service_code: taken\nhint: the server refused the request as sent; `subctl services create --help` lists the fields and their rules\n',
    );
  });

  it('401 and 403 exit 3 with a hint', async () => {
    server.setHandler(() => fail(401, 'token expired'));
    const r = await runCli('services list', { env: env() });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('token expired');
    server.setHandler(() => fail(403, 'admins only'));
    const r2 = await runCli('services list', { env: env() });
    expect(r2.code).toBe(3);
  });
});
