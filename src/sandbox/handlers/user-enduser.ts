/**
 * End-user handlers (/user/*, /test/services): browsing services and plans, access checks,
 * the caller's subscriptions and wallet (here); buying, top-up and auto-renewal
 * (user-enduser-buy.ts); service access, use and code activation (user-enduser-use.ts). They
 * read and write the admin area's tables (schema-admin.ts).
 */
import type { HandlerTable, ServiceRow } from '../types.js';
import { bool, caller, nowIso } from './user-common.js';
import { autoRenewal, buy, topup } from './user-enduser-buy.js';
import {
  chooseSubscription,
  durationDays,
  mustGetService,
  round2,
  runningSubs,
  SUB_SELECT,
  subItem,
  type PlanRow,
  type SubRow,
} from './user-enduser-common.js';
import { activate, generateAccess, use } from './user-enduser-use.js';

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

  'me.buy': buy,
  'me.generate-access': generateAccess,
  'me.use': use,
  'me.activate': activate,
  'me.topup': topup,
  'me.auto-renewal': autoRenewal,
};
