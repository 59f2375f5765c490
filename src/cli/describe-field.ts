/** A contract field's type and bounds as help says them (verbs.ts gives them to each flag). */
import type { FieldInfo } from '../api/contract/common.js';

/**
 * A field's type as a person says it (`integer, at least 1`; `one of a|b|c`; `date YYYY-MM-DD`):
 * bounds that are only JavaScript's safe-integer limits are not bounds a user has to know.
 */
export function describeInfo(info: FieldInfo): string {
  const parts: string[] = [];
  const bound = (v: number | undefined) => (v !== undefined && Math.abs(v) < Number.MAX_SAFE_INTEGER ? v : undefined);
  const min = bound(info.min);
  const max = bound(info.max);
  const range = (unit = '') =>
    min !== undefined && max !== undefined
      ? min === max
        ? `exactly ${min}${unit}`
        : `${min} to ${max}${unit}`
      : min !== undefined
        ? `at least ${min}${unit}`
        : max !== undefined
          ? `at most ${max}${unit}`
          : undefined;
  switch (info.kind) {
    case 'enum':
      parts.push(`one of ${(info.values ?? []).join('|')}`);
      break;
    case 'date':
      parts.push('date YYYY-MM-DD');
      break;
    case 'list':
      parts.push('comma-separated list');
      break;
    case 'boolean':
      parts.push('true|false');
      break;
    case 'integer':
    case 'number': {
      const r = range();
      parts.push(r ? `${info.kind}, ${r}` : info.kind);
      break;
    }
    case 'string': {
      const r = min === 1 && max === undefined ? 'not empty' : range(' characters');
      parts.push(r ? `text, ${r}` : 'text');
      break;
    }
    default:
      parts.push('a value');
  }
  if (info.defaultValue !== undefined) parts.push(`default ${String(info.defaultValue)}`);
  if (!info.optional) parts.push('required');
  return parts.join(', ');
}
