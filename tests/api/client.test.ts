/**
 * The shared client against a real loopback server (tests/support/stub-server.ts): what goes over
 * the wire, how answers become data or typed errors. Timing-sensitive rules (backoff gaps, the
 * default 10 s time-out, abort during backoff) are in client-timing.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApiClient,
  backoffDelay,
  fillPath,
  isLoopbackHost,
  parseRetryAfter,
  RedirectError,
  requestTarget,
  validateInput,
  type ClientOptions,
} from '../../src/api/client.js';
import { endpoints } from '../../src/api/contract/index.js';
import { defaultSleep } from '../../src/api/retry.js';
import { endpoint, loose, num, q, str, stringList } from '../../src/api/contract/common.js';
import { BadResponseError, HttpError, InterruptedError, NetworkError, RefusedError, ValidationError } from '../../src/api/errors.js';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';

const Service = loose({ service_id: num(), service_code: str(), service_name: str() });

const listServices = endpoint({
  name: 'test.services.list',
  area: 'admin',
  method: 'GET',
  path: '/admin/services',
  summary: 'list',
  query: z.object({
    page_size: q.int({ min: 1, max: 100 }).default(10),
    page_number: q.int({ min: 1 }).default(1),
    is_active: q.bool().optional(),
    service_type: z.enum(['TIME_BASED', 'USAGE_BASED', 'HYBRID']).optional(),
    codes: stringList().optional(),
    search: z.string().optional(),
  }),
  response: loose({ services: z.array(Service) }),
  access: 'admin',
});

const getService = endpoint({
  name: 'test.services.get',
  area: 'admin',
  method: 'GET',
  path: '/admin/services/{id}/plans/{code}',
  summary: 'get',
  params: z.object({ id: q.int({ min: 1 }), code: z.string().min(1) }),
  response: Service,
  access: 'admin',
});

const createService = endpoint({
  name: 'test.services.create',
  area: 'admin',
  method: 'POST',
  path: '/admin/services',
  summary: 'create',
  body: z.object({
    service_code: z.string().min(2).max(50),
    service_name: z.string().min(1),
    is_active: z.boolean().default(true),
    tags: z.array(z.string()).optional(),
  }),
  response: Service,
  access: 'admin',
  successStatus: 201,
});

const updateService = endpoint({
  name: 'test.services.update',
  area: 'admin',
  method: 'PUT',
  path: '/admin/services/{id}',
  summary: 'update',
  params: z.object({ id: q.int() }),
  body: z.object({ service_name: z.string().optional(), is_active: z.boolean().default(true) }),
  response: Service,
  access: 'admin',
});

const deleteService = endpoint({
  name: 'test.services.delete',
  area: 'admin',
  method: 'DELETE',
  path: '/admin/services/{id}',
  summary: 'delete',
  params: z.object({ id: q.int() }),
  response: z.unknown(),
  access: 'admin',
});

const cmsLogin = endpoint({
  name: 'test.cms.login',
  area: 'user',
  method: 'POST',
  path: '/cms/auth/login',
  summary: 'login',
  body: z.object({ username: z.string(), password: z.string() }),
  response: loose({ token: str(), session_id: str() }),
  access: 'public',
  deviceId: true,
});

let stub: StubServer;
declare global {
  var subctlTestThroughput: boolean | undefined;
}

const clients: ApiClient[] = [];
const delays: number[] = [];
const noWait = async (ms: number) => {
  delays.push(ms);
};

function client(extra: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({ baseUrl: stub.url, sleep: noWait, env: {}, ...extra });
  // client-undici.test.ts runs this whole file again over the undici transport.
  if (globalThis.subctlTestThroughput) c.preferThroughput();
  clients.push(c);
  return c;
}

beforeEach(async () => {
  delays.length = 0;
  stub = await startStubServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stub.close();
});

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('rule 1: JSON in and out', () => {
  it('sends JSON bodies with content-type and accept application/json, and returns data', async () => {
    stub.setHandler(() => ({ status: 201, json: { status: true, message: 'Created', data: { service_id: 7, service_code: 'GPT4' } } }));
    const out = await client().call(createService, { body: { service_code: 'GPT4', service_name: 'GPT-4', tags: ['a', 'b'] } });
    expect(out).toEqual({ service_id: 7, service_code: 'GPT4' });
    const r = stub.requests[0];
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/admin/services');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.accept).toBe('application/json');
    // Only the keys the caller gave: the contract default is_active=true is the server's business.
    expect(r.body).toEqual({ service_code: 'GPT4', service_name: 'GPT-4', tags: ['a', 'b'] });
  });

  it('sends no body and no content-type on a GET', async () => {
    stub.setHandler(() => ok({ services: [] }));
    await client().call(listServices, { query: {} });
    expect(stub.requests[0].rawBody).toBe('');
    expect(stub.requests[0].headers['content-type']).toBeUndefined();
    expect(stub.requests[0].headers.accept).toBe('application/json');
  });

  it('a PUT sends only the fields given, never the contract defaults', async () => {
    stub.setHandler(() => ok({ service_id: 12 }));
    await client().call(updateService, { params: { id: 12 }, body: { service_name: 'GPT-4 Turbo' } });
    expect(stub.requests[0].method).toBe('PUT');
    expect(stub.requests[0].path).toBe('/admin/services/12');
    expect(stub.requests[0].body).toEqual({ service_name: 'GPT-4 Turbo' });
  });

  it('callFull returns status, headers, envelope, message and data', async () => {
    stub.setHandler(() => ({
      status: 201,
      headers: { 'x-request-id': 'r-1' },
      json: { status: true, message: 'Created', data: { service_id: 1 }, meta: { t: 1 } },
    }));
    const full = await client().callFull(createService, { body: { service_code: 'AB', service_name: 'x' } });
    expect(full.status).toBe(201);
    expect(full.headers['x-request-id']).toBe('r-1');
    expect(full.message).toBe('Created');
    expect(full.envelope).toEqual({ status: true, message: 'Created', data: { service_id: 1 }, meta: { t: 1 } });
    expect(full.data).toEqual({ service_id: 1 });
  });

  it('an empty 204 answer is data undefined, not a crash', async () => {
    stub.setHandler(() => ({ status: 204, raw: '' }));
    const full = await client().callFull(deleteService, { params: { id: 3 } });
    expect(full.status).toBe(204);
    expect(full.data).toBeUndefined();
    expect(stub.requests[0].method).toBe('DELETE');
  });

  it('an answer without an envelope (open object) is the data itself', async () => {
    stub.setHandler(() => ({ status: 200, json: { service_id: 5, service_code: 'X' } }));
    expect(await client().call(getService, { params: { id: 5, code: 'X' } })).toEqual({ service_id: 5, service_code: 'X' });
  });
});

describe('URL building and input validation', () => {
  it('keeps the base path prefix, substitutes and encodes path params', async () => {
    stub.setHandler(() => ok({ service_id: 1 }));
    const c = client({ baseUrl: `${stub.url}/api/` });
    expect(c.baseUrl).toBe(`${stub.url}/api`);
    await c.call(getService, { params: { id: '12', code: 'a b/c?d' } });
    expect(stub.requests[0].path).toBe('/api/admin/services/12/plans/a%20b%2Fc%3Fd');
  });

  it('builds the query from validated values, only keys the caller gave; booleans true/false; arrays repeated', async () => {
    let rawUrl = '';
    stub.setHandler(() => ok({ services: [] }));
    const c = client({ log: (l) => (l.startsWith('> GET') ? (rawUrl = l) : undefined) });
    await c.call(listServices, {
      query: { page_size: '5', is_active: 'false', codes: ['A', 'B'], search: 'a&b=c', service_type: undefined },
    });
    const r = stub.requests[0];
    expect(r.query).toEqual({ page_size: '5', is_active: 'false', codes: 'B', search: 'a&b=c' });
    expect(rawUrl).toContain('codes=A&codes=B');
    expect(rawUrl).not.toContain('page_number');
    await c.call(listServices, { query: { is_active: true } });
    expect(stub.requests[1].query).toEqual({ is_active: 'true' });
  });

  it('a request target is the text the URL parser gives for every endpoint path, base path and awkward value', () => {
    // requestTarget builds path and query without parsing a URL per request; the URL parser
    // (with the query appended to its searchParams, as before) is the reference.
    const values: unknown[] = [7, 'a b/c?d#e', 'é ü 日本', '%2e%2e', "x'y(z)*!~", '', '+&=;', 'tab\there', true, -0.5];
    const queries: Array<Record<string, unknown> | undefined> = [
      undefined,
      {},
      { page_size: undefined },
      { page_size: 5, search: 'a&b=c d', codes: ['A', 'B'], is_active: false, when: new Date(Date.UTC(2026, 0, 2)) },
      { empty: [], nothing: null, filter: { a: 1 } },
      { 'weird key': 'ü/?#', plus: '1+1' },
    ];
    let checked = 0;
    for (const base of ['http://127.0.0.1:9', 'https://h.example/api', 'https://h.example/a%20b/v1']) {
      const u = new URL(base);
      const basePath = u.pathname.replace(/\/+$/, '');
      for (const ep of endpoints) {
        for (const [i, value] of values.entries()) {
          const params: Record<string, unknown> = {};
          for (const m of ep.path.matchAll(/\{([^}]+)\}/g)) params[m[1]] = value;
          const query = queries[i % queries.length];
          const reference = new URL(`${u.origin}${basePath}${fillPath(ep.path, params)}`);
          for (const [k, v] of Object.entries(query ?? {})) {
            for (const item of Array.isArray(v) ? v : [v]) {
              if (item === undefined || item === null) continue;
              reference.searchParams.append(
                k,
                typeof item === 'boolean'
                  ? String(item)
                  : item instanceof Date
                    ? item.toISOString()
                    : typeof item === 'object'
                      ? JSON.stringify(item)
                      : String(item),
              );
            }
          }
          expect(requestTarget(basePath, ep.path, params, query), `${ep.name} ${String(value)}`).toBe(
            `${reference.pathname}${reference.search}`,
          );
          checked++;
        }
      }
    }
    expect(checked).toBe(3 * endpoints.length * values.length);
  });

  it('invalid input is a ValidationError naming each field, and nothing is sent', async () => {
    const c = client();
    const e = await rejection(c.call(listServices, { query: { page_size: 500, service_type: 'NOPE' as 'HYBRID' } }));
    expect(e).toBeInstanceOf(ValidationError);
    const v = e as ValidationError;
    expect(v.exitCode).toBe(2);
    expect(v.problems.map((p) => p.field).sort()).toEqual(['page_size', 'service_type']);
    expect(v.problems.find((p) => p.field === 'page_size')!.message).toMatch(/100/);
    const e2 = await rejection(c.call(createService, { body: { service_code: 'X' } as never }));
    expect((e2 as ValidationError).problems.map((p) => p.field).sort()).toEqual(['service_code', 'service_name']);
    const e3 = await rejection(
      c.call(createService, { body: { service_code: 'XY', service_name: 'n', tags: ['ok', 3 as unknown as string] } }),
    );
    expect((e3 as ValidationError).problems[0].field).toBe('tags.1');
    expect(stub.requests).toHaveLength(0);
  });

  it('validateInput returns validated params, given query keys and body', () => {
    const v = validateInput(listServices, { query: { page_size: '7', is_active: '1' } });
    expect(v).toEqual({ params: {}, query: { page_size: 7, is_active: true }, body: undefined });
    const w = validateInput(getService, { params: { id: '3', code: 'Z' } });
    expect(w.params).toEqual({ id: 3, code: 'Z' });
    expect(() => validateInput(getService, { params: { code: 'Z' } })).toThrow(ValidationError);
    try {
      validateInput(getService, { params: { id: 0, code: '' } });
    } catch (e) {
      expect((e as ValidationError).problems.map((p) => p.field)).toEqual(['id', 'code']);
    }
  });
});

describe('rule 8: headers', () => {
  it('sends Authorization, X-Session-ID and user-agent; X-Device-ID only on deviceId endpoints', async () => {
    stub.setHandler(() => ok({ services: [], token: 't', session_id: 's' }));
    const c = client({ token: 'tok-1', sessionId: 'sess-1', deviceId: 'dev-1' });
    await c.call(listServices);
    await c.call(cmsLogin, { body: { username: 'u', password: 'p' } });
    const [list, login] = stub.requests;
    expect(list.headers.authorization).toBe('Bearer tok-1');
    expect(list.headers['x-session-id']).toBe('sess-1');
    expect(list.headers['x-device-id']).toBeUndefined();
    expect(list.headers['user-agent']).toMatch(/^subctl\/\d+\.\d+\.\d+/);
    expect(login.headers['x-device-id']).toBe('dev-1');
    expect(login.headers.authorization).toBe('Bearer tok-1');
  });

  it('sends no credential headers when none are configured; userAgent is configurable', async () => {
    stub.setHandler(() => ok({ services: [] }));
    await client({ userAgent: 'my-agent/1' }).call(listServices);
    const r = stub.requests[0];
    expect(r.headers.authorization).toBeUndefined();
    expect(r.headers['x-session-id']).toBeUndefined();
    expect(r.headers['user-agent']).toBe('my-agent/1');
  });
});

describe('rule 3: which requests are retried', () => {
  it('a POST answering 503 is sent exactly once', async () => {
    stub.setHandler(() => fail(503, 'Service Unavailable'));
    const e = await rejection(client().call(createService, { body: { service_code: 'AB', service_name: 'n' } }));
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(503);
    expect(stub.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('a write answered 429 (not processed) is sent again after Retry-After, up to the retries; with retries 0 once', async () => {
    stub.setHandler((_r, n) => (n < 3 ? { ...fail(429, 'slow down'), headers: { 'retry-after': '2' } } : ok({ service_id: 9 })));
    expect(await client().call(createService, { body: { service_code: 'AB', service_name: 'n' } })).toEqual({ service_id: 9 });
    expect(stub.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    expect(delays).toEqual([2000, 2000]);
    stub.requests.length = 0;
    stub.setHandler(() => fail(429, 'slow down'));
    const e = await rejection(client({ retries: 0 }).call(updateService, { params: { id: 1 }, body: {} }));
    expect((e as HttpError).status).toBe(429);
    expect(stub.requests).toHaveLength(1);
  });

  it('a detached write (a bulk row) answered 429 is not sent again once the client is interrupted (Ctrl-C)', async () => {
    const ac = new AbortController();
    const sleeps: number[] = [];
    const c = client({ signal: ac.signal, sleep: (ms, signal) => (sleeps.push(ms), ac.abort(), defaultSleep(ms, signal)) });
    stub.setHandler(() => ({ ...fail(429, 'slow down'), headers: { 'retry-after': '20' } }));
    const e = await rejection(c.callFull(createService, { body: { service_code: 'AB', service_name: 'n' } }, { detached: true }));
    // The answer stands (not applied: the next attempt of the run sends it again); nothing was sent after Ctrl-C.
    expect((e as HttpError).status).toBe(429);
    expect(sleeps).toEqual([20000]);
    expect(stub.requests).toHaveLength(1);
  });

  it('PUT and DELETE answering 500 are sent exactly once', async () => {
    stub.setHandler(() => fail(500, 'boom'));
    await rejection(client().call(updateService, { params: { id: 1 }, body: {} }));
    await rejection(client().call(deleteService, { params: { id: 1 } }));
    expect(stub.requests.map((r) => r.method)).toEqual(['PUT', 'DELETE']);
  });

  it.each([400, 401, 403, 404, 409, 422])('a GET answering %i is final after 1 attempt', async (status) => {
    stub.setHandler(() => fail(status, `nope ${status}`));
    const e = await rejection(client().call(listServices));
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(status);
    expect(stub.requests).toHaveLength(1);
  });

  it.each([408, 429, 500, 502, 503, 504])(
    'a GET answering %i is retried (3 retries -> 4 attempts, backoff 1 s, 2 s, 4 s)',
    async (status) => {
      stub.setHandler(() => fail(status, 'busy'));
      const e = await rejection(client().call(listServices));
      expect(e).toBeInstanceOf(HttpError);
      expect(stub.requests).toHaveLength(4);
      expect(delays).toEqual([1000, 2000, 4000]);
    },
  );

  it('retries: 0 gives one attempt', async () => {
    stub.setHandler(() => fail(503, 'busy'));
    await rejection(client({ retries: 0 }).call(listServices));
    expect(stub.requests).toHaveLength(1);
  });

  it('a GET that fails then succeeds returns the data', async () => {
    stub.setHandler((_r, n) => (n < 3 ? fail(502, 'bad gateway') : ok({ services: [{ service_id: 1 }] })));
    expect(await client().call(listServices)).toEqual({ services: [{ service_id: 1 }] });
    expect(stub.requests).toHaveLength(3);
    expect(delays).toEqual([1000, 2000]);
  });

  it('Retry-After (seconds) is used instead of the backoff, capped at 30 s', async () => {
    stub.setHandler((_r, n) =>
      n === 1
        ? { ...fail(429, 'slow down'), headers: { 'retry-after': '3' } }
        : n === 2
          ? { ...fail(503, 'x'), headers: { 'retry-after': '120' } }
          : ok({ services: [] }),
    );
    await client().call(listServices);
    expect(delays).toEqual([3000, 30000]);
  });

  it('Retry-After as an HTTP date is honoured', async () => {
    const at = new Date(Date.now() + 5000).toUTCString();
    stub.setHandler((_r, n) => (n === 1 ? { ...fail(503, 'x'), headers: { 'retry-after': at } } : ok({ services: [] })));
    await client().call(listServices);
    expect(delays[0]).toBeGreaterThan(3000);
    expect(delays[0]).toBeLessThanOrEqual(5000);
  });

  it('backoff doubles and is capped at 30 s', async () => {
    stub.setHandler(() => fail(500, 'x'));
    await rejection(client({ retries: 7 }).call(listServices));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(stub.requests).toHaveLength(8);
    expect([1, 2, 5, 6, 10].map(backoffDelay)).toEqual([1000, 2000, 16000, 30000, 30000]);
    expect(parseRetryAfter('1')).toBe(1000);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('999')).toBe(30000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(new Date(Date.now() - 5000).toUTCString())).toBe(0);
  });

  it('a GET whose connection is reset is retried; a POST is not', async () => {
    stub.setHandler((_r, n) => (n === 1 ? { reset: true } : ok({ services: [] })));
    expect(await client().call(listServices)).toEqual({ services: [] });
    expect(stub.requests).toHaveLength(2);
    stub.setHandler(() => ({ reset: true }));
    const e = await rejection(client().call(createService, { body: { service_code: 'AB', service_name: 'n' } }));
    expect(e).toBeInstanceOf(NetworkError);
    expect(stub.requests).toHaveLength(3);
  });
});

describe('rule 4: errors after the retries', () => {
  it('5xx after the retries is HttpError exit 6 with the server message', async () => {
    stub.setHandler(() => fail(503, 'maintenance window', { code: 'MAINT' }));
    const e = (await rejection(client().call(listServices))) as HttpError;
    expect(e).toBeInstanceOf(HttpError);
    expect(e.exitCode).toBe(6);
    expect(e.status).toBe(503);
    expect(e.message).toBe('maintenance window');
    expect(e.code).toBe('MAINT');
  });

  it('429 and 408 after the retries are exit 6', async () => {
    stub.setHandler(() => fail(429, 'too many'));
    expect(((await rejection(client({ retries: 1 }).call(listServices))) as HttpError).exitCode).toBe(6);
    stub.setHandler(() => fail(408, 'timeout'));
    expect(((await rejection(client({ retries: 0 }).call(listServices))) as HttpError).exitCode).toBe(6);
  });

  it('4xx carries the server message, error code and field errors', async () => {
    const error = { code: 'VALIDATION', message: 'Validation failed', fields: [{ field: 'service_code', message: 'already exists' }] };
    stub.setHandler(() => fail(409, 'Service code already exists', error));
    const e = (await rejection(client().call(createService, { body: { service_code: 'AB', service_name: 'n' } }))) as HttpError;
    expect(e).toBeInstanceOf(HttpError);
    expect(e.exitCode).toBe(5);
    expect(e.status).toBe(409);
    expect(e.message).toBe('Service code already exists');
    expect(e.code).toBe('VALIDATION');
    expect(e.details).toEqual(error);
  });

  it('falls back to error.message, then the error string, then HTTP <status>', async () => {
    stub.setHandler(() => ({ status: 400, json: { status: false, data: null, error: { code: 'E1', message: 'from error object' } } }));
    expect((await rejection(client().call(listServices))).message).toBe('from error object');
    stub.setHandler(() => ({ status: 422, json: { status: false, message: '', error: 'plain error string' } }));
    const e = (await rejection(client().call(listServices))) as HttpError;
    expect(e.message).toBe('plain error string');
    expect(e.exitCode).toBe(5);
    stub.setHandler(() => ({ status: 404, json: {} }));
    const n = (await rejection(client().call(listServices))) as HttpError;
    expect(n.message).toBe('HTTP 404');
    expect(n.exitCode).toBe(4);
    stub.setHandler(() => fail(401, 'Token expired'));
    const a = (await rejection(client().call(listServices))) as HttpError;
    expect(a.exitCode).toBe(3);
    expect(a.hint).toMatch(/auth login/);
  });

  it('a 2xx envelope with status:false is an HttpError, exit 5, saying (HTTP 200, status false)', async () => {
    stub.setHandler(() => ({
      status: 200,
      json: { status: false, message: 'Plan is not available', data: null, error: { code: 'PLAN_UNAVAILABLE' } },
    }));
    const e = (await rejection(client().call(listServices))) as HttpError;
    expect(e).toBeInstanceOf(HttpError);
    expect(e.status).toBe(200);
    expect(e.exitCode).toBe(5);
    expect(e.message).toBe('Plan is not available (HTTP 200, status false)');
    expect(e.code).toBe('PLAN_UNAVAILABLE');
    expect(stub.requests).toHaveLength(1);
  });

  it('other envelopes\' ways of saying a 2xx failed: JSend\'s status "fail" and "error", success: false', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { status: 'fail', message: 'Plan code already exists', data: { plan_code: 'taken' } },
        'Plan code already exists (HTTP 200, status "fail")',
      ],
      [{ status: 'error', message: 'Database unavailable' }, 'Database unavailable (HTTP 200, status "error")'],
      [{ success: false, message: 'Not allowed for this plan', data: null }, 'Not allowed for this plan (HTTP 200, success false)'],
    ];
    for (const [json, message] of cases) {
      stub.setHandler(() => ({ status: 200, json }));
      const e = (await rejection(client().call(createService, { body: { service_code: 'AB', service_name: 'n' } }))) as HttpError;
      expect(e.exitCode, message).toBe(5);
      expect(e.message).toBe(message);
    }
    // Success in those words is success: the data shown.
    for (const json of [
      { status: 'success', data: { service_id: 3 } },
      { success: true, message: 'created', data: { service_id: 3 } },
    ]) {
      stub.setHandler(() => ({ status: 200, json }));
      expect(await client().call(createService, { body: { service_code: 'AB', service_name: 'n' } })).toEqual({ service_id: 3 });
    }
  });

  it('an error code is shown as received: a number, an object, data.error_code', async () => {
    stub.setHandler(() => ({ status: 200, json: { status: false, message: 'no', data: null, error: { code: 4012 } } }));
    expect(((await rejection(client().call(listServices))) as HttpError).code).toBe('4012');
    stub.setHandler(() => ({ status: 400, json: { status: false, message: 'no', data: null, error: { code: { kind: 'quota', n: 2 } } } }));
    expect(((await rejection(client().call(listServices))) as HttpError).code).toBe('{"kind":"quota","n":2}');
    stub.setHandler(() => ({ status: 200, json: { status: false, message: 'no', data: { success: false, error_code: 17 } } }));
    expect(((await rejection(client().call(listServices))) as HttpError).code).toBe('17');
  });

  it('connection refused after the retries is NetworkError exit 7', async () => {
    const port = stub.port;
    await stub.close();
    const c = new ApiClient({ baseUrl: `http://127.0.0.1:${port}`, sleep: noWait, env: {} });
    clients.push(c);
    const e = (await rejection(c.call(listServices))) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.exitCode).toBe(7);
    expect(e.code).toBe('ECONNREFUSED');
    expect(e.message).toMatch(/connection refused/);
    expect(e.message).toMatch(/after 4 attempts/);
    expect(delays).toEqual([1000, 2000, 4000]);
    stub = await startStubServer();
  });
});

describe('rule 2: per-attempt time-out', () => {
  it('a hanging server is abandoned at timeoutMs: NetworkError "timed out after 300 ms"', async () => {
    stub.setHandler(() => ({ hang: true }));
    const t0 = performance.now();
    const e = (await rejection(client({ timeoutMs: 300, retries: 0 }).call(listServices))) as NetworkError;
    const elapsed = performance.now() - t0;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.exitCode).toBe(7);
    expect(e.message).toContain('timed out after 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(295);
    expect(elapsed).toBeLessThan(3000);
  });

  it('the time-out covers the body: a server sending headers then trickling the body is cut at timeoutMs', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":true,"data":{"x":"');
      const t = setInterval(() => res.write('a'), 50); // active, so undici's inactivity timers never fire
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const c = client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 400, retries: 0 });
      const t0 = performance.now();
      const e = await rejection(c.request('GET', '/slow'));
      const elapsed = performance.now() - t0;
      expect(e).toBeInstanceOf(NetworkError);
      expect(e.message).toContain('timed out after 400 ms');
      expect(elapsed).toBeGreaterThanOrEqual(395);
      expect(elapsed).toBeLessThan(3000);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('time-outs of a GET are retried', async () => {
    stub.setHandler((_r, n) => (n === 1 ? { hang: true } : ok({ services: [] })));
    expect(await client({ timeoutMs: 200 }).call(listServices)).toEqual({ services: [] });
    expect(stub.requests).toHaveLength(2);
    expect(delays).toEqual([1000]);
  });
});

describe('rule 5: answers outside the contract', () => {
  it('an HTML page with 200 is BadResponseError naming the status and the page by its title, never its markup', async () => {
    stub.setHandler(() => ({ status: 200, raw: '<!DOCTYPE html><html><head><title>Login portal</title></head><body>' + 'x'.repeat(500) }));
    const e = (await rejection(client().call(listServices))) as BadResponseError;
    expect(e).toBeInstanceOf(BadResponseError);
    expect(e.exitCode).toBe(6);
    expect(e.message).toContain('HTTP 200');
    expect(e.message).toContain('is a web page ("Login portal"), not JSON');
    expect(e.message).not.toContain('<');
    expect(e.message).not.toContain('\n');
    expect(e.message.length).toBeLessThan(250);
    expect(stub.requests).toHaveLength(1);
  });

  it('JSON after a UTF-8 byte order mark (some servers write one) is read as the JSON it is', async () => {
    const json = JSON.stringify({ status: true, message: 'ok', data: { services: [{ service_id: 1 }] } });
    stub.setHandler(() => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, raw: `\ufeff${json}` }));
    expect(await client().call(listServices)).toEqual({ services: [{ service_id: 1 }] });
  });

  it('truncated JSON is BadResponseError', async () => {
    stub.setHandler(() => ({ status: 200, headers: { 'content-type': 'application/json' }, raw: '{"status":true,"data":{"servi' }));
    const e = (await rejection(client().call(listServices))) as BadResponseError;
    expect(e).toBeInstanceOf(BadResponseError);
    expect(e.message).toContain('{"status":true,"data":{"servi');
  });

  it('a 4xx HTML page is BadResponseError with its status', async () => {
    stub.setHandler(() => ({ status: 404, raw: '<html><body>nginx 404</body></html>' }));
    const e = (await rejection(client().call(listServices))) as BadResponseError;
    expect(e).toBeInstanceOf(BadResponseError);
    expect(e.status).toBe(404);
    expect(e.message).toContain('HTTP 404');
    expect(stub.requests).toHaveLength(1);
  });

  it('a 5xx HTML page is a retryable HttpError on GET', async () => {
    stub.setHandler(() => ({ status: 502, raw: '<html><body><h1>502 Bad Gateway</h1></body></html>' }));
    const e = (await rejection(client().call(listServices))) as HttpError;
    expect(e).toBeInstanceOf(HttpError);
    expect(e.status).toBe(502);
    expect(e.exitCode).toBe(6);
    expect(e.message).toContain('502 Bad Gateway');
    expect(stub.requests).toHaveLength(4);
  });

  it('data failing the response schema is read as received (tolerant reader); with strict it is BadResponseError naming the field path', async () => {
    const answer = { services: [{ service_id: 1 }, { service_id: 'two', price: '19.99', is_active: 1 }] };
    stub.setHandler(() => ok(answer));
    expect(await client().call(listServices)).toEqual(answer);
    const e = (await rejection(client({ strict: true }).call(listServices))) as BadResponseError;
    expect(e).toBeInstanceOf(BadResponseError);
    expect(e.exitCode).toBe(6);
    expect(e.message).toContain('data.services.1.service_id');
    expect(e.message).toMatch(/expected number/);
  });

  it('deviations go to the log once per field path, with what was expected and received', async () => {
    stub.setHandler(() => ok({ services: [{ service_id: '1' }, { service_id: '2' }, { service_id: 3, service_code: { a: 1 } }] }));
    const lines: string[] = [];
    const c = client({ log: (l) => lines.push(l) });
    await c.call(listServices);
    await c.call(listServices);
    const dev = lines.filter((l) => l.startsWith('deviation: '));
    expect(dev).toEqual([
      'deviation: GET /admin/services: data.services[].service_id: expected number, received string "1"',
      'deviation: GET /admin/services: data.services[].service_code: expected string, received an object',
    ]);
  });

  it('unknown and missing fields pass (lenient response schemas)', async () => {
    stub.setHandler(() => ok({ services: [{ service_id: 1, brand_new: 'x' }], extra: true }));
    expect(await client().call(listServices)).toEqual({ services: [{ service_id: 1, brand_new: 'x' }], extra: true });
  });

  it('a body larger than 64 MiB (declared content-length) is refused', async () => {
    stub.setHandler(() => ({ status: 200, raw: 'a'.repeat(64 * 1024 * 1024 + 10) }));
    const e = (await rejection(client().call(listServices))) as BadResponseError;
    expect(e).toBeInstanceOf(BadResponseError);
    expect(e.message).toMatch(/larger than 64 MiB/);
  });

  it('a streamed body (no content-length) is cut when it passes 64 MiB', async () => {
    let sent = 0;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      const pump = () => {
        while (sent < 200 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (sent = Infinity));
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const c = client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const e = await rejection(c.request('GET', '/big'));
      expect(e).toBeInstanceOf(BadResponseError);
      expect(e.message).toMatch(/larger than 64 MiB/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  /** A server writing `parts` as separate chunks of a chunked body, then dropping the connection. */
  async function cutServer(parts: string[]) {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let i = 0;
      const next = () => {
        if (i < parts.length) {
          res.write(parts[i++]);
          setTimeout(next, 2);
        } else res.socket?.destroy();
      };
      next();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: async () => {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      },
    };
  }

  it('a streamed body (no content-length) arrives whole, in order, whatever its chunks', async () => {
    const text = JSON.stringify({ status: true, message: 'OK', data: { services: [{ service_id: 1, service_name: 'Zürich – 東京' }] } });
    // Cut inside a multi-byte character too: the bytes are joined before they are decoded.
    const bytes = Buffer.from(text);
    const cut = bytes.indexOf(Buffer.from('東')) + 1;
    const raw = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(bytes.subarray(0, 7));
      setTimeout(() => res.write(bytes.subarray(7, cut)), 2);
      setTimeout(() => res.end(bytes.subarray(cut)), 4);
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    try {
      const c = client({ baseUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}` });
      expect(await c.call(listServices)).toEqual({ services: [{ service_id: 1, service_name: 'Zürich – 東京' }] });
    } finally {
      raw.closeAllConnections();
      await new Promise((r) => raw.close(r));
    }
  });

  it('a streamed body cut off before its end is a network error (retried, as a GET), never a short answer', async () => {
    const server = await cutServer(['{"status":true,"message":"OK","data":{"services":[', '{"service_id":1}']);
    try {
      const c = client({ baseUrl: server.url, retries: 1 });
      const e = await rejection(c.call(listServices));
      expect(e).toBeInstanceOf(NetworkError);
      expect(delays).toEqual([1000]);
    } finally {
      await server.close();
    }
  });
});

describe('rule 6: redirects are refused, not followed', () => {
  it.each([301, 302, 307, 308])('%i: error exit 6 naming the target; the target receives nothing', async (status) => {
    const target = await startStubServer(() => ok({ services: [] }));
    try {
      stub.setHandler(() => ({ status, headers: { location: `${target.url}/elsewhere?x=1` }, json: null }));
      const c = client({ token: 'tok', sessionId: 'sess' });
      const e = (await rejection(c.call(listServices))) as RedirectError;
      expect(e).toBeInstanceOf(RedirectError);
      expect(e.exitCode).toBe(6);
      expect(e.status).toBe(status);
      expect(e.message).toContain(`redirected GET ${stub.url}/admin/services to ${target.url}/elsewhere?x=1`);
      expect(e.message).toContain('does not follow redirects');
      const p = (await rejection(c.call(createService, { body: { service_code: 'AB', service_name: 'n' } }))) as RedirectError;
      expect(p).toBeInstanceOf(RedirectError);
      expect(stub.requests).toHaveLength(2);
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it('a relative Location is resolved for the message', async () => {
    stub.setHandler(() => ({ status: 302, headers: { location: '/login' }, raw: '' }));
    const e = await rejection(client().call(listServices));
    expect(e.message).toContain(`to ${stub.url}/login`);
  });
});

describe('rule 7: plain http only to loopback', () => {
  it.each(['http://example.com', 'http://10.0.0.5:8080/api', 'http://api.internal', 'http://[2001:db8::1]'])(
    '%s is refused (exit 2) before anything() is sent',
    (url) => {
      let err: unknown;
      try {
        new ApiClient({ baseUrl: url });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RefusedError);
      expect((err as RefusedError).exitCode).toBe(2);
      expect((err as RefusedError).message).toMatch(/http:\/\//);
    },
  );

  it.each([
    'http://127.0.0.1:8080',
    'http://127.1.2.3',
    'http://localhost:3000/api',
    'http://[::1]:8080',
    'https://example.com',
    'https://10.0.0.5/api',
  ])('%s is allowed', (url) => {
    expect(() => new ApiClient({ baseUrl: url })).not.toThrow();
  });

  it('isLoopbackHost', () => {
    expect(['127.0.0.1', 'localhost', 'LOCALHOST', '[::1]', '::1', '127.255.0.1', '[::ffff:7f00:1]'].every(isLoopbackHost)).toBe(true);
    expect(['128.0.0.1', 'localhost.example.com', '[::2]', '0.0.0.0', '10.0.0.1'].some(isLoopbackHost)).toBe(false);
  });

  it('an invalid base URL is a usage error', () => {
    expect(() => new ApiClient({ baseUrl: 'not a url' })).toThrow(/invalid base URL/);
    expect(() => new ApiClient({ baseUrl: 'ftp://127.0.0.1' })).toThrow(/scheme/);
  });
});

describe('rule 9: interruption', () => {
  it('aborting the client signal in flight rejects with InterruptedError at once', async () => {
    stub.setHandler(() => ({ hang: true }));
    const ac = new AbortController();
    const c = client({ signal: ac.signal });
    const t0 = performance.now();
    const p = rejection(c.call(listServices));
    setTimeout(() => ac.abort(), 150);
    const e = await p;
    const after = performance.now() - t0;
    expect(e).toBeInstanceOf(InterruptedError);
    expect((e as InterruptedError).exitCode).toBe(130);
    // The hang would last the whole 10 s time-out.
    expect(after).toBeLessThan(3000);
    expect(stub.requests).toHaveLength(1);
  });

  it('a per-call signal works the same, and leaves the client usable', async () => {
    stub.setHandler((_r, n) => (n === 1 ? { hang: true } : ok({ services: [] })));
    const c = client();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    expect(await rejection(c.call(listServices, undefined, { signal: ac.signal }))).toBeInstanceOf(InterruptedError);
    expect(await c.call(listServices)).toEqual({ services: [] });
  });

  it('an already aborted signal sends nothing', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await rejection(client({ signal: ac.signal }).call(listServices))).toBeInstanceOf(InterruptedError);
    expect(stub.requests).toHaveLength(0);
  });

  it('an injected sleep that ignores the signal is still cut short', async () => {
    stub.setHandler(() => fail(503, 'x'));
    const ac = new AbortController();
    const c = client({ signal: ac.signal, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
    const t0 = performance.now();
    const p = rejection(c.call(listServices));
    setTimeout(() => ac.abort(), 200);
    expect(await p).toBeInstanceOf(InterruptedError);
    // The sleep it ignores is the 1 s backoff.
    expect(performance.now() - t0).toBeLessThan(900);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('rule 10: verbose log without secrets', () => {
  it('logs method, URL, attempt, status and time; never the token, session id, cookies or passwords', async () => {
    stub.setHandler(() => ({
      status: 200,
      headers: { 'set-cookie': 'sid=cookie-SECRET-000; HttpOnly' },
      json: { status: true, message: 'ok', data: { token: 'tok-SECRET-123', session_id: 'sess-SECRET-456', username: 'ann' } },
    }));
    const lines: string[] = [];
    const c = client({ token: 'tok-SECRET-123', sessionId: 'sess-SECRET-456', deviceId: 'dev-visible-1', log: (l) => lines.push(l) });
    await c.call(cmsLogin, { body: { username: 'ann', password: 'pw-SECRET-789' } });
    // POST is not retried: use a GET for the retry/attempt lines.
    stub.setHandler((_r, n) => (n === 2 ? fail(503, 'busy') : ok({ services: [] })));
    await c.request('GET', '/admin/services', {
      query: { page_size: '5', token: 'tok-SECRET-123' },
      headers: { cookie: 'a=cookie-SECRET-000' },
    });
    const all = lines.join('\n');
    for (const secret of ['tok-SECRET-123', 'sess-SECRET-456', 'pw-SECRET-789', 'cookie-SECRET-000']) expect(all).not.toContain(secret);
    expect(lines).toContain(`> POST ${stub.url}/cms/auth/login (attempt 1/1)`);
    expect(lines.some((l) => /^< 200 POST http:\/\/127\.0\.0\.1:\d+\/cms\/auth\/login \d+ ms$/.test(l))).toBe(true);
    expect(lines.some((l) => /^< 503 GET http:\/\/127\.0\.0\.1:\d+\/admin\/services\?page_size=5&token=\*\*\* \d+ ms$/.test(l))).toBe(true);
    expect(lines).toContain(`> GET ${stub.url}/admin/services?page_size=5&token=*** (attempt 1/4)`);
    expect(lines).toContain(`> GET ${stub.url}/admin/services?page_size=5&token=*** (attempt 2/4)`);
    expect(lines.some((l) => /^< 200 GET http:\/\/127\.0\.0\.1:\d+\/admin\/services\?page_size=5&token=\*\*\* \d+ ms$/.test(l))).toBe(true);
    expect(lines.some((l) => /retry 2\/4 in 1000 ms/.test(l))).toBe(true);
    expect(all).toContain('authorization: Bearer ***');
    expect(all).toContain('x-session-id: ***');
    expect(all).toContain('x-device-id: dev-visible-1');
    expect(all).toContain('"password":"***"');
    expect(all).toContain('"username":"ann"');
  });
});

describe('request(): raw calls', () => {
  it('sends method, path under the base prefix, string query, JSON body and extra headers', async () => {
    stub.setHandler(() => ok({ a: 1 }, 'fine'));
    const c = client({ baseUrl: `${stub.url}/api`, deviceId: 'not-sent' });
    const out = await c.request('post', '/cms/auth/login', {
      query: { dry_run: true, ids: ['1', '2'] },
      body: { username: 'u' },
      headers: { 'X-Device-ID': 'dev-9' },
    });
    expect(out.status).toBe(200);
    expect(out.data).toEqual({ a: 1 });
    expect(out.message).toBe('fine');
    const r = stub.requests[0];
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/api/cms/auth/login');
    expect(r.query).toEqual({ dry_run: 'true', ids: '2' });
    expect(r.body).toEqual({ username: 'u' });
    expect(r.headers['x-device-id']).toBe('dev-9');
    expect(r.headers['content-type']).toBe('application/json');
  });

  it('does not validate, keeps a query in the path, and maps envelope errors', async () => {
    stub.setHandler(() => fail(400, 'page_size must be <= 100', { fields: [{ field: 'page_size', message: 'too big' }] }));
    const c = client();
    const e = (await rejection(c.request('GET', '/admin/services?page_size=500'))) as HttpError;
    expect(e).toBeInstanceOf(HttpError);
    expect(e.message).toBe('page_size must be <= 100');
    expect(e.details).toEqual({ fields: [{ field: 'page_size', message: 'too big' }] });
    expect(stub.requests[0].query).toEqual({ page_size: '500' });
    expect(stub.requests).toHaveLength(1);
  });

  it('accepts a full URL under the base URL and refuses one elsewhere', async () => {
    stub.setHandler(() => ok([1, 2]));
    const c = client();
    expect((await c.request('GET', `${stub.url}/x`)).data).toEqual([1, 2]);
    await expect(c.request('GET', 'https://evil.example.com/x')).rejects.toThrow(/not under the base URL/);
    expect(stub.requests).toHaveLength(1);
  });

  it('a POST answering 503 is one attempt', async () => {
    stub.setHandler(() => fail(503, 'x'));
    await rejection(client().request('POST', '/x', { body: {} }));
    expect(stub.requests).toHaveLength(1);
  });
});
