/**
 * Writes the contract's manifest (`manifest.generated.ts`, read by `fast.ts`) from the zod
 * schemas. Only tests/api/contract-manifest.test.ts imports this module: it fails when the file
 * is stale, and `npm run contract:manifest` runs it to rewrite the file.
 *
 * A schema the description cannot express exactly (a refinement other than the calendar
 * date's, a transform other than the query boolean's, a default that is not a plain value, a
 * check it does not know) is left to zod: its part is `null` in the manifest.
 */
import type { AnyEndpoint } from './common.js';
import { describeObject, isDate, isQueryBool, queryNumberOf } from './common.js';
import type { z } from './z.js';
import type { Check, Entry, Node, Place } from './fast.js';
import { atomOf, fieldsOfEntry, nodeOpts } from './fast.js';

class Unsupported extends Error {}

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: Record<string, unknown> } }>;
  coerce?: boolean;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  entries?: Record<string, string | number>;
  defaultValue?: unknown;
  inclusive?: boolean;
  discriminator?: string;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const zodOpts = (s: z.ZodType) => {
  const i = (s as unknown as { _zod: { optin?: string; optout?: string } })._zod;
  return [i.optin, i.optout];
};

function checksOf(d: Def): Check[] {
  return (d.checks ?? []).map((c): Check => {
    const cd = c._zod.def;
    switch (cd.check) {
      case 'max_length':
        return ['max', cd.maximum as number];
      case 'min_length':
        return ['min', cd.minimum as number];
      case 'string_format':
        if (cd.format !== 'regex') break;
        return ['re', (cd.pattern as RegExp).source, (cd.pattern as RegExp).flags];
      case 'number_format':
        if (cd.format !== 'safeint') break;
        return ['int'];
      case 'greater_than':
        return [cd.inclusive ? '>=' : '>', cd.value as number];
      case 'less_than':
        return [cd.inclusive ? '<=' : '<', cd.value as number];
    }
    throw new Unsupported(`check ${String(cd.check)}`);
  });
}

function noChecks(d: Def): void {
  if (d.checks?.length) throw new Unsupported(`checks on ${d.type}`);
}

/** A zod schema, described (throws Unsupported). */
export function describeSchema(s: z.ZodType): Node {
  return atomOf(describeExpanded(s));
}

function describeExpanded(s: z.ZodType): Node {
  if (isQueryBool(s)) return ['qb'];
  if (isDate(s)) return ['d'];
  const queryNumber = queryNumberOf(s);
  if (queryNumber) {
    const n = defOf(queryNumber);
    if (n.type !== 'number' || n.coerce) throw new Unsupported('query number');
    return ['n', 1, checksOf(n)];
  }
  const d = defOf(s);
  switch (d.type) {
    case 'unknown':
      noChecks(d);
      return 0;
    case 'string':
      if (d.coerce) throw new Unsupported('coerced string');
      return ['s', checksOf(d)];
    case 'number':
      if (d.coerce) throw new Unsupported('coerced number');
      return ['n', 0, checksOf(d)];
    case 'boolean':
      noChecks(d);
      if (d.coerce) throw new Unsupported('coerced boolean');
      return ['b'];
    case 'enum':
      noChecks(d);
      return ['e', Object.values(d.entries ?? {})];
    case 'array':
      return ['a', describeSchema(d.element!), checksOf(d)];
    case 'object': {
      noChecks(d);
      let loose: 0 | 1 = 0;
      if (d.catchall) {
        if (defOf(d.catchall).type !== 'unknown' || defOf(d.catchall).checks?.length) throw new Unsupported('catchall');
        loose = 1;
      }
      const shape = d.shape ?? {};
      if (Object.getOwnPropertySymbols(shape).length) throw new Unsupported('symbol keys');
      const props: Array<[string, Node]> = Object.entries(shape).map(([k, v]) => {
        const n = describeSchema(v);
        const [oin, oout] = zodOpts(v);
        const [din, dout] = nodeOpts(n);
        if (oin !== din || oout !== dout) throw new Unsupported(`optin/optout of ${k}: zod ${oin}/${oout}, described ${din}/${dout}`);
        return [k, n];
      });
      return ['o', loose, props];
    }
    case 'union':
      noChecks(d);
      if (d.inclusive === false || d.discriminator !== undefined) throw new Unsupported('exclusive or discriminated union');
      return ['u', d.options!.map(describeSchema)];
    case 'optional':
      noChecks(d);
      return ['?', describeSchema(d.innerType!)];
    case 'nullable': {
      noChecks(d);
      const inner = defOf(d.innerType!);
      if (inner.type === 'optional' && !inner.checks?.length) return ['L', describeSchema(inner.innerType!)];
      return ['N', describeSchema(d.innerType!)];
    }
    case 'default': {
      noChecks(d);
      const v = d.defaultValue;
      if (v !== null && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new Unsupported('default that is not a plain value');
      return ['D', v, describeSchema(d.innerType!)];
    }
    default:
      throw new Unsupported(d.type);
  }
}

function tryDescribe(s: z.ZodType): Node | null {
  try {
    return describeSchema(s);
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

/** The manifest entry of one endpoint (builds its schemas). */
export function manifestEntry(ep: AnyEndpoint): Entry {
  const f: NonNullable<Entry['f']> = [];
  for (const place of ['params', 'query', 'body'] as Place[]) for (const [k, info] of describeObject(ep[place])) f.push([k, place, info]);
  const entry: Entry = {
    ...(ep.params ? { p: tryDescribe(ep.params) } : {}),
    ...(ep.query ? { q: tryDescribe(ep.query) } : {}),
    ...(ep.body ? { b: tryDescribe(ep.body) } : {}),
    r: tryDescribe(ep.response),
  };
  // The fields are written out only where the nodes do not give exactly describeObject's.
  const read = fieldsOfEntry(entry);
  if (!read || JSON.stringify(read) !== JSON.stringify(f)) entry.f = f;
  return entry;
}

/** A single-quoted, pure-ASCII string literal (JSON is mostly double quotes). */
function quote(text: string): string {
  return `'${text.replace(/[\\'\u0000-\u001f\u007f-\uffff]/g, (c) => (c === '\\' ? '\\\\' : c === "'" ? "\\'" : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))}'`;
}

/** The text of manifest.generated.ts for these endpoints. */
export function manifestSource(endpoints: readonly AnyEndpoint[]): string {
  const lines = endpoints.map((ep) => `  '${ep.name}': ${quote(JSON.stringify(manifestEntry(ep)))},`);
  return [
    '// Generated from the contract\'s zod schemas by `npm run contract:manifest`: do not edit.',
    '// tests/api/contract-manifest.test.ts fails when this file differs from what the schemas give.',
    '// One JSON text per endpoint (see fast.ts), parsed the first time the endpoint is called.',
    'export const manifest: Record<string, string> = {',
    ...lines,
    '};',
    '',
  ].join('\n');
}
