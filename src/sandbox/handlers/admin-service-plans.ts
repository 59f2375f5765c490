/**
 * Service-plan links (the API documents' administrator area, "Service-plan links").
 */
import { prep } from '../db.js';
import type { HandlerContext, HandlerTable } from '../types.js';
import {
  b01,
  badRequest,
  boolify,
  boolifyOne,
  callerId,
  conflict,
  count,
  inTransaction,
  notFound,
  nowIso,
  pagination,
  sortColumns,
  Where,
  type SortMap,
} from './admin-util.js';
import { pageRows } from './admin-pages.js';

const LINK_SORT: SortMap = {
  ServiceCode: 's.service_code',
  PlanCode: 'p.plan_code',
  CreatedDate: 'sp.created_date',
};

const LINK_ITEM = `sp.service_plan_id, sp.service_id, sp.plan_id, s.service_code, s.service_name, s.service_type, p.plan_code, p.plan_name,
  p.description AS plan_description, sp.is_available,
  (SELECT COUNT(*) FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id) AS total_codes_count,
  (SELECT COUNT(*) FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id AND c.is_used = 0) AS unused_codes_count,
  (SELECT COUNT(*) FROM subscriptions x WHERE x.service_plan_id = sp.service_plan_id AND x.status = 'active') AS active_subscriptions_count,
  sp.created_date, sp.last_updated`;
const LINK_FROM = 'service_plans sp JOIN services s ON s.service_id = sp.service_id JOIN subscription_plans p ON p.plan_id = sp.plan_id';

interface LinkRow {
  service_plan_id: number;
  service_id: number;
  plan_id: number;
  is_available: number;
  service_code: string;
  plan_code: string;
}

function linkItem(ctx: HandlerContext, id: number) {
  return boolifyOne(
    prep(ctx.db, `SELECT ${LINK_ITEM} FROM ${LINK_FROM} WHERE sp.service_plan_id = ?`).get(id) as Record<string, unknown> | undefined,
    ['is_available'],
  );
}

function linkById(ctx: HandlerContext, id: number): LinkRow {
  const l = prep(
    ctx.db,
    `SELECT sp.service_plan_id, sp.service_id, sp.plan_id, sp.is_available, s.service_code, p.plan_code FROM ${LINK_FROM} WHERE sp.service_plan_id = ?`,
  ).get(id) as LinkRow | undefined;
  if (!l) throw notFound(`service plan link ${id}`);
  return l;
}

function serviceIdOf(ctx: HandlerContext, code: string): number {
  const id = prep(ctx.db, 'SELECT service_id FROM services WHERE service_code = ?', 'pluck').get(code) as number | undefined;
  if (id === undefined) throw notFound(`service ${code}`);
  return id;
}

function planIdOf(ctx: HandlerContext, code: string): number {
  const id = prep(ctx.db, 'SELECT plan_id FROM subscription_plans WHERE plan_code = ?', 'pluck').get(code) as number | undefined;
  if (id === undefined) throw notFound(`plan ${code}`);
  return id;
}

function linkByCodes(ctx: HandlerContext, serviceCode: string, planCode: string): LinkRow {
  const sid = serviceIdOf(ctx, serviceCode);
  const pid = planIdOf(ctx, planCode);
  const id = prep(ctx.db, 'SELECT service_plan_id FROM service_plans WHERE service_id = ? AND plan_id = ?', 'pluck').get(sid, pid) as
    number | undefined;
  if (id === undefined) throw notFound(`link between service ${serviceCode} and plan ${planCode}`);
  return linkById(ctx, id);
}

function list(ctx: HandlerContext) {
  const q = ctx.query;
  const w = new Where()
    .opt(q.service_code, 's.service_code = ?')
    .opt(q.plan_code, 'p.plan_code = ?')
    .opt(q.service_type, 's.service_type = ?')
    .opt(b01(q.is_available), 'sp.is_available = ?');
  if (q.has_unused_codes !== undefined) {
    w.add(
      `${q.has_unused_codes ? '' : 'NOT '}EXISTS (SELECT 1 FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id AND c.is_used = 0)`,
    );
  }
  const total = count(ctx.db, `SELECT COUNT(*) FROM ${LINK_FROM} ${w.sql}`, w.args);
  const service_plans = pageRows(ctx.db, {
    select: LINK_ITEM,
    from: LINK_FROM,
    where: w,
    sort: sortColumns(LINK_SORT, q.sort_by),
    tiebreak: 'sp.service_plan_id',
    order: q.sort_order,
    page: q.page_number,
    size: q.page_size,
    bools: ['is_available'],
  });
  return { data: { pagination: pagination(total, q.page_number, q.page_size), service_plans } };
}

function detail(ctx: HandlerContext) {
  const db = ctx.db;
  const id = ctx.params.id as number;
  const now = nowIso(ctx);
  const info = prep(
    db,
    `SELECT ${LINK_ITEM}, s.base_service_url, s.requires_auth, s.provider_name, s.is_active AS service_is_active, s.credit_reset_cycle,
       p.price, p.currency, p.duration, p.duration_unit, p.credit_amount, p.credit_unit, p.max_usage_per_day, p.auto_renewal,
       p.is_active AS plan_is_active,
       (SELECT COUNT(*) FROM subscriptions x WHERE x.service_plan_id = sp.service_plan_id) AS total_subscriptions_count,
       (SELECT COUNT(*) FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id AND c.is_used = 1) AS used_codes_count,
       (SELECT MAX(c.created_date) FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id) AS last_code_generated_date,
       (SELECT MIN(c.expiry_date) FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id AND c.is_used = 0 AND c.expiry_date > ?) AS next_code_expiry_date,
       (SELECT MAX(x.created_date) FROM subscriptions x WHERE x.service_plan_id = sp.service_plan_id) AS last_subscription_date,
       cu.user_id AS cb_id, cu.username AS cb_username, cu.full_name AS cb_full_name
     FROM ${LINK_FROM} LEFT JOIN users cu ON cu.user_id = sp.created_by WHERE sp.service_plan_id = ?`,
  ).get(now, id) as Record<string, unknown> | undefined;
  if (!info) throw notFound(`service plan link ${id}`);
  const { cb_id, cb_username, cb_full_name, ...rest } = info;
  const service_plan_info = {
    ...boolifyOne(rest, ['is_available', 'requires_auth', 'service_is_active', 'auto_renewal', 'plan_is_active']),
    created_by: cb_id === null ? null : { user_id: cb_id, username: cb_username, full_name: cb_full_name },
  };
  const subscriptions = boolify(
    prep(
      db,
      `SELECT x.subscription_id, x.user_id, u.username, u.full_name, u.email, x.status, x.start_date, x.end_date, x.payment_method,
         x.auto_renewal, x.renewal_count, x.total_usage_count, x.last_usage_date
       FROM subscriptions x JOIN users u ON u.user_id = x.user_id
       WHERE x.service_plan_id = ? ORDER BY x.created_date DESC, x.subscription_id DESC LIMIT 100`,
    ).all(id) as Array<Record<string, unknown>>,
    ['auto_renewal'],
  );
  const usage_codes = boolify(
    prep(
      db,
      `SELECT c.code_id, c.code_value, c.batch_id, c.is_used, c.used_by, uu.username AS used_by_username, uu.full_name AS used_by_full_name,
         c.used_date, c.expiry_date, c.expiry_date <= ? AS is_expired, c.created_date, cu.username AS created_by_username
       FROM usage_codes c LEFT JOIN users uu ON uu.user_id = c.used_by LEFT JOIN users cu ON cu.user_id = c.created_by
       WHERE c.service_plan_id = ? ORDER BY c.created_date DESC, c.code_id DESC LIMIT 100`,
    ).all(now, id) as Array<Record<string, unknown>>,
    ['is_used', 'is_expired'],
  );
  return { data: { service_plan_info, subscriptions, usage_codes } };
}

function create(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  return inTransaction(db, () => {
    const sid = serviceIdOf(ctx, b.service_code);
    const pid = planIdOf(ctx, b.plan_code);
    if (prep(db, 'SELECT 1 FROM service_plans WHERE service_id = ? AND plan_id = ?').get(sid, pid)) {
      throw conflict(`service ${b.service_code} is already linked to plan ${b.plan_code}`);
    }
    const at = nowIso(ctx);
    const r = prep(
      db,
      'INSERT INTO service_plans (service_id, plan_id, is_available, created_by, created_date, last_updated) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(sid, pid, b.is_available === false ? 0 : 1, callerId(ctx), at, at);
    const id = Number(r.lastInsertRowid);
    ctx.audit('service-plans', 'create', { service_plan_id: id, service_code: b.service_code, plan_code: b.plan_code });
    const message = `plan ${b.plan_code} linked to service ${b.service_code}`;
    return { message, data: { message, service_plan_id: id } };
  });
}

/** Moves a link to another service and/or plan; 409 when that pair is already linked. */
function relink(ctx: HandlerContext, l: LinkRow, serviceId: number, planId: number): void {
  if (serviceId === l.service_id && planId === l.plan_id) return;
  const other = prep(ctx.db, 'SELECT service_plan_id FROM service_plans WHERE service_id = ? AND plan_id = ?', 'pluck').get(
    serviceId,
    planId,
  );
  if (other !== undefined) throw conflict(`that service and plan are already linked (service_plan_id ${other})`);
  prep(ctx.db, 'UPDATE service_plans SET service_id = ?, plan_id = ? WHERE service_plan_id = ?').run(serviceId, planId, l.service_plan_id);
}

function update(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  return inTransaction(db, () => {
    let l: LinkRow;
    if (b.service_plan_id !== undefined) l = linkById(ctx, b.service_plan_id);
    else if (b.service_code && b.plan_code) l = linkByCodes(ctx, b.service_code, b.plan_code);
    else throw badRequest('give service_plan_id, or service_code and plan_code', 'service_plan_id');
    let sid = l.service_id;
    let pid = l.plan_id;
    if (b.new_service_id !== undefined) {
      if (!prep(db, 'SELECT 1 FROM services WHERE service_id = ?').get(b.new_service_id)) throw notFound(`service ${b.new_service_id}`);
      sid = b.new_service_id;
    }
    if (b.new_plan_id !== undefined) {
      if (!prep(db, 'SELECT 1 FROM subscription_plans WHERE plan_id = ?').get(b.new_plan_id)) throw notFound(`plan ${b.new_plan_id}`);
      pid = b.new_plan_id;
    }
    // With service_plan_id, service_code and plan_code name the link's new service and plan.
    if (b.service_plan_id !== undefined) {
      if (b.service_code && b.new_service_id === undefined) sid = serviceIdOf(ctx, b.service_code);
      if (b.plan_code && b.new_plan_id === undefined) pid = planIdOf(ctx, b.plan_code);
    }
    relink(ctx, l, sid, pid);
    if (b.is_available !== undefined)
      prep(db, 'UPDATE service_plans SET is_available = ? WHERE service_plan_id = ?').run(b.is_available ? 1 : 0, l.service_plan_id);
    prep(db, 'UPDATE service_plans SET last_updated = ? WHERE service_plan_id = ?').run(nowIso(ctx), l.service_plan_id);
    ctx.audit('service-plans', 'update', { service_plan_id: l.service_plan_id, ...b });
    const message = `service plan link ${l.service_plan_id} updated`;
    return { message, data: { message, service_plan_id: l.service_plan_id, service_plan: linkItem(ctx, l.service_plan_id) } };
  });
}

function dependents(ctx: HandlerContext, id: number) {
  const subs = prep(ctx.db, 'SELECT COUNT(*) FROM subscriptions WHERE service_plan_id = ?', 'pluck').get(id) as number;
  const codes = prep(ctx.db, 'SELECT COUNT(*) FROM usage_codes WHERE service_plan_id = ?', 'pluck').get(id) as number;
  return { subs, codes };
}

/** Deletes a link: `related` also deletes its subscriptions and codes, else they stay detached (unused codes go). */
function deleteLink(ctx: HandlerContext, id: number, related: boolean): number {
  const db = ctx.db;
  let affected = 0;
  if (related) {
    const subIds = 'SELECT subscription_id FROM subscriptions WHERE service_plan_id = ?';
    affected += prep(db, `DELETE FROM usage_logs WHERE subscription_id IN (${subIds})`).run(id).changes;
    affected += prep(db, 'DELETE FROM subscriptions WHERE service_plan_id = ?').run(id).changes;
    affected += prep(db, 'DELETE FROM usage_codes WHERE service_plan_id = ?').run(id).changes;
  } else {
    affected += prep(db, 'DELETE FROM usage_codes WHERE service_plan_id = ? AND is_used = 0').run(id).changes;
  }
  affected += prep(db, 'DELETE FROM service_plans WHERE service_plan_id = ?').run(id).changes;
  return affected;
}

function manage(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  return inTransaction(db, () => {
    let l: LinkRow;
    if (b.action === 'update') {
      if (b.service_plan_id === undefined)
        throw badRequest('action update needs service_plan_id (the link to move to service_code and plan_code)', 'service_plan_id');
      l = linkById(ctx, b.service_plan_id);
      relink(ctx, l, serviceIdOf(ctx, b.service_code), planIdOf(ctx, b.plan_code));
      prep(db, 'UPDATE service_plans SET last_updated = ? WHERE service_plan_id = ?').run(nowIso(ctx), l.service_plan_id);
    } else {
      l = linkByCodes(ctx, b.service_code, b.plan_code);
      if (b.service_plan_id !== undefined && b.service_plan_id !== l.service_plan_id) {
        throw badRequest(
          `service_plan_id ${b.service_plan_id} is not the link of ${b.service_code} and ${b.plan_code} (that is ${l.service_plan_id})`,
          'service_plan_id',
        );
      }
    }
    let message: string;
    let affected = 0;
    switch (b.action) {
      case 'activate':
      case 'deactivate': {
        const want = b.action === 'activate' ? 1 : 0;
        if (l.is_available === want) message = `link ${b.service_code}/${b.plan_code} is already ${want ? 'available' : 'unavailable'}`;
        else {
          prep(db, 'UPDATE service_plans SET is_available = ?, last_updated = ? WHERE service_plan_id = ?').run(
            want,
            nowIso(ctx),
            l.service_plan_id,
          );
          message = `link ${b.service_code}/${b.plan_code} ${want ? 'activated' : 'deactivated'}`;
        }
        break;
      }
      case 'update':
        message = `link ${l.service_plan_id} now joins ${b.service_code} and ${b.plan_code}`;
        break;
      case 'delete': {
        const d = dependents(ctx, l.service_plan_id);
        if (d.subs || d.codes) {
          throw conflict(
            `link ${b.service_code}/${b.plan_code} has ${d.subs} subscription(s) and ${d.codes} usage code(s); delete it with DELETE /admin/service-plans and force_delete`,
          );
        }
        affected = deleteLink(ctx, l.service_plan_id, false);
        message = `link ${b.service_code}/${b.plan_code} deleted`;
        break;
      }
      default:
        throw badRequest(`unknown action ${b.action}`, 'action');
    }
    ctx.audit('service-plans', 'manage', {
      service_plan_id: l.service_plan_id,
      action: b.action,
      service_code: b.service_code,
      plan_code: b.plan_code,
    });
    return {
      message,
      data: {
        message,
        service_plan_id: l.service_plan_id,
        action: b.action,
        ...(b.action === 'delete' ? { affected_records: affected } : { service_plan: linkItem(ctx, l.service_plan_id) }),
      },
    };
  });
}

function remove(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  return inTransaction(db, () => {
    let l: LinkRow;
    if (b.service_plan_id !== undefined) {
      l = linkById(ctx, b.service_plan_id);
      if ((b.plan_id !== undefined && b.plan_id !== l.plan_id) || (b.service_id !== undefined && b.service_id !== l.service_id)) {
        throw badRequest(`service_plan_id ${l.service_plan_id} joins service ${l.service_id} and plan ${l.plan_id}`, 'service_plan_id');
      }
    } else if (b.plan_id !== undefined && b.service_id !== undefined) {
      const id = prep(db, 'SELECT service_plan_id FROM service_plans WHERE service_id = ? AND plan_id = ?', 'pluck').get(
        b.service_id,
        b.plan_id,
      ) as number | undefined;
      if (id === undefined) throw notFound(`link between service ${b.service_id} and plan ${b.plan_id}`);
      l = linkById(ctx, id);
    } else throw badRequest('give service_plan_id, or service_id and plan_id', 'service_plan_id');
    const d = dependents(ctx, l.service_plan_id);
    if ((d.subs || d.codes) && !b.force_delete && !b.delete_related_data) {
      throw conflict(
        `link ${l.service_code}/${l.plan_code} has ${d.subs} subscription(s) and ${d.codes} usage code(s); pass force_delete to delete it anyway (delete_related_data also removes them)`,
      );
    }
    const affected = deleteLink(ctx, l.service_plan_id, Boolean(b.delete_related_data));
    ctx.audit('service-plans', 'delete', {
      service_plan_id: l.service_plan_id,
      service_code: l.service_code,
      plan_code: l.plan_code,
      affected_records: affected,
      ...b,
    });
    const message = `link ${l.service_code}/${l.plan_code} deleted`;
    return { message, data: { message, service_plan_id: l.service_plan_id, affected_records: affected } };
  });
}

export const servicePlanHandlers: HandlerTable = {
  'service-plans.list': list,
  'service-plans.list-alt': list,
  'service-plans.detail': detail,
  'service-plans.create': create,
  'service-plans.update': update,
  'service-plans.manage': manage,
  'service-plans.delete': remove,
};
