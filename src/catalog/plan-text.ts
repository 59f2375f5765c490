/**
 * The plan as a reader sees it (`+ create`, `~ update` field by field, `- delete`, grouped by
 * kind, with the active subscriptions a deactivation or deletion touches) and as a script reads
 * it (`-o json`). Values from the platform are server text: they are printed through
 * JSON.stringify, which escapes control characters, never raw.
 */
import { countChanges, type Change, type Plan } from './diff.js';
import { KINDS, SPECS } from './model.js';

/** A name from the platform, with control characters shown escaped (never sent to a terminal raw). */
export function safe(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function show(v: unknown): string {
  if (v === undefined) return '(none)';
  return safe(JSON.stringify(v));
}

function blast(c: Change, forceDelete: boolean): string {
  const parts: string[] = [];
  if (c.active !== undefined && c.active > 0) parts.push(`${c.active} active subscription${c.active === 1 ? '' : 's'}`);
  if (c.op === 'delete' && c.needsForce) parts.push(forceDelete ? 'deleted with --force-delete' : 'needs --force-delete');
  return parts.length ? `  [${parts.join('; ')}]` : '';
}

function changeLines(c: Change, forceDelete: boolean): string[] {
  if (c.op === 'create') {
    const lines = [`  + create ${safe(c.label)}`];
    for (const f of c.fields) if (!SPECS[c.kind].keyFields.includes(f.field)) lines.push(`      ${f.field}: ${show(f.to)}`);
    return lines;
  }
  if (c.op === 'delete') return [`  - delete ${safe(c.label)}${blast(c, forceDelete)}`];
  if (c.kind === 'links' && c.fields.length === 1 && c.fields[0].field === 'is_available') {
    return [`  ~ ${c.fields[0].to === false ? 'deactivate' : 'activate'} ${safe(c.label)}${blast(c, forceDelete)}`];
  }
  return [
    `  ~ update ${safe(c.label)}${blast(c, forceDelete)}`,
    ...c.fields.map((f) => `      ${f.field}: ${show(f.from)} -> ${show(f.to)}`),
  ];
}

/** The plan as text, ending with a summary line. */
export function planText(plan: Plan, opts: { forceDelete?: boolean } = {}): string {
  if (!plan.changes.length) {
    return `No changes: the platform matches the file.${plan.kept ? ` (${plan.kept} entr${plan.kept === 1 ? 'y' : 'ies'} on the platform only, kept; --prune would delete ${plan.kept === 1 ? 'it' : 'them'}.)` : ''}\n`;
  }
  const out: string[] = [];
  for (const kind of KINDS) {
    const mine = plan.changes.filter((c) => c.kind === kind);
    if (!mine.length) continue;
    out.push(`${kind}`);
    for (const c of mine) out.push(...changeLines(c, opts.forceDelete === true));
  }
  const n = countChanges(plan);
  out.push('');
  out.push(
    `Plan: ${n.create} to create, ${n.update} to update, ${n.delete} to delete.${plan.kept ? ` ${plan.kept} on the platform only, kept (--prune deletes them).` : ''}`,
  );
  return `${out.join('\n')}\n`;
}

/** The plan for scripts. */
export function planJson(plan: Plan): unknown {
  return {
    changes: plan.changes.map((c) => ({
      kind: c.kind,
      op: c.op,
      key: c.label,
      fields: c.op === 'delete' ? [] : c.fields.map((f) => ({ field: f.field, from: f.from ?? null, to: f.to ?? null })),
      active_subscriptions: c.active ?? null,
      needs_force_delete: c.needsForce === true,
    })),
    summary: { ...countChanges(plan), kept: plan.kept },
  };
}
