/**
 * Where the numbers the contract accepts meet what the sandbox can write (README-decisions.md,
 * "Dates and numbers at their limits"). The contract bounds many day counts, durations and
 * credits only by "an integer", up to Number.MAX_SAFE_INTEGER; JavaScript dates end at
 * ±8.64e15 ms, and a date outside them throws "Invalid time value" (a 500) when written. Every
 * handler that turns days or a duration into a date, or adds credits, goes through here.
 *
 * - A date moved forward (`dateAfter`) past LATEST is a 400 naming what moved it: nothing is
 *   written. Dates are stored as ISO text with four-digit years, whose text order is time order;
 *   a fifth digit ('+010000-...') would sort before every other date.
 * - A date moved back (`daysBefore`), a threshold, is clamped to EARLIEST: a threshold further
 *   back than any date simply matches nothing older.
 * - A credit sum (`addCredits`) past Number.MAX_SAFE_INTEGER is a 400: integers past it lose
 *   units (9007199254740991 + 149 answers 9007199254741140). A wallet balance (`addMoney`) stops
 *   at MAX_BALANCE, where cents are still exact.
 */
import { SandboxError } from './types.js';

export const DAY_MS = 86_400_000;

/** The earliest and latest instants the sandbox writes or compares with (four-digit years). */
const EARLIEST = '0000-01-01T00:00:00.000Z';
const LATEST = '9999-12-31T23:59:59.999Z';
const EARLIEST_MS = Date.parse(EARLIEST);
const LATEST_MS = Date.parse(LATEST);

export type DateUnit = 'days' | 'months' | 'years';

/** What a refusal names: the request's field, the message, and a code (VALIDATION_ERROR by default). */
export interface Refusal {
  field: string;
  message: string;
  code?: string;
}

function refuse(r: Refusal): SandboxError {
  return new SandboxError(400, r.message, r.code ?? 'VALIDATION_ERROR', [{ field: r.field, message: r.message }]);
}

function ms(from: string | number | Date): number {
  return typeof from === 'number' ? from : typeof from === 'string' ? Date.parse(from) : from.getTime();
}

/**
 * `n` units after `from` (months and years on the calendar), in milliseconds; NaN when JavaScript
 * cannot represent it.
 */
function shifted(from: string | number | Date, n: number, unit: DateUnit): number {
  const at = ms(from);
  if (unit === 'days') return at + n * DAY_MS;
  const d = new Date(at);
  if (unit === 'months') d.setUTCMonth(d.getUTCMonth() + n);
  else d.setUTCFullYear(d.getUTCFullYear() + n);
  return d.getTime();
}

/** `n` units after `from`, as ISO text; a 400 (`why`: name the field and 9999-12-31) when that falls after LATEST. */
export function dateAfter(from: string | number | Date, n: number, unit: DateUnit, why: Refusal): string {
  const t = shifted(from, n, unit);
  if (!Number.isFinite(t) || t > LATEST_MS) throw refuse(why);
  return new Date(t).toISOString();
}

/** `n` days before `from`, as ISO text, clamped to EARLIEST: a threshold past any date matches nothing older. */
export function daysBefore(from: string | number | Date, n: number): string {
  const t = ms(from) - n * DAY_MS;
  return Number.isFinite(t) && t >= EARLIEST_MS ? new Date(t).toISOString() : EARLIEST;
}

/** The start of the day after a YYYY-MM-DD day, or undefined after 9999-12-31 (every date is before it). */
export function nextDayStart(day: string): string | undefined {
  const t = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
  return Number.isFinite(t) && t <= LATEST_MS ? new Date(t).toISOString() : undefined;
}

/** The most credits a subscription holds: past it, integers lose units. */
export const MAX_CREDITS = Number.MAX_SAFE_INTEGER;

/** `total + add` credits; a 400 (`why`: name the field and MAX_CREDITS) when the sum would pass MAX_CREDITS. */
export function addCredits(total: number, add: number, why: Refusal): number {
  const sum = total + add;
  if (!Number.isSafeInteger(sum)) throw refuse(why);
  return sum;
}

/**
 * The largest wallet balance. Balances are kept to the cent in floating point, which holds cents
 * exactly up to 2^53 cents (about 9e13); one top-up is at most 1,000,000,000 (user-enduser-buy.ts),
 * but many of them could pass that.
 */
export const MAX_BALANCE = 10_000_000_000_000;

/** `balance + amount`, rounded to the cent; a 400 (`why`: name the field and MAX_BALANCE) past MAX_BALANCE. */
export function addMoney(balance: number, amount: number, why: Refusal): number {
  const sum = Math.round((balance + amount) * 100) / 100;
  if (!(sum <= MAX_BALANCE)) throw refuse(why);
  return sum;
}
