/**
 * Services (the API documents' administrator area, "Services"): list, detail, report, create, update, delete.
 */
import { prep } from '../db.js';
import type { HandlerContext, HandlerTable, ServiceRow } from '../types.js';
import {
  b01,
  badRequest,
  boolify,
  boolifyOne,
  callerId,
  conflict,
  count,
  dateRange,
  DAY_MS,
  inTransaction,
  lastDays,
  likeAny,
  notFound,
  nowIso,
  pagination,
  sortColumns,
  Where,
  type SortMap,
} from './admin-util.js';
import { pageRows } from './admin-pages.js';

const SERVICE_SORT: SortMap = {
  ServiceCode: 's.service_code',
  ServiceName: 's.service_name COLLATE NOCASE',
  ServiceType: 's.service_type',
  CreatedDate: 's.created_date',
};

/** The list item's columns (point 3 "Service (list item)"); counts by correlated, indexed subqueries. */
const SERVICE_ITEM = `s.service_id, s.service_code, s.service_name, s.service_type, s.provider_name, s.is_active, s.requires_auth,
  s.created_date, s.last_updated,
  (SELECT MAX(ul.used_at) FROM usage_logs ul WHERE ul.service_id = s.service_id) AS last_usage_date,
  (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id AND x.status = 'active') AS active_subscriptions_count,
  (SELECT COUNT(*) FROM service_plans sp WHERE sp.service_id = s.service_id AND sp.is_available = 1) AS available_plans_count`;

const SERVICE_BOOLS = ['is_active', 'requires_auth'] as const;

/** The service named by id or code: 400 when neither, 404 when unknown, 400 when they disagree. */
function findService(ctx: HandlerContext, id: number | undefined, code: string | undefined): ServiceRow {
  if (id === undefined && (code === undefined || code === '')) throw badRequest('give service_id or service_code', 'service_id');
  const db = ctx.db;
  const row = (
    id !== undefined
      ? prep(db, 'SELECT * FROM services WHERE service_id = ?').get(id)
      : prep(db, 'SELECT * FROM services WHERE service_code = ?').get(code)
  ) as ServiceRow | undefined;
  if (!row) throw notFound(id !== undefined ? `service ${id}` : `service ${code}`);
  if (id !== undefined && code && row.service_code.toLowerCase() !== code.toLowerCase()) {
    throw badRequest(`service_id ${id} is ${row.service_code}, not ${code}`, 'service_code');
  }
  return row;
}

function serviceItem(ctx: HandlerContext, id: number) {
  return boolifyOne(
    prep(ctx.db, `SELECT ${SERVICE_ITEM} FROM services s WHERE s.service_id = ?`).get(id) as Record<string, unknown> | undefined,
    SERVICE_BOOLS,
  );
}

function listServices(ctx: HandlerContext) {
  const q = ctx.query;
  const w = new Where()
    .opt(q.service_code, 's.service_code = ?')
    .opt(
      q.service_name,
      "fold(s.service_name) LIKE fold(?) ESCAPE '\\'",
      q.service_name === undefined ? undefined : likeAny(q.service_name),
    )
    .opt(q.service_type, 's.service_type = ?')
    .opt(
      q.provider_name,
      "fold(s.provider_name) LIKE fold(?) ESCAPE '\\'",
      q.provider_name === undefined ? undefined : likeAny(q.provider_name),
    )
    .opt(b01(q.is_active), 's.is_active = ?');
  dateRange(w, 's.created_date', q.created_date_from, q.created_date_to);
  const total = count(ctx.db, `SELECT COUNT(*) FROM services s ${w.sql}`, w.args);
  const services = pageRows(ctx.db, {
    select: SERVICE_ITEM,
    from: 'services s',
    where: w,
    sort: sortColumns(SERVICE_SORT, q.sort_by),
    tiebreak: 's.service_id',
    order: q.sort_order,
    page: q.page_number,
    size: q.page_size,
    bools: SERVICE_BOOLS,
  });
  return { data: { pagination: pagination(total, q.page_number, q.page_size), services } };
}

/** Daily statistics of service `serviceId` over the last 30 days, zeros included, oldest first. */
function dailyStatistics(ctx: HandlerContext, serviceId: number, now: string) {
  const db = ctx.db;
  const days = lastDays(ctx.now(), 30);
  const from = `${days[0]}T00:00:00.000Z`;
  const usage = new Map(
    (
      prep(
        db,
        `SELECT substr(used_at, 1, 10) AS d, COUNT(*) AS total_usage, COUNT(DISTINCT user_id) AS unique_users
         FROM usage_logs WHERE service_id = ? AND used_at >= ? GROUP BY d`,
      ).all(serviceId, from) as Array<{ d: string; total_usage: number; unique_users: number }>
    ).map((r) => [r.d, r]),
  );
  const created = new Map(
    (
      prep(
        db,
        `SELECT substr(created_date, 1, 10) AS d, COUNT(*) AS n FROM subscriptions
         WHERE service_id = ? AND created_date >= ? GROUP BY d`,
      ).all(serviceId, from) as Array<{ d: string; n: number }>
    ).map((r) => [r.d, r.n]),
  );
  // Subscriptions running at the end of each day (cancelled ones left out: their cancel date is not kept).
  const spans = prep(
    db,
    `SELECT start_date, end_date FROM subscriptions WHERE service_id = ? AND status <> 'cancelled' AND end_date >= ? AND start_date <= ?`,
  ).all(serviceId, from, now) as Array<{ start_date: string; end_date: string }>;
  return days.map((d) => {
    const end = new Date(Date.parse(`${d}T00:00:00.000Z`) + DAY_MS).toISOString();
    let active = 0;
    for (const sp of spans) if (sp.start_date < end && sp.end_date >= end) active++;
    const u = usage.get(d);
    return {
      stat_date: d,
      stat_type: 'daily',
      total_usage: u?.total_usage ?? 0,
      unique_users: u?.unique_users ?? 0,
      new_subscriptions: created.get(d) ?? 0,
      active_subscriptions: active,
    };
  });
}

function detail(ctx: HandlerContext) {
  const db = ctx.db;
  const s = findService(ctx, ctx.query.service_id, ctx.query.service_code);
  const now = nowIso(ctx);
  const info = prep(
    db,
    `SELECT ${SERVICE_ITEM}, s.access_pattern, s.base_service_url, s.description, s.credit_reset_cycle, s.report_type,
       (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id AND x.status = 'cancelled') AS cancelled_subscriptions_count,
       (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id AND x.status = 'expired') AS expired_subscriptions_count,
       (SELECT COUNT(*) FROM service_plans sp WHERE sp.service_id = s.service_id) AS total_plans_count,
       (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id) AS total_subscriptions_count,
       (SELECT COUNT(*) FROM usage_logs ul WHERE ul.service_id = s.service_id) AS total_usage_count,
       (SELECT COUNT(*) FROM usage_codes c JOIN service_plans sp ON sp.service_plan_id = c.service_plan_id WHERE sp.service_id = s.service_id) AS total_codes_generated,
       (SELECT COUNT(*) FROM usage_codes c JOIN service_plans sp ON sp.service_plan_id = c.service_plan_id WHERE sp.service_id = s.service_id AND c.is_used = 1) AS used_codes_count,
       cu.user_id AS cb_id, cu.username AS cb_username, cu.full_name AS cb_full_name,
       uu.user_id AS ub_id, uu.username AS ub_username, uu.full_name AS ub_full_name
     FROM services s LEFT JOIN users cu ON cu.user_id = s.created_by LEFT JOIN users uu ON uu.user_id = s.updated_by
     WHERE s.service_id = ?`,
  ).get(s.service_id) as Record<string, unknown> & { total_codes_generated: number; used_codes_count: number };
  const { cb_id, cb_username, cb_full_name, ub_id, ub_username, ub_full_name, ...rest } = info;
  const service_info = {
    ...boolifyOne(rest, SERVICE_BOOLS),
    unused_codes_count: rest.total_codes_generated - rest.used_codes_count,
    created_by: cb_id === null ? null : { user_id: cb_id, username: cb_username, full_name: cb_full_name },
    updated_by: ub_id === null ? null : { user_id: ub_id, username: ub_username, full_name: ub_full_name },
  };

  const service_plans = boolify(
    prep(
      db,
      `SELECT sp.service_plan_id, p.plan_id, p.plan_code, p.plan_name, p.price, p.currency, p.duration, p.duration_unit, p.credit_amount,
         p.credit_unit, p.max_usage_per_day, p.auto_renewal, sp.is_available, p.is_active AS plan_is_active,
         (SELECT COUNT(*) FROM subscriptions x WHERE x.service_plan_id = sp.service_plan_id AND x.status = 'active') AS active_subscriptions,
         (SELECT COUNT(*) FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id) AS total_codes,
         (SELECT COUNT(*) FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id AND c.is_used = 0) AS unused_codes,
         lu.username AS link_created_by_username, sp.created_date AS link_created_date
       FROM service_plans sp JOIN subscription_plans p ON p.plan_id = sp.plan_id LEFT JOIN users lu ON lu.user_id = sp.created_by
       WHERE sp.service_id = ? ORDER BY p.price, p.plan_code`,
    ).all(s.service_id) as Array<Record<string, unknown>>,
    ['auto_renewal', 'is_available', 'plan_is_active'],
  );

  const active_subscriptions = boolify(
    prep(
      db,
      `SELECT x.subscription_id, x.user_id, u.username, u.full_name, u.email, p.plan_code, p.plan_name, x.status, x.start_date, x.end_date,
         x.auto_renewal, x.payment_method, x.total_credits, x.used_credits, x.total_credits - x.used_credits AS remaining_credits,
         x.renewal_count, x.total_usage_count, x.last_usage_date
       FROM subscriptions x JOIN users u ON u.user_id = x.user_id LEFT JOIN subscription_plans p ON p.plan_id = x.plan_id
       WHERE x.service_id = ? AND x.status = 'active' ORDER BY x.created_date DESC, x.subscription_id DESC LIMIT 100`,
    ).all(s.service_id) as Array<Record<string, unknown>>,
    ['auto_renewal'],
  );

  const top_users = prep(
    db,
    `SELECT u.user_id, u.username, u.full_name, u.email, COUNT(*) AS total_subscriptions,
       SUM(x.status = 'active') AS active_subscriptions, SUM(x.renewal_count) AS total_renewals,
       SUM(x.total_usage_count) AS total_usage, MAX(x.last_usage_date) AS last_usage_date
     FROM subscriptions x JOIN users u ON u.user_id = x.user_id
     WHERE x.service_id = ? GROUP BY x.user_id ORDER BY total_usage DESC, total_subscriptions DESC, u.user_id LIMIT 10`,
  ).all(s.service_id);

  const usage_statistics = dailyStatistics(ctx, s.service_id, now);
  return { data: { service_info, service_plans, active_subscriptions, top_users, usage_statistics } };
}

function report(ctx: HandlerContext) {
  const q = ctx.query;
  const w = new Where()
    .opt(q.service_code, 's.service_code = ?')
    .opt(q.service_type, 's.report_type = ?')
    .opt(b01(q.is_active), 's.is_active = ?');
  const today = `${nowIso(ctx).slice(0, 10)}T00:00:00.000Z`;
  const since30 = new Date(ctx.now().getTime() - 30 * DAY_MS).toISOString();
  const stats = q.include_stats
    ? `,
      (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id) AS total_subscriptions_count,
      (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id AND x.status = 'expired') AS expired_subscriptions_count,
      (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id AND x.status = 'cancelled') AS cancelled_subscriptions_count,
      (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id AND x.status = 'paused') AS paused_subscriptions_count,
      (SELECT COUNT(*) FROM usage_logs ul WHERE ul.service_id = s.service_id) AS total_usage_count,
      (SELECT COUNT(*) FROM usage_logs ul WHERE ul.service_id = s.service_id AND ul.used_at >= @since30) AS usage_30_days,
      (SELECT COALESCE(SUM(x.price), 0) FROM subscriptions x WHERE x.service_id = s.service_id AND x.created_date >= @since30) AS revenue_30_days`
    : '';
  const named: Record<string, unknown> = { today };
  if (q.include_stats) named.since30 = since30;
  // Positional arguments of the filters, named ones for the columns.
  const rows = prep(
    ctx.db,
    `SELECT ${SERVICE_ITEM}, s.report_type,
       (SELECT COUNT(*) FROM usage_logs ul WHERE ul.service_id = s.service_id AND ul.used_at >= @today) AS today_usage_count${stats}
     FROM services s ${w.sql} ORDER BY s.service_code`,
  ).all(named, ...w.args) as Array<Record<string, unknown>>;
  return { data: boolify(rows, SERVICE_BOOLS) };
}

function create(ctx: HandlerContext) {
  const b = ctx.body;
  const db = ctx.db;
  return inTransaction(db, () => {
    if (prep(db, 'SELECT 1 FROM services WHERE service_code = ?').get(b.service_code)) {
      throw conflict(`service_code ${b.service_code} already exists`, 'service_code');
    }
    const at = nowIso(ctx);
    const r = prep(
      db,
      `INSERT INTO services (service_code, service_name, service_type, provider_name, description, base_service_url, access_pattern,
         credit_reset_cycle, is_active, requires_auth, created_by, updated_by, created_date, last_updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      b.service_code,
      b.service_name,
      b.service_type,
      b.provider_name,
      b.description ?? null,
      b.base_service_url,
      b.access_pattern,
      b.credit_reset_cycle,
      b.is_active === false ? 0 : 1,
      b.requires_auth === false ? 0 : 1,
      callerId(ctx),
      callerId(ctx),
      at,
      at,
    );
    const id = Number(r.lastInsertRowid);
    ctx.audit('services', 'create', { service_id: id, service_code: b.service_code, service_name: b.service_name });
    return { message: `service ${b.service_code} created`, data: { message: `service ${b.service_code} created`, service_id: id } };
  });
}

const UPDATABLE = [
  'service_name',
  'service_type',
  'provider_name',
  'base_service_url',
  'access_pattern',
  'credit_reset_cycle',
  'description',
  'is_active',
  'requires_auth',
];

function update(ctx: HandlerContext) {
  const db = ctx.db;
  const id = ctx.params.id as number;
  return inTransaction(db, () => {
    const s = prep(db, 'SELECT * FROM services WHERE service_id = ?').get(id) as ServiceRow | undefined;
    if (!s) throw notFound(`service ${id}`);
    const sets: string[] = [];
    const args: unknown[] = [];
    const changes: Record<string, unknown> = {};
    for (const k of UPDATABLE) {
      const v = ctx.body[k];
      if (v === undefined) continue;
      sets.push(`${k} = ?`);
      args.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
      changes[k] = v;
    }
    sets.push('updated_by = ?', 'last_updated = ?');
    args.push(callerId(ctx), nowIso(ctx));
    prep(db, `UPDATE services SET ${sets.join(', ')} WHERE service_id = ?`).run(...args, id);
    ctx.audit('services', 'update', { service_id: id, service_code: s.service_code, changes });
    const message = Object.keys(changes).length ? `service ${s.service_code} updated` : `service ${s.service_code}: nothing to change`;
    return { message, data: { message, service_id: id, service: serviceItem(ctx, id) } };
  });
}

function remove(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  return inTransaction(db, () => {
    const s = findService(ctx, b.service_id, b.service_code);
    const links = prep(db, 'SELECT COUNT(*) FROM service_plans WHERE service_id = ?', 'pluck').get(s.service_id) as number;
    const subs = prep(db, 'SELECT COUNT(*) FROM subscriptions WHERE service_id = ?', 'pluck').get(s.service_id) as number;
    if ((links || subs) && !b.force_delete && !b.delete_related_data) {
      throw conflict(
        `service ${s.service_code} has ${subs} subscription(s) and ${links} plan link(s); pass force_delete to delete it anyway (delete_related_data also removes them)`,
      );
    }
    let affected = 0;
    const linkIds = 'SELECT service_plan_id FROM service_plans WHERE service_id = ?';
    if (b.delete_related_data) {
      affected += prep(db, 'DELETE FROM usage_logs WHERE service_id = ?').run(s.service_id).changes;
      affected += prep(db, 'DELETE FROM subscriptions WHERE service_id = ?').run(s.service_id).changes;
      affected += prep(db, `DELETE FROM usage_codes WHERE service_plan_id IN (${linkIds})`).run(s.service_id).changes;
    } else {
      // History stays (subscriptions, used codes: their service reference becomes NULL); unused codes go.
      affected += prep(db, `DELETE FROM usage_codes WHERE is_used = 0 AND service_plan_id IN (${linkIds})`).run(s.service_id).changes;
    }
    affected += prep(db, 'DELETE FROM service_plans WHERE service_id = ?').run(s.service_id).changes;
    affected += prep(db, 'DELETE FROM services WHERE service_id = ?').run(s.service_id).changes;
    ctx.audit('services', 'delete', {
      service_id: s.service_id,
      service_code: s.service_code,
      force_delete: b.force_delete ?? false,
      delete_related_data: b.delete_related_data ?? false,
      affected_records: affected,
    });
    const message = `service ${s.service_code} deleted`;
    return { message, data: { message, service_id: s.service_id, affected_records: affected } };
  });
}

export const serviceHandlers: HandlerTable = {
  'services.list': listServices,
  'services.list-alt': listServices,
  'services.detail': detail,
  'services.report': report,
  'services.create': create,
  'services.update': update,
  'services.delete': remove,
};
