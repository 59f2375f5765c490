/**
 * The sandbox's answer encoder (`utf8` in server.ts): large answers are encoded in one pass into
 * an oversized buffer. It must give exactly the bytes Buffer.from gives, on both sides of its
 * size threshold, for text of 1- to 4-byte characters and lone surrogates.
 */
import { describe, expect, it } from 'vitest';
import { encodeOk, utf8 } from '../../src/sandbox/server.js';

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

describe('the success envelope, long lists encoded in pieces (encodeOk)', () => {
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
    const got = encodeOk(message, data);
    expect(got.equals(expected(message, data))).toBe(true);
  });
});
