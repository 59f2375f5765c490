/**
 * The sandbox's answer encoders (server.ts): `utf8` encodes large text in one pass into an
 * oversized buffer, and must give exactly the bytes Buffer.from gives, on both sides of its size
 * threshold, for text of 1- to 4-byte characters and lone surrogates. `encodeOk` writes the
 * success envelope through JSON.stringify while the process is cold and through `jsonLease`
 * (json.ts, tested on its own in json.test.ts) once warm: both must give the same bytes.
 */
import { describe, expect, it, vi } from 'vitest';
import { encodeOk, utf8 } from '../../src/sandbox/server.js';
// Loaded now, while the file is collected, so that its hook removes the data files of the
// sandboxes the tests below start from a reset module registry.
import '../support/tmp.js';

const pieces = ['a', '"', 'é', 'Ł', '이', '€', '😀', '\ud800', '\udfff', '\n', '\u0000'];

function text(n: number, seed: number): string {
  let s = '';
  let x = seed;
  while (s.length < n) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += pieces[x % pieces.length];
  }
  return s.slice(0, n);
}

describe('sandbox answer encoding', () => {
  it('gives the bytes Buffer.from gives, below and above the one-pass threshold', () => {
    for (const n of [0, 1, 100, 4095, 4096, 4097, 20_000, 80_000]) {
      for (const seed of [1, 2, 3]) {
        const t = text(n, seed);
        const got = utf8(t);
        expect(got.equals(Buffer.from(t, 'utf8')), `length ${n}, seed ${seed}`).toBe(true);
        expect(got.length).toBe(Buffer.byteLength(t, 'utf8'));
      }
    }
  });

  it('encodes an answer of only 3-byte characters (the largest size per UTF-16 unit) whole', () => {
    const t = '€'.repeat(10_000);
    expect(utf8(t).length).toBe(30_000);
    expect(utf8(t).toString('utf8')).toBe(t);
  });
});

describe('the success envelope (encodeOk), cold and warm', () => {
  const row = (i: number) => ({ id: i, name: text(i % 40, i), note: i % 7 ? null : 'a,"b"\n', nested: { deep: [i, text(3, i + 1)] }, gone: undefined });
  const rows = (n: number) => Array.from({ length: n }, (_, i) => row(i));
  const expected = (message: string, data: unknown) =>
    Buffer.from(JSON.stringify({ status: true, message, data: data === undefined ? null : data, error: null, meta: null }), 'utf8');
  const cases: Array<[string, unknown]> = [
    ['a page of 100 rows inside an object', { pagination: { page: 1, total: 1000 }, subscriptions: rows(100), summary: { n: 1 } }],
    ['the data itself a long list', rows(101)],
    ['lists of 25, 26, 49, 50 and 51 rows', { a: rows(25), b: rows(26), c: rows(49), d: rows(50), e: rows(51) }],
    ['a list first, keys left out as JSON.stringify leaves them', { items: rows(60), f: () => 1, s: Symbol('x'), u: undefined, later: 'é' }],
    ['only keys that are left out around the list', { u: undefined, items: rows(30) }],
    ['a value whose toJSON answers undefined', { t: { toJSON: () => undefined }, items: rows(30), d: new Date(0) }],
    ['rows with toJSON, undefined and functions inside the list', { items: [...rows(30), undefined, () => 1, new Date(5), { toJSON: () => 'x' }] }],
    ['a short list and no data', undefined],
    ['a short list', { items: rows(3) }],
    ['an object with its own toJSON', { toJSON: () => ({ replaced: true }), items: rows(40) }],
    ['a message that needs escaping', { items: rows(30) }],
  ];
  it.each(cases)('%s: the bytes of JSON.stringify, encoded as UTF-8', (name, data) => {
    const message = name.includes('escaping') ? 'Done "ok"\n\u00e9\ud83d\ude00' : 'Success';
    const want = expected(message, data);
    for (const warm of [false, true]) {
      const got = encodeOk(message, data, warm);
      expect(got.toString('utf8'), `warm ${warm}`).toBe(want.toString('utf8'));
      expect(got.equals(want), `warm ${warm}`).toBe(true);
    }
  });

  it('goes over to jsonLease once the process has answered 256 KB', async () => {
    // A fresh copy of the module: its count of bytes answered starts at zero.
    vi.resetModules();
    const json = await import('../../src/sandbox/json.js');
    const spy = vi.spyOn(json, 'jsonLease');
    const server = await import('../../src/sandbox/server.js');
    const page = { items: rows(100) };
    const size = expected('Success', page).length;
    let answers = 0;
    while (spy.mock.calls.length === 0 && answers < 1000) {
      expect(server.encodeOk('Success', page).equals(expected('Success', page))).toBe(true);
      answers++;
    }
    expect(answers).toBe(Math.ceil((256 * 1024) / size) + 1);
    spy.mockRestore();
  });
});

describe('the sandbox answering warm: every GET without a path parameter', () => {
  it('answers through jsonLease the bytes JSON.stringify gives for the value it answered', async () => {
    // The module instances the test sandbox uses (the test above reset the registry).
    const server = await import('../../src/sandbox/server.js');
    const json = await import('../../src/sandbox/json.js');
    const { startTestSandbox } = await import('../support/sandbox.js');
    const { endpoints } = await import('../../src/api/contract/index.js');
    // Past 256 KB of answers, the sandbox of this process writes through jsonLease.
    server.encodeOk('warm-up', 'x'.repeat(300 * 1024));
    const spy = vi.spyOn(json, 'jsonLease');
    const sb = await startTestSandbox();
    try {
      const gets = endpoints.filter((e) => e.method === 'GET' && !e.path.includes(':'));
      let checked = 0;
      for (const e of gets) {
        const who = e.path.startsWith('/admin') ? 'superadmin' : 'enduser';
        const res = await fetch(sb.url + e.path, { headers: { authorization: `Bearer ${sb.tokenFor(who)}`, 'x-device-id': 'dev-1' } });
        const body = await res.text();
        if (res.status !== 200) continue;
        expect(body, e.name).toBe(JSON.stringify(JSON.parse(body)));
        checked++;
      }
      // The others need a query parameter or another account; every-endpoint.test.ts calls them.
      expect(checked).toBeGreaterThanOrEqual(20);
      expect(spy.mock.calls.length).toBeGreaterThanOrEqual(checked);
    } finally {
      spy.mockRestore();
      await sb.close();
    }
  });
});

describe('answers written from reused buffers (jsonLease)', () => {
  it('a buffer is reused only after its answer is written: 400 concurrent answers of 4 sizes arrive whole', async () => {
    const server = await import('../../src/sandbox/server.js');
    const { startTestSandbox } = await import('../support/sandbox.js');
    server.encodeOk('warm-up', 'x'.repeat(300 * 1024));
    const sb = await startTestSandbox();
    try {
      const token = sb.tokenFor('admin');
      const paths = [
        '/admin/subscriptions?page_size=100&sort_by=EndDate',
        '/admin/subscriptions?page_size=7&status=paused',
        '/admin/wallet-transactions/list?page_size=100',
        '/admin/services',
      ];
      const get = async (path: string) => {
        const res = await fetch(sb.url + path, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status, path).toBe(200);
        return res.text();
      };
      const want = new Map<string, string>();
      for (const p of paths) want.set(p, await get(p));
      const sizes = [...want.values()].map((t) => t.length);
      expect(Math.max(...sizes)).toBeGreaterThan(64 * 1024); // larger than a buffer of the pool at first
      const got = await Promise.all(Array.from({ length: 400 }, (_, i) => paths[i % paths.length]!).map(async (p) => [p, await get(p)] as const));
      for (const [p, text] of got) expect(text, p).toBe(want.get(p));
    } finally {
      await sb.close();
    }
  });

  it('release() twice gives the buffer back once; an unreleased lease is left alone', async () => {
    const { jsonLease } = await import('../../src/sandbox/json.js');
    const a = jsonLease({ a: 'first' })!;
    a.release();
    a.release();
    const b = jsonLease({ b: 'second' })!;
    const c = jsonLease({ c: 'third' })!;
    // Released twice, the buffer would now hold both b and c.
    expect(b.bytes.buffer).not.toBe(c.bytes.buffer);
    expect(b.bytes.toString()).toBe('{"b":"second"}');
    expect(c.bytes.toString()).toBe('{"c":"third"}');
    const d = jsonLease({ d: 'fourth' })!;
    expect(d.bytes.buffer).not.toBe(b.bytes.buffer);
    expect(d.bytes.buffer).not.toBe(c.bytes.buffer);
    expect(b.bytes.toString()).toBe('{"b":"second"}');
  });
});
