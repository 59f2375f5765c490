/**
 * Subscription plans (the API documents' administrator area, "Subscription plans").
 */
import { prep } from '../db.js';
import { dateAfter, type DateUnit } from '../limits.js';
import type { HandlerContext, HandlerTable } from '../types.js';
import {
  b01,
  badRequest,
  boolify,
  boolifyOne,
  callerId,
  conflict,
  count,
  DAY_MS,
  inTransaction,
  likeAny,
  notFound,
  nowIso,
  pagination,
  sortColumns,
  Where,
  type SortMap,
} from './admin-util.js';
import { pageRows } from './admin-pages.js';

const PLAN_SORT: SortMap = {
  PlanCode: 'p.plan_code',
  PlanName: 'p.plan_name COLLATE NOCASE',
  Price: 'p.price',
  CreatedDate: 'p.created_date',
};

/** List item (point 3): revenue_30_days is the price of the plan's subscriptions started in the last 30 days. */
const PLAN_ITEM = `p.plan_id, p.plan_code, p.plan_name, p.description, p.price, p.currency, p.duration, p.duration_unit, p.credit_amount,
  p.credit_unit, p.is_active,
  (SELECT COUNT(*) FROM service_plans sp WHERE sp.plan_id = p.plan_id) AS linked_services_count,
  (SELECT COUNT(*) FROM subscriptions x WHERE x.plan_id = p.plan_id AND x.status = 'active') AS active_subscriptions_count,
  (SELECT ROUND(COALESCE(SUM(x.price), 0), 2) FROM subscriptions x WHERE x.plan_id = p.plan_id AND x.created_date >= @since30) AS revenue_30_days,
  p.created_date, p.last_updated`;

interface PlanRow {
  plan_id: number;
  plan_code: string;
  plan_name: string;
}

function since30(ctx: HandlerContext): string {
  return new Date(ctx.now().getTime() - 30 * DAY_MS).toISOString();
}

function planItem(ctx: HandlerContext, id: number) {
  return boolifyOne(
    prep(ctx.db, `SELECT ${PLAN_ITEM}, p.auto_renewal, p.max_usage_per_day FROM subscription_plans p WHERE p.plan_id = @id`).get({
      since30: since30(ctx),
      id,
    }) as Record<string, unknown> | undefined,
    ['is_active', 'auto_renewal'],
  );
}

function list(ctx: HandlerContext) {
  const q = ctx.query;
  const w = new Where()
    .opt(q.plan_code, 'p.plan_code = ?')
    .opt(q.plan_name, "fold(p.plan_name) LIKE fold(?) ESCAPE '\\'", q.plan_name === undefined ? undefined : likeAny(q.plan_name))
    .opt(q.duration_unit, 'p.duration_unit = ?')
    .opt(q.price_from, 'p.price >= ?')
    .opt(q.price_to, 'p.price <= ?')
    .opt(q.credit_unit, 'p.credit_unit = ?')
    .opt(b01(q.is_active), 'p.is_active = ?');
  if (q.has_credits !== undefined) w.add(q.has_credits ? 'p.credit_amount > 0' : 'p.credit_amount <= 0');
  const total = count(ctx.db, `SELECT COUNT(*) FROM subscription_plans p ${w.sql}`, w.args);
  const subscription_plans = pageRows(ctx.db, {
    select: PLAN_ITEM,
    from: 'subscription_plans p',
    where: w,
    sort: sortColumns(PLAN_SORT, q.sort_by),
    tiebreak: 'p.plan_id',
    order: q.sort_order,
    page: q.page_number,
    size: q.page_size,
    bools: ['is_active'],
    params: { since30: since30(ctx) },
    // revenue_30_days moves with the clock.
    cache: false,
  });
  return { data: { pagination: pagination(total, q.page_number, q.page_size), subscription_plans } };
}

function report(ctx: HandlerContext) {
  const q = ctx.query;
  const w = new Where()
    .opt(q.plan_code, 'p.plan_code = ?')
    .opt(q.duration_unit, 'p.duration_unit = ?')
    .opt(b01(q.is_active), 'p.is_active = ?');
  const stats = q.include_stats
    ? `,
      (SELECT COUNT(*) FROM subscriptions x WHERE x.plan_id = p.plan_id) AS total_subscriptions_count,
      (SELECT COUNT(*) FROM subscriptions x WHERE x.plan_id = p.plan_id AND x.status = 'expired') AS expired_subscriptions_count,
      (SELECT COUNT(*) FROM subscriptions x WHERE x.plan_id = p.plan_id AND x.status = 'cancelled') AS cancelled_subscriptions_count,
      (SELECT COUNT(*) FROM subscriptions x WHERE x.plan_id = p.plan_id AND x.status = 'paused') AS paused_subscriptions_count,
      (SELECT ROUND(COALESCE(SUM(x.price), 0), 2) FROM subscriptions x WHERE x.plan_id = p.plan_id) AS total_revenue,
      (SELECT COUNT(*) FROM usage_codes c JOIN service_plans sp ON sp.service_plan_id = c.service_plan_id WHERE sp.plan_id = p.plan_id) AS total_codes_count`
    : '';
  const rows = prep(
    ctx.db,
    `SELECT ${PLAN_ITEM}, p.auto_renewal, p.max_usage_per_day${stats} FROM subscription_plans p ${w.sql} ORDER BY p.plan_code`,
  ).all({ since30: since30(ctx) }, ...w.args) as Array<Record<string, unknown>>;
  return { data: boolify(rows, ['is_active', 'auto_renewal']) };
}

function checkBounds(b: { duration?: number; credit_amount?: number; max_usage_per_day?: number | null; currency?: string }): void {
  if (b.duration !== undefined && b.duration < 1) throw badRequest('duration must be at least 1', 'duration');
  if (b.credit_amount !== undefined && b.credit_amount < 0) throw badRequest('credit_amount must be at least 0', 'credit_amount');
  if (b.max_usage_per_day !== undefined && b.max_usage_per_day !== null && b.max_usage_per_day < 1) {
    throw badRequest('max_usage_per_day must be at least 1 (leave it out for no daily limit)', 'max_usage_per_day');
  }
  if (b.currency !== undefined && !/^[A-Za-z]{3}$/.test(b.currency))
    throw badRequest('currency must be a three-letter code such as USD', 'currency');
}

/**
 * A plan sells subscriptions that end `duration` units after they are bought: one whose
 * subscription, bought now, would end after 9999-12-31 could never be sold (400 naming duration).
 */
function checkDuration(ctx: HandlerContext, duration: number, unit: DateUnit): void {
  dateAfter(ctx.now(), duration, unit, {
    field: 'duration',
    message: `duration ${duration} ${unit}: a subscription bought now would end after 9999-12-31, the latest date the sandbox keeps`,
  });
}

function create(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  checkBounds(b);
  checkDuration(ctx, b.duration, b.duration_unit);
  return inTransaction(db, () => {
    if (prep(db, 'SELECT 1 FROM subscription_plans WHERE plan_code = ?').get(b.plan_code))
      throw conflict(`plan_code ${b.plan_code} already exists`, 'plan_code');
    const at = nowIso(ctx);
    const r = prep(
      db,
      `INSERT INTO subscription_plans (plan_code, plan_name, price, currency, duration, duration_unit, credit_amount, credit_unit,
         max_usage_per_day, auto_renewal, is_active, created_by, updated_by, created_date, last_updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      b.plan_code,
      b.plan_name,
      b.price,
      b.currency.toUpperCase(),
      b.duration,
      b.duration_unit,
      b.credit_amount,
      b.credit_unit,
      b.max_usage_per_day ?? null,
      b.auto_renewal ? 1 : 0,
      b.is_active === false ? 0 : 1,
      callerId(ctx),
      callerId(ctx),
      at,
      at,
    );
    const id = Number(r.lastInsertRowid);
    ctx.audit('subscription-plans', 'create', { plan_id: id, plan_code: b.plan_code, plan_name: b.plan_name, price: b.price });
    const message = `plan ${b.plan_code} created`;
    return { message, data: { message, plan_id: id } };
  });
}

const UPDATABLE = [
  'plan_code',
  'plan_name',
  'price',
  'currency',
  'duration',
  'duration_unit',
  'credit_amount',
  'credit_unit',
  'auto_renewal',
  'is_active',
  'max_usage_per_day',
];

function update(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  const id = ctx.params.id as number;
  if (b.plan_id !== undefined && b.plan_id !== id)
    throw badRequest(`plan_id ${b.plan_id} in the body does not match the path id ${id}`, 'plan_id');
  checkBounds(b);
  return inTransaction(db, () => {
    const p = prep(db, 'SELECT plan_id, plan_code, plan_name FROM subscription_plans WHERE plan_id = ?').get(id) as PlanRow | undefined;
    if (!p) throw notFound(`plan ${id}`);
    if (b.duration !== undefined || b.duration_unit !== undefined) {
      const cur = prep(db, 'SELECT duration, duration_unit FROM subscription_plans WHERE plan_id = ?').get(id) as {
        duration: number;
        duration_unit: DateUnit;
      };
      checkDuration(ctx, b.duration ?? cur.duration, b.duration_unit ?? cur.duration_unit);
    }
    if (b.plan_code !== undefined && b.plan_code.toLowerCase() !== p.plan_code.toLowerCase()) {
      if (prep(db, 'SELECT 1 FROM subscription_plans WHERE plan_code = ?').get(b.plan_code))
        throw conflict(`plan_code ${b.plan_code} already exists`, 'plan_code');
    }
    const sets: string[] = [];
    const args: unknown[] = [];
    const changes: Record<string, unknown> = {};
    for (const k of UPDATABLE) {
      let v = b[k];
      if (v === undefined) continue;
      if (k === 'currency') v = String(v).toUpperCase();
      sets.push(`${k} = ?`);
      args.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
      changes[k] = v;
    }
    sets.push('updated_by = ?', 'last_updated = ?');
    args.push(callerId(ctx), nowIso(ctx));
    prep(db, `UPDATE subscription_plans SET ${sets.join(', ')} WHERE plan_id = ?`).run(...args, id);
    ctx.audit('subscription-plans', 'update', { plan_id: id, plan_code: p.plan_code, changes });
    const message = Object.keys(changes).length ? `plan ${b.plan_code ?? p.plan_code} updated` : `plan ${p.plan_code}: nothing to change`;
    return { message, data: { message, plan_id: id, subscription_plan: planItem(ctx, id) } };
  });
}

function remove(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  return inTransaction(db, () => {
    if (b.plan_id === undefined && !b.plan_code) throw badRequest('give plan_id or plan_code', 'plan_id');
    const p = (
      b.plan_id !== undefined
        ? prep(db, 'SELECT plan_id, plan_code, plan_name FROM subscription_plans WHERE plan_id = ?').get(b.plan_id)
        : prep(db, 'SELECT plan_id, plan_code, plan_name FROM subscription_plans WHERE plan_code = ?').get(b.plan_code)
    ) as PlanRow | undefined;
    if (!p) throw notFound(`plan ${b.plan_id ?? b.plan_code}`);
    if (b.plan_id !== undefined && b.plan_code && b.plan_code.toLowerCase() !== p.plan_code.toLowerCase()) {
      throw badRequest(`plan_id ${b.plan_id} is ${p.plan_code}, not ${b.plan_code}`, 'plan_code');
    }
    const links = prep(db, 'SELECT COUNT(*) FROM service_plans WHERE plan_id = ?', 'pluck').get(p.plan_id) as number;
    const subs = prep(db, 'SELECT COUNT(*) FROM subscriptions WHERE plan_id = ?', 'pluck').get(p.plan_id) as number;
    if ((links || subs) && !b.force_delete && !b.delete_related_data) {
      throw conflict(
        `plan ${p.plan_code} has ${subs} subscription(s) and ${links} service link(s); pass force_delete to delete it anyway (delete_related_data also removes them)`,
      );
    }
    let affected = 0;
    const linkIds = 'SELECT service_plan_id FROM service_plans WHERE plan_id = ?';
    if (b.delete_related_data) {
      affected += prep(
        db,
        'DELETE FROM usage_logs WHERE subscription_id IN (SELECT subscription_id FROM subscriptions WHERE plan_id = ?)',
      ).run(p.plan_id).changes;
      affected += prep(db, 'DELETE FROM subscriptions WHERE plan_id = ?').run(p.plan_id).changes;
      affected += prep(db, `DELETE FROM usage_codes WHERE service_plan_id IN (${linkIds})`).run(p.plan_id).changes;
    } else {
      affected += prep(db, `DELETE FROM usage_codes WHERE is_used = 0 AND service_plan_id IN (${linkIds})`).run(p.plan_id).changes;
    }
    affected += prep(db, 'DELETE FROM service_plans WHERE plan_id = ?').run(p.plan_id).changes;
    affected += prep(db, 'DELETE FROM subscription_plans WHERE plan_id = ?').run(p.plan_id).changes;
    ctx.audit('subscription-plans', 'delete', {
      plan_id: p.plan_id,
      plan_code: p.plan_code,
      affected_records: affected,
      force_delete: b.force_delete ?? false,
      delete_related_data: b.delete_related_data ?? false,
    });
    const message = `plan ${p.plan_code} deleted`;
    return { message, data: { message, plan_id: p.plan_id, affected_records: affected } };
  });
}

export const planHandlers: HandlerTable = {
  'plans.list': list,
  'plans.list-alt': list,
  'plans.report': report,
  'plans.create': create,
  'plans.update': update,
  'plans.delete': remove,
};
