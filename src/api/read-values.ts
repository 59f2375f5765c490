/**
 * Values that steer a decision, read with care. Answers are shown as received, but where a value
 * decides something (an id that de-duplicates export rows or verifies a bulk row, a page count,
 * an end date or a credit balance that verifies a change), a number sent as text or a date
 * with or without a time or zone must be understood, and anything else must read as unknown
 * (undefined) so that the caller says so rather than guesses.
 */

/** A number written in decimals (`12`, `-3`, `2.50`, `1e3`); not `0x10`, not ''. */
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * A finite number, from a number or its decimal text; undefined otherwise.
 * @example readNumber('19.99') // 19.99
 */
export function readNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string') {
    const t = v.trim();
    if (!DECIMAL.test(t)) return undefined;
    const n = Number(t);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/**
 * A whole number from a number or its text (`'12'`, `'12.0'`, 12); undefined for a fraction or
 * anything else. For counts (`total_pages`, `total_records`) and numeric ids.
 */
export function readWhole(v: unknown): number | undefined {
  const n = readNumber(v);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

/**
 * An id as one value whatever its spelling: a whole number (`7`, `'7'`) as a number, any other
 * non-empty text (a UUID, `'A-12'`) as that text trimmed; undefined for nothing, an object, a
 * list, a boolean or a fraction.
 * @example readId('42') === readId(42) // true
 */
export function readId(v: unknown): number | string | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  if (t === '') return undefined;
  if (/^[-+]?\d+$/.test(t)) {
    const n = Number(t);
    return Number.isSafeInteger(n) ? n : t;
  }
  return t;
}

/** Two ids the same, however each was spelt (`7` and `'7'`); false when either cannot be read. */
export function sameId(a: unknown, b: unknown): boolean {
  const x = readId(a);
  return x !== undefined && x === readId(b);
}

/** true/false, 1/0 and their text (`'true'`, `'1'`, `'yes'`, `'no'`, `'Y'`, `'N'`); undefined otherwise. */
export function readBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v !== 'string') return undefined;
  const t = v.trim().toLowerCase();
  if (t === 'true' || t === '1' || t === 'yes' || t === 'y') return true;
  if (t === 'false' || t === '0' || t === 'no' || t === 'n') return false;
  return undefined;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An ISO date as epoch milliseconds: a calendar day (`2026-01-31`, its start in UTC), a time
 * with or without seconds, fraction and zone (`2026-01-31T10:00`, `2026-01-31 10:00:00.5+02:00`,
 * `...Z`). A time without a zone is read as UTC, as the platform writes its times. Undefined for
 * anything else, including an impossible day (`2026-02-30`).
 */
export function readDate(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = ISO.exec(v.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  const z = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${z}`);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls 2026-02-30 over into March: the day must be the one written.
  const local = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (local.getUTCMonth() !== Number(mo) - 1 || local.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59)
    return undefined;
  return ms;
}

/** Below this an epoch is in seconds (until the year 5138), from it in milliseconds (from 1973). */
const EPOCH_MS_FROM = 1e11;
const EPOCH_TEXT = /^\d{9,14}(\.\d+)?$/;

/**
 * A time sent as a number since 1970, in seconds or milliseconds (told apart by size), or as
 * that number's digits, as its ISO time in UTC; undefined for anything else.
 * @example readEpoch(1764237600) // '2025-11-27T10:00:00Z'
 */
export function readEpoch(v: unknown): string | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && EPOCH_TEXT.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n <= 0) return undefined;
  const d = new Date(n < EPOCH_MS_FROM ? n * 1000 : n);
  if (Number.isNaN(d.getTime())) return undefined;
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/** The calendar day (`YYYY-MM-DD`, UTC) of an ISO date or date-time; undefined when unreadable. */
export function readDay(v: unknown): string | undefined {
  const ms = readDate(v);
  return ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10);
}

/**
 * A name to show or store for a value that one platform writes as text and another as an
 * object (`"admin"`, `{ role_name: "admin" }`): the text trimmed, a number as text, or the
 * object's first non-empty text among `keys`; undefined for anything else.
 * @example readLabel({ role_name: 'admin' }, ['role_name', 'name']) // 'admin'
 */
export function readLabel(v: unknown, keys: readonly string[]): string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (typeof v === 'string') return v.trim() || undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  for (const k of keys) {
    const t = (v as Record<string, unknown>)[k];
    if (typeof t === 'string' && t.trim()) return t.trim();
  }
  return undefined;
}
