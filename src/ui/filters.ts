/**
 * The `/` filter prompt: `field=value` pairs over the resource's server-side query filters,
 * checked against the contract before anything is sent.
 *
 * `parseFilters(subscriptions, 'status=active service_code=GPT4')`
 *   -> { ok: true, filters: { status: 'active', service_code: 'GPT4' } }
 * `parseFilters(subscriptions, 'status=paid')`
 *   -> { ok: false, errors: ['status: Invalid option: expected one of "active"|"expired"|"cancelled"|"paused"'] }
 */
import { validateInput } from '../api/client.js';
import { ValidationError } from '../api/errors.js';
import { badNumberText, convertValue } from '../api/contract/convert.js';
import { filterFields, type ResourceDef } from './resources.js';

export type FilterResult = { ok: true; filters: Record<string, unknown> } | { ok: false; errors: string[] };

/** Splits on blanks; double or single quotes group (`name="GPT 4"`). */
function splitWords(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let any = false;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = null;
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      any = true;
    } else if (/\s/.test(c)) {
      if (cur || any) out.push(cur);
      cur = '';
      any = false;
    } else cur += c;
  }
  if (cur || any) out.push(cur);
  return out;
}

/** `--service-code` or `service-code` -> `service_code`. */
function normaliseKey(k: string): string {
  return k.trim().replace(/^-+/, '').replace(/-/g, '_').toLowerCase();
}

export function parseFilters(r: ResourceDef, text: string): FilterResult {
  const fields = new Map(filterFields(r));
  const filters: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const word of splitWords(text)) {
    const eq = word.indexOf('=');
    if (eq <= 0) {
      errors.push(`'${word}': write field=value (filters: ${[...fields.keys()].join(', ')})`);
      continue;
    }
    const key = normaliseKey(word.slice(0, eq));
    const info = fields.get(key);
    if (!info) {
      errors.push(`${key}: not a filter of ${r.name} (filters: ${[...fields.keys()].join(', ')})`);
      continue;
    }
    const bad = badNumberText(word.slice(eq + 1), info);
    if (bad) {
      errors.push(`${key}: ${bad}`);
      continue;
    }
    filters[key] = convertValue(word.slice(eq + 1), info);
  }
  if (errors.length) return { ok: false, errors };
  try {
    validateInput(r.endpoint, { query: filters });
  } catch (e) {
    if (e instanceof ValidationError)
      return { ok: false, errors: e.problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)) };
    throw e;
  }
  return { ok: true, filters };
}

/** The filters as the prompt shows them again: `status=active name="GPT 4"`. */
export function filtersText(filters: Record<string, unknown>): string {
  return Object.entries(filters)
    .map(([k, v]) => {
      const s = Array.isArray(v) ? v.join(',') : String(v);
      return `${k}=${/[\s"]/.test(s) ? `'${s}'` : /'/.test(s) ? `"${s}"` : s}`;
    })
    .join(' ');
}
