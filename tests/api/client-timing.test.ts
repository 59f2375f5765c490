/**
 * Timing rules of the client with the real clock and a real loopback server: the backoff gaps,
 * Retry-After, abort during the backoff, and the default 10 s time-out. No fake timers: undici's
 * sockets and AbortSignal timers do not follow them. Slow (about 20 s together) by design; the
 * tests run concurrently. A timer never fires early but a loaded machine fires it late, so the
 * lower bounds are close and the upper ones leave room: each still tells a wait from the next
 * doubling.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.js';
import { endpoint } from '../../src/api/contract/common.js';
import { HttpError, InterruptedError, NetworkError } from '../../src/api/errors.js';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';

const ping = endpoint({
  name: 'test.ping',
  area: 'admin',
  method: 'GET',
  path: '/ping/{case}',
  summary: 'ping',
  params: z.object({ case: z.string() }),
  response: z.unknown(),
  access: 'public',
});

let stub: StubServer;
/** Requests per test case (the path names the case), so concurrent tests share one server. */
const seen = (c: string) => stub.requests.filter((r) => r.path === `/ping/${c}` || r.path === `/${c}`);
const gaps = (c: string) => {
  const at = seen(c).map((r) => r.at);
  return at.slice(1).map((t, i) => t - at[i]);
};

beforeAll(async () => {
  stub = await startStubServer((req) => {
    const c = req.path.split('/').pop()!;
    const n = seen(c).length;
    switch (c) {
      case 'always503':
        return fail(503, 'Service Unavailable');
      case 'abort':
        return { ...fail(429, 'Too Many Requests'), headers: { 'retry-after': '10' } };
      case 'post503':
        return fail(503, 'Service Unavailable');
      case 'ra429':
        return n === 1 ? { ...fail(429, 'Too Many Requests'), headers: { 'retry-after': '1' } } : ok({ fine: true });
      case 'hang':
        return { hang: true };
      default:
        return ok({});
    }
  });
});
afterAll(async () => {
  await stub.close();
});

describe.concurrent('retry timing with the real clock', () => {
  it('a GET always answering 503 makes 4 attempts, 1 s, 2 s and 4 s apart (each under half as much again)', async ({ expect }) => {
    const c = new ApiClient({ baseUrl: stub.url, env: {} });
    try {
      const e = await c.call(ping, { params: { case: 'always503' } }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(HttpError);
      expect((e as HttpError).exitCode).toBe(6);
      expect(seen('always503')).toHaveLength(4);
      const g = gaps('always503');
      [1000, 2000, 4000].forEach((want, i) => {
        expect(g[i]).toBeGreaterThanOrEqual(want - 50);
        expect(g[i]).toBeLessThan(want * 1.5);
      });
    } finally {
      await c.close();
    }
  });

  it('a POST answering 503 makes 1 attempt', async ({ expect }) => {
    const c = new ApiClient({ baseUrl: stub.url, env: {} });
    try {
      const e = await c.request('POST', '/post503', { body: { a: 1 } }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(HttpError);
      // Past the moment a 2nd attempt would have gone out: nothing more arrived.
      await new Promise((r) => setTimeout(r, 1300));
      expect(seen('post503')).toHaveLength(1);
    } finally {
      await c.close();
    }
  });

  it('429 with Retry-After: 1 then 200 succeeds after about 1 s', async ({ expect }) => {
    const c = new ApiClient({ baseUrl: stub.url, env: {} });
    try {
      expect(await c.call(ping, { params: { case: 'ra429' } })).toEqual({ fine: true });
      expect(seen('ra429')).toHaveLength(2);
      const [g] = gaps('ra429');
      expect(g).toBeGreaterThanOrEqual(950);
      expect(g).toBeLessThan(1900);
    } finally {
      await c.close();
    }
  });

  it('Ctrl-C during a 10 s Retry-After wait rejects at once with InterruptedError; no 2nd attempt', async ({ expect }) => {
    const ac = new AbortController();
    const c = new ApiClient({ baseUrl: stub.url, env: {}, signal: ac.signal });
    try {
      const t0 = performance.now();
      setTimeout(() => ac.abort(), 300);
      const e = await c.call(ping, { params: { case: 'abort' } }).catch((x: unknown) => x);
      const elapsed = performance.now() - t0;
      expect(e).toBeInstanceOf(InterruptedError);
      expect(elapsed).toBeGreaterThanOrEqual(300);
      expect(elapsed).toBeLessThan(3000);
      // Past the moment the 2nd attempt would have gone out: nothing more arrived.
      await new Promise((r) => setTimeout(r, 1200));
      expect(seen('abort')).toHaveLength(1);
    } finally {
      await c.close();
    }
  });

  it('the default time-out (10000 ms) abandons a hanging attempt at 10 s, not before', async ({ expect }) => {
    const c = new ApiClient({ baseUrl: stub.url, env: {}, retries: 0 });
    try {
      const t0 = performance.now();
      const e = await c.call(ping, { params: { case: 'hang' } }).catch((x: unknown) => x);
      const elapsed = performance.now() - t0;
      expect(e).toBeInstanceOf(NetworkError);
      expect((e as NetworkError).message).toContain('timed out after 10000 ms');
      expect(elapsed).toBeGreaterThanOrEqual(10_000);
      expect(elapsed).toBeLessThan(13_000);
      expect(seen('hang')).toHaveLength(1);
    } finally {
      await c.close();
    }
  });
});
