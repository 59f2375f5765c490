/**
 * The contract's manifest (src/api/contract/manifest.generated.ts) against the zod schemas it
 * describes: the file is what the schemas give today; for every endpoint and every part, the
 * description accepts exactly the values zod accepts and gives exactly zod's output (keys, their
 * order, defaults, coercions); and the fields the flags are made from are describeObject's.
 * `FUZZ_RUNS=N` sets the generated values per endpoint part (150).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { describeObject } from '../../src/api/contract/common.js';
import { ATOMS, entryOf, FAIL, fieldsOfEndpoint, nodeOf, run, safeParsePart, setCompileAfter, type Node, type Part } from '../../src/api/contract/fast.js';
import { endpoints } from '../../src/api/contract/index.js';
import { manifestSource } from '../../src/api/contract/manifest-source.js';

const FILE = new URL('../../src/api/contract/manifest.generated.ts', import.meta.url);
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

/** A value written out with its key order, undefined-valued keys, -0 and prototypes visible. */
function canon(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (Array.isArray(v)) return `[${Array.from({ length: v.length }, (_, i) => (i in v ? canon(v[i]) : 'hole')).join(',')}]`;
  const proto = Object.getPrototypeOf(v) === Object.prototype ? '' : '(proto)';
  return `${proto}{${Object.keys(v)
    .map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

/** The description's answer and zod's, side by side. */
function both(schema: z.ZodType, node: Node, value: unknown) {
  const fast = run(node, value);
  const zod = schema.safeParse(value);
  return { fast: fast === FAIL ? 'FAIL' : canon(fast), zod: zod.success ? canon(zod.data) : 'FAIL' };
}

const expand = (n: Node) => (typeof n === 'string' ? ATOMS[n] : n);

/** An object with `__proto__` as an own key, as JSON.parse makes one. */
function withOwnProto(entries: Array<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const junk = fc.constantFrom<unknown>(
  undefined, null, '', ' ', '0', '1', '-1', '01', '1.5', '1e3', '0x10', ' 7 ', 'true', 'false', 'yes', 'abc', 'ASC', 'DESC',
  0, -0, 1, -1, 1.5, 100, 101, NaN, Infinity, -Infinity, 2 ** 53, true, false, [], {}, ['a'], [1], { a: 1 },
  '2024-02-29', '2023-02-29', '2024-02-30', '2024-13-01', '0000-01-01', '2024-1-1', '2024-01-01T00:00:00Z',
);

/** Values near what a described schema accepts: most valid, some at or past a bound, some junk. */
function near(node: Node, depth = 0): fc.Arbitrary<unknown> {
  const n = expand(node);
  return fc.oneof({ arbitrary: junk, weight: 1 }, { arbitrary: shaped(n, depth), weight: 4 });
}

function bounds(checks: Array<[string, ...unknown[]]>, lo: string, hi: string): [number | undefined, number | undefined] {
  let min: number | undefined;
  let max: number | undefined;
  for (const c of checks) {
    if (c[0] === lo || (lo === '>=' && c[0] === '>')) min = c[1] as number;
    if (c[0] === hi || (hi === '<=' && c[0] === '<')) max = c[1] as number;
  }
  return [min, max];
}

function shaped(n: Exclude<Node, string>, depth: number): fc.Arbitrary<unknown> {
  if (n === 0) return fc.jsonValue({ maxDepth: 2 });
  switch (n[0]) {
    case 's': {
      const [min = 0, max = 80] = bounds(n[1], 'min', 'max');
      const edge = [min - 1, min, max, max + 1].filter((l) => l >= 0 && l < 5000).map((l) => 'x'.repeat(l));
      return fc.oneof(fc.string({ minLength: min, maxLength: Math.min(max, min + 30) }), fc.constantFrom(...edge), fc.constantFrom('é', '中😀', '😀😀😀', '\ud83d\ud83d\ude00', '\ude00x', 'a,b', '"q"'), fc.string({ unit: 'binary', minLength: Math.max(0, min - 1), maxLength: max + 1 }));
    }
    case 'd':
      return fc.oneof(
        fc.date({ min: new Date('1900-01-01'), max: new Date('2199-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
        fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
      );
    case 'n': {
      const [min, max] = bounds(n[2], '>=', '<=');
      const ints = fc.integer({ min: Math.max(min ?? -1000, -(2 ** 31)) - 1, max: Math.min(max ?? 100_000, 2 ** 31) + 1 });
      const edge = fc.constantFrom(0, ...[min, max].filter((x) => x !== undefined).flatMap((x) => [x! - 1, x!, x! + 1, x! + 0.5]));
      const nums = fc.oneof(ints, edge, fc.double({ noNaN: false }), fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2));
      return n[1] ? fc.oneof(nums, nums.map(String), nums.map((x) => ` ${x}`), fc.constantFrom('', ' ', '1_0', '+5', '5.', '.5')) : nums;
    }
    case 'b':
      return fc.boolean();
    case 'qb':
      return fc.constantFrom(true, false, 'true', 'false', '1', '0', 'TRUE', 'yes', 1, 0);
    case 'e':
      return fc.oneof(fc.constantFrom(...n[1]), fc.constantFrom(...n[1].map((v) => (typeof v === 'string' ? v.toLowerCase() : v)), 'nope'));
    case 'a':
      return depth > 3 ? fc.constant([]) : fc.array(near(n[1], depth + 1), { maxLength: 4 });
    case 'o': {
      if (depth > 3) return fc.constant({});
      const props = n[2].map(([k, el]) =>
        fc.oneof(
          { arbitrary: fc.constant(undefined as [string, unknown] | undefined), weight: 1 },
          { arbitrary: fc.constant<[string, unknown]>([k, undefined]), weight: 1 },
          { arbitrary: near(el, depth + 1).map((v): [string, unknown] => [k, v]), weight: 5 },
        ),
      );
      const extra = fc.array(fc.tuple(fc.constantFrom('extra', 'note', '__proto__', 'constructor', 'toString', '0', 'a b'), near(0, depth + 1)), { maxLength: 3 });
      return fc.tuple(fc.tuple(...props), extra, fc.boolean()).map(([given, more, reversed]) => {
        const entries = [...(given.filter(Boolean) as Array<[string, unknown]>), ...more];
        return withOwnProto(reversed ? entries.reverse() : entries);
      });
    }
    case 'u':
      return fc.oneof(...n[1].map((o) => near(o, depth + 1)));
    case '?':
    case 'N':
    case 'L':
      return fc.oneof({ arbitrary: fc.constantFrom(undefined, null), weight: 1 }, { arbitrary: near(n[1], depth + 1), weight: 4 });
    case 'D':
      return fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: near(n[2], depth + 1), weight: 4 });
  }
}

const PARTS: Part[] = ['params', 'query', 'body', 'response'];
const described = endpoints.flatMap((ep) =>
  PARTS.flatMap((part) => {
    const node = nodeOf(ep, part);
    return node === undefined || node === null ? [] : [{ ep, part, node }];
  }),
);

describe('contract manifest', () => {
  it('is what the schemas give (npm run contract:manifest rewrites it)', () => {
    const text = manifestSource(endpoints);
    if (process.env.CONTRACT_MANIFEST_WRITE) writeFileSync(FILE, text);
    expect(readFileSync(FILE, 'utf8'), 'src/api/contract/manifest.generated.ts is stale: run npm run contract:manifest').toBe(text);
  });

  it('describes every endpoint; only the parts zod alone can check are left to it', () => {
    expect(endpoints.every((ep) => entryOf(ep) !== undefined)).toBe(true);
    const leftToZod = endpoints.flatMap((ep) => PARTS.filter((p) => ep[p] !== undefined && !described.some((d) => d.ep === ep && d.part === p)).map((p) => `${ep.name} ${p}`));
    // roles.assign's body has a cross-field refinement; me.topup's payment_data is a record.
    expect(leftToZod).toEqual(['roles.assign body', 'me.topup body']);
    for (const ep of endpoints) for (const p of ['params', 'query', 'body'] as const) expect(nodeOf(ep, p) !== undefined, `${ep.name} ${p}`).toBe(ep[p] !== undefined);
  });

  it("gives every endpoint's fields exactly as describeObject reads them from zod", () => {
    for (const ep of endpoints) {
      const fromZod = (['params', 'query', 'body'] as const).flatMap((place) => describeObject(ep[place]).map(([k, info]) => [k, place, info]));
      expect(fieldsOfEndpoint(ep), ep.name).toEqual(fromZod);
    }
  });

  // Objects are parsed by a loop over their keys first and by a written-out function after
  // many values (fast.ts): each way is held to zod on its own.
  describe.each(described.map((d) => [`${d.ep.name} ${d.part}`, d] as const))('%s', (_name, { ep, part, node }) => {
    for (const [way, after] of [['looped', Infinity], ['written out', 0]] as const) {
      it(`accepts what zod accepts, and gives what zod gives (objects ${way})`, () => {
        const schema = ep[part]!;
        setCompileAfter(after);
        try {
          fc.assert(
            fc.property(near(node), (value) => {
              const r = both(schema, node, value);
              expect(r.fast, `value ${canon(value)}`).toBe(r.zod);
            }),
            { numRuns: RUNS },
          );
        } finally {
          setCompileAfter(256);
        }
      });
    }
  });
});

describe('the description against zod, case by case', () => {
  const ep = (name: string) => endpoints.find((e) => e.name === name)!;
  const cases: Array<[string, Part, unknown]> = [
    ['services.list', 'query', {}],
    ['services.list', 'query', { page_size: '100', page_number: ' 2 ', is_active: '1', created_date_from: '2024-02-29' }],
    ['services.list', 'query', { page_size: '' }],
    ['services.list', 'query', { page_size: null }],
    ['services.list', 'query', { page_size: true }],
    ['services.list', 'query', { page_size: '1e2' }],
    ['services.list', 'query', { page_size: undefined, sort_by: undefined }],
    ['services.list', 'query', { created_date_to: '2023-02-29' }],
    ['services.list', 'query', { service_code: 'x'.repeat(50), unknown_key: 1 }],
    ['services.list', 'query', { service_code: 'x'.repeat(51) }],
    ['services.list', 'response', { services: [{ service_id: 1, extra: { a: 1 }, service_name: null }], pagination: { current_page: 1 }, more: [1] }],
    ['services.list', 'response', withOwnProto([['__proto__', { polluted: true }], ['services', []]])],
    ['services.list', 'response', { services: [{ service_id: '1' }] }],
    ['services.list', 'response', { services: null, pagination: undefined }],
    ['services.create', 'body', { service_code: 'A', service_name: 'a', service_type: 'HYBRID', provider_name: 'p', base_service_url: 'u', access_pattern: 'x', credit_reset_cycle: 'daily' }],
    ['services.create', 'body', { service_code: 'A' }],
    ['services.update', 'params', { id: '7' }],
    ['services.update', 'params', { id: '7.5' }],
    ['services.delete', 'body', { service_id: 1, force_delete: true }],
  ];
  for (const [name, part, value] of cases) {
    it(`${name} ${part} ${canon(value).slice(0, 90)}`, () => {
      const e = ep(name);
      const node = nodeOf(e, part)!;
      const r = both(e[part]!, node, value);
      expect(r.fast).toBe(r.zod);
      // The public path answers zod's answer, issues and all, when the description refuses.
      const viaFast = safeParsePart(e, part, value);
      const viaZod = e[part]!.safeParse(value);
      expect(viaFast.success).toBe(viaZod.success);
      if (!viaFast.success && !viaZod.success) expect(viaFast.error.issues).toEqual(viaZod.error.issues);
    });
  }

  it('an inherited key is seen by zod and by the description alike', () => {
    const e = ep('services.list');
    const proto = { page_size: '5', inherited_extra: 1 };
    const value = Object.create(proto) as Record<string, unknown>;
    value.sort_order = 'ASC';
    const r = both(e.query!, nodeOf(e, 'query')!, value);
    expect(r.fast).toBe(r.zod);
  });
});
