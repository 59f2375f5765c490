/**
 * The sandbox's answer encoder (`utf8` in server.ts): large answers are encoded in one pass into
 * an oversized buffer. It must give exactly the bytes Buffer.from gives, on both sides of its
 * size threshold, for text of 1- to 4-byte characters and lone surrogates.
 */
import { describe, expect, it } from 'vitest';
import { utf8 } from '../../src/sandbox/server.js';

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
