/**
 * The catalog as data: four kinds (services, plans, links, roles), the fields a file may set for
 * each, and the normalisation that makes a value read from the platform (a price as "19.99", a
 * flag as 1) compare equal to the same value written in a file.
 */
import { readBoolean } from '../api/read-values.js';

export type Kind = 'services' | 'plans' | 'links' | 'roles';

/** In dependency order: links name services and plans. Prunes run in the reverse order. */
export const KINDS: readonly Kind[] = ['services', 'plans', 'roles', 'links'];

type FieldType = 'string' | 'number' | 'integer' | 'boolean';

export interface KindSpec {
  /** The fields of one entry, in no particular order (the file sorts its keys). */
  fields: Record<string, FieldType>;
  /** The fields that name the entry (never updated: a new code is a new entry). */
  keyFields: readonly string[];
  /** What the plan and the errors call one entry. */
  noun: string;
}

export const SPECS: Record<Kind, KindSpec> = {
  services: {
    noun: 'service',
    keyFields: ['service_code'],
    fields: {
      service_code: 'string',
      service_name: 'string',
      service_type: 'string',
      provider_name: 'string',
      base_service_url: 'string',
      access_pattern: 'string',
      credit_reset_cycle: 'string',
      description: 'string',
      is_active: 'boolean',
      requires_auth: 'boolean',
    },
  },
  plans: {
    noun: 'plan',
    keyFields: ['plan_code'],
    fields: {
      plan_code: 'string',
      plan_name: 'string',
      price: 'number',
      currency: 'string',
      duration: 'integer',
      duration_unit: 'string',
      credit_amount: 'integer',
      credit_unit: 'string',
      auto_renewal: 'boolean',
      is_active: 'boolean',
      max_usage_per_day: 'integer',
    },
  },
  links: {
    noun: 'link',
    keyFields: ['service_code', 'plan_code'],
    fields: { service_code: 'string', plan_code: 'string', is_available: 'boolean' },
  },
  roles: {
    noun: 'role',
    keyFields: ['role_name'],
    fields: {
      role_name: 'string',
      display_name: 'string',
      description: 'string',
      priority: 'integer',
      is_active: 'boolean',
      is_system_role: 'boolean',
    },
  },
};

export type Entry = Record<string, string | number | boolean>;

export interface Catalog {
  services: Entry[];
  plans: Entry[];
  links: Entry[];
  roles: Entry[];
}

export function emptyCatalog(): Catalog {
  return { services: [], plans: [], links: [], roles: [] };
}

/**
 * A value as the catalog keeps it, or undefined when there is none (null, absent). Numbers that
 * come as text become numbers, flags that come as 0/1 or text become booleans; anything that
 * does not convert is kept as given, so the file check names it.
 */
function normalise(value: unknown, type: FieldType): string | number | boolean | undefined {
  if (value === undefined || value === null) return undefined;
  switch (type) {
    case 'number':
    case 'integer': {
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(value)) return Number(value);
      return value as string;
    }
    case 'boolean':
      // Every spelling a platform gives a boolean (`1`, `"true"`, `"Y"`): read-values.ts.
      return readBoolean(value) ?? (value as string);
    default:
      return typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : (value as string);
  }
}

/** The entry's fields of `kind` from any object (a platform answer): normalised, unknown keys left out. */
export function pick(kind: Kind, raw: Record<string, unknown>): Entry {
  const out: Entry = {};
  for (const [field, type] of Object.entries(SPECS[kind].fields)) {
    const v = normalise(raw[field], type);
    if (v !== undefined) out[field] = v;
  }
  return out;
}

/** The key that matches a file entry to a platform one: codes compare without case, as the platform's do. */
export function keyOf(kind: Kind, e: Record<string, unknown>): string {
  return SPECS[kind].keyFields.map((f) => String(e[f] ?? '').toLowerCase()).join('/');
}

/** The entry's name as the plan prints it: `GPT4`, `GPT4/PRO`. */
export function labelOf(kind: Kind, e: Record<string, unknown>): string {
  return SPECS[kind].keyFields.map((f) => String(e[f] ?? '')).join('/');
}

/** Equality of two normalised values (numbers by value: 19.9 and 19.90 are one price). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) < 1e-9;
  return a === b;
}

/** Entries sorted by their key, each with its keys sorted: the file's stable order. */
export function sortedCatalog(c: Catalog): Catalog {
  const out = emptyCatalog();
  for (const kind of KINDS) {
    out[kind] = [...c[kind]]
      .sort((a, b) => (keyOf(kind, a) < keyOf(kind, b) ? -1 : keyOf(kind, a) > keyOf(kind, b) ? 1 : 0))
      .map(
        (e) =>
          Object.fromEntries(
            Object.keys(e)
              .sort()
              .map((k) => [k, e[k]]),
          ) as Entry,
      );
  }
  return out;
}
