/**
 * fast-check generators made from the contract's own field descriptions (`describeObject`):
 * valid values (within every bound, any text) and invalid ones (wrong types, strings over the
 * maximum or under the minimum, numbers out of bounds, bad enum values, bad dates, missing
 * required fields).
 */
import fc from 'fast-check';
import type { z } from 'zod';
import type { AnyEndpoint, FieldInfo } from '../../src/api/contract/common.js';
import { describeObject } from '../../src/api/contract/common.js';

export type Place = 'params' | 'query' | 'body';
export const PLACES: Place[] = ['params', 'query', 'body'];

export interface Input {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** Text units: mostly printable ASCII, with the characters that break naive encoders. */
const unit = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      ',',
      '"',
      "'",
      '\n',
      '\r\n',
      '\t',
      ' ',
      '&',
      '=',
      '?',
      '#',
      '%',
      '%2F',
      '+',
      '/',
      '\\',
      '\u0000',
      '\u001b[31m',
      'é',
      'ß',
      '中',
      '😀',
      '\u202e',
      '=1+1',
      '@',
      ';',
      '<b>',
    ),
    weight: 2,
  },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), weight: 2 },
);

function text(min: number, max: number): fc.Arbitrary<string> {
  const hi = Math.min(max, min + 40);
  const any = fc.string({ unit, minLength: min, maxLength: hi }).filter((s) => s.length >= min && s.length <= max);
  if (max === Infinity || max > 200) return any;
  // The bounds themselves, exactly.
  return fc.oneof(
    any,
    fc.string({ unit: 'grapheme-ascii', minLength: max, maxLength: max }),
    fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: min }),
  );
}

function integer(info: FieldInfo): fc.Arbitrary<number> {
  const min = Math.max(info.min ?? -SAFE, -SAFE);
  const max = Math.min(info.max ?? SAFE, SAFE);
  const lo = Math.max(min, -1000);
  const hi = Math.min(max, 100_000);
  const small =
    lo <= hi ? fc.integer({ min: lo, max: hi }) : fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) });
  return fc.oneof(
    { arbitrary: small, weight: 4 },
    fc.constantFrom(min, max),
    fc.maxSafeInteger().filter((v) => v >= min && v <= max),
  );
}

function number(info: FieldInfo): fc.Arbitrary<number> {
  const min = info.min ?? -1e12;
  const max = info.max ?? 1e12;
  return fc
    .oneof(
      fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
      fc.integer({ min: Math.max(Math.ceil(min), -1e6), max: Math.min(Math.floor(max), 1e6) }),
      fc.constant(min),
    )
    .map((v) => (Object.is(v, -0) ? 0 : v));
}

const isoDate = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** A value the field accepts. */
export function validValue(info: FieldInfo): fc.Arbitrary<unknown> {
  switch (info.kind) {
    case 'string':
      return text(info.min ?? 0, info.max ?? Infinity);
    case 'integer':
      return integer(info);
    case 'number':
      return number(info);
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...(info.values ?? []));
    case 'date':
      return isoDate;
    case 'list':
      // On the command line a list is comma-separated: its items never hold a comma.
      return fc.array(fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/), { minLength: 1, maxLength: 4 });
    default:
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  }
}

/**
 * Values the field refuses. `place` matters: query and path values are coerced from text
 * (`"12"` is a fine integer there), body values are strictly typed JSON.
 */
export function invalidValue(info: FieldInfo, place: Place): fc.Arbitrary<unknown> {
  const wire = place !== 'body';
  const opts: Array<fc.Arbitrary<unknown>> = [];
  switch (info.kind) {
    case 'string':
      // A path id may not be `.` or `..`: a URL resolves them (the client refuses them).
      if (place === 'params') opts.push(fc.constantFrom('.', '..'));
      if (info.max !== undefined) opts.push(fc.string({ unit: 'grapheme-ascii', minLength: info.max + 1, maxLength: info.max + 30 }));
      if (info.min) opts.push(fc.string({ unit: 'grapheme-ascii', minLength: 0, maxLength: info.min - 1 }));
      opts.push(fc.integer(), fc.boolean(), fc.constant({ a: 1 }), fc.constant(['x']));
      break;
    case 'integer':
      if (info.min !== undefined)
        opts.push(fc.integer({ min: 1, max: 1000 }).map((d) => (info.min! > -SAFE ? info.min! - d : -SAFE - d * 2)));
      if (info.max !== undefined)
        opts.push(fc.integer({ min: 1, max: 1000 }).map((d) => (info.max! < SAFE ? info.max! + d : SAFE + d * 2)));
      opts.push(
        fc.integer({ min: -1000, max: 1000 }).map((n) => n + 0.5),
        fc.constantFrom('abc', 'twelve', '1e', '0x'),
        fc.constant({ n: 1 }),
      );
      if (!wire) opts.push(fc.constantFrom('12', true, false, null));
      break;
    case 'number':
      if (info.min !== undefined) opts.push(fc.double({ min: 0.001, max: 1e6, noNaN: true }).map((d) => info.min! - d));
      if (info.max !== undefined) opts.push(fc.double({ min: 0.001, max: 1e6, noNaN: true }).map((d) => info.max! + d));
      opts.push(fc.constantFrom('abc', 'NaN', '1,5'), fc.constant({ n: 1 }));
      if (!wire) opts.push(fc.constantFrom('1.5', true, null));
      break;
    case 'boolean':
      opts.push(fc.constantFrom('yes', 'no', 'maybe', 'TRUE', 'False', 'on', 2, -1), fc.constant({ b: true }));
      if (!wire) opts.push(fc.constantFrom('true', 'false', 1, 0, null));
      break;
    case 'enum': {
      const values = info.values ?? [];
      opts.push(fc.string({ maxLength: 12 }).filter((s) => !values.includes(s)));
      opts.push(
        fc
          .constantFrom(...values)
          .map((v) => (v.toLowerCase() !== v ? v.toLowerCase() : `${v.toUpperCase()}_`))
          .filter((v) => !values.includes(v)),
      );
      opts.push(fc.constant(7), fc.constant(['x']));
      break;
    }
    case 'date':
      opts.push(
        fc.constantFrom(
          '2026-02-30',
          '2026-13-01',
          '2025-02-29',
          '2026-1-1',
          '20260101',
          '2026/01/01',
          '01-01-2026',
          'yesterday',
          '',
          '2026-01-01T00:00:00Z',
          '0000-00-00',
          '2026-00-10',
          ' 2026-01-01',
        ),
      );
      opts.push(fc.constant(20260101));
      break;
    case 'list':
      opts.push(fc.constantFrom('a,b', 5, true), fc.constant({ a: 'b' }));
      break;
    default:
      opts.push(fc.constantFrom('x', 5, true));
  }
  return fc.oneof(...opts);
}

export interface FieldRef {
  place: Place;
  name: string;
  info: FieldInfo;
  schema: z.ZodType;
}

export function fieldsOf(ep: AnyEndpoint): FieldRef[] {
  const out: FieldRef[] = [];
  for (const place of PLACES) {
    const s = ep[place];
    if (!s) continue;
    for (const [name, info] of describeObject(s)) out.push({ place, name, info, schema: s.shape[name] as z.ZodType });
  }
  return out;
}

/** Does the object schema carry checks of its own (a `.refine` across fields)? */
function hasObjectChecks(s: z.ZodObject | undefined): boolean {
  const def = (s as unknown as { _zod?: { def?: { checks?: unknown[] } } } | undefined)?._zod?.def;
  return (def?.checks?.length ?? 0) > 0;
}

/** A whole valid input of an endpoint: every required field, any optional ones. */
export function validInput(ep: AnyEndpoint): fc.Arbitrary<Input> {
  const place = (p: Place) => {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const f of fieldsOf(ep).filter((x) => x.place === p)) {
      // The description has no exclusive bounds (`.positive()` reads as min 0): the field's own
      // schema has the last word on what is valid.
      model[f.name] = validValue(f.info).filter((v) => !refuses(f, v));
      if (!f.info.optional) required.push(f.name);
    }
    return fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
  };
  let arb = fc.record({ params: place('params'), query: place('query'), body: place('body') });
  // A rule across fields (roles.assign: new_roles or new_role) is the schema's to say.
  for (const p of PLACES) {
    const s = ep[p];
    if (hasObjectChecks(s)) arb = arb.filter((i) => s!.safeParse(i[p]).success);
  }
  return arb;
}

/** Does the client refuse this value for this field? (Its schema, and for a path id `.` and `..`.) */
export function refuses(f: FieldRef, v: unknown): boolean {
  return !f.schema.safeParse(v).success || (f.place === 'params' && (String(v) === '.' || String(v) === '..'));
}

export interface Broken {
  input: Input;
  /** The field made invalid, as the client names it. */
  field: string;
  place: Place;
  how: 'value' | 'missing';
  value?: unknown;
}

/** A valid input with exactly one field broken: a value it refuses, or a required field left out. */
export function brokenInput(ep: AnyEndpoint): fc.Arbitrary<Broken> | undefined {
  const probes: unknown[] = ['x', 5, true, { a: 1 }, ['x'], '', 1.5, null];
  // A field can be broken when it is required (left out) or refuses some value.
  const breakable = fieldsOf(ep).filter((f) => !f.info.optional || probes.some((v) => !f.schema.safeParse(v).success));
  if (!breakable.length) return undefined;
  return fc.tuple(validInput(ep), fc.constantFrom(...breakable), fc.boolean()).chain(([input, f, drop]) => {
    if (drop && !f.info.optional) {
      const copy = structuredClone(input);
      delete copy[f.place][f.name];
      return fc.constant<Broken>({ input: copy, field: f.name, place: f.place, how: 'missing' });
    }
    return (
      invalidValue(f.info, f.place)
        // Only values the field itself refuses (a z.unknown() field refuses nothing).
        .filter((v) => refuses(f, v))
        .map((v) => {
          const copy = structuredClone(input);
          copy[f.place][f.name] = v;
          return { input: copy, field: f.name, place: f.place, how: 'value', value: v } as Broken;
        })
    );
  });
}
