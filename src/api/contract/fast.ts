/**
 * The contract's schemas without building them: a compact description of every endpoint's
 * params, query, body and response, generated from the zod schemas by `manifest-source.ts`
 * (`npm run contract:manifest`) and held to them by `tests/api/contract-manifest.test.ts`, plus
 * the flags' field descriptions. A one-shot command (`services list`) validates its input and its
 * answer with it and never builds a zod schema: building the schemas and parsing with them cost
 * about 4 ms of the command's start.
 *
 * zod stays the single source and the only judge of bad input: when a value does not pass here,
 * or a schema uses something the description cannot express (a refinement, a transform), the
 * endpoint's zod schema is built and its answer, issues and all, is the answer. A value that
 * passes here gives exactly what zod would give (same keys in the same order, same defaults,
 * same coercions); `tests/api/contract-manifest.test.ts` checks both directions against zod for
 * every endpoint with generated good and bad values.
 */
import type { ZodError } from 'zod';
import type { AnyEndpoint, FieldInfo } from './common.js';
import { describeObject, fromDecimalText, fromWholeText, IN_CONTRACT, parseMode } from './common.js';
import { manifest } from './manifest.generated.js';

/**
 * A schema, described. Tags: 0 unknown; `['s', checks]` string; `['d']` calendar date
 * (YYYY-MM-DD); `['n', query, checks]` number (query 1: decimal text read as its number); `['b']` boolean; `['qb']` query boolean
 * (true/false or their text); `['e', values]` enum; `['a', item, checks]` array;
 * `['o', loose, [[key, node], ...]]` object; `['u', options]` union; `['?', node]` optional;
 * `['N', node]` nullable; `['D', value, node]` default; `['L', node]` a lenient response field
 * (optional, then nullable). The commonest are named: `'S'`, `'N'`, `'B'` (string, number,
 * boolean without checks) and `'LS'`, `'LN'`, `'LB'`, `'L0'` (the same as lenient fields).
 * Checks: `['min', n]`, `['max', n]` (length), `['re', source, flags]`, `['int']` (safe
 * integer), `['>=', n]`, `['>', n]`, `['<=', n]`, `['<', n]`.
 */
export type Node = 0 | Atom | Tagged;
type Tagged =
  | ['s', Check[]]
  | ['d']
  | ['n', 0 | 1, Check[]]
  | ['b']
  | ['qb']
  | ['e', Array<string | number>]
  | ['a', Node, Check[]]
  | ['o', 0 | 1, Array<[string, Node]>]
  | ['u', Node[]]
  | ['?', Node]
  | ['N', Node]
  | ['D', unknown, Node]
  | ['L', Node];
type Atom = 'S' | 'N' | 'B' | 'LS' | 'LN' | 'LB' | 'L0';
export const ATOMS: Record<Atom, Tagged> = {
  S: ['s', []],
  N: ['n', 0, []],
  B: ['b'],
  LS: ['L', 'S'],
  LN: ['L', 'N'],
  LB: ['L', 'B'],
  L0: ['L', 0],
};
/** The atom naming a description, if one does. */
export function atomOf(n: Node): Node {
  const text = JSON.stringify(n);
  for (const [name, value] of Object.entries(ATOMS)) if (JSON.stringify(value) === text) return name as Atom;
  return n;
}
/** A node with its atom, if it is one, spelled out. */
const expand = (n: Node): Tagged | 0 => (typeof n === 'string' ? ATOMS[n] : n);
export type Check = ['min', number] | ['max', number] | ['re', string, string] | ['int'] | ['>=', number] | ['>', number] | ['<=', number] | ['<', number];

/**
 * One endpoint: p, q, b, r (a node, or null: zod only; absent: the endpoint has none); f, its
 * fields, only where they cannot be read from p, q and b (a part left to zod).
 */
export interface Entry {
  p?: Node | null;
  q?: Node | null;
  b?: Node | null;
  r: Node | null;
  f?: Array<[string, Place, FieldInfo]>;
}
export type Place = 'params' | 'query' | 'body';
export type Part = Place | 'response';
const KEY: Record<Part, 'p' | 'q' | 'b' | 'r'> = { params: 'p', query: 'q', body: 'b', response: 'r' };

const entries = new Map<string, Entry | null>();

/** The manifest's entry of a contract endpoint (undefined for an endpoint made elsewhere, e.g. in a test). */
export function entryOf(ep: AnyEndpoint): Entry | undefined {
  if (!(ep as unknown as Record<symbol, unknown>)[IN_CONTRACT]) return undefined;
  let e = entries.get(ep.name);
  if (e === undefined) {
    const text = (manifest as Record<string, string | undefined>)[ep.name];
    e = text === undefined ? null : (JSON.parse(text) as Entry);
    entries.set(ep.name, e);
  }
  return e ?? undefined;
}

/** The description of one part of an endpoint: a node, null (left to zod), undefined (no such part, or no entry). */
export function nodeOf(ep: AnyEndpoint, part: Part): Node | null | undefined {
  return entryOf(ep)?.[KEY[part]];
}

/** Whether the endpoint has params, a query or a body (without building its schemas). */
export function hasPart(ep: AnyEndpoint, part: Place): boolean {
  const e = entryOf(ep);
  return e ? KEY[part] in e : ep[part] !== undefined;
}

/** The input fields of an endpoint in declaration order (params, query, body), as `describeObject` gives them. */
export function fieldsOfEndpoint(ep: AnyEndpoint): Array<[string, Place, FieldInfo]> {
  const e = entryOf(ep);
  if (e) {
    e.f ??= fieldsOfEntry(e);
    if (e.f) return e.f;
  }
  const out: Array<[string, Place, FieldInfo]> = [];
  for (const place of ['params', 'query', 'body'] as const) for (const [k, info] of describeObject(ep[place])) out.push([k, place, info]);
  return out;
}

/** The fields of an entry read from its nodes; undefined when a part is left to zod. */
export function fieldsOfEntry(e: Entry): Array<[string, Place, FieldInfo]> | undefined {
  const out: Array<[string, Place, FieldInfo]> = [];
  for (const [place, key] of [['params', 'p'], ['query', 'q'], ['body', 'b']] as const) {
    const node = e[key];
    if (node === undefined) continue;
    if (node === null) return undefined;
    const n = expand(node);
    if (n === 0 || n[0] !== 'o') return undefined;
    for (const [k, el] of n[2]) out.push([k, place, fieldInfo(el)]);
  }
  return out;
}

/** `describeField` (common.ts) of a described schema. */
function fieldInfo(node: Node): FieldInfo {
  let n: Tagged | 0 = expand(node);
  let optional = false;
  let defaultValue: unknown;
  for (;;) {
    if (n !== 0 && (n[0] === '?' || n[0] === 'N' || n[0] === 'L')) {
      optional = true;
      n = expand(n[1]);
    } else if (n !== 0 && n[0] === 'D') {
      optional = true;
      defaultValue = n[1];
      n = expand(n[2]);
    } else break;
  }
  const info = (kind: FieldInfo['kind'], extra: Partial<FieldInfo> = {}): FieldInfo => {
    const i: FieldInfo = { kind, optional };
    if (defaultValue !== undefined) i.defaultValue = defaultValue;
    return Object.assign(i, extra);
  };
  if (n === 0) return info('unknown');
  switch (n[0]) {
    case 'qb':
      return info('boolean');
    case 'd':
      return info('date');
    case 'a':
      return info('list');
    case 's': {
      const extra: Partial<FieldInfo> = {};
      for (const c of n[1]) {
        if (c[0] === 'min') extra.min = Math.max(extra.min ?? -Infinity, c[1]);
        if (c[0] === 'max') extra.max = Math.min(extra.max ?? Infinity, c[1]);
      }
      return info('string', extra);
    }
    case 'n': {
      let lo = -Infinity;
      let hi = Infinity;
      let int = false;
      for (const c of n[2]) {
        if (c[0] === 'int') {
          int = true;
          lo = Math.max(lo, Number.MIN_SAFE_INTEGER);
          hi = Math.min(hi, Number.MAX_SAFE_INTEGER);
        } else if (c[0] === '>=' || c[0] === '>') lo = Math.max(lo, c[1]);
        else if (c[0] === '<=' || c[0] === '<') hi = Math.min(hi, c[1]);
      }
      const extra: Partial<FieldInfo> = {};
      if (Number.isFinite(lo)) extra.min = lo;
      if (Number.isFinite(hi)) extra.max = hi;
      return info(int ? 'integer' : 'number', extra);
    }
    case 'b':
      return info('boolean');
    case 'e':
      return info('enum', { values: n[1] as string[] });
    case 'o':
      return info('object');
    default:
      return info('unknown');
  }
}

export type ParseResult = { success: true; data: unknown } | { success: false; error: ZodError };

/**
 * Parses one part of a call like `ep[part].safeParse(value)`: with the description when the
 * value passes it, with zod (building the schema) otherwise. `part` must exist on the endpoint.
 */
export function safeParsePart(ep: AnyEndpoint, part: Part, value: unknown, error?: (issue: never) => string | undefined): ParseResult {
  const node = nodeOf(ep, part);
  if (node !== undefined && node !== null) {
    const v = run(node, value);
    if (v !== FAIL) return { success: true, data: v };
  }
  const schema = ep[part]!;
  // `error`: messages where the schema has none of its own (the sandbox's platform wording).
  const mode = parseMode(schema);
  return schema.safeParse(value, error ? { ...mode, error: error as never } : mode) as ParseResult;
}

/** What `run` answers for a value the description refuses. */
export const FAIL = Symbol('fail');
type Out = unknown;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** zod 4 measures a string in code points (a surrogate pair counts once), an array in items. */
function lengthOf(v: unknown): number {
  if (typeof v !== 'string') return (v as unknown[]).length;
  let count = v.length;
  for (let i = 0; i < v.length - 1; i++) {
    if ((v.charCodeAt(i) & 0xfc00) === 0xd800 && (v.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

type Pred = (v: unknown) => boolean;

/** One predicate for a list of checks (undefined when there are none). */
function checker(checks: Check[]): Pred | undefined {
  const preds = checks.map((c): Pred => {
    switch (c[0]) {
      case 'min':
        return (v) => lengthOf(v) >= c[1];
      case 'max':
        return (v) => lengthOf(v) <= c[1];
      case 're': {
        const re = new RegExp(c[1], c[2]);
        return (v) => {
          re.lastIndex = 0;
          return re.test(v as string);
        };
      }
      case 'int':
        return (v) => Number.isSafeInteger(v);
      case '>=':
        return (v) => (v as number) >= c[1];
      case '>':
        return (v) => (v as number) > c[1];
      case '<=':
        return (v) => (v as number) <= c[1];
      case '<':
        return (v) => (v as number) < c[1];
      default:
        return () => false;
    }
  });
  if (preds.length === 0) return undefined;
  if (preds.length === 1) return preds[0];
  return (v) => {
    for (const p of preds) if (!p(v)) return false;
    return true;
  };
}

/** zod's optin of a described schema: how an absent key is treated. */
function optin(node: Node): 'optional' | 'defaulted' | undefined {
  const n = expand(node);
  if (n === 0) return undefined;
  switch (n[0]) {
    case '?':
      return optin(n[1]) === 'defaulted' ? 'defaulted' : 'optional';
    case 'L':
      return optin(n[1]) === 'defaulted' ? 'defaulted' : 'optional';
    case 'N':
      return optin(n[1]);
    case 'D':
      return 'defaulted';
    case 'n':
      // A query number is zod's preprocess, whose transform takes an absent value in; its number
      // then refuses it, so the key is still required.
      return n[1] === 1 ? 'optional' : undefined;
    case 'u': {
      const ins = n[1].map(optin);
      return ins.includes('defaulted') ? 'defaulted' : ins.some((x) => x !== undefined) ? 'optional' : undefined;
    }
    default:
      return undefined;
  }
}

/** zod's optout of a described schema. */
function optout(node: Node): 'optional' | undefined {
  const n = expand(node);
  if (n === 0) return undefined;
  switch (n[0]) {
    case '?':
    case 'L':
      return 'optional';
    case 'N':
    case 'D':
      return n[0] === 'N' ? optout(n[1]) : optout(n[2]);
    case 'u':
      return n[1].some((o) => optout(o) === 'optional') ? 'optional' : undefined;
    default:
      return undefined;
  }
}

const optCache = new WeakMap<object, ['optional' | 'defaulted' | undefined, 'optional' | undefined]>();
/** zod's [optin, optout] of a described schema (the manifest's generator checks them against zod's). */
export function nodeOpts(node: Node): ['optional' | 'defaulted' | undefined, 'optional' | undefined] {
  const n = expand(node);
  if (n === 0) return [undefined, undefined];
  let o = optCache.get(n);
  if (!o) optCache.set(n, (o = [optin(n), optout(n)]));
  return o;
}

/** A described schema as a function: the parsed value, or FAIL. */
type Parse = (v: unknown) => Out | typeof FAIL;

const parsers = new WeakMap<object, Parse>();
const atomParsers = new Map<string, Parse>();
const identity: Parse = (v) => v;

/** The parser of a node, built once per node (a bulk run or an export parses thousands of values). */
function parserOf(node: Node): Parse {
  if (node === 0) return identity;
  if (typeof node === 'string') {
    let p = atomParsers.get(node);
    if (!p) atomParsers.set(node, (p = build(ATOMS[node])));
    return p;
  }
  let p = parsers.get(node);
  if (!p) parsers.set(node, (p = build(node)));
  return p;
}

/** Runs a described schema on a value: the parsed value, or FAIL. */
export function run(node: Node, v: unknown): Out | typeof FAIL {
  return parserOf(node)(v);
}

/** zod 4's semantics, wrapper by wrapper. */
function build(n: Tagged): Parse {
  switch (n[0]) {
    case 's': {
      const ok = checker(n[1]);
      return ok ? (v) => (typeof v === 'string' && ok(v) ? v : FAIL) : (v) => (typeof v === 'string' ? v : FAIL);
    }
    case 'd':
      return (v) => (typeof v === 'string' && DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v) ? v : FAIL);
    case 'n': {
      const ok = checker(n[2]);
      const coerce = n[1] === 1;
      // A query number (`q.int()`, `q.num()`): its text is read as a number when it is digits
      // (an integer) or decimal (common.ts).
      const read = n[2].some((c) => c[0] === 'int') ? fromWholeText : fromDecimalText;
      return (v) => {
        const x = coerce ? read(v) : v;
        return typeof x === 'number' && Number.isFinite(x) && (!ok || ok(x)) ? x : FAIL;
      };
    }
    case 'b':
      return (v) => (typeof v === 'boolean' ? v : FAIL);
    case 'qb':
      return (v) => (typeof v === 'boolean' ? v : v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : FAIL);
    case 'e': {
      const values = new Set<unknown>(n[1]);
      return (v) => (values.has(v) ? v : FAIL);
    }
    case 'a': {
      const item = parserOf(n[1]);
      const ok = checker(n[2]);
      return (v) => {
        if (!Array.isArray(v)) return FAIL;
        const out = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const r = item(v[i]);
          if (r === FAIL) return FAIL;
          out[i] = r;
        }
        return !ok || ok(v) ? out : FAIL;
      };
    }
    case 'o':
      return objectParser(n);
    case 'u': {
      const options = n[1].map(parserOf);
      return (v) => {
        for (const o of options) {
          const r = o(v);
          if (r !== FAIL) return r;
        }
        return FAIL;
      };
    }
    case '?':
      return optionalParser(n[1]);
    case 'N': {
      const inner = parserOf(n[1]);
      return (v) => (v === null ? null : inner(v));
    }
    case 'D': {
      const value = n[1];
      const inner = parserOf(n[2]);
      return (v) => {
        if (v === undefined) return value;
        const r = inner(v);
        return r === undefined ? value : r;
      };
    }
    case 'L': {
      // Most response fields: one flat function each, rather than three nested calls.
      switch (n[1]) {
        case 'S':
          return (v) => (v === null || v === undefined || typeof v === 'string' ? v : FAIL);
        case 'N':
          return (v) => (v === null || v === undefined || (typeof v === 'number' && Number.isFinite(v)) ? v : FAIL);
        case 'B':
          return (v) => (v === null || v === undefined || typeof v === 'boolean' ? v : FAIL);
        case 0:
          return identity;
      }
      const opt = optionalParser(n[1]);
      return (v) => (v === null ? null : opt(v));
    }
    default:
      return () => FAIL;
  }
}

/** The optional wrapper: undefined stays undefined unless the inner schema substitutes a value. */
function optionalParser(innerNode: Node): Parse {
  const inner = parserOf(innerNode);
  if (optin(innerNode) !== 'defaulted') return (v) => (v === undefined ? undefined : inner(v));
  return (v) => {
    if (v !== undefined) return inner(v);
    const r = inner(undefined);
    return r === FAIL ? undefined : r;
  };
}

/**
 * How many values an object description parses as a loop over its keys before it is written
 * out as a function of its own (below). A one-shot command parses a few dozen objects: writing
 * out its four or five object functions would cost it about 1 ms. A bulk run, an export or the
 * sandbox parses thousands, and the written-out function is about 4 times as fast.
 */
let compileAfter = 256;
/** For tests: both ways must give the same answers (tests/api/contract-manifest.test.ts). */
export function setCompileAfter(n: number): void {
  compileAfter = n;
}

/** zod 4's object parse: shape keys in order, then, for a loose object, the other keys of the input. */
function objectParser(n: ['o', 0 | 1, Array<[string, Node]>]): Parse {
  // zod never reads a declared __proto__ key into its output either.
  const props = n[2].filter(([k]) => k !== '__proto__');
  const keys = props.map(([k]) => k);
  const parse = props.map(([, el]) => parserOf(el));
  const oin = props.map(([, el]) => nodeOpts(el)[0]);
  const oout = props.map(([, el]) => nodeOpts(el)[1]);
  const known = new Set(n[2].map(([k]) => k));
  const loose = n[1] === 1;
  let calls = 0;
  let compiled: Parse | undefined;
  return (input) => {
    if (compiled) return compiled(input);
    if (++calls > compileAfter) return (compiled = writtenOut(props, parse, known, loose))(input);
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return FAIL;
    const source = input as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const present = key in source;
      if (!present && oout[i] === 'optional' && oin[i] === 'optional') continue;
      const r = parse[i](source[key]);
      if (r === FAIL) {
        if (oin[i] !== undefined && oout[i] === 'optional' && !present) continue;
        return FAIL;
      }
      if (!present && oin[i] === undefined) return FAIL;
      if (r === undefined) {
        if (present || (oin[i] === 'defaulted' && oout[i] !== 'optional')) out[key] = undefined;
      } else out[key] = r;
    }
    if (loose) {
      for (const key in source) {
        if (known.has(key) || key === '__proto__') continue;
        out[key] = source[key];
      }
    }
    return out;
  };
}

/**
 * The same parse written out as a function of its own (like zod's compiled parser): with the
 * keys as literals, reads and writes of the fields are fast property accesses, where the loop
 * above makes every one a dictionary lookup (a 1,000,000-row export spent about 1 s in it). The
 * lenient response fields are checked inline.
 */
function writtenOut(props: Array<[string, Node]>, parse: Parse[], known: Set<string>, loose: boolean): Parse {
  const body: string[] = ["if (typeof input !== 'object' || input === null || Array.isArray(input)) return FAIL;", 'const out = {};', 'let r;'];
  props.forEach(([key, el], i) => {
    const k = JSON.stringify(key);
    const [oin, oout] = nodeOpts(el);
    const inline = typeof el === 'string' ? INLINE[el] : undefined;
    if (oin === 'optional' && oout === 'optional') {
      // Absent: left out. Present: parsed, undefined included.
      if (inline) body.push(`if (${k} in input) { r = input[${k}]; if (${inline}) return FAIL; out[${k}] = r; }`);
      else body.push(`if (${k} in input) { r = P[${i}](input[${k}]); if (r === FAIL) return FAIL; out[${k}] = r; }`);
    } else if (oin === undefined) {
      // Required: absent fails, whatever the schema makes of undefined.
      body.push(`if (!(${k} in input)) return FAIL;`, `r = P[${i}](input[${k}]); if (r === FAIL) return FAIL; out[${k}] = r;`);
    } else {
      const skipFailWhenAbsent = oout === 'optional';
      const keepUndefinedWhenAbsent = oin === 'defaulted' && oout !== 'optional';
      body.push(
        `{ const present = ${k} in input; r = P[${i}](input[${k}]);`,
        `if (r === FAIL) { if (${skipFailWhenAbsent ? '!present' : 'false'}) {} else return FAIL; }`,
        `else if (r === undefined) { if (present || ${keepUndefinedWhenAbsent}) out[${k}] = undefined; }`,
        `else out[${k}] = r; }`,
      );
    }
  });
  if (loose) body.push("for (const key in input) { if (known.has(key) || key === '__proto__') continue; out[key] = input[key]; }");
  body.push('return out;');
  return new Function('P', 'FAIL', 'known', `return function parseObject(input) {\n${body.join('\n')}\n};`)(parse, FAIL, known) as Parse;
}

/** The lenient atoms as a condition on `r` that refuses the value (r is the field's value). */
const INLINE: Record<string, string | undefined> = {
  LS: "r !== null && r !== undefined && typeof r !== 'string'",
  LN: "r !== null && r !== undefined && !(typeof r === 'number' && Number.isFinite(r))",
  LB: "r !== null && r !== undefined && typeof r !== 'boolean'",
  L0: 'false',
};
