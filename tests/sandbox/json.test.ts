/**
 * The sandbox's JSON writer (`jsonBytes`, src/sandbox/json.ts) against what it replaces:
 * `Buffer.from(JSON.stringify(value), 'utf8')`. Every answer of the sandbox goes through it, so
 * it must give the same bytes for every value, throw where JSON.stringify throws, and call
 * `toJSON` with the key JSON.stringify would give it.
 *
 * `FUZZ_RUNS=N` sets the number of generated values (200; `npm run fuzz` runs 2,000).
 */
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../../src/sandbox/json.js';
import { mulberry32 } from '../../src/sandbox/seed.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

function expected(v: unknown): Buffer | undefined {
  const text = JSON.stringify(v) as string | undefined;
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
}

function same(v: unknown, label = ''): void {
  const want = expected(v);
  const got = jsonBytes(v);
  if (want === undefined) expect(got, label).toBeUndefined();
  else {
    expect(got, label).toBeInstanceOf(Buffer);
    if (!got!.equals(want)) expect(got!.toString('utf8'), label).toBe(want.toString('utf8'));
    expect(got!.equals(want), label).toBe(true);
  }
}

// Every kind of character JSON.stringify treats differently.
const CHARS = ['a', 'Z', '0', ' ', '~', '\u007f', '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u001f', '\u0080', 'é', '\u00ff', 'Ł', '€', '이', '\u2028', '\ufffd', '\uffff', '😀', '\ud800', '\udbff', '\udc00', '\udfff', ','];

class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

function generator(seed: number) {
  const r = mulberry32(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T,>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const str = (): string => {
    const n = pick([0, 1, 2, 5, 12, 40, 300]);
    let s = '';
    for (let i = 0; i < n; i++) s += r() < 0.7 ? String.fromCharCode(97 + int(26)) : pick(CHARS);
    return s;
  };
  const NUMBERS = [0, -0, 1, -1, 9, 10, 99, 100, 2147483647, 2147483648, -2147483648, -2147483649, 4294967296, 1e15, 1e21, 1e-7, 0.1, 2.99, -49.5, 1 / 3, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.MAX_VALUE, NaN, Infinity, -Infinity];
  const num = (): number => (r() < 0.5 ? pick(NUMBERS) : r() < 0.5 ? int(1e6) - 5e5 : (r() - 0.5) * 10 ** int(30));
  const key = (): string => (r() < 0.8 ? pick(['id', 'name', 'status', 'price', 'is_expired', 'created_by', 'items']) : r() < 0.5 ? String(int(20)) : str());
  const leaf = (): unknown => {
    switch (int(12)) {
      case 0:
        return str();
      case 1:
        return num();
      case 2:
        return r() < 0.5;
      case 3:
        return null;
      case 4:
        return undefined;
      case 5:
        return () => 1;
      case 6:
        return Symbol('s');
      case 7:
        return new Date(int(2) ? int(2e12) : NaN);
      case 8:
        return pick([new Number(3), new String('s"é'), new Boolean(false), Object(Symbol('x')) as object]);
      case 9:
        // Answers by its key alone: it is called once by JSON.stringify and once by jsonBytes.
        return { toJSON: (k: string) => (k.length % 3 === 1 ? undefined : `key:${k}`) };
      case 10:
        return new Point(int(10), 0.5);
      default:
        return str();
    }
  };
  const value = (d: number): unknown => {
    if (d > 3 || r() < 0.4) return leaf();
    switch (int(6)) {
      case 0: {
        const a: unknown[] = [];
        const n = int(6);
        for (let i = 0; i < n; i++) a.push(value(d + 1));
        if (r() < 0.1) a.length += 2; // holes
        return a;
      }
      case 1: {
        const o: Record<string, unknown> = r() < 0.15 ? (Object.create(null) as Record<string, unknown>) : {};
        const n = int(6);
        for (let i = 0; i < n; i++) o[key()] = value(d + 1);
        return o;
      }
      case 2: {
        // A list of rows of one shape, long enough for a compiled writer, with the odd row
        // that differs: a key missing, one more, another order, a left-out value.
        const keys = Array.from({ length: 1 + int(8) }, key);
        const n = pick([3, 30, 70, 150]);
        const rows: unknown[] = [];
        for (let i = 0; i < n; i++) {
          const o: Record<string, unknown> = {};
          const ks = r() < 0.05 ? [...keys].reverse() : keys;
          for (const k of ks) o[k] = r() < 0.1 ? value(d + 1) : r() < 0.5 ? str() : num();
          if (r() < 0.05) delete o[keys[0]!];
          if (r() < 0.05) o[`extra${int(3)}`] = 1;
          if (r() < 0.05) o[keys[int(keys.length)]!] = undefined;
          rows.push(o);
        }
        return rows;
      }
      case 3:
        return { pagination: { current_page: int(5), has_next_page: r() < 0.5 }, items: value(d + 1) };
      default:
        return leaf();
    }
  };
  return value;
}

describe('jsonBytes: the bytes of Buffer.from(JSON.stringify(value))', () => {
  it(`agrees with JSON.stringify on ${RUNS} generated values`, () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const v = generator(seed)(0);
      let want: unknown;
      let threw: unknown;
      try {
        want = expected(v);
      } catch (err) {
        threw = err;
      }
      if (threw) expect(() => jsonBytes(v), `seed ${seed}`).toThrow((threw as Error).constructor as new () => Error);
      else same(v, `seed ${seed}`);
      void want;
    }
  }, 20_000 + RUNS * 30);

  it.each<[string, unknown]>([
    ['top-level undefined', undefined],
    ['a top-level function', () => 1],
    ['a top-level string with every escape', CHARS.join('')],
    ['lone surrogates at the ends', '\ud800abc\udc00'],
    ['a surrogate pair split by nothing else', '\ud83d\ude00\ud83d'],
    ['numbers of every form', [0, -0, 5, -5, 10, 1e21, -1e21, 1.5e-7, 2147483648, -2147483648, -2147483649, NaN, -Infinity, 0.1 + 0.2]],
    ['holes in an array', [1, , 3]], // eslint-disable-line no-sparse-arrays
    ['keys that need escaping', { 'a"b': 1, 'c\\d': 2, '\n': 3, é: 4, '😀': 5, '\ud800': 6 }],
    ['integer-like keys first, as JSON.stringify orders them', { b: 1, 2: 'two', a: 2, 1: 'one' }],
    ['__proto__ as an own key', JSON.parse('{"__proto__": {"x": 1}, "y": 2}')],
    ['a prototype-less object', Object.assign(Object.create(null) as object, { a: 1, b: [null] })],
    ['a getter', Object.defineProperty({ a: 1 }, 'g', { enumerable: true, get: () => 'got' })],
    ['a non-enumerable property', Object.defineProperty({ a: 1 }, 'hidden', { enumerable: false, value: 2 })],
    ['a symbol key', { [Symbol('s')]: 1, a: 2 }],
    ['only left-out values', { a: undefined, b: () => 1, c: Symbol('c') }],
    ['a Date and a Buffer', { d: new Date(0), b: Buffer.from('hi') }],
    ['a Map and a Set (written as {})', { m: new Map([[1, 2]]), s: new Set([1]) }],
    ['an array with its own toJSON', Object.assign([1, 2], { toJSON: () => 'arr' })],
    ['a class instance and its subclass array', { p: new Point(1, 2), a: Object.setPrototypeOf([1], Object.create(Array.prototype) as object) }],
    ['deep nesting beyond the writer (300 levels)', JSON.parse(`${'['.repeat(300)}1${']'.repeat(300)}`)],
  ])('%s', (_name, v) => same(v));

  it('calls toJSON with the key (property name or index) that JSON.stringify gives', () => {
    const seen: string[] = [];
    const t = { toJSON: (k: string) => (seen.push(k), k) };
    const v = { first: t, list: [t, t], nested: { deep: t } };
    const want = JSON.stringify(v);
    const wantSeen = [...seen];
    seen.length = 0;
    expect(jsonBytes(v)!.toString('utf8')).toBe(want);
    expect(seen).toEqual(wantSeen);
    expect(wantSeen).toEqual(['first', '0', '1', 'deep']);
  });

  it('a row shape written many times, then rows that differ from it', () => {
    const rows: Array<Record<string, unknown>> = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `n${i}é`, price: i / 4, active: i % 2 === 0, note: null, by: { user_id: i, username: 'u"' } }));
    same(rows);
    // The shape's writer exists now; these must not be taken for it.
    same([...rows.slice(0, 5), { id: 1, name: 'x', price: 1, active: true, note: null }]);
    same([...rows.slice(0, 5), { name: 'x', id: 1, price: 1, active: true, note: null, by: null }]);
    same([...rows.slice(0, 5), { ...rows[0], extra: [1] }]);
    same([...rows.slice(0, 5), { ...rows[0], name: undefined, price: () => 0 }]);
    same([...rows.slice(0, 5), { ...rows[0], by: { username: 'swapped', user_id: 1 } }]);
    same([...rows.slice(0, 5), { ...rows[0], by: new Date(5) }]);
    same([...rows.slice(0, 5), Object.assign(Object.create({ inherited: 1 }) as object, rows[0])]);
  });

  it('throws where JSON.stringify throws: a BigInt, a cycle', () => {
    expect(() => jsonBytes({ a: [1, 2n] })).toThrow(TypeError);
    const o: Record<string, unknown> = { a: 1 };
    o.self = { back: o };
    expect(() => jsonBytes(o)).toThrow(TypeError);
    const rows = Array.from({ length: 100 }, (_, i) => ({ id: i, next: null as unknown }));
    rows[99]!.next = rows;
    expect(() => jsonBytes(rows)).toThrow(TypeError);
    // And it still works afterwards.
    same({ after: 'the error' });
  });

  it('a toJSON that itself asks for JSON bytes gets them', () => {
    const inner = { toJSON: () => jsonBytes({ inner: 'é' })!.toString('utf8') };
    same({ a: inner, b: [inner] });
  });
});
