/**
 * What the end-user handlers share (user-enduser.ts, user-enduser-buy.ts,
 * user-enduser-use.ts): the rows they read, the offer a purchase names, the end of a
 * subscription to a plan, a new subscription, and a subscription as the end user sees it.
 */
import { dateAfter, type Refusal } from '../limits.js';
import { SandboxError, type DB, type ServiceRow } from '../types.js';
import { bool, DAY_MS } from './user-common.js';

export interface PlanRow {
  plan_id: number;
  plan_code: string;
  plan_name: string;
  price: number;
  currency: string;
  duration: number;
  duration_unit: string;
  credit_amount: number;
  credit_unit: string;
  max_usage_per_day: number | null;
  auto_renewal: number;
  is_active: number;
  created_date: string;
}

export interface SubRow {
  subscription_id: number;
  user_id: number;
  service_id: number | null;
  plan_id: number | null;
  service_plan_id: number | null;
  status: string;
  start_date: string;
  end_date: string;
  auto_renewal: number;
  payment_method: string | null;
  price: number;
  currency: string;
  total_credits: number;
  used_credits: number;
  renewal_count: number;
  activation_code: string | null;
  total_usage_count: number;
  last_usage_date: string | null;
  last_reset_date: string | null;
  next_reset_date: string | null;
  created_date: string;
  last_updated: string;
}

/**
 * Adds `n` units (days, months, years) to an ISO time, months and years on the calendar; throws
 * a 400 (`why`) when that is after 9999-12-31 (limits.ts).
 */
export function addDuration(
  isoTime: string,
  n: number,
  unit: string,
  why: Refusal = { field: 'duration', message: `${n} ${unit} after ${isoTime} is after 9999-12-31` },
): string {
  return dateAfter(isoTime, n, unit === 'months' || unit === 'years' ? unit : 'days', why);
}

/**
 * The end of a subscription to `link`'s plan starting at `at`. A plan lasting past 9999-12-31
 * (a data file may hold one that was never checked against it) is 400 PLAN_DURATION_OUT_OF_RANGE
 * naming the plan, checked before anything is written: no debit, no claimed code.
 */
export function planEnd(link: LinkRow, at: string, field: string): string {
  const p = link.plan;
  return addDuration(at, p.duration, p.duration_unit, {
    field,
    code: 'PLAN_DURATION_OUT_OF_RANGE',
    message: `plan ${p.plan_code} lasts ${p.duration} ${p.duration_unit}: a subscription starting now would end after 9999-12-31, the latest date the sandbox keeps`,
  });
}

export function durationDays(p: { duration: number; duration_unit: string }): number {
  return p.duration * (p.duration_unit === 'years' ? 365 : p.duration_unit === 'months' ? 30 : 1);
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

function dayStart(at: Date): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())).toISOString();
}

export function mustGetService(db: DB, code: string): ServiceRow {
  const s = db.prepare('SELECT * FROM services WHERE service_code = ?').get(code) as ServiceRow | undefined;
  if (!s) throw new SandboxError(404, `service '${code}' not found`, 'SERVICE_NOT_FOUND');
  return s;
}

/** The caller's subscriptions to a service that run now (status active, within their dates), ending soonest first. */
export function runningSubs(db: DB, userId: number, serviceId: number, at: string): SubRow[] {
  return db
    .prepare(
      `SELECT * FROM subscriptions WHERE user_id = ? AND service_id = ? AND status = 'active' AND start_date <= ? AND end_date > ?
        ORDER BY end_date ASC, subscription_id ASC`,
    )
    .all(userId, serviceId, at, at) as SubRow[];
}

function usageToday(db: DB, subscriptionId: number, at: Date): number {
  return (
    db
      .prepare('SELECT COALESCE(SUM(usage_amount), 0) AS n FROM usage_logs WHERE subscription_id = ? AND used_at >= ?')
      .get(subscriptionId, dayStart(at)) as {
      n: number;
    }
  ).n;
}

/** One subscription as the end-user list shows it. */
export function subItem(db: DB, s: SubRow & Record<string, unknown>, now: Date) {
  const at = now.toISOString();
  const expired = s.status === 'expired' || s.end_date <= at;
  return {
    subscription_id: s.subscription_id,
    user_id: s.user_id,
    service_code: s.service_code ?? null,
    service_name: s.service_name ?? null,
    service_type: s.service_type ?? null,
    provider_name: s.provider_name ?? null,
    plan_code: s.plan_code ?? null,
    plan_name: s.plan_name ?? null,
    duration: s.duration ?? null,
    duration_unit: s.duration_unit ?? null,
    status: s.status,
    start_date: s.start_date,
    end_date: s.end_date,
    days_remaining: Math.max(0, Math.ceil((Date.parse(s.end_date) - now.getTime()) / DAY_MS)),
    is_currently_active: s.status === 'active' && s.start_date <= at && s.end_date > at,
    is_expired: expired,
    auto_renewal: bool(s.auto_renewal),
    renewal_count: s.renewal_count,
    payment_method: s.payment_method,
    price: s.price,
    currency: s.currency,
    total_credits: s.total_credits,
    used_credits: s.used_credits,
    remaining_credits: Math.max(0, s.total_credits - s.used_credits),
    total_usage_count: s.total_usage_count,
    usage_today: usageToday(db, s.subscription_id, now),
    max_usage_per_day: s.max_usage_per_day ?? null,
    last_usage_date: s.last_usage_date,
    last_reset_date: s.last_reset_date,
    next_reset_date: s.next_reset_date,
    activation_code: s.activation_code,
    created_date: s.created_date,
    last_updated: s.last_updated,
  };
}

export const SUB_SELECT = `SELECT s.*, sv.service_code, sv.service_name, sv.service_type, sv.provider_name,
       p.plan_code, p.plan_name, p.duration, p.duration_unit, p.max_usage_per_day
  FROM subscriptions s LEFT JOIN services sv ON sv.service_id = s.service_id LEFT JOIN subscription_plans p ON p.plan_id = s.plan_id`;

export interface LinkRow {
  service_plan_id: number;
  is_available: number;
  service: ServiceRow;
  plan: PlanRow;
}

export function loadLink(db: DB, servicePlanId: number): LinkRow | undefined {
  const l = db.prepare('SELECT * FROM service_plans WHERE service_plan_id = ?').get(servicePlanId) as
    { service_plan_id: number; service_id: number; plan_id: number; is_available: number } | undefined;
  if (!l) return undefined;
  const service = db.prepare('SELECT * FROM services WHERE service_id = ?').get(l.service_id) as ServiceRow;
  const plan = db.prepare('SELECT * FROM subscription_plans WHERE plan_id = ?').get(l.plan_id) as PlanRow;
  return { service_plan_id: l.service_plan_id, is_available: l.is_available, service, plan };
}

/**
 * The offer a purchase names: service_plan_id, or service_code + plan_code, or a plan_code
 * sold by exactly one service. 404 for unknown ids or codes; 400 when ambiguous or not on sale.
 */
export function resolveOffer(db: DB, b: { service_plan_id?: number; service_code?: string; plan_code?: string }): LinkRow {
  let link: LinkRow | undefined;
  if (b.service_plan_id !== undefined) {
    link = loadLink(db, b.service_plan_id);
    if (!link) throw new SandboxError(404, `service plan ${b.service_plan_id} not found`, 'SERVICE_PLAN_NOT_FOUND');
    if (b.service_code && link.service.service_code.toLowerCase() !== String(b.service_code).toLowerCase()) {
      throw new SandboxError(
        400,
        `service plan ${b.service_plan_id} belongs to ${link.service.service_code}, not ${b.service_code}`,
        'OFFER_MISMATCH',
      );
    }
    if (b.plan_code && link.plan.plan_code.toLowerCase() !== String(b.plan_code).toLowerCase()) {
      throw new SandboxError(400, `service plan ${b.service_plan_id} sells ${link.plan.plan_code}, not ${b.plan_code}`, 'OFFER_MISMATCH');
    }
  } else if (b.plan_code) {
    const plan = db.prepare('SELECT plan_id FROM subscription_plans WHERE plan_code = ?').get(b.plan_code) as
      { plan_id: number } | undefined;
    if (!plan) throw new SandboxError(404, `plan '${b.plan_code}' not found`, 'PLAN_NOT_FOUND');
    let rows: Array<{ service_plan_id: number }>;
    if (b.service_code) {
      const s = mustGetService(db, b.service_code);
      rows = db
        .prepare('SELECT service_plan_id FROM service_plans WHERE service_id = ? AND plan_id = ?')
        .all(s.service_id, plan.plan_id) as typeof rows;
      if (!rows.length)
        throw new SandboxError(404, `service ${s.service_code} does not offer plan ${b.plan_code}`, 'SERVICE_PLAN_NOT_FOUND');
    } else {
      rows = db
        .prepare('SELECT service_plan_id FROM service_plans WHERE plan_id = ? AND is_available = 1')
        .all(plan.plan_id) as typeof rows;
      if (rows.length === 0) throw new SandboxError(400, `plan ${b.plan_code} is not on sale`, 'PLAN_NOT_AVAILABLE');
      if (rows.length > 1)
        throw new SandboxError(400, `plan ${b.plan_code} is sold by several services: give service_code too`, 'AMBIGUOUS_PLAN');
    }
    link = loadLink(db, rows[0].service_plan_id)!;
  } else {
    throw new SandboxError(400, 'give service_plan_id, or plan_code (with service_code when several services sell it)', 'OFFER_REQUIRED', [
      { field: 'plan_code', message: 'required' },
    ]);
  }
  if (!link.is_available || !link.plan.is_active || !link.service.is_active) {
    throw new SandboxError(400, `plan ${link.plan.plan_code} of ${link.service.service_code} is not on sale`, 'PLAN_NOT_AVAILABLE');
  }
  return link;
}

/** Inserts a running subscription from `at` to `end` (planEnd, computed by the caller before it writes anything). */
export function insertSubscription(
  db: DB,
  o: {
    userId: number;
    link: LinkRow;
    at: string;
    end: string;
    autoRenewal: boolean;
    paymentMethod: string;
    price: number;
    credits: number;
    code?: string | null;
    batch?: string | null;
  },
): number {
  const end = o.end;
  const r = db
    .prepare(
      `INSERT INTO subscriptions (user_id, service_id, plan_id, service_plan_id, status, start_date, end_date, auto_renewal, payment_method,
         price, currency, total_credits, used_credits, renewal_count, activation_code, activation_batch, total_usage_count, last_usage_date,
         last_reset_date, next_reset_date, created_date, last_updated)
       VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, 0, NULL, ?, ?, ?, ?)`,
    )
    .run(
      o.userId,
      o.link.service.service_id,
      o.link.plan.plan_id,
      o.link.service_plan_id,
      o.at,
      end,
      o.autoRenewal ? 1 : 0,
      o.paymentMethod,
      o.price,
      o.link.plan.currency,
      o.credits,
      o.code ?? null,
      o.batch ?? null,
      o.at,
      end,
      o.at,
      o.at,
    );
  return Number(r.lastInsertRowid);
}

type RunningSub = ReturnType<typeof runningSubs>[number];

/**
 * The subscription a use of `amount` is spent from: the running one ending soonest that has the
 * credits and, under its plan's `max_usage_per_day`, room today (a trial at its daily limit must not refuse a use that a paid subscription beside
 * it has room for). Otherwise why none can: `credits` when none has the
 * credits, `daily` when those that have them are all at their daily limit (the first of them
 * is given, with its figures).
 */
export function chooseSubscription(
  db: DB,
  running: RunningSub[],
  amount: number,
  now: Date,
): { sub: RunningSub; limit: number | null; today: number; refused?: 'credits' | 'daily' } {
  let firstWithCredits: { sub: RunningSub; limit: number | null; today: number } | undefined;
  for (const sub of running) {
    if (sub.total_credits - sub.used_credits < amount) continue;
    const plan = sub.plan_id
      ? (db.prepare('SELECT max_usage_per_day FROM subscription_plans WHERE plan_id = ?').get(sub.plan_id) as
          { max_usage_per_day: number | null } | undefined)
      : undefined;
    const limit = plan?.max_usage_per_day ?? null;
    const today = usageToday(db, sub.subscription_id, now);
    if (limit === null || today + amount <= limit) return { sub, limit, today };
    firstWithCredits ??= { sub, limit, today };
  }
  if (firstWithCredits) return { ...firstWithCredits, refused: 'daily' };
  return { sub: running[0]!, limit: null, today: 0, refused: 'credits' };
}
