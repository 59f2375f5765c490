/**
 * The tolerant reader, through the whole CLI against a stub server answering in shapes the
 * contract did not expect: what the user sees on stdout and stderr, and the exit code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});

const run = (args: string, env: Record<string, string> = {}) =>
  runCli(args, { env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 'tok-123', ...env } });
const pagination = { current_page: 1, page_size: 20, total_pages: 1, total_records: 2 };
const odd = [
  { service_id: '1', service_code: 'A', price: '19.99', is_active: 1 },
  { service_id: 2, service_code: { code: 'B' }, price: 5, is_active: 'true' },
];

describe('answers read tolerantly', () => {
  it('numbers as strings, 0/1 booleans and objects where scalars were expected: JSON as received, CSV the boolean read as one, exit 0', async () => {
    server.setHandler(() => ok({ pagination, services: odd }));
    const j = await run('services list -o json');
    expect(j.code).toBe(0);
    expect(j.stderr).toBe('');
    expect(JSON.parse(j.stdout)).toEqual(odd);
    expect(j.stdout).toContain('"price": "19.99"');
    const t = await run('services list -o csv --fields service_id,service_code,price,is_active');
    expect(t.code).toBe(0);
    expect(t.stdout.split('\n').slice(0, 3)).toEqual([
      'service_id,service_code,price,is_active',
      // The contract's boolean read as one (src/api/typed.ts); the rest as received.
      '1,A,19.99,true',
      '2,"{""code"":""B""}",5,true',
    ]);
  });

  it('--verbose lists each deviation once (field, expected, received)', async () => {
    server.setHandler(() => ok({ pagination, services: [...odd, { service_id: '3' }] }));
    const r = await run('services list -o json --verbose');
    expect(r.code).toBe(0);
    const dev = r.stderr.split('\n').filter((l) => l.startsWith('deviation: '));
    expect(dev).toContain('deviation: GET /admin/services: data.services[].service_id: expected number, received string "1"');
    expect(dev).toContain('deviation: GET /admin/services: data.services[].is_active: expected boolean, received number 1');
    expect(dev).toContain('deviation: GET /admin/services: data.services[].service_code: expected string, received an object');
    expect(dev.filter((l) => l.includes('service_id'))).toHaveLength(1);
  });

  it('--strict and SUBCTL_STRICT=1 turn a deviation into exit 6; a conforming answer still passes', async () => {
    server.setHandler(() => ok({ pagination, services: odd }));
    const s = await run('services list -o json --strict');
    expect(s.code).toBe(6);
    expect(s.stdout).toBe('');
    expect(s.stderr).toMatch(/unexpected answer from GET \/admin\/services \(HTTP 200\): data\.services\.0\.service_id: .*expected number/);
    const e = await run('services list -o json', { SUBCTL_STRICT: '1' });
    expect(e.code).toBe(6);
    server.setHandler(() => ok({ pagination, services: [{ service_id: 1, service_code: 'A' }] }));
    expect((await run('services list -o json --strict')).code).toBe(0);
    const bad = await run('services list -o json', { SUBCTL_STRICT: 'maybe' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SUBCTL_STRICT');
  });
});

describe('rows are found, never silently lost', () => {
  it('rows under another key: printed, with one note naming where they were read', async () => {
    server.setHandler(() => ok({ pagination, items: [{ service_id: 1 }, { service_id: 2 }] }));
    const r = await run('services list -o json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ service_id: 1 }, { service_id: 2 }]);
    expect(r.stderr).toBe('note: rows read from data.items; the API documents name data.services\n');
  });

  it('rows as a bare list in data', async () => {
    server.setHandler(() => ok([{ service_id: 7 }]));
    const r = await run('services list -o json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ service_id: 7 }]);
    expect(r.stderr).toBe('note: rows read from data; the API documents name data.services\n');
  });

  it('no rows to be found but other keys: -o json prints data as received; a table names what the answer held (exit 6), never a bare []', async () => {
    const data = { pagination, result: { a: 1 }, first: [1], second: [2] };
    server.setHandler(() => ok(data));
    const j = await run('services list -o json');
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual(data);
    expect(j.stderr).toContain('data holds pagination, result, first, second');
    const t = await run('services list');
    expect(t.code).toBe(6);
    expect(t.stdout).toBe('');
    expect(t.stderr).toContain('error: no rows found in the answer of GET /admin/services');
    expect(t.stderr.match(/data holds pagination, result, first, second/g)).toHaveLength(1);
  });

  it('an empty list stays an empty list, whether the key holds [] or null or only paging is sent', async () => {
    for (const data of [{ pagination, services: [] }, { pagination, services: null }, { pagination: { total_records: 0 } }, null]) {
      server.setHandler(() => ok(data));
      const r = await run('services list -o json');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('[]\n');
      expect(r.stderr).toBe('');
    }
  });

  it('--all pages by alternative paging names, numbers as text, rows under another key; the note once', async () => {
    const all = Array.from({ length: 150 }, (_, i) => ({ service_id: String(i + 1) }));
    server.setHandler((req) => {
      const page = Number(req.query.page_number);
      const size = Number(req.query.page_size);
      return ok({
        meta: { totalPages: String(Math.ceil(all.length / size)), total_count: String(all.length) },
        rows: all.slice((page - 1) * size, page * size),
      });
    });
    const r = await run('services list --all -o ndjson');
    expect(r.code).toBe(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).service_id);
    expect(ids).toEqual(all.map((x) => x.service_id));
    expect(r.stderr).toBe('note: rows read from data.rows; the API documents name data.services\n');
  });

  it('--all with rows that are not objects (null, text): printed as received, never a crash', async () => {
    server.setHandler(() => ok({ pagination, services: [null, 'x', { service_id: 1 }] }));
    const r = await run('services list --all -o json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([null, 'x', { service_id: 1 }]);
  });

  it('--all over a page with no rows to be found: exit 6 naming what the answer held', async () => {
    server.setHandler(() => ok({ pagination, a: [1], b: [2] }));
    const r = await run('services list --all -o json');
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('data holds pagination, a, b');
  });
});

describe('errors the same way', () => {
  it('HTTP 200 with status false: the server message, (HTTP 200, status false), exit 5; the error code as received', async () => {
    server.setHandler(() => ({ status: 200, json: { status: false, message: 'Service is locked', data: null, error: { code: 42 } } }));
    const text = await run('services list');
    expect(text.code).toBe(5);
    expect(text.stderr).toContain('error: Service is locked (HTTP 200, status false)\n');
    const r = await run('services list -o json');
    expect(r.code).toBe(5);
    const last = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(last.error).toMatchObject({ type: 'rejected', message: 'Service is locked (HTTP 200, status false)', status: 200, code: '42' });
  });
});
