/**
 * Text typed by a person (a flag, a console filter, a form field) as the JSON type of the
 * contract's field it is for: shared by the command line (src/cli/verbs.ts) and the console
 * (src/ui/filters.ts, src/ui/form-model.ts), so that both read `42`, `yes` and `a,b` alike.
 */
import { DECIMAL, WHOLE, type FieldInfo } from './common.js';

/** Converts command-line text to the field's JSON type; leaves it as text when it does not parse, so validation names it. */
export function convertValue(raw: unknown, info: FieldInfo): unknown {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') return raw;
  switch (info.kind) {
    case 'integer':
      return /^[-+]?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    case 'number':
      return DECIMAL.test(raw.trim()) && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['true', 'yes', '1', 'on'].includes(v)) return true;
      if (['false', 'no', '0', 'off'].includes(v)) return false;
      return raw;
    }
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

/**
 * Text given for a number that is not one written in decimals, refused as typed: `Number()`
 * reads `0x10` as 16, `0b11` as 3 and '' as 0, so `--price 0x10` would create a plan priced 16
 * and `--page-size ""` would be "too small". (The contract's query numbers take decimal text
 * only too, `fromDecimalText`; this says it of what was typed, before anything else.)
 */
export function badNumberText(raw: unknown, info: FieldInfo): string | undefined {
  if (typeof raw !== 'string' || (info.kind !== 'number' && info.kind !== 'integer')) return undefined;
  const t = raw.trim();
  if ((info.kind === 'integer' ? WHOLE : DECIMAL).test(t)) return undefined;
  return `expected a ${info.kind === 'integer' ? 'whole ' : ''}number, got '${raw}'`;
}
