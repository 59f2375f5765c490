/**
 * An answer's values read as the contract's types, for the forms people and text-comparing
 * scripts read (tables, CSV, text summaries). Platforms write the same fact in several ways
 * (src/sandbox/dialect.ts shows one): a boolean as `1`, `"true"` or `true`; a role as `"admin"`
 * or `{ "role_name": "admin" }`. Where the contract says a field is a boolean, a value that reads
 * as one (read-values.ts `readBoolean`) becomes that boolean; where it says text, an object
 * carrying the field's name (`role_name` for `role`, else `name`) as text becomes that text; where
 * it says a date-time, a number of seconds or milliseconds since 1970 (read-values.ts
 * `readEpoch`) becomes its ISO time, which terminals then show in their zone.
 * Anything else stays as received, and so does every answer printed as JSON: scripts reading
 * JSON get the server's own values (docs/decisions.md, "Reading answers").
 */
import type { z } from 'zod';
import { dateTime, type AnyEndpoint } from './contract/common.js';
import { readBoolean, readEpoch, readLabel } from './read-values.js';

/** What to do with one value: the fields that may need reading, and how. */
type Plan =
  | { kind: 'boolean' }
  | { kind: 'text' }
  | { kind: 'time' }
  /** `list`: the object's only list field (its key and plan), where rows moved elsewhere are looked for. */
  | { kind: 'object'; fields: Map<string, Plan>; entries: Array<[string, Plan]>; list?: [string, Plan] }
  | { kind: 'list'; item: Plan };

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  getter?: () => z.ZodType;
};
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Schemas nest a few levels; deeper (or recursive) ones are left as received. */
const MAX_DEPTH = 8;
const plans = new WeakMap<z.ZodType, Plan | null>();

/** The schema under optional/nullable/default/pipe/lazy wrappers. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema;
  for (let i = 0; s && i < 10; i++) {
    const d = defOf(s);
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch'].includes(d.type)) s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else if (d.type === 'lazy') s = d.getter?.();
    else return s;
  }
  return undefined;
}

function planOf(schema: z.ZodType | undefined, depth = 0): Plan | undefined {
  const s = unwrap(schema);
  if (!s || depth > MAX_DEPTH) return undefined;
  const known = plans.get(s);
  if (known !== undefined) return known ?? undefined;
  const d = defOf(s);
  let plan: Plan | undefined;
  if (s === dateTime()) plan = { kind: 'time' };
  else if (d.type === 'boolean') plan = { kind: 'boolean' };
  else if (d.type === 'string' || d.type === 'enum') plan = { kind: 'text' };
  else if (d.type === 'array') {
    const item = planOf(d.element, depth + 1);
    plan = item && { kind: 'list', item };
  } else if (d.type === 'object') {
    const fields = new Map<string, Plan>();
    for (const [k, v] of Object.entries(d.shape ?? {})) {
      const p = planOf(v, depth + 1);
      if (p) fields.set(k, p);
    }
    const lists = [...fields].filter(([, p]) => p.kind === 'list');
    plan = fields.size > 0 ? { kind: 'object', fields, entries: [...fields], list: lists.length === 1 ? lists[0] : undefined } : undefined;
  }
  // Only a whole answer's plan is kept (once per endpoint): a nested one may be cut short by MAX_DEPTH.
  if (depth === 0) plans.set(s, plan ?? null);
  return plan;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `v` read by `plan`; the same object when nothing in it changes (no copy of a page of plain rows). */
function read(plan: Plan, key: string, v: unknown): unknown {
  switch (plan.kind) {
    case 'boolean':
      return typeof v === 'boolean' ? v : (readBoolean(v) ?? v);
    case 'text':
      return isRecord(v) ? (readLabel(v, [`${key}_name`, 'name']) ?? v) : v;
    case 'time':
      return readEpoch(v) ?? v;
    case 'list': {
      // A list the platform sends under a key of its own (`{ items: [...] }`): its lists read as this one.
      if (isRecord(v)) return readFields(v, Object.keys(v), (_k, x) => (Array.isArray(x) ? plan : undefined));
      if (!Array.isArray(v)) return v;
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x = read(plan.item, key, v[i]);
        if (x !== v[i]) (out ??= v.slice())[i] = x;
      }
      return out ?? v;
    }
    case 'object': {
      // The contract's one list, sent bare or under another key (src/api/rows.ts finds rows alike).
      const moved = plan.list && !(isRecord(v) && plan.list[0] in v) ? plan.list[1] : undefined;
      if (Array.isArray(v)) return moved ? read(moved, key, v) : v;
      if (!isRecord(v)) return v;
      if (moved) return readFields(v, Object.keys(v), (k, x) => plan.fields.get(k) ?? (Array.isArray(x) ? moved : undefined));
      let out: Record<string, unknown> | undefined;
      for (const [k, p] of plan.entries) {
        const was = v[k];
        // The common case, a value already of its type, costs no call (exports read millions of rows).
        if (was === undefined || was === null || (p.kind === 'text' && typeof was !== 'object') || typeof was === 'boolean') continue;
        // An ISO time has its '-' at [4]; an epoch in text is digits only.
        if (p.kind === 'time' && typeof was === 'string' && was.charCodeAt(4) === 45) continue;
        const x = read(p, k, was);
        if (x !== was) (out ??= { ...v })[k] = x;
      }
      return out ?? v;
    }
  }
}

/** `v` with each of `keys` read by the plan `planFor` gives it (none: as received); `v` itself when none changes. */
function readFields(
  v: Record<string, unknown>,
  keys: Iterable<string>,
  planFor: (key: string, x: unknown) => Plan | undefined,
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k of keys) {
    const p = planFor(k, v[k]);
    if (!p) continue;
    const x = read(p, k, v[k]);
    if (x !== v[k]) (out ??= { ...v })[k] = x;
  }
  return out ?? v;
}

/**
 * `data` of an answer to `ep` with its values read as the contract types them (see above).
 * @example typedData(usersGet, { is_verified: 1, role: { role_name: 'admin' } }) // { is_verified: true, role: 'admin' }
 */
export function typedData(ep: AnyEndpoint, data: unknown): unknown {
  const plan = planOf(ep.response as z.ZodType | undefined);
  return plan ? read(plan, '', data) : data;
}
