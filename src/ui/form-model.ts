/**
 * Forms from the contract: the fields of a body schema (describeObject) as text inputs, their
 * text converted to the field's JSON type the way flags are (convertValue), and the contract's
 * own validation (validateInput: zod's messages, naming the field) shown beside each field.
 * Pure functions; the Ink view is components/FormView.tsx.
 */
import type { FieldInfo } from '../api/contract/common.js';
import { ValidationError } from '../api/errors.js';
import { badNumberText, convertValue } from '../api/contract/convert.js';
import { editLine, type KeyPress } from './keys.js';

export interface FormField {
  name: string;
  info: FieldInfo;
  /** Required by the form even where the contract leaves it optional (extend needs extend_days). */
  required: boolean;
  /** Said after the hint: `not in the list: kept as it is unless typed`. */
  note?: string;
}

export interface FormState {
  title: string;
  fields: FormField[];
  /** Text of each field as typed. */
  values: Record<string, string>;
  /** Text each field started with (update forms send only what changed). */
  initial: Record<string, string>;
  focus: number;
  /** Problems by field name; '' for the whole form. */
  errors: Record<string, string>;
  /** Only fields whose text differs from `initial` are sent. */
  onlyChanged: boolean;
  busy?: boolean;
}

/** Text of a value for an input: '' for none, lists comma-separated. */
function toText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function formFields(described: Array<[string, FieldInfo]>, opts: { only?: string[]; require?: string[] } = {}): FormField[] {
  const byName = new Map(described);
  const names = opts.only ?? described.map(([k]) => k);
  return names
    .filter((n) => byName.has(n))
    .map((n) => {
      const info = byName.get(n)!;
      return { name: n, info, required: !info.optional || (opts.require?.includes(n) ?? false) };
    });
}

export function newForm(title: string, fields: FormField[], initial: Record<string, unknown> = {}, onlyChanged = false): FormState {
  const values: Record<string, string> = {};
  for (const f of fields) values[f.name] = toText(initial[f.name]);
  const first = fields.findIndex((f) => f.required && values[f.name] === '');
  return { title, fields, values, initial: { ...values }, focus: first >= 0 ? first : 0, errors: {}, onlyChanged };
}

/**
 * The typed values as JSON: empty text is left out (the server's default applies), text is
 * converted to the field's type; with `onlyChanged`, unchanged fields are left out too.
 */
export function formValues(form: FormState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of form.fields) {
    const text = form.values[f.name] ?? '';
    if (form.onlyChanged && text === form.initial[f.name]) continue;
    if (text.trim() === '') continue;
    out[f.name] = convertValue(f.info.kind === 'string' ? text : text.trim(), f.info);
  }
  return out;
}

/**
 * Numbers typed otherwise than in decimals, said as the command line says them (`expected a
 * whole number, got '1e3'` for an integer; the contract could only say "a number").
 */
export function typedProblems(form: FormState): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of form.fields) {
    const text = (form.values[f.name] ?? '').trim();
    const bad = text === '' ? undefined : badNumberText(text, f.info);
    if (bad) out[f.name] = bad;
  }
  return out;
}

/** Fields the form requires that are still empty: `{ extend_days: 'required' }`. */
export function missingRequired(form: FormState): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of form.fields) {
    if (f.required && f.info.optional && (form.values[f.name] ?? '').trim() === '') out[f.name] = 'Required';
  }
  return out;
}

/** The problems of a ValidationError by field (`body.reason` and `reason` both give `reason`). */
export function problemsByField(e: unknown): Record<string, string> | undefined {
  if (!(e instanceof ValidationError)) return undefined;
  const out: Record<string, string> = {};
  for (const p of e.problems) {
    const field = p.field.split('.')[0] ?? '';
    out[field] = out[field] ? `${out[field]}; ${p.message}` : p.message;
  }
  return out;
}

/** What a field accepts, for its hint: `active|paused`, `integer 1..1000`, `YYYY-MM-DD`. */
export function fieldHint(f: FormField): string {
  const i = f.info;
  const parts: string[] = [];
  if (i.kind === 'enum' && i.values) parts.push(i.values.join('|'));
  else if (i.kind === 'boolean') parts.push('true|false');
  else if (i.kind === 'date') parts.push('YYYY-MM-DD');
  else if (i.kind === 'list') parts.push('comma-separated');
  else if (i.kind === 'integer' || i.kind === 'number') parts.push(i.kind);
  // zod's int() carries the safe-integer bounds: not worth showing.
  const bound = (n: number | undefined) => (n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined);
  const min = bound(i.min);
  const max = bound(i.max);
  if ((i.kind === 'integer' || i.kind === 'number') && (min !== undefined || max !== undefined)) parts.push(`${min ?? ''}..${max ?? ''}`);
  if (i.kind === 'string' && i.max !== undefined) parts.push(`max ${i.max}`);
  if (f.required) parts.push('required');
  if (f.note) parts.push(f.note);
  return parts.join(', ');
}

/** Next value of an enum or boolean field (←/→ and space cycle through them, '' = none). */
function cycleChoice(f: FormField, current: string, dir: 1 | -1): string | undefined {
  const choices = f.info.kind === 'enum' ? [...(f.info.values ?? [])] : f.info.kind === 'boolean' ? ['true', 'false'] : undefined;
  if (!choices) return undefined;
  const all = f.required && !f.info.optional ? choices : ['', ...choices];
  const i = all.indexOf(current);
  return all[(i + dir + all.length) % all.length];
}

/**
 * One key on a form: Tab/↓ and Shift-Tab/↑ move between fields, ←/→ (and Space on a list of
 * values) choose, typing edits the focused field; Enter asks to submit, Esc to cancel.
 */
export function formKey(f: FormState, k: KeyPress): { form: FormState; submit?: boolean; cancel?: boolean } {
  if (k.escape) return { form: f, cancel: true };
  if (k.ret) return { form: f, submit: true };
  if (k.tab || k.down || k.up) {
    const dir = (k.tab && k.shift) || k.up ? -1 : 1;
    return { form: { ...f, focus: (f.focus + dir + f.fields.length) % f.fields.length } };
  }
  const field = f.fields[f.focus];
  if (!field) return { form: f };
  if (k.left || k.right || (k.input === ' ' && !k.paste && (field.info.kind === 'enum' || field.info.kind === 'boolean'))) {
    const next = cycleChoice(field, f.values[field.name] ?? '', k.left ? -1 : 1);
    return next === undefined
      ? { form: f }
      : { form: { ...f, values: { ...f.values, [field.name]: next }, errors: { ...f.errors, [field.name]: '' } } };
  }
  const text = editLine(f.values[field.name] ?? '', k);
  if (text === f.values[field.name]) return { form: f };
  return { form: { ...f, values: { ...f.values, [field.name]: text }, errors: { ...f.errors, [field.name]: '', '': '' } } };
}

/** Problems of values against an object schema, by field (zod's messages). */
export function schemaProblems(schema: import('zod').ZodObject | undefined, values: Record<string, unknown>): Record<string, string> {
  if (!schema) return {};
  const r = schema.safeParse(values);
  if (r.success) return {};
  const out: Record<string, string> = {};
  for (const i of r.error.issues) {
    const field = String(i.path[0] ?? '');
    out[field] = out[field] ? `${out[field]}; ${i.message}` : i.message;
  }
  return out;
}
