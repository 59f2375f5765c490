/**
 * Building blocks of the API contract. Every endpoint of both specification documents is
 * declared once with `endpoint()`; the client validates input with these schemas before
 * sending, the sandbox validates the same input with the same schemas, and the CLI derives
 * its flags (`foo_bar` -> `--foo-bar`) from them.
 *
 * Conventions:
 * - `params` (path) and `query` values arrive as strings on the wire, so their numbers and
 *   booleans coerce (`q.int()`, `q.bool()`; numbers from decimal text only); body fields are
 *   strictly typed JSON (`z.number()`,
 *   `z.boolean()`), and the CLI converts flag text to those types before validating.
 * - Response schemas describe `data` inside the envelope and are lenient: every object is
 *   `z.looseObject` (unknown fields pass through) and every field is optional.
 */
import { z } from './z.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Who may call an endpoint (decided by the sandbox where the specification is silent;
 * see README "Sandbox decisions"):
 * - public: no token needed
 * - user: any signed-in account
 * - staff: support, agent, manager, admin, superadmin
 * - admin: admin, superadmin (manager too on read-only admin lists)
 * - superadmin: superadmin only
 */
export type Access = 'public' | 'user' | 'staff' | 'admin' | 'superadmin';

/** How a list endpoint pages, so `--all`, `--limit` and the console can walk it. */
interface Paging {
  /** Query parameter holding the page number: page_number or page. */
  page: string;
  /** Query parameter holding the page size: page_size or limit. */
  size: string;
  /** Key of the item array inside `data` ('' when `data` is itself the array). */
  items: string;
  /** Key of the object inside `data` holding total_pages / total_records ('' = `data` itself). */
  info: string;
  /** The page size the server uses when none is sent. */
  defaultSize: number;
  /** The largest page size the contract allows. */
  maxSize: number;
}

export interface Endpoint<
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodObject | undefined = z.ZodObject | undefined,
  R extends z.ZodType = z.ZodType,
> {
  /** Stable dotted name, unique: `services.list`, `cms.roles.delete`, `user.wallet.topup`. */
  name: string;
  /** Which specification document declares it. */
  area: 'admin' | 'user';
  method: Method;
  /** Path with `{param}` placeholders, exactly as in the specification. */
  path: string;
  summary: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Schema of `data` inside the envelope. */
  response: R;
  access: Access;
  /** Extra request headers the endpoint requires: `X-Device-ID` for the CMS login and register. */
  deviceId?: boolean;
  /** HTTP status of success when it is not 200 (POST /users answers 201). */
  successStatus?: number;
  paging?: Paging;
}

export type AnyEndpoint = Endpoint<z.ZodObject | undefined, z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType>;

/** An endpoint's schemas, as `endpoint()` takes them from its `schemas` function. */
export interface Schemas<P, Q, B, R> {
  params?: P;
  query?: Q;
  body?: B;
  response: R;
}
type SchemaKey = 'params' | 'query' | 'body' | 'response';
const SCHEMA_KEYS: readonly SchemaKey[] = ['params', 'query', 'body', 'response'];

/**
 * Declares one endpoint. Its schemas come from `schemas()`, called the first time any of them
 * is read (`e.query`, `e.response` ...), so a command builds the schemas of the endpoints it
 * calls and no others: building a zod schema object takes time, and a contract file declares a
 * few hundred. Shared schemas are built once, on first use, through `lazy()`.
 * Given the schemas themselves (`query: z.object(...)`), it builds nothing later (tests do that).
 */
export function endpoint<
  const P extends z.ZodObject | undefined,
  const Q extends z.ZodObject | undefined,
  const B extends z.ZodObject | undefined,
  const R extends z.ZodType,
>(e: Omit<Endpoint<P, Q, B, R>, SchemaKey> & { schemas: () => Schemas<P, Q, B, R> }): Endpoint<P, Q, B, R>;
export function endpoint<
  const P extends z.ZodObject | undefined,
  const Q extends z.ZodObject | undefined,
  const B extends z.ZodObject | undefined,
  const R extends z.ZodType,
>(e: Endpoint<P, Q, B, R>): Endpoint<P, Q, B, R>;
export function endpoint(
  e: AnyEndpoint | (Omit<AnyEndpoint, SchemaKey> & { schemas: () => Schemas<unknown, unknown, unknown, unknown> }),
): AnyEndpoint {
  if (!('schemas' in e)) return e;
  const { schemas, ...meta } = e;
  const ep = meta as AnyEndpoint;
  const build = () => {
    const built = schemas() as Record<SchemaKey, unknown>;
    // From now on plain properties: no getter on the path of every parse of a bulk run.
    for (const k of SCHEMA_KEYS) Object.defineProperty(ep, k, { value: built[k], enumerable: true, writable: false, configurable: false });
  };
  for (const k of SCHEMA_KEYS) {
    Object.defineProperty(ep, k, {
      enumerable: true,
      configurable: true,
      get() {
        build();
        return (ep as unknown as Record<SchemaKey, unknown>)[k];
      },
    });
  }
  return ep;
}

/** A schema (or shape) built the first time it is asked for, then shared: `Service()`. */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

export type InputOf<E extends AnyEndpoint> = {
  params?: [NonNullable<E['params']>] extends [z.ZodObject] ? z.input<NonNullable<E['params']>> : undefined;
  query?: [NonNullable<E['query']>] extends [z.ZodObject] ? z.input<NonNullable<E['query']>> : undefined;
  body?: [NonNullable<E['body']>] extends [z.ZodObject] ? z.input<NonNullable<E['body']>> : undefined;
};
export type DataOf<E extends AnyEndpoint> = z.output<E['response']>;

// ---------------------------------------------------------------------------------------------
// Field helpers

const booleanKinds = new WeakSet<z.ZodType>();
const dateKinds = new WeakSet<z.ZodType>();
const listKinds = new WeakSet<z.ZodType>();

/**
 * A number written in decimals (`12`, `-3`, `2.50`, `1e3`, white space around it allowed). Text
 * of any other kind is not read as a number: `Number()` reads `0x10` as 16, `0b11` as 3, `0o7`
 * as 7 and '' as 0.
 */
export const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
/** A whole number written in digits (`12`, `-3`): `1e1` and `5.0` are not one, as on the command line. */
export const WHOLE = /^[-+]?\d+$/;
/** A query value read as a number when it is decimal text; anything else as it came (and refused). */
function fromDecimalText(v: unknown): unknown {
  return typeof v === 'string' && DECIMAL.test(v.trim()) ? Number(v) : v;
}
/** A query value read as a whole number when it is digits; anything else as it came (and refused). */
function fromWholeText(v: unknown): unknown {
  return typeof v === 'string' && WHOLE.test(v.trim()) ? Number(v) : v;
}
/** Query numbers, and the number schema each one reads into (for describeField). */
const decimalKinds = new WeakMap<object, z.ZodType>();
const queryNumberOf = (s: z.ZodType): z.ZodType | undefined => decimalKinds.get(s);
interface Bounds {
  min?: number;
  max?: number;
}
function queryNumber(int: boolean, { min, max }: Bounds) {
  let n = z.number();
  if (int) n = n.int();
  if (min !== undefined) n = n.min(min);
  if (max !== undefined) n = n.max(max);
  const s = z.preprocess(int ? fromWholeText : fromDecimalText, n);
  decimalKinds.set(s, n);
  return s;
}

/** Query/path values: strings on the wire, typed values from the CLI; both accepted. */
export const q = {
  /** Integer, from a number or its decimal text. */
  int: (bounds: Bounds = {}) => queryNumber(true, bounds),
  /** Any number, from a number or its decimal text. */
  num: (bounds: Bounds = {}) => queryNumber(false, bounds),
  /** Boolean, from true/false or their text (`true`, `false`, `1`, `0`). */
  bool: () => {
    const s = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);
    booleanKinds.add(s);
    return s;
  },
  /** Calendar date, YYYY-MM-DD. */
  date: () => date(),
};

/** A calendar date written YYYY-MM-DD (the specification's date filter format). */
export function date() {
  const s = z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'Invalid date: expected YYYY-MM-DD' })
    // Only text of that form is checked again (as a calendar day), so 'yesterday' is refused once.
    .refine(
      (v) =>
        !/^\d{4}-\d{2}-\d{2}$/.test(v) ||
        (!Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v)),
      {
        message: 'Invalid date: expected YYYY-MM-DD',
      },
    );
  dateKinds.add(s);
  return s;
}

/** A list of strings; on the command line a comma-separated value (`--new-roles support,agent`). */
export function stringList(item: z.ZodString = z.string()) {
  const s = z.array(item);
  listKinds.add(s);
  return s;
}

/** Page size bounded by the contract's maximum, with its default. */
export function pageSize(def: number, max = 100) {
  return q.int({ min: 1, max }).default(def);
}
export function pageNumber() {
  return q.int({ min: 1 }).default(1);
}
export const SortOrder = lazy(() => z.enum(['ASC', 'DESC']));

// ---------------------------------------------------------------------------------------------
// Responses

/**
 * `schema.optional().nullable()`, made once per schema: most response fields are the shared
 * `num()`, `str()`, `bool()` and `dateTime()`, and zod schemas never change, so every field of every
 * response can share four wrappers instead of building two schemas each (a response of 25
 * fields would build 50, and building them would be most of a contract file's load time).
 */
const lenientOf = new WeakMap<z.ZodType, z.ZodType>();
function lenient(schema: z.ZodType): z.ZodType {
  let l = lenientOf.get(schema);
  if (!l) {
    l = schema.optional().nullable();
    lenientOf.set(schema, l);
  }
  return l;
}

/** Lenient object: unknown keys kept, listed keys optional (a field the server omits is no crash). */
export function loose<T extends z.ZodRawShape>(shape: T) {
  const partial: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(shape)) partial[k] = lenient(v as z.ZodType);
  return z.looseObject(partial as { [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]>> });
}

// The shared schemas below are built on first use, like every other.

/** Lenient value of any JSON type. */
export const anything = lazy(() => z.unknown());
/** A lenient array of lenient objects. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.array(item);
}

export const num = lazy(() => z.number());
export const str = lazy(() => z.string());
export const bool = lazy(() => z.boolean());
/** Server date-times come as ISO strings. */
export const dateTime = lazy(() => z.string());

/** Pagination block of the admin lists. */
export const Pagination = lazy(() =>
  loose({
    current_page: num(),
    page_size: num(),
    total_pages: num(),
    total_records: num(),
    has_next_page: bool(),
    has_previous_page: bool(),
  }),
);

// ---------------------------------------------------------------------------------------------
// Introspection, for the CLI's flags and the bulk engine's column conversion

type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'date' | 'list' | 'object' | 'unknown';

export interface FieldInfo {
  kind: FieldKind;
  optional: boolean;
  defaultValue?: unknown;
  values?: readonly string[];
  min?: number;
  max?: number;
  description?: string;
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  defaultValue?: unknown;
  entries?: Record<string, string>;
};
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** What kind of value a field takes, looking through optional/default/nullable/pipe wrappers. */
export function describeField(schema: z.ZodType): FieldInfo {
  let s = schema;
  let optional = false;
  let defaultValue: unknown;
  for (let i = 0; i < 10; i++) {
    const d = defOf(s);
    if (d.type === 'optional' || d.type === 'nullable') {
      optional = true;
      s = d.innerType!;
    } else if (d.type === 'default' || d.type === 'prefault') {
      optional = true;
      defaultValue = typeof d.defaultValue === 'function' ? (d.defaultValue as () => unknown)() : d.defaultValue;
      s = d.innerType!;
    } else if (d.type === 'pipe') {
      s = queryNumberOf(s) ?? d.in!;
    } else break;
  }
  const info = (kind: FieldKind, extra: Partial<FieldInfo> = {}): FieldInfo => ({ kind, optional, defaultValue, ...extra });
  if (booleanKinds.has(s)) return info('boolean');
  if (dateKinds.has(s)) return info('date');
  if (listKinds.has(s)) return info('list');
  const d = defOf(s);
  // zod 4 exposes bounds as getters on the schema itself (its internal `bag` stays empty).
  const b = s as unknown as {
    minLength?: number | null;
    maxLength?: number | null;
    minValue?: number | null;
    maxValue?: number | null;
    isInt?: boolean;
    format?: string | null;
  };
  const n = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? undefined : v);
  switch (d.type) {
    case 'string':
      return info('string', { min: n(b.minLength), max: n(b.maxLength) });
    case 'number':
      return info(b.isInt || b.format === 'safeint' || b.format === 'int32' ? 'integer' : 'number', {
        min: n(b.minValue),
        max: n(b.maxValue),
      });
    case 'boolean':
      return info('boolean');
    case 'enum':
      return info('enum', { values: Object.values(d.entries ?? {}) });
    case 'array':
      return info('list');
    case 'object':
      return info('object');
    default:
      return info('unknown');
  }
}

/**
 * The fields of a list's items in the endpoint's response schema (`items`: the key the list is
 * under, '' when the answer is the list), in declaration order; undefined when the schema does
 * not say. For the header of an empty CSV list.
 */
export function itemFieldsOf(ep: AnyEndpoint, items: string): string[] | undefined {
  const through = (schema: z.ZodType | undefined): z.ZodType | undefined => {
    let s = schema;
    for (let i = 0; s && i < 10; i++) {
      const d = defOf(s) as Def & { getter?: () => z.ZodType };
      if (
        d.type === 'optional' ||
        d.type === 'nullable' ||
        d.type === 'default' ||
        d.type === 'prefault' ||
        d.type === 'readonly' ||
        d.type === 'catch'
      )
        s = d.innerType;
      else if (d.type === 'pipe') s = d.in;
      else if (d.type === 'lazy') s = d.getter?.();
      else return s;
    }
    return undefined;
  };
  let list = through(ep.response as z.ZodType | undefined);
  if (items && list && defOf(list).type === 'object') list = through((list as z.ZodObject).shape[items] as z.ZodType | undefined);
  if (!list || defOf(list).type !== 'array') return undefined;
  const item = through((defOf(list) as Def & { element?: z.ZodType }).element);
  if (!item || defOf(item).type !== 'object') return undefined;
  const keys = Object.keys((item as z.ZodObject).shape);
  return keys.length ? keys : undefined;
}

/** The fields of an object schema with their kinds, in declaration order. */
export function describeObject(schema: z.ZodObject | undefined): Array<[string, FieldInfo]> {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([k, v]) => [k, describeField(v as z.ZodType)]);
}

/** `service_code` -> `--service-code`. */
export function flagName(field: string): string {
  return `--${field.replace(/_/g, '-')}`;
}
