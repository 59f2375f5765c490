/**
 * `--jq EXPR`: jq's own language over the JSON a command prints, against a real HTTP server on
 * loopback (the request on the wire, the bytes on stdout, the exit code).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
const env = () => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 'tok' });
const service = (id: number) => ({
  service_id: id,
  service_code: `S${id}`,
  service_name: `Service ${id}`,
  service_type: 'HYBRID',
  provider_name: 'P',
  is_active: id % 2 === 0,
});
const pagination = (page: number, size: number, total: number) => ({
  current_page: page,
  page_size: size,
  total_pages: Math.ceil(total / size),
  total_records: total,
});

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(() => ok({ pagination: pagination(1, 20, 3), services: [service(1), service(2), service(3)] }));
});

describe('--jq on a list', () => {
  it('runs over the JSON array; strings print bare, one a line; other values as jq prints them', async () => {
    const r = await runCli(['services', 'list', '--jq', '.[] | select(.is_active) | .service_code'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('S2\n');
    const n = await runCli(['services', 'list', '--jq', 'map(.service_id) | add'], { env: env() });
    expect(n.stdout).toBe('6\n');
    const obj = await runCli(['services', 'list', '--jq', '[.[] | {id: .service_id}] | .[0]'], { env: env() });
    expect(obj.stdout).toBe('{\n  "id": 1\n}\n');
  });

  it('an expression that outputs nothing (no row matches, an empty list) prints nothing and exits 0', async () => {
    const none = await runCli(['services', 'list', '--jq', '.[] | select(.service_id > 99)'], { env: env() });
    expect([none.code, none.stdout, none.stderr]).toEqual([0, '', '']);
    server.setHandler(() => ok({ pagination: pagination(1, 20, 0), services: [] }));
    for (const form of [[], ['-o', 'ndjson'], ['--all']]) {
      const empty = await runCli(['services', 'list', ...form, '--jq', '.[]'], { env: env() });
      expect([empty.code, empty.stdout, empty.stderr], form.join(' ')).toEqual([0, '', '']);
    }
  });

  it('with --all it sees every row of every page; with -o ndjson it runs on each row, one line each', async () => {
    const all = Array.from({ length: 250 }, (_, i) => service(i + 1));
    server.setHandler((req) => {
      const page = Number(req.query.page_number);
      const size = Number(req.query.page_size);
      return ok({ pagination: pagination(page, size, all.length), services: all.slice((page - 1) * size, page * size) });
    });
    const r = await runCli(['services', 'list', '--all', '--jq', 'length, (map(.service_id) | max)'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('250\n250\n');
    expect(server.requests.map((q) => q.query.page_number)).toEqual(['1', '2', '3']);
    const nd = await runCli(['services', 'list', '--all', '-o', 'ndjson', '--jq', '{id: .service_id} | select(.id > 248)'], { env: env() });
    expect(nd.code, nd.stderr).toBe(0);
    expect(nd.stdout).toBe('{"id":249}\n{"id":250}\n');
  });

  it('overrides a table set by SUBCTL_OUTPUT, and refuses -o table or -o csv given with it (exit 2, nothing sent)', async () => {
    const r = await runCli(['services', 'list', '--jq', '.[0].service_code'], { env: { ...env(), SUBCTL_OUTPUT: 'table' } });
    expect(r.stdout).toBe('S1\n');
    server.requests.length = 0;
    for (const format of ['table', 'csv']) {
      const bad = await runCli(['services', 'list', '-o', format, '--jq', '.'], { env: env() });
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(JSON.parse(bad.stderr).error.message).toBe(
        `--jq filters JSON output: leave out -o ${format}, or use -o json (one document) or -o ndjson (one a line)`,
      );
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('--jq on a get', () => {
  it('runs over the object', async () => {
    server.setHandler(() => ok({ service_info: service(7) }));
    const r = await runCli(['services', 'get', 'S7', '--jq', '.service_info | "\\(.service_code) \\(.service_type)"'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('S7 HYBRID\n');
    expect(server.requests[0].query).toMatchObject({ service_code: 'S7' });
  });
});

describe('--jq errors', () => {
  it("an expression that does not compile: exit 2 with jq's message, before anything is sent", async () => {
    const r = await runCli(['services', 'list', '--jq', '.[] | nosuchfunction'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const e = JSON.parse(r.stderr).error;
    expect(e.type).toBe('usage');
    expect(e.message).toMatch(
      /^--jq: jq: error: nosuchfunction\/0 is not defined at <top-level>, line 1:\n\.\[\] \| nosuchfunction\njq: 1 compile error$/,
    );
    expect(server.requests).toHaveLength(0);
    const empty = await runCli(['services', 'list', '--jq', ''], { env: env() });
    expect(empty.code).toBe(2);
  });

  it('an expression that fails on the answer: exit 2, said to be the filter, stdout empty', async () => {
    const r = await runCli(['services', 'list', '--jq', '.service_code'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const e = JSON.parse(r.stderr).error;
    expect(e.message).toMatch(/^--jq: jq: error \(at inputString:\d+\): Cannot index array with string "service_code"$/);
    expect(e.hint).toMatch(/^the command itself ran/);
  });

  it('an error of the command is not filtered: stdout stays empty, the error is its one JSON object on stderr, with its own exit code', async () => {
    server.setHandler(() => fail(404, 'service NOPE not found', { code: 'NOT_FOUND' }));
    const r = await runCli(['services', 'get', 'NOPE', '--jq', '.service_info.service_code', '--retries', '0'], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('}\n') && r.stderr.indexOf('\n') === r.stderr.length - 1).toBe(true);
    expect(JSON.parse(r.stderr).error).toMatchObject({ type: 'not_found', message: 'service NOPE not found', status: 404 });
    // A line that does not parse, with --jq: the same one JSON object.
    const bad = await runCli(['services', 'list', '--bogus', '--jq', '.'], { env: env() });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toBe("unknown option '--bogus'");
  });
});
