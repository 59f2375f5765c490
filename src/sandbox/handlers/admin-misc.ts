/**
 * Usage codes, wallet transactions, the dashboard and the audit log (the API documents' administrator area,
 * point 7 "Usage codes, wallet, audit, dashboard").
 */
import { builtin } from '../../builtin.js';
import { prep } from '../db.js';
import { dateAfter } from '../limits.js';
import type { HandlerContext, HandlerTable } from '../types.js';
import {
  b01,
  badRequest,
  cachedUntilChange,
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
  parseDetails,
  sortColumns,
  Where,
  type SortMap,
} from './admin-util.js';
import { pageRows } from './admin-pages.js';

// ---------------------------------------------------------------------------------------------
// Usage codes

const CODE_SORT: SortMap = {
  CodeValue: 'c.code_value',
  BatchID: 'c.batch_id',
  // NULL when the code's link or service is gone (LEFT JOIN).
  ServiceCode: { expr: 's.service_code', nullable: true },
  // NULL while the code is unused.
  UsedDate: { expr: 'c.used_date', nullable: true },
  CreatedDate: 'c.created_date',
};

const CODE_FROM = `usage_codes c LEFT JOIN service_plans sp ON sp.service_plan_id = c.service_plan_id
  LEFT JOIN services s ON s.service_id = sp.service_id LEFT JOIN subscription_plans p ON p.plan_id = sp.plan_id
  LEFT JOIN users u ON u.user_id = c.used_by`;

function codeFilters(ctx: HandlerContext, now: string): Where {
  const q = ctx.query;
  const w = new Where()
    // Codes match whole, ignoring case (index usage_codes_batch_nocase).
    .opt(q.batch_id, 'c.batch_id = ? COLLATE NOCASE')
    .opt(
      q.service_code,
      'c.service_plan_id IN (SELECT service_plan_id FROM service_plans WHERE service_id = (SELECT service_id FROM services WHERE service_code = ?))',
    )
    .opt(
      q.plan_code,
      'c.service_plan_id IN (SELECT service_plan_id FROM service_plans WHERE plan_id = (SELECT plan_id FROM subscription_plans WHERE plan_code = ?))',
    )
    .opt(q.code_value, "c.code_value LIKE ? ESCAPE '\\'", q.code_value === undefined ? undefined : likeAny(q.code_value))
    .opt(b01(q.is_used), 'c.is_used = ?');
  if (q.is_expired !== undefined) w.add(q.is_expired ? 'c.expiry_date <= ?' : 'c.expiry_date > ?', now);
  dateRange(w, 'c.created_date', q.created_date_from, q.created_date_to);
  dateRange(w, 'c.used_date', q.used_date_from, q.used_date_to);
  return w;
}

function listCodes(ctx: HandlerContext) {
  const q = ctx.query;
  const db = ctx.db;
  const now = nowIso(ctx);
  const w = codeFilters(ctx, now);
  const total = count(db, `SELECT COUNT(*) FROM usage_codes c ${w.sql}`, w.args);
  const codes = pageRows(db, {
    select: `c.batch_id, c.code_id, c.code_value, c.created_date, c.credit_amount, c.expiry_date, NULL AS is_expired,
       c.is_used, p.plan_code, s.service_code, c.service_plan_id, c.used_by, u.username AS used_by_username, c.used_date, c.used_in_subscription`,
    from: CODE_FROM,
    where: w,
    sort: sortColumns(CODE_SORT, q.sort_by),
    tiebreak: 'c.code_id',
    order: q.sort_order,
    page: q.page_number,
    size: q.page_size,
    bools: ['is_used'],
  });
  for (const c of codes) c.is_expired = (c.expiry_date as string) <= now;
  const data: Record<string, unknown> = { pagination: pagination(total, q.page_number, q.page_size) };
  if (q.include_summary) data.summary = codeSummary(ctx, w, now);
  data.usage_codes = codes;
  return { data };
}

/**
 * Summary over the filtered codes: active = unused and unexpired, expired = unused and
 * expired, used (so the three add up to total); usage_rate in percent; total_revenue = price of
 * the used codes; average_usage_time = mean hours from creation to use; top plan and service
 * by used codes.
 */
function codeSummary(ctx: HandlerContext, w: Where, now: string) {
  const db = ctx.db;
  return cachedUntilChange(db, `codes-summary\u0000${w.sql}\u0000${JSON.stringify(w.args)}\u0000${now.slice(0, 16)}`, () => {
    const a = prep(
      db,
      `SELECT COUNT(*) AS total_codes, COALESCE(SUM(c.is_used), 0) AS used_codes,
         COALESCE(SUM(c.is_used = 0 AND c.expiry_date <= @now), 0) AS expired_codes,
         COALESCE(SUM(c.is_used = 0 AND c.expiry_date > @now), 0) AS active_codes,
         ROUND(COALESCE(SUM(CASE WHEN c.is_used = 1 THEN c.price END), 0), 2) AS total_revenue,
         AVG(CASE WHEN c.is_used = 1 THEN (julianday(c.used_date) - julianday(c.created_date)) * 24 END) AS avg_hours
       FROM usage_codes c ${w.sql}`,
    ).get({ now }, ...w.args) as Record<string, number | null>;
    const top = (col: string) =>
      (prep(
        db,
        `SELECT ${col} AS code FROM ${CODE_FROM} ${w.sql}${w.sql ? ' AND' : ' WHERE'} c.is_used = 1 AND ${col} IS NOT NULL
         GROUP BY ${col} ORDER BY COUNT(*) DESC, ${col} LIMIT 1`,
        'pluck',
      ).get(...w.args) as string | undefined) ?? null;
    const total = a.total_codes ?? 0;
    return {
      total_codes: total,
      used_codes: a.used_codes,
      active_codes: a.active_codes,
      expired_codes: a.expired_codes,
      usage_rate: total ? Math.round(((a.used_codes ?? 0) / total) * 10_000) / 100 : 0,
      top_plan_code: top('p.plan_code'),
      top_service_code: top('s.service_code'),
      total_revenue: a.total_revenue,
      average_usage_time: a.avg_hours === null ? null : Math.round(a.avg_hours * 10) / 10,
      average_usage_time_unit: 'hours',
    };
  });
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
function codePart(): string {
  let s = '';
  for (let i = 0; i < 4; i++) s += CODE_ALPHABET[builtin('node:crypto').randomInt(CODE_ALPHABET.length)];
  return s;
}

function generateCodes(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  if (b.code_prefix !== undefined && b.code_prefix !== '' && !/^[A-Za-z0-9_-]+$/.test(b.code_prefix)) {
    throw badRequest('code_prefix may hold letters, digits, - and _ only', 'code_prefix');
  }
  return inTransaction(db, () => {
    const link = prep(
      db,
      `SELECT sp.service_plan_id, s.service_code, p.plan_code, p.credit_amount, p.price FROM service_plans sp
       JOIN services s ON s.service_id = sp.service_id JOIN subscription_plans p ON p.plan_id = sp.plan_id WHERE sp.service_plan_id = ?`,
    ).get(b.service_plan_id) as
      { service_plan_id: number; service_code: string; plan_code: string; credit_amount: number; price: number } | undefined;
    if (!link) throw notFound(`service plan link ${b.service_plan_id}`);
    const taken = prep(db, 'SELECT batch_id FROM usage_codes WHERE batch_id = ? COLLATE NOCASE LIMIT 1', 'pluck').get(b.batch_id) as
      string | undefined;
    if (taken !== undefined)
      throw conflict(
        `batch_id ${b.batch_id} already exists${taken === b.batch_id ? '' : ` (as ${taken}: batch ids ignore case)`}`,
        'batch_id',
      );
    const now = ctx.now();
    const at = now.toISOString();
    const expiry = dateAfter(now, b.expiration_days, 'days', {
      field: 'expiration_days',
      message: `expiration_days ${b.expiration_days}: the codes would expire after 9999-12-31`,
    });
    const prefix = b.code_prefix ? `${b.code_prefix}-` : '';
    const exists = prep(db, 'SELECT 1 FROM usage_codes WHERE code_value = ?');
    const ins = prep(
      db,
      `INSERT INTO usage_codes (code_value, batch_id, service_plan_id, credit_amount, price, is_used, expiry_date, created_by, created_date)
       VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    );
    const seen = new Set<string>();
    const codes: Array<{ code_id: number; code_value: string; expiry_date: string }> = [];
    while (codes.length < b.code_count) {
      const value = `${prefix}${codePart()}-${codePart()}`;
      if (seen.has(value.toUpperCase()) || exists.get(value)) continue;
      seen.add(value.toUpperCase());
      const r = ins.run(value, b.batch_id, link.service_plan_id, link.credit_amount, link.price, expiry, callerId(ctx), at);
      codes.push({ code_id: Number(r.lastInsertRowid), code_value: value, expiry_date: expiry });
    }
    ctx.audit('usage-codes', 'generate', {
      batch_id: b.batch_id,
      code_count: b.code_count,
      service_plan_id: link.service_plan_id,
      expiry_date: expiry,
    });
    const message = `${codes.length} code(s) generated in batch ${b.batch_id}`;
    return {
      message,
      data: {
        batch_id: b.batch_id,
        generated_count: codes.length,
        expiry_date: expiry,
        service_plan_id: link.service_plan_id,
        service_code: link.service_code,
        plan_code: link.plan_code,
        codes,
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Wallet transactions

const WALLET_SORT: SortMap = {
  Username: 'u.username',
  // Within a type, newest first (or oldest): the order of the (type, date) index.
  TransactionType: ['w.transaction_type', 'w.transaction_date'],
  Amount: 'w.amount',
  TransactionDate: 'w.transaction_date',
};

function listWallet(ctx: HandlerContext) {
  const q = ctx.query;
  const db = ctx.db;
  const w = new Where()
    .opt(q.user_id, 'w.user_id = ?')
    .opt(
      q.username,
      "w.user_id IN (SELECT user_id FROM users WHERE fold(username) LIKE fold(?) ESCAPE '\\')",
      q.username === undefined ? undefined : likeAny(q.username),
    )
    .opt(q.transaction_type, 'w.transaction_type = ?')
    .opt(q.payment_method, 'w.payment_method = ?')
    .opt(q.amount_from, 'w.amount >= ?')
    .opt(q.amount_to, 'w.amount <= ?');
  dateRange(w, 'w.transaction_date', q.date_from, q.date_to);
  const summary = walletSummary(ctx, w);
  const transactions = pageRows(db, {
    select: `w.transaction_id, w.user_id, u.username, u.email, w.transaction_type, w.amount, w.balance_before, w.balance_after, w.currency,
       w.payment_method, w.status, w.description, w.transaction_reference, w.related_subscription_id, w.transaction_date, w.created_date`,
    // Sorted by the transaction's own columns, the transactions come first (CROSS JOIN is
    // SQLite's join-order hint; the rows are the same): left to itself, the planner reads a
    // date range user by user and sorts it whole, for every page. Not with a username filter,
    // where going user by user is the better plan.
    from: `wallet_transactions w ${q.sort_by === 'Username' || q.username !== undefined ? 'JOIN' : 'CROSS JOIN'} users u ON u.user_id = w.user_id`,
    where: w,
    sort: sortColumns(WALLET_SORT, q.sort_by),
    tiebreak: 'w.transaction_id',
    order: q.sort_order,
    page: q.page_number,
    size: q.page_size,
  });
  return { data: { pagination: pagination(summary.transaction_count, q.page_number, q.page_size), transactions, summary } };
}

/**
 * One aggregate query over the filtered set — grouped by type, method and status, which a
 * covering index answers without touching the table, yet slow at a million rows unfiltered —
 * remembered until the database changes (paging asks it again and again). Amounts count
 * completed transactions only; transaction_count counts every transaction the filter matches
 * (it is the list's total).
 */
function walletSummary(ctx: HandlerContext, w: Where) {
  const q = ctx.query;
  return cachedUntilChange(ctx.db, `wallet-summary\u0000${w.sql}\u0000${JSON.stringify(w.args)}`, () => {
    const groups = prep(
      ctx.db,
      `SELECT transaction_type AS type, payment_method AS method, status, COUNT(*) AS n, SUM(amount) AS amount,
         MIN(transaction_date) AS first, MAX(transaction_date) AS last
       FROM wallet_transactions w ${w.sql} GROUP BY transaction_type, payment_method, status`,
    ).all(...w.args) as Array<{
      type: string;
      method: string | null;
      status: string;
      n: number;
      amount: number;
      first: string;
      last: string;
    }>;
    let count = 0;
    let completedN = 0;
    let completedSum = 0;
    let first: string | null = null;
    let last: string | null = null;
    const byType: Record<string, number> = { topup: 0, deduct: 0, refund: 0, auto_renewal: 0 };
    const nType: Record<string, number> = {};
    const nMethod: Record<string, number> = {};
    for (const g of groups) {
      count += g.n;
      nType[g.type] = (nType[g.type] ?? 0) + g.n;
      if (g.method) nMethod[g.method] = (nMethod[g.method] ?? 0) + g.n;
      if (g.status === 'completed') {
        byType[g.type] = (byType[g.type] ?? 0) + g.amount;
        completedN += g.n;
        completedSum += g.amount;
      }
      if (first === null || g.first < first) first = g.first;
      if (last === null || g.last > last) last = g.last;
    }
    const r2 = (v: number) => Math.round(v * 100) / 100;
    // The most frequent; ties go to the first in the vocabulary's order.
    const top = (counts: Record<string, number>, order: string[]) => {
      let best: string | null = null;
      for (const k of order) if ((counts[k] ?? 0) > 0 && (best === null || counts[k] > counts[best])) best = k;
      return best;
    };
    const topup = r2(byType.topup);
    const deduct = r2(byType.deduct);
    const refund = r2(byType.refund);
    const renewal = r2(byType.auto_renewal);
    return {
      transaction_count: count,
      total_topup_amount: topup,
      total_deduct_amount: deduct,
      total_refund_amount: refund,
      total_auto_renewal_amount: renewal,
      net_amount: r2(topup + refund - deduct - renewal),
      average_transaction_amount: completedN ? r2(completedSum / completedN) : 0,
      top_payment_method: top(nMethod, ['card', 'bank', 'paypal', 'crypto']),
      top_transaction_type: top(nType, ['topup', 'deduct', 'refund', 'auto_renewal']),
      date_range_analyzed: {
        from: q.date_from ?? (first ? first.slice(0, 10) : null),
        to: q.date_to ?? (last ? last.slice(0, 10) : null),
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Dashboard

function dashboard(ctx: HandlerContext) {
  const db = ctx.db;
  const nowD = ctx.now();
  const now = nowD.toISOString();
  const days = lastDays(nowD, 30);
  const from30 = `${days[0]}T00:00:00.000Z`;
  const today = `${days[days.length - 1]}T00:00:00.000Z`;
  const one = (sql: string, ...args: unknown[]) => (prep(db, sql, 'pluck').get(...args) as number | null) ?? 0;

  const byStatus = Object.fromEntries(
    (prep(db, 'SELECT status, COUNT(*) AS n FROM subscriptions GROUP BY status').all() as Array<{ status: string; n: number }>).map((r) => [
      r.status,
      r.n,
    ]),
  );
  const subscriptions_by_status = { active: 0, paused: 0, expired: 0, cancelled: 0, ...byStatus };
  const revenueRows = new Map(
    (
      prep(
        db,
        `SELECT substr(transaction_date, 1, 10) AS d, ROUND(SUM(amount), 2) AS amount FROM wallet_transactions
         WHERE transaction_date >= ? AND status = 'completed' AND transaction_type IN ('deduct', 'auto_renewal') GROUP BY d`,
      ).all(from30) as Array<{ d: string; amount: number }>
    ).map((r) => [r.d, r.amount]),
  );
  const newSubs = new Map(
    (
      prep(db, 'SELECT substr(created_date, 1, 10) AS d, COUNT(*) AS n FROM subscriptions WHERE created_date >= ? GROUP BY d').all(
        from30,
      ) as Array<{ d: string; n: number }>
    ).map((r) => [r.d, r.n]),
  );
  const revenue_by_day = days.map((d) => ({ date: d, amount: revenueRows.get(d) ?? 0 }));
  const new_subscriptions_by_day = days.map((d) => ({ date: d, count: newSubs.get(d) ?? 0 }));
  const revenue30 = Math.round(revenue_by_day.reduce((s, r) => s + r.amount, 0) * 100) / 100;

  const totals = {
    services: one('SELECT COUNT(*) FROM services'),
    active_services: one('SELECT COUNT(*) FROM services WHERE is_active = 1'),
    subscription_plans: one('SELECT COUNT(*) FROM subscription_plans'),
    active_plans: one('SELECT COUNT(*) FROM subscription_plans WHERE is_active = 1'),
    service_plan_links: one('SELECT COUNT(*) FROM service_plans'),
    users: one('SELECT COUNT(*) FROM users'),
    active_users: one("SELECT COUNT(*) FROM users WHERE status = 'Active'"),
    subscriptions: Object.values(subscriptions_by_status).reduce((s, n) => s + n, 0),
    active_subscriptions: subscriptions_by_status.active,
    new_subscriptions_30_days: new_subscriptions_by_day.reduce((s, r) => s + r.count, 0),
    expiring_in_7_days: one(
      "SELECT COUNT(*) FROM subscriptions WHERE status = 'active' AND end_date >= ? AND end_date < ?",
      now,
      new Date(nowD.getTime() + 7 * DAY_MS).toISOString(),
    ),
    revenue_30_days: revenue30,
    topups_30_days: one(
      "SELECT ROUND(COALESCE(SUM(amount), 0), 2) FROM wallet_transactions WHERE transaction_date >= ? AND status = 'completed' AND transaction_type = 'topup'",
      from30,
    ),
    wallet_balance_total: one('SELECT ROUND(COALESCE(SUM(wallet_balance), 0), 2) FROM users'),
    usage_today: one('SELECT COUNT(*) FROM usage_logs WHERE used_at >= ?', today),
    usage_30_days: one('SELECT COUNT(*) FROM usage_logs WHERE used_at >= ?', from30),
    unused_codes: one('SELECT COUNT(*) FROM usage_codes WHERE is_used = 0 AND expiry_date > ?', now),
  };
  const top_services = prep(
    db,
    `SELECT s.service_id, s.service_code, s.service_name, s.service_type,
       (SELECT COUNT(*) FROM subscriptions x WHERE x.service_id = s.service_id AND x.status = 'active') AS active_subscriptions,
       (SELECT COUNT(*) FROM usage_logs ul WHERE ul.service_id = s.service_id AND ul.used_at >= ?) AS usage_30_days
     FROM services s ORDER BY active_subscriptions DESC, usage_30_days DESC, s.service_code LIMIT 5`,
  ).all(from30);
  const recent_activity = (
    prep(db, `SELECT * FROM audit_logs ORDER BY id ${ctx.auditOrder} LIMIT 10`).all() as Array<Record<string, unknown>>
  ).map((r) => ({
    ...r,
    details: parseDetails(r.details as string | null),
  }));
  return {
    data: { generated_at: now, totals, subscriptions_by_status, revenue_by_day, new_subscriptions_by_day, top_services, recent_activity },
  };
}

// ---------------------------------------------------------------------------------------------
// Audit

function auditPage(ctx: HandlerContext, userId: number | undefined) {
  const q = ctx.query;
  const w = new Where().opt(userId, 'user_id = ?').opt(q.action, 'action = ?').opt(q.module, 'module = ?');
  dateRange(w, 'created_at', q.start_date, q.end_date);
  const total = count(ctx.db, `SELECT COUNT(*) FROM audit_logs ${w.sql}`, w.args);
  const logs = pageRows(ctx.db, {
    select: 'id, user_id, username, module, action, details, ip_address, user_agent, created_at',
    from: 'audit_logs',
    where: w,
    sort: [],
    tiebreak: 'id',
    order: ctx.auditOrder,
    page: q.page,
    size: q.page_size,
    finish: (page) => {
      for (const r of page) r.details = parseDetails(r.details as string | null);
    },
  });
  return { data: { logs, page: q.page, page_size: q.page_size, total_items: total, total_pages: Math.ceil(total / q.page_size) } };
}

function auditUser(ctx: HandlerContext) {
  const id = ctx.params.id as number;
  if (!prep(ctx.db, 'SELECT 1 FROM users WHERE user_id = ?').get(id)) throw notFound(`user ${id}`);
  return auditPage(ctx, id);
}

export const miscHandlers: HandlerTable = {
  'usage-codes.list': listCodes,
  'usage-codes.generate': generateCodes,
  'wallet.list': listWallet,
  'dashboard.get': dashboard,
  'audit.list': (ctx) => auditPage(ctx, ctx.query.user_id),
  'audit.user': auditUser,
};
