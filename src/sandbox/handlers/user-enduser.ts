/**
 * End-user handlers (/user/*, /test/services): browsing services and plans, access checks,
 * the caller's subscriptions and wallet, buying, service access, use, code activation,
 * top-up and auto-renewal. They read and write the admin area's tables (schema-admin.ts).
 *
 * Every write that first reads runs in an IMMEDIATE transaction: two processes sharing the
 * data file serialise on the write lock instead of both reading the same state.
 */
import { builtin } from '../../builtin.js';
import { addCredits, addMoney, dateAfter, MAX_BALANCE, MAX_CREDITS, type Refusal } from '../limits.js';
import { SandboxError, type DB, type HandlerTable } from '../types.js';
import { bool, caller, DAY_MS, nowIso } from './user-common.js';

type RunningSub = ReturnType<typeof runningSubs>[number];

/**
 * The subscription a use of `amount` is spent from: the running one ending soonest that has the
 * credits and, under its plan's `max_usage_per_day`, room today (a trial at its daily limit must not refuse a use that a paid subscription beside
 * it has room for). Otherwise why none can: `credits` when none has the
 * credits, `daily` when those that have them are all at their daily limit (the first of them
 * is given, with its figures).
 */
function chooseSubscription(
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

/** The largest top-up (README-decisions-user.md): balances stay exact to the cent well below 2^53 cents. */
const MAX_TOPUP = 1_000_000_000;

/** Where the sandbox sends PAYMENT purchases (no real gateway is involved). */
export const PAYMENT_URL_BASE = 'https://pay.sandbox.local';

interface ServiceRow {
  service_id: number;
  service_code: string;
  service_name: string;
  service_type: string;
  provider_name: string;
  description: string | null;
  base_service_url: string;
  credit_reset_cycle: string;
  is_active: number;
  requires_auth: number;
  created_date: string;
}

interface PlanRow {
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

interface SubRow {
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
 * (made before plans were held to it, or on another sandbox) is 400 PLAN_DURATION_OUT_OF_RANGE
 * naming the plan, checked before anything is written: no debit, no claimed code.
 */
function planEnd(link: LinkRow, at: string, field: string): string {
  const p = link.plan;
  return addDuration(at, p.duration, p.duration_unit, {
    field,
    code: 'PLAN_DURATION_OUT_OF_RANGE',
    message: `plan ${p.plan_code} lasts ${p.duration} ${p.duration_unit}: a subscription starting now would end after 9999-12-31, the latest date the sandbox keeps`,
  });
}

function durationDays(p: { duration: number; duration_unit: string }): number {
  return p.duration * (p.duration_unit === 'years' ? 365 : p.duration_unit === 'months' ? 30 : 1);
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function dayStart(at: Date): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())).toISOString();
}

function mustGetService(db: DB, code: string): ServiceRow {
  const s = db.prepare('SELECT * FROM services WHERE service_code = ?').get(code) as ServiceRow | undefined;
  if (!s) throw new SandboxError(404, `service '${code}' not found`, 'SERVICE_NOT_FOUND');
  return s;
}

/** The caller's subscriptions to a service that run now (status active, within their dates), ending soonest first. */
function runningSubs(db: DB, userId: number, serviceId: number, at: string): SubRow[] {
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
function subItem(db: DB, s: SubRow & Record<string, unknown>, now: Date) {
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

const SUB_SELECT = `SELECT s.*, sv.service_code, sv.service_name, sv.service_type, sv.provider_name,
       p.plan_code, p.plan_name, p.duration, p.duration_unit, p.max_usage_per_day
  FROM subscriptions s LEFT JOIN services sv ON sv.service_id = s.service_id LEFT JOIN subscription_plans p ON p.plan_id = s.plan_id`;

interface LinkRow {
  service_plan_id: number;
  is_available: number;
  service: ServiceRow;
  plan: PlanRow;
}

function loadLink(db: DB, servicePlanId: number): LinkRow | undefined {
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
function resolveOffer(db: DB, b: { service_plan_id?: number; service_code?: string; plan_code?: string }): LinkRow {
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
function insertSubscription(
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

export const endUserHandlers: HandlerTable = {
  'me.services': (ctx) => {
    const me = caller(ctx);
    const at = nowIso(ctx);
    const where = ['sv.is_active = 1'];
    const args: unknown[] = [];
    if (ctx.query.service_type) {
      where.push('sv.service_type = ? COLLATE NOCASE');
      args.push(ctx.query.service_type);
    }
    const rows = ctx.db
      .prepare(
        `SELECT sv.*,
                (SELECT COUNT(*) FROM service_plans sp JOIN subscription_plans p ON p.plan_id = sp.plan_id
                  WHERE sp.service_id = sv.service_id AND sp.is_available = 1 AND p.is_active = 1) AS available_plans_count,
                (SELECT MIN(p.price) FROM service_plans sp JOIN subscription_plans p ON p.plan_id = sp.plan_id
                  WHERE sp.service_id = sv.service_id AND sp.is_available = 1 AND p.is_active = 1) AS min_price,
                (SELECT MAX(p.price) FROM service_plans sp JOIN subscription_plans p ON p.plan_id = sp.plan_id
                  WHERE sp.service_id = sv.service_id AND sp.is_available = 1 AND p.is_active = 1) AS max_price
           FROM services sv WHERE ${where.join(' AND ')} ORDER BY sv.service_name`,
      )
      .all(...args) as Array<ServiceRow & Record<string, unknown>>;
    const current = ctx.db.prepare(
      `SELECT s.subscription_id, s.end_date, p.plan_name FROM subscriptions s LEFT JOIN subscription_plans p ON p.plan_id = s.plan_id
        WHERE s.user_id = ? AND s.service_id = ? AND s.status = 'active' AND s.start_date <= ? AND s.end_date > ? ORDER BY s.end_date DESC LIMIT 1`,
    );
    const out = rows
      .map((sv) => {
        const cur = current.get(me.user_id, sv.service_id, at, at) as
          { subscription_id: number; end_date: string; plan_name: string | null } | undefined;
        return {
          service_id: sv.service_id,
          service_code: sv.service_code,
          service_name: sv.service_name,
          service_type: sv.service_type,
          provider_name: sv.provider_name,
          description: sv.description,
          credit_reset_cycle: sv.credit_reset_cycle,
          requires_auth: bool(sv.requires_auth),
          created_date: sv.created_date,
          available_plans_count: sv.available_plans_count,
          min_price: sv.min_price,
          max_price: sv.max_price,
          has_active_subscription: !!cur,
          current_subscription_id: cur?.subscription_id ?? null,
          current_plan_name: cur?.plan_name ?? null,
          current_subscription_end_date: cur?.end_date ?? null,
        };
      })
      .filter((s) => ctx.query.show_subscribed !== false || !s.has_active_subscription);
    return { data: out };
  },

  'me.plans': (ctx) => {
    const me = caller(ctx);
    const at = nowIso(ctx);
    const where = ['sp.is_available = 1', 'p.is_active = 1', 'sv.is_active = 1'];
    const args: unknown[] = [];
    if (ctx.query.service_code) {
      const s = mustGetService(ctx.db, ctx.query.service_code);
      where.push('sv.service_id = ?');
      args.push(s.service_id);
    }
    const rows = ctx.db
      .prepare(
        `SELECT p.*, sp.service_plan_id, sv.service_id, sv.service_code, sv.service_name,
                EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ? AND s.service_plan_id = sp.service_plan_id AND s.status = 'active'
                         AND s.start_date <= ? AND s.end_date > ?) AS is_current_plan
           FROM service_plans sp JOIN subscription_plans p ON p.plan_id = sp.plan_id JOIN services sv ON sv.service_id = sp.service_id
          WHERE ${where.join(' AND ')} ORDER BY sv.service_name, p.price, p.plan_code`,
      )
      .all(me.user_id, at, at, ...args) as Array<PlanRow & Record<string, unknown>>;
    return {
      data: rows.map((p) => {
        const days = durationDays(p);
        return {
          service_plan_id: p.service_plan_id,
          service_code: p.service_code,
          service_name: p.service_name,
          plan_id: p.plan_id,
          plan_code: p.plan_code,
          plan_name: p.plan_name,
          price: p.price,
          currency: p.currency,
          duration: p.duration,
          duration_unit: p.duration_unit,
          credit_amount: p.credit_amount,
          credit_unit: p.credit_unit,
          credits_per_day: round2(p.credit_amount / days),
          price_per_day: round2(p.price / days),
          max_usage_per_day: p.max_usage_per_day,
          default_auto_renewal: bool(p.auto_renewal),
          is_current_plan: bool(p.is_current_plan),
          created_date: p.created_date,
        };
      }),
    };
  },

  'me.access': (ctx) => {
    const me = caller(ctx);
    const now = ctx.now();
    const at = now.toISOString();
    const s = mustGetService(ctx.db, ctx.query.service_code);
    const want = ctx.query.requested_usage ?? 1;
    const deny = (reason: string, message: string, extra: Record<string, unknown> = {}) => ({
      message,
      data: {
        has_access: false,
        access_reason: reason,
        message,
        remaining_credits: 0,
        daily_limit_remaining: null,
        subscription_status: null,
        ...extra,
      },
    });
    if (!s.is_active) return deny('SERVICE_INACTIVE', `service ${s.service_code} is not active`);
    const running = runningSubs(ctx.db, me.user_id, s.service_id, at);
    if (running.length === 0) {
      const last = ctx.db
        .prepare('SELECT status, end_date FROM subscriptions WHERE user_id = ? AND service_id = ? ORDER BY end_date DESC LIMIT 1')
        .get(me.user_id, s.service_id) as { status: string; end_date: string } | undefined;
      if (!last) return deny('NO_SUBSCRIPTION', `no subscription to ${s.service_code}`);
      const status = last.status === 'active' && last.end_date <= at ? 'expired' : last.status;
      return deny(`SUBSCRIPTION_${status.toUpperCase()}`, `the subscription to ${s.service_code} is ${status}`, {
        subscription_status: status,
      });
    }
    const remaining = running.reduce((n, r) => n + Math.max(0, r.total_credits - r.used_credits), 0);
    // The subscription a use would be spent from (chooseSubscription, as me.use chooses it).
    const { sub, limit, today, refused } = chooseSubscription(ctx.db, running, want, now);
    const dailyLeft = limit === null ? null : Math.max(0, limit - today);
    const base = {
      remaining_credits: remaining,
      daily_limit_remaining: dailyLeft,
      subscription_status: 'active',
      subscription_id: sub.subscription_id,
    };
    if (refused === 'credits') return deny('INSUFFICIENT_CREDITS', 'insufficient credits', base);
    if (refused === 'daily') return deny('DAILY_LIMIT_REACHED', 'daily usage limit reached', base);
    return {
      message: 'access granted',
      data: { has_access: true, access_reason: 'ACTIVE_SUBSCRIPTION', message: 'access granted', ...base },
    };
  },

  'me.subscriptions': (ctx) => {
    const me = caller(ctx);
    const where = ['s.user_id = ?'];
    const args: unknown[] = [me.user_id];
    const st = ctx.query.status;
    if (st && st !== 'all') {
      where.push('s.status = ?');
      args.push(st);
    }
    if (ctx.query.service_code) {
      where.push('sv.service_code = ? COLLATE NOCASE');
      args.push(ctx.query.service_code);
    }
    const rows = ctx.db
      .prepare(`${SUB_SELECT} WHERE ${where.join(' AND ')} ORDER BY s.created_date DESC, s.subscription_id DESC`)
      .all(...args) as Array<SubRow & Record<string, unknown>>;
    const now = ctx.now();
    return { data: rows.map((r) => subItem(ctx.db, r, now)) };
  },

  'me.wallet': (ctx) => {
    const me = caller(ctx);
    const u = ctx.db.prepare('SELECT wallet_balance, wallet_currency, last_topup_date FROM users WHERE user_id = ?').get(me.user_id) as {
      wallet_balance: number;
      wallet_currency: string;
      last_topup_date: string | null;
    };
    return {
      data: {
        user_id: me.user_id,
        balance: round2(u.wallet_balance),
        currency: u.wallet_currency,
        last_topup_date: u.last_topup_date,
        message: 'wallet balance',
      },
    };
  },

  'me.test-services': (ctx) => {
    const rows = ctx.db
      .prepare(
        `SELECT service_id, service_code, service_name, service_type, provider_name, description, credit_reset_cycle, requires_auth
           FROM services WHERE is_active = 1 ORDER BY service_name`,
      )
      .all() as Array<Record<string, unknown>>;
    return { data: rows.map((r) => ({ ...r, requires_auth: bool(r.requires_auth) })) };
  },

  'me.buy': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    const at = nowIso(ctx);
    if (b.payment_method === 'PAYMENT') {
      if (!b.gateway_name)
        throw new SandboxError(400, 'gateway_name is required for PAYMENT', 'GATEWAY_REQUIRED', [
          { field: 'gateway_name', message: 'required' },
        ]);
      const link = resolveOffer(ctx.db, b);
      const orderId = `ORD-${Date.parse(at).toString(36).toUpperCase()}-${builtin('node:crypto').randomBytes(4).toString('hex').toUpperCase()}`;
      const url = `${PAYMENT_URL_BASE}/${b.gateway_name.toLowerCase()}/${orderId}`;
      ctx.db
        .prepare(
          `INSERT INTO payment_orders (order_id, user_id, service_plan_id, plan_code, service_code, gateway_name, amount, currency, auto_renewal, payment_status, payment_url, created_date)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?)`,
        )
        .run(
          orderId,
          me.user_id,
          link.service_plan_id,
          link.plan.plan_code,
          link.service.service_code,
          b.gateway_name,
          link.plan.price,
          link.plan.currency,
          (b.auto_renewal ?? bool(link.plan.auto_renewal)) ? 1 : 0,
          url,
          at,
        );
      ctx.audit('user', 'buy', {
        payment_method: 'PAYMENT',
        order_id: orderId,
        service_plan_id: link.service_plan_id,
        gateway_name: b.gateway_name,
        amount: link.plan.price,
      });
      return {
        message: 'payment pending',
        data: {
          success: true,
          message: 'complete the payment at payment_url; no subscription exists until it is paid (the sandbox never completes it)',
          payment_method: 'PAYMENT',
          payment_status: 'PENDING',
          gateway_name: b.gateway_name,
          order_id: orderId,
          payment_url: url,
          payment_reference: orderId,
          subscription_id: null,
          total_cost: link.plan.price,
          currency: link.plan.currency,
          credits_granted: 0,
          auto_renewal: b.auto_renewal ?? bool(link.plan.auto_renewal),
          expires_at: null,
        },
      };
    }
    const result = ctx.db
      .transaction(() => {
        const link = resolveOffer(ctx.db, b);
        const price = link.plan.price;
        const auto = b.auto_renewal ?? bool(link.plan.auto_renewal);
        const end = planEnd(link, at, b.service_plan_id !== undefined ? 'service_plan_id' : 'plan_code');
        if (b.payment_method === 'FREE') {
          if (price !== 0)
            throw new SandboxError(400, `plan ${link.plan.plan_code} is not free (${price} ${link.plan.currency})`, 'PLAN_NOT_FREE');
          const id = insertSubscription(ctx.db, {
            userId: me.user_id,
            link,
            at,
            end,
            autoRenewal: auto,
            paymentMethod: 'free',
            price: 0,
            credits: link.plan.credit_amount,
          });
          return { link, id, txId: null as number | null, price, auto, balance: null as number | null };
        }
        // WALLET
        const u = ctx.db.prepare('SELECT wallet_balance, wallet_currency FROM users WHERE user_id = ?').get(me.user_id) as {
          wallet_balance: number;
          wallet_currency: string;
        };
        if (link.plan.currency !== u.wallet_currency) {
          throw new SandboxError(
            400,
            `plan ${link.plan.plan_code} is priced in ${link.plan.currency}; the wallet holds ${u.wallet_currency}`,
            'CURRENCY_MISMATCH',
          );
        }
        if (u.wallet_balance + 1e-9 < price) {
          throw new SandboxError(
            400,
            `insufficient wallet balance: ${round2(u.wallet_balance)} ${u.wallet_currency}, the plan costs ${price}`,
            'INSUFFICIENT_BALANCE',
          );
        }
        const after = round2(u.wallet_balance - price);
        const debited = ctx.db
          .prepare('UPDATE users SET wallet_balance = ? WHERE user_id = ? AND wallet_balance = ?')
          .run(after, me.user_id, u.wallet_balance);
        if (debited.changes !== 1) throw new SandboxError(409, 'the wallet changed during the purchase; try again', 'CONFLICT');
        const id = insertSubscription(ctx.db, {
          userId: me.user_id,
          link,
          at,
          end,
          autoRenewal: auto,
          paymentMethod: 'wallet',
          price,
          credits: link.plan.credit_amount,
        });
        const tx = ctx.db
          .prepare(
            `INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, currency, payment_method, status,
               description, transaction_reference, related_subscription_id, transaction_date, created_date)
             VALUES (?, 'deduct', ?, ?, ?, ?, 'wallet', 'completed', ?, ?, ?, ?, ?)`,
          )
          .run(
            me.user_id,
            price,
            u.wallet_balance,
            after,
            u.wallet_currency,
            `Subscription purchase: ${link.plan.plan_name} (${link.service.service_name})`,
            `SUB-${id}`,
            id,
            at,
            at,
          );
        return { link, id, txId: Number(tx.lastInsertRowid), price, auto, balance: after };
      })
      .immediate();
    const sub = ctx.db.prepare('SELECT end_date, total_credits FROM subscriptions WHERE subscription_id = ?').get(result.id) as {
      end_date: string;
      total_credits: number;
    };
    ctx.audit('user', 'buy', {
      payment_method: b.payment_method,
      subscription_id: result.id,
      service_code: result.link.service.service_code,
      plan_code: result.link.plan.plan_code,
      service_plan_id: result.link.service_plan_id,
      amount: result.price,
      transaction_id: result.txId,
    });
    return {
      message: 'subscription purchased',
      data: {
        success: true,
        message: `subscribed to ${result.link.plan.plan_name} for ${result.link.service.service_name}`,
        payment_method: b.payment_method,
        payment_status: 'COMPLETED',
        gateway_name: null,
        order_id: null,
        payment_url: null,
        payment_reference: result.txId ? `WALLET-TX-${result.txId}` : null,
        subscription_id: result.id,
        transaction_id: result.txId,
        total_cost: result.price,
        currency: result.link.plan.currency,
        credits_granted: sub.total_credits,
        expires_at: sub.end_date,
        auto_renewal: result.auto,
        new_balance: result.balance,
      },
    };
  },

  'me.generate-access': (ctx) => {
    const me = caller(ctx);
    const at = nowIso(ctx);
    const s = mustGetService(ctx.db, ctx.body.service_code);
    if (!s.is_active) throw new SandboxError(400, `service ${s.service_code} is not active`, 'SERVICE_INACTIVE');
    const running = runningSubs(ctx.db, me.user_id, s.service_id, at);
    if (running.length === 0) throw new SandboxError(400, `no active subscription to ${s.service_code}`, 'NO_ACTIVE_SUBSCRIPTION');
    const key = builtin('node:crypto').randomBytes(16).toString('base64url');
    const url = `${s.base_service_url.replace(/\/+$/, '')}/session/${key}`;
    const expires = new Date(Date.parse(at) + 3_600_000).toISOString();
    ctx.audit('user', 'generate_access', { service_code: s.service_code, subscription_id: running[0].subscription_id });
    return {
      message: 'access generated',
      data: {
        success: true,
        message: 'access URL valid for one hour',
        service_url: url,
        service_code: s.service_code,
        subscription_id: running[0].subscription_id,
        expires_at: expires,
      },
    };
  },

  'me.use': (ctx) => {
    const me = caller(ctx);
    const now = ctx.now();
    const at = now.toISOString();
    const b = ctx.body;
    const s = mustGetService(ctx.db, b.service_code);
    const r = ctx.db
      .transaction(() => {
        if (!s.is_active) throw new SandboxError(400, `service ${s.service_code} is not active`, 'SERVICE_INACTIVE');
        const running = runningSubs(ctx.db, me.user_id, s.service_id, at);
        if (running.length === 0) throw new SandboxError(400, `no active subscription to ${s.service_code}`, 'NO_ACTIVE_SUBSCRIPTION');
        const { sub, limit, today, refused } = chooseSubscription(ctx.db, running, b.usage_amount, now);
        if (refused === 'credits') throw new SandboxError(400, 'insufficient credits', 'INSUFFICIENT_CREDITS');
        if (refused === 'daily')
          throw new SandboxError(400, 'daily usage limit reached', 'DAILY_LIMIT_REACHED', undefined, {
            daily_limit: limit,
            usage_today: today,
          });
        const upd = ctx.db
          .prepare(
            `UPDATE subscriptions SET used_credits = used_credits + ?, total_usage_count = total_usage_count + 1, last_usage_date = ?, last_updated = ?
              WHERE subscription_id = ? AND total_credits - used_credits >= ?`,
          )
          .run(b.usage_amount, at, at, sub.subscription_id, b.usage_amount);
        if (upd.changes !== 1) throw new SandboxError(400, 'insufficient credits', 'INSUFFICIENT_CREDITS');
        const log = ctx.db
          .prepare(
            'INSERT INTO usage_logs (user_id, subscription_id, service_id, usage_amount, usage_type, response_time, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          )
          .run(me.user_id, sub.subscription_id, s.service_id, b.usage_amount, b.usage_type, b.response_time ?? null, at);
        const after = ctx.db
          .prepare('SELECT total_credits - used_credits AS remaining FROM subscriptions WHERE subscription_id = ?')
          .get(sub.subscription_id) as {
          remaining: number;
        };
        return {
          usage_id: Number(log.lastInsertRowid),
          subscription_id: sub.subscription_id,
          remaining: after.remaining,
          usageToday: today + b.usage_amount,
          limit,
        };
      })
      .immediate();
    ctx.audit('user', 'use', {
      service_code: s.service_code,
      subscription_id: r.subscription_id,
      usage_amount: b.usage_amount,
      usage_type: b.usage_type,
      usage_id: r.usage_id,
    });
    return {
      message: 'usage recorded',
      data: {
        success: true,
        message: 'usage recorded',
        usage_id: r.usage_id,
        subscription_id: r.subscription_id,
        remaining_credits: r.remaining,
        usage_today: r.usageToday,
        daily_limit_remaining: r.limit === null ? null : Math.max(0, r.limit - r.usageToday),
      },
    };
  },

  'me.activate': (ctx) => {
    const me = caller(ctx);
    const at = nowIso(ctx);
    const b = ctx.body;
    const r = ctx.db
      .transaction(() => {
        const c = ctx.db.prepare('SELECT * FROM usage_codes WHERE code_value = ?').get(b.activation_code) as
          | {
              code_id: number;
              code_value: string;
              batch_id: string;
              service_plan_id: number | null;
              credit_amount: number;
              is_used: number;
              expiry_date: string;
            }
          | undefined;
        if (!c) throw new SandboxError(404, 'activation code not found', 'CODE_NOT_FOUND');
        if (c.is_used) throw new SandboxError(409, 'code already used', 'CODE_ALREADY_USED');
        if (c.expiry_date <= at) throw new SandboxError(400, 'code has expired', 'CODE_EXPIRED');
        const link = c.service_plan_id === null ? undefined : loadLink(ctx.db, c.service_plan_id);
        if (!link) throw new SandboxError(400, 'code is not linked to any plan any more', 'CODE_UNLINKED');
        if (b.service_code && link.service.service_code.toLowerCase() !== String(b.service_code).toLowerCase()) {
          throw new SandboxError(400, `code is for ${link.service.service_code}, not ${b.service_code}`, 'CODE_SERVICE_MISMATCH');
        }
        const credits = c.credit_amount > 0 ? c.credit_amount : link.plan.credit_amount;
        const running = runningSubs(ctx.db, me.user_id, link.service.service_id, at);
        const target = running.find((x) => x.service_plan_id === link.service_plan_id) ?? running[0];
        // What the code will do is checked before it is claimed (the transaction is IMMEDIATE: nobody
        // writes in between): credits past MAX_CREDITS, or a new subscription ending after
        // 9999-12-31, refuse it and leave it unused.
        const total = target
          ? addCredits(target.total_credits, credits, {
              field: 'activation_code',
              message: `the code's ${credits} credits would take subscription ${target.subscription_id}'s ${target.total_credits} credits past ${MAX_CREDITS}`,
            })
          : undefined;
        const newEnd = target ? undefined : planEnd(link, at, 'activation_code');
        // The one write that decides who wins: a concurrent activation finds is_used = 1.
        const claimed = ctx.db
          .prepare('UPDATE usage_codes SET is_used = 1, used_by = ?, used_date = ? WHERE code_id = ? AND is_used = 0')
          .run(me.user_id, at, c.code_id);
        if (claimed.changes !== 1) throw new SandboxError(409, 'code already used', 'CODE_ALREADY_USED');
        let subscriptionId: number;
        let created = false;
        if (target) {
          ctx.db
            .prepare('UPDATE subscriptions SET total_credits = ?, last_updated = ? WHERE subscription_id = ?')
            .run(total, at, target.subscription_id);
          subscriptionId = target.subscription_id;
        } else {
          subscriptionId = insertSubscription(ctx.db, {
            userId: me.user_id,
            link,
            at,
            end: newEnd!,
            autoRenewal: false,
            paymentMethod: 'code',
            price: 0,
            credits,
            code: c.code_value,
            batch: c.batch_id,
          });
          created = true;
        }
        ctx.db.prepare('UPDATE usage_codes SET used_in_subscription = ? WHERE code_id = ?').run(subscriptionId, c.code_id);
        const end = (
          ctx.db.prepare('SELECT end_date FROM subscriptions WHERE subscription_id = ?').get(subscriptionId) as { end_date: string }
        ).end_date;
        return { code: c.code_value, link, credits, subscriptionId, created, end };
      })
      .immediate();
    ctx.audit('user', 'activate_code', {
      code: r.code,
      subscription_id: r.subscriptionId,
      credits_added: r.credits,
      created_subscription: r.created,
    });
    return {
      message: 'code activated',
      data: {
        success: true,
        message: r.created
          ? `code activated: new subscription to ${r.link.service.service_name} with ${r.credits} credits`
          : `code activated: ${r.credits} credits added to subscription ${r.subscriptionId}`,
        subscription_id: r.subscriptionId,
        created_subscription: r.created,
        credits_added: r.credits,
        service_code: r.link.service.service_code,
        service_type: r.link.service.service_type,
        expiry_date: r.end,
      },
    };
  },

  'me.topup': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    const at = nowIso(ctx);
    const amount = round2(b.amount);
    if (!(amount > 0))
      throw new SandboxError(400, 'amount must be at least 0.01 (amounts are in cents)', 'INVALID_AMOUNT', [
        { field: 'amount', message: 'must be at least 0.01' },
      ]);
    // Balances are kept in floating point: past this, cents are lost (1e20 + 1500.02 == 1e20, and
    // the wallet's history stops adding up). The specification sets no maximum; the sandbox does.
    if (amount > MAX_TOPUP)
      throw new SandboxError(400, `amount must be at most ${MAX_TOPUP.toLocaleString('en-US')}`, 'INVALID_AMOUNT', [
        { field: 'amount', message: `must be at most ${MAX_TOPUP}` },
      ]);
    const r = ctx.db
      .transaction(() => {
        const u = ctx.db.prepare('SELECT wallet_balance, wallet_currency FROM users WHERE user_id = ?').get(me.user_id) as {
          wallet_balance: number;
          wallet_currency: string;
        };
        const after = addMoney(u.wallet_balance, amount, {
          field: 'amount',
          code: 'INVALID_AMOUNT',
          message: `a top-up of ${amount} would take the wallet (${round2(u.wallet_balance)} ${u.wallet_currency}) past ${MAX_BALANCE.toLocaleString('en-US')}, the largest balance kept to the cent`,
        });
        ctx.db.prepare('UPDATE users SET wallet_balance = ?, last_topup_date = ? WHERE user_id = ?').run(after, at, me.user_id);
        const tx = ctx.db
          .prepare(
            `INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, currency, payment_method, status,
               description, transaction_reference, related_subscription_id, transaction_date, created_date)
             VALUES (?, 'topup', ?, ?, ?, ?, ?, 'completed', 'Wallet top-up', ?, NULL, ?, ?)`,
          )
          .run(me.user_id, amount, u.wallet_balance, after, u.wallet_currency, b.payment_method, b.transaction_reference ?? null, at, at);
        return { after, currency: u.wallet_currency, txId: Number(tx.lastInsertRowid) };
      })
      .immediate();
    ctx.audit('user', 'topup', {
      amount,
      payment_method: b.payment_method,
      transaction_id: r.txId,
      transaction_reference: b.transaction_reference ?? null,
    });
    return {
      message: 'wallet topped up',
      data: {
        success: true,
        message: `wallet topped up by ${amount} ${r.currency}`,
        new_balance: r.after,
        currency: r.currency,
        amount,
        transaction_id: r.txId,
      },
    };
  },

  'me.auto-renewal': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    const at = nowIso(ctx);
    const s = ctx.db.prepare('SELECT * FROM subscriptions WHERE subscription_id = ? AND user_id = ?').get(b.subscription_id, me.user_id) as
      SubRow | undefined;
    if (!s) throw new SandboxError(404, `subscription ${b.subscription_id} not found`, 'SUBSCRIPTION_NOT_FOUND');
    if (s.status !== 'active' && s.status !== 'paused') {
      throw new SandboxError(
        400,
        `subscription ${s.subscription_id} is ${s.status}; only active or paused subscriptions renew`,
        'NOT_RENEWABLE',
      );
    }
    const on = b.auto_renewal ?? true;
    ctx.db
      .prepare(
        'UPDATE subscriptions SET auto_renewal = ?, payment_method = COALESCE(?, payment_method), last_updated = ? WHERE subscription_id = ?',
      )
      .run(on ? 1 : 0, b.payment_method ?? null, at, s.subscription_id);
    ctx.audit('user', 'auto_renewal', { subscription_id: s.subscription_id, auto_renewal: on, payment_method: b.payment_method ?? null });
    return {
      message: `auto-renewal ${on ? 'on' : 'off'}`,
      data: {
        success: true,
        message: `auto-renewal turned ${on ? 'on' : 'off'}`,
        subscription_id: s.subscription_id,
        auto_renewal: on,
        payment_method: b.payment_method ?? s.payment_method,
        next_renewal_date: on ? s.end_date : null,
      },
    };
  },
};
