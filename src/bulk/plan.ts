/**
 * The plan stage: input rows turned into validated inputs (all errors at once, naming line and
 * field), and each row's identity within its run: what it acts on and what it does (endpoint,
 * target, action, and which occurrence of that target and action it is in the file), not the
 * bytes of its cells, so that a corrected row or a changed default is still the same row.
 */
import { flagName } from '../api/contract/common.js';
import { fieldsOfEndpoint, hasPart } from '../api/contract/parts.js';
import { CliError, InterruptedError, UsageError, ValidationError } from '../api/errors.js';
import { isSecretKey } from '../api/redact.js';
import type { InputRow } from './input.js';
import type { BulkInput, BulkVerb, PlannedRow } from './types.js';

const KEY_FIELDS = /(^id$|_id$|_code$|^username$|^email$|^batch_id$|^role_name$)/;

const keyFields = new Map<string, boolean>();
/** A column that names what a row is about (an id, a code, a user), not a secret; decided once per name. */
function isKeyField(k: string): boolean {
  let yes = keyFields.get(k);
  if (yes === undefined) keyFields.set(k, (yes = KEY_FIELDS.test(k) && !isSecretKey(k)));
  return yes;
}

/** What the report calls a row: its path parameters, else its identifying fields (at most 3). */
function keyOf(input: BulkInput): string {
  let key = '';
  let n = 0;
  for (const k in input.params) {
    if (n === 3) return key;
    key += `${n++ ? ' ' : ''}${k}=${String(input.params[k])}`;
  }
  if (n) return key;
  for (const place of [input.body, input.query]) {
    for (const k in place) {
      const v = place[k];
      if (v === undefined || typeof v === 'object' || !isKeyField(k)) continue;
      if (n === 3) return key;
      key += `${n++ ? ' ' : ''}${k}=${String(v)}`;
    }
  }
  return key;
}

/** The row's target and action (`subscriptions.manage id=101 extend`); its identity adds the occurrence. */
function targetOf(endpoint: string, key: string, input: BulkInput): string {
  const action = input.body.action ?? input.query.action;
  return `${endpoint} ${key}${typeof action === 'string' ? ` ${action}` : ''}`;
}

/** Gives each row its target and identity: the n-th row of one target and action is occurrence n. */
function identify(endpoint: string, rows: Array<Omit<PlannedRow, 'identity' | 'target'> & Partial<PlannedRow>>): void {
  const seen = new Map<string, number>();
  for (const r of rows) {
    const target = targetOf(endpoint, r.key, r.input);
    const n = (seen.get(target) ?? 0) + 1;
    seen.set(target, n);
    r.target = target;
    r.identity = `${target} #${n}`;
  }
}

/** Column name -> contract field and place, worked out once (the rows of a CSV file share them); unknown columns refused. */
function columnTargets(verb: BulkVerb, rows: InputRow[]) {
  const places = new Map<string, 'params' | 'query' | 'body'>();
  for (const [f, place] of fieldsOfEndpoint(verb.endpoint)) if (!places.has(f)) places.set(f, place);
  const normalize = (col: string) => {
    const f = col.replace(/^--/, '').replace(/-/g, '_').toLowerCase();
    return verb.aliases?.[f] ?? f;
  };
  const columns = new Set<string>();
  for (const r of rows) for (const c in r.record) columns.add(c);
  const unknown = [...columns].filter((c) => !places.has(normalize(c)));
  if (unknown.length) {
    // A spreadsheet saved with another separator (';' in many locales) gives one column named by the whole header.
    const sep = columns.size === 1 ? [';', '\t', '|'].find((s) => unknown[0]!.includes(s)) : undefined;
    throw new UsageError(
      `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `'${c}'`).join(', ')}: ${verb.command} takes ${[...places.keys(), ...Object.keys(verb.aliases ?? {})].join(', ')}`,
      sep
        ? { hint: `the header is split by ${sep === '\t' ? 'tabs' : `'${sep}'`}, not commas: save the file as comma-separated CSV` }
        : undefined,
    );
  }
  return new Map([...columns].map((c) => [c, { field: normalize(c), place: places.get(normalize(c))! }]));
}

/**
 * Two columns for one field (`extend_days` and `extend-days`, `id` and `subscription_id`) on
 * one row: which one counts is not the tool's to guess. NDJSON lines may each use another of them.
 */
function refuseTwoColumnsForOneField(rows: InputRow[], target: Map<string, { field: string }>): void {
  const byField = new Map<string, string[]>();
  for (const [c, t] of target) byField.set(t.field, [...(byField.get(t.field) ?? []), c]);
  const twice = [...byField].filter(([, cs]) => cs.length > 1);
  if (!twice.length) return;
  for (const r of rows) {
    const both = twice.map(([f, cs]) => [f, cs.filter((c) => c in r.record)] as const).filter(([, cs]) => cs.length > 1);
    if (both.length) {
      throw new UsageError(
        `line ${r.line}: ${both.map(([f, cs]) => `columns ${cs.map((c) => `'${c}'`).join(' and ')} both give ${f}`).join('; ')}: keep one of each`,
        {
          hint: 'fix the input and run again; nothing was sent',
        },
      );
    }
  }
}

/**
 * Turns input rows into validated inputs; all errors at once, naming line and field. A Ctrl-C
 * while a large file is checked stops it here (InterruptedError): nothing is sent.
 */
export async function planRows(verb: BulkVerb, rows: InputRow[], defaults: BulkInput, signal?: AbortSignal): Promise<PlannedRow[]> {
  const ep = verb.endpoint;
  const target = columnTargets(verb, rows);
  refuseTwoColumnsForOneField(rows, target);
  const { validateInput } = await import('../api/client.js');
  const parts = { params: hasPart(ep, 'params'), query: hasPart(ep, 'query'), body: hasPart(ep, 'body') };
  const errors: string[] = [];
  const planned: PlannedRow[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    // The signal is only seen between turns of the event loop: one every 2,000 rows.
    if (i % 2000 === 1999) await new Promise((res) => setImmediate(res));
    if (signal?.aborted) throw new InterruptedError();
    const input: BulkInput = { params: { ...defaults.params }, query: { ...defaults.query }, body: { ...defaults.body } };
    try {
      for (const col in r.record) {
        const t = target.get(col)!;
        input[t.place][t.field] = verb.convert(t.field, r.record[col]);
      }
      // Awaited only when there is one: a turn of the microtask queue per row adds up.
      if (verb.prepare) await verb.prepare(input);
      const validated = validateInput(ep, {
        params: parts.params ? input.params : undefined,
        query: parts.query ? input.query : undefined,
        body: parts.body ? input.body : undefined,
      });
      planned.push({ line: r.line, key: keyOf(input), identity: '', target: '', input, validated });
    } catch (e) {
      if (e instanceof ValidationError) {
        for (const p of e.problems)
          errors.push(`line ${r.line}: ${p.field ? `${p.field} (${flagName(p.field.split('.')[0])}): ` : ''}${p.message}`);
      } else if (e instanceof CliError) errors.push(`line ${r.line}: ${e.message}`);
      else throw e;
    }
  }
  if (signal?.aborted) throw new InterruptedError();
  if (errors.length) {
    const shown = errors.slice(0, 25);
    throw new ValidationError(
      shown
        .map((m) => ({ field: '', message: m }))
        .concat(errors.length > 25 ? [{ field: '', message: `... and ${errors.length - 25} more` }] : []),
      undefined,
      `fix the input and run again; nothing was sent`,
    );
  }
  if (!planned.length) throw new UsageError('the input has no rows');
  identify(ep.name, planned);
  return planned;
}
