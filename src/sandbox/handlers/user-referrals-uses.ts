/**
 * Referral uses as the referral handlers (user-referrals.ts) read them: referred users page by
 * page, their summaries, a referrer's statistics and details.
 */
import type { HandlerContext } from '../types.js';
import { DAY_MS, mustGetUser, nowIso, pagination, paging } from './user-common.js';
import { CODE_SELECT, codeItem, type CodeRow } from './user-referrals-codes.js';

/** Referred users (one row per referral use), with the code and both parties. */
const USES_SELECT = `SELECT ru.id AS referral_use_id, ru.used_date AS referral_date, rc.referral_id, rc.referral_code, rc.is_active AS code_is_active,
       rc.expiry_date AS code_expiry_date, rc.used_count AS code_used_count, rc.usage_limit AS code_usage_limit,
       ru.referrer_id, r.username AS referrer_username, r.full_name AS referrer_full_name, r.email AS referrer_email,
       ru.new_user_id AS referred_user_id, n.username AS referred_username, n.full_name AS referred_full_name, n.email AS referred_email,
       n.status AS referred_status, n.created_date AS referred_created_date, n.last_login_date AS referred_last_login_date
  FROM referral_uses ru JOIN referral_codes rc ON rc.referral_id = ru.referral_id
  JOIN users r ON r.user_id = ru.referrer_id JOIN users n ON n.user_id = ru.new_user_id`;

function useItem(r: Record<string, unknown>, at: string) {
  const codeState = !r.code_is_active ? 'inactive' : r.code_expiry_date && r.code_expiry_date <= at ? 'expired' : 'active';
  return {
    referral_use_id: r.referral_use_id,
    referral_id: r.referral_id,
    referral_code: r.referral_code,
    code_status: codeState,
    referral_date: r.referral_date,
    referrer_id: r.referrer_id,
    referrer_username: r.referrer_username,
    referrer_full_name: r.referrer_full_name,
    referrer_email: r.referrer_email,
    user_id: r.referred_user_id,
    username: r.referred_username,
    full_name: r.referred_full_name,
    email: r.referred_email,
    status: r.referred_status,
    created_date: r.referred_created_date,
    last_login_date: r.referred_last_login_date,
  };
}

export function pageOfUses(ctx: HandlerContext, where: string[], args: unknown[], order = 'ru.used_date DESC, ru.id DESC') {
  const { page_number, page_size } = ctx.query;
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM (${USES_SELECT} ${w})`).get(...args) as { n: number }).n;
  const { offset } = paging(total, page_number, page_size);
  const rows = ctx.db.prepare(`${USES_SELECT} ${w} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...args, page_size, offset) as Array<
    Record<string, unknown>
  >;
  const at = nowIso(ctx);
  return { items: rows.map((r) => useItem(r, at)), pagination: pagination(total, page_number, page_size), total };
}

export function usesSummary(ctx: HandlerContext, where: string, args: unknown[]) {
  const now = ctx.now();
  const monthAgo = new Date(now.getTime() - 30 * DAY_MS).toISOString();
  const weekAgo = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  return ctx.db
    .prepare(
      `SELECT COUNT(*) AS total_referred, COUNT(DISTINCT ru.referrer_id) AS unique_referrers,
              COALESCE(SUM(n.status = 'Active'), 0) AS active_referred, COALESCE(SUM(n.status = 'Pending'), 0) AS pending_referred,
              COALESCE(SUM(ru.used_date >= @weekAgo), 0) AS referred_last_7_days, COALESCE(SUM(ru.used_date >= @monthAgo), 0) AS referred_last_30_days,
              MIN(ru.used_date) AS first_referral_date, MAX(ru.used_date) AS last_referral_date
         FROM referral_uses ru JOIN users n ON n.user_id = ru.new_user_id ${where}`,
    )
    .get(...args, { weekAgo, monthAgo });
}

/** Per-code usage, daily and monthly referral counts and a summary, for one user. */
export function userStats(ctx: HandlerContext, userId: number, periodDays: number) {
  const now = ctx.now();
  const at = now.toISOString();
  const since = new Date(now.getTime() - periodDays * DAY_MS).toISOString();
  const codes = ctx.db
    .prepare(`${CODE_SELECT} WHERE rc.user_id = ? ORDER BY rc.created_date DESC, rc.referral_id DESC`)
    .all(userId) as Array<CodeRow & Record<string, unknown>>;
  const items = codes.map((c) => codeItem(c, at));
  const usage = ctx.db
    .prepare(
      `SELECT rc.referral_id, rc.referral_code, rc.used_count, rc.usage_limit, COUNT(ru.id) AS uses_in_period, MAX(ru.used_date) AS last_used_date
         FROM referral_codes rc LEFT JOIN referral_uses ru ON ru.referral_id = rc.referral_id AND ru.used_date >= ?
        WHERE rc.user_id = ? GROUP BY rc.referral_id ORDER BY rc.used_count DESC, rc.referral_id`,
    )
    .all(since, userId);
  const daily = ctx.db
    .prepare(
      `SELECT substr(used_date, 1, 10) AS date, COUNT(*) AS referrals FROM referral_uses WHERE referrer_id = ? AND used_date >= ? GROUP BY 1 ORDER BY 1`,
    )
    .all(userId, since);
  const monthly = ctx.db
    .prepare(
      `SELECT substr(used_date, 1, 7) AS month, COUNT(*) AS referrals FROM referral_uses WHERE referrer_id = ? AND used_date >= ? GROUP BY 1 ORDER BY 1`,
    )
    .all(userId, new Date(now.getTime() - 365 * DAY_MS).toISOString());
  const codesCreatedDaily = ctx.db
    .prepare(
      `SELECT substr(created_date, 1, 10) AS date, COUNT(*) AS codes_created FROM referral_codes WHERE user_id = ? AND created_date >= ? GROUP BY 1 ORDER BY 1`,
    )
    .all(userId, since) as Array<{ date: string; codes_created: number }>;
  const activity = new Map<string, { date: string; referrals: number; codes_created: number }>();
  for (const d of daily as Array<{ date: string; referrals: number }>)
    activity.set(d.date, { date: d.date, referrals: d.referrals, codes_created: 0 });
  for (const d of codesCreatedDaily) {
    const e = activity.get(d.date) ?? { date: d.date, referrals: 0, codes_created: 0 };
    e.codes_created = d.codes_created;
    activity.set(d.date, e);
  }
  const totalReferrals = (ctx.db.prepare('SELECT COUNT(*) AS n FROM referral_uses WHERE referrer_id = ?').get(userId) as { n: number }).n;
  const inPeriod = (
    ctx.db.prepare('SELECT COUNT(*) AS n FROM referral_uses WHERE referrer_id = ? AND used_date >= ?').get(userId, since) as { n: number }
  ).n;
  const summary = {
    total_codes: items.length,
    active_codes: items.filter((c) => c.status === 'active').length,
    inactive_codes: items.filter((c) => c.status === 'inactive').length,
    expired_codes: items.filter((c) => c.status === 'expired').length,
    exhausted_codes: items.filter((c) => c.status === 'exhausted').length,
    total_referrals: totalReferrals,
    total_capacity: items.reduce((s, c) => s + c.usage_limit, 0),
    remaining_uses: items.filter((c) => c.status === 'active').reduce((s, c) => s + c.remaining_uses, 0),
    referrals_in_period: inPeriod,
    codes_created_in_period: items.filter((c) => c.created_date >= since).length,
    period_days: periodDays,
  };
  return { items, usage, daily, monthly, activity: [...activity.values()].sort((a, b) => a.date.localeCompare(b.date)), summary };
}

export function userDetails(ctx: HandlerContext, userId: number) {
  const u = mustGetUser(ctx.db, userId);
  const referredBy = ctx.db
    .prepare(
      `SELECT rc.referral_code, rc.referral_id, ru.used_date AS referral_date, r.user_id AS referrer_id, r.username AS referrer_username
         FROM referral_uses ru JOIN referral_codes rc ON rc.referral_id = ru.referral_id JOIN users r ON r.user_id = ru.referrer_id
        WHERE ru.new_user_id = ?`,
    )
    .get(userId);
  return {
    user_id: u.user_id,
    username: u.username,
    email: u.email,
    full_name: u.full_name,
    role: u.role,
    status: u.status,
    created_date: u.created_date,
    referred_by: referredBy ?? null,
  };
}
