/**
 * The plan: what would bring the platform to match the file. A field the file leaves out is not
 * managed (never changed); an entry the platform has and the file does not is deleted only with
 * --prune, and only for a kind the file has a section for. System roles are never changed.
 *
 * Order: creates and updates of services, plans and roles, then of links; then prunes in the
 * reverse order (links before the roles, plans and services they use).
 */
import { KINDS, keyOf, labelOf, sameValue, SPECS, type Catalog, type Entry, type Kind } from './model.js';
import type { PlatformState } from './read.js';

type PlatformFacts = PlatformState['facts'][Kind] extends Map<string, infer F> ? F : never;

interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface Change {
  kind: Kind;
  op: 'create' | 'update' | 'delete';
  /** `GPT4`, `GPT4/PRO`. */
  label: string;
  /** `keyOf` the entry: matches it to the platform's. */
  key: string;
  /** The entry's naming fields as the platform spells them (`service_code`, `plan_code`). */
  names: Entry;
  /** create: the entry as the file gives it; update: the fields that change. */
  entry: Entry;
  fields: FieldChange[];
  /** The platform's id of an entry that exists (update, delete). */
  id?: number;
  /** Active subscriptions the change touches (a deactivation or a deletion), where the platform reports them. */
  active?: number;
  /** A deletion the API refuses without force_delete (active subscriptions). */
  needsForce?: boolean;
}

export interface Plan {
  changes: Change[];
  /** Entries on the platform only, kept because --prune was not given. */
  kept: number;
  /** Problems that stop the plan (a file entry naming a system role). */
  refused: string[];
}

export interface DiffOptions {
  prune?: boolean;
  /** Kinds the file manages (its sections); others are neither updated nor pruned. */
  kinds: ReadonlySet<Kind>;
}

/** Whether a change turns something off (is_active or is_available to false). */
function deactivates(c: FieldChange): boolean {
  return (c.field === 'is_active' || c.field === 'is_available') && c.to === false && c.from !== false;
}

function namesOf(kind: Kind, e: Entry): Entry {
  return Object.fromEntries(SPECS[kind].keyFields.map((f) => [f, e[f]])) as Entry;
}

/** The change that brings `cur` to the file's `e`, if any field differs. */
function updateOf(kind: Kind, key: string, e: Entry, cur: Entry, fact: PlatformFacts | undefined): Change | undefined {
  const fields: FieldChange[] = [];
  for (const f of Object.keys(e).sort()) {
    if (SPECS[kind].keyFields.includes(f)) continue;
    if (!sameValue(e[f], cur[f])) fields.push({ field: f, from: cur[f], to: e[f] });
  }
  if (!fields.length) return undefined;
  const entry: Entry = {};
  for (const c of fields) entry[c.field] = c.to as string | number | boolean;
  return {
    kind,
    op: 'update',
    label: labelOf(kind, cur),
    key,
    names: namesOf(kind, cur),
    entry,
    fields,
    id: fact?.id,
    ...(fields.some(deactivates) ? { active: fact?.active } : {}),
  };
}

export function diffCatalog(file: Catalog, platform: PlatformState, opts: DiffOptions): Plan {
  const upserts: Change[] = [];
  const deletes: Change[] = [];
  const refused: string[] = [];
  let kept = 0;
  for (const kind of KINDS) {
    if (!opts.kinds.has(kind)) continue;
    const facts = platform.facts[kind];
    const theirs = new Map(platform.catalog[kind].map((e) => [keyOf(kind, e), e]));
    const mine = new Set<string>();
    for (const e of file[kind]) {
      const key = keyOf(kind, e);
      mine.add(key);
      const cur = theirs.get(key);
      const fact = facts.get(key);
      if (kind === 'roles' && e.is_system_role === true) {
        if (cur && !fact?.system)
          refused.push(`role ${labelOf(kind, e)} is listed as a system role, but on the platform it is a custom role`);
        continue;
      }
      if (kind === 'roles' && fact?.system) {
        refused.push(
          `role ${labelOf(kind, e)} is a system role on the platform: list it as \`is_system_role: true\` with its role_name only`,
        );
        continue;
      }
      if (!cur) {
        upserts.push({
          kind,
          op: 'create',
          label: labelOf(kind, e),
          key,
          names: namesOf(kind, e),
          entry: e,
          fields: Object.keys(e)
            .sort()
            .map((f) => ({ field: f, from: undefined, to: e[f] })),
        });
        continue;
      }
      const update = updateOf(kind, key, e, cur, fact);
      if (update) upserts.push(update);
    }
    for (const [key, cur] of theirs) {
      if (mine.has(key)) continue;
      const fact = facts.get(key);
      if (kind === 'roles' && fact?.system) continue;
      if (!opts.prune) {
        kept++;
        continue;
      }
      deletes.push({
        kind,
        op: 'delete',
        label: labelOf(kind, cur),
        key,
        names: namesOf(kind, cur),
        entry: cur,
        fields: [],
        id: fact?.id,
        active: fact?.active,
        needsForce: (fact?.active ?? 0) > 0,
      });
    }
  }
  const rank = (c: Change) => KINDS.indexOf(c.kind);
  upserts.sort((a, b) => rank(a) - rank(b));
  deletes.sort((a, b) => rank(b) - rank(a));
  return { changes: [...upserts, ...deletes], kept, refused };
}

/** Counts by operation, for the summary line. */
export function countChanges(plan: Plan): Record<Change['op'], number> {
  const n = { create: 0, update: 0, delete: 0 };
  for (const c of plan.changes) n[c.op]++;
  return n;
}

/** A service or plan that a pruned entry's links would leave dangling: links of pruned services go too. */
export function prunedKeys(plan: Plan, kind: Kind): Set<string> {
  return new Set(plan.changes.filter((c) => c.kind === kind && c.op === 'delete').map((c) => c.key));
}
