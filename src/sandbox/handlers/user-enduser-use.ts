/**
 * The end user's use of a service: an access URL, a recorded use (spent from the subscription
 * that has the credits and room today), and activating a usage code.
 *
 * Every write that first reads runs in an IMMEDIATE transaction: two processes sharing the
 * data file serialise on the write lock instead of both reading the same state.
 */
import { builtin } from '../../builtin.js';
import { addCredits, MAX_CREDITS } from '../limits.js';
import { SandboxError, type AuthUser, type Handler, type HandlerContext } from '../types.js';
import { caller, nowIso } from './user-common.js';
import {
  chooseSubscription,
  insertSubscription,
  loadLink,
  mustGetService,
  planEnd,
  runningSubs,
  type LinkRow,
} from './user-enduser-common.js';

export const generateAccess: Handler = (ctx) => {
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
};

export const use: Handler = (ctx) => {
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
};

/** What activating a code did. */
interface Activation {
  code: string;
  link: LinkRow;
  credits: number;
  subscriptionId: number;
  created: boolean;
  end: string;
}

/**
 * Claims the code for the caller, in one IMMEDIATE transaction: its credits go to a running
 * subscription to its plan's service (the same offer first), else to a new subscription.
 */
function claimCode(ctx: HandlerContext, me: AuthUser, b: HandlerContext['body'], at: string): Activation {
  return ctx.db
    .transaction((): Activation => {
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
}

export const activate: Handler = (ctx) => {
  const me = caller(ctx);
  const at = nowIso(ctx);
  const b = ctx.body;
  const r = claimCode(ctx, me, b, at);
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
};
