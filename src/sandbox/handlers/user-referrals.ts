/**
 * Referral handlers: generating, validating, using, updating and deactivating codes, the
 * caller's codes, statistics and referred users, and the staff and admin views.
 */
import { builtin } from '../../builtin.js';
import { dateAfter } from '../limits.js';
import { SandboxError, type DB, type HandlerContext, type HandlerTable } from '../types.js';
import { applyReferral } from './user-auth.js';
import { bool, caller, DAY_MS, isAdminRole, isStaffRole, likeAny, mustGetUser, nowIso, pagination, paging } from './user-common.js';

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

interface CodeRow {
  referral_id: number;
  user_id: number;
  referral_code: string;
  description: string | null;
  usage_limit: number;
  used_count: number;
  expiry_date: string | null;
  is_active: number;
  deactivated_reason: string | null;
  deactivated_date: string | null;
  created_date: string;
  modified_date: string | null;
}

/** active, inactive (deactivated), expired or exhausted (no uses left). */
function codeStatus(c: CodeRow, at: string): 'active' | 'inactive' | 'expired' | 'exhausted' {
  if (!c.is_active) return 'inactive';
  if (c.expiry_date && c.expiry_date <= at) return 'expired';
  if (c.used_count >= c.usage_limit) return 'exhausted';
  return 'active';
}

function daysRemaining(expiry: string | null, at: string): number | null {
  if (!expiry) return null;
  return Math.max(0, Math.ceil((Date.parse(expiry) - Date.parse(at)) / DAY_MS));
}

function codeItem(c: CodeRow & Record<string, unknown>, at: string) {
  return {
    referral_id: c.referral_id,
    referral_code: c.referral_code,
    description: c.description,
    user_id: c.user_id,
    owner_username: c.owner_username ?? undefined,
    owner_full_name: c.owner_full_name ?? undefined,
    usage_limit: c.usage_limit,
    used_count: c.used_count,
    remaining_uses: Math.max(0, c.usage_limit - c.used_count),
    expiry_date: c.expiry_date,
    days_remaining: daysRemaining(c.expiry_date, at),
    is_active: bool(c.is_active),
    is_expired: !!c.expiry_date && c.expiry_date <= at,
    status: codeStatus(c, at),
    deactivated_reason: c.deactivated_reason,
    deactivated_date: c.deactivated_date,
    created_date: c.created_date,
    modified_date: c.modified_date,
  };
}

const CODE_SELECT = `SELECT rc.*, o.username AS owner_username, o.full_name AS owner_full_name FROM referral_codes rc JOIN users o ON o.user_id = rc.user_id`;

function mustGetCode(ctx: HandlerContext, id: number): CodeRow {
  const c = ctx.db.prepare('SELECT * FROM referral_codes WHERE referral_id = ?').get(id) as CodeRow | undefined;
  if (!c) throw new SandboxError(404, `referral code ${id} not found`, 'REFERRAL_NOT_FOUND');
  return c;
}

/** The owner or an admin may change a code (403 otherwise). */
function guardOwner(ctx: HandlerContext, c: CodeRow) {
  const me = caller(ctx);
  if (c.user_id !== me.user_id && !isAdminRole(me.role))
    throw new SandboxError(403, 'only the owner or an admin may change this referral code', 'FORBIDDEN');
}

function newCode(db: DB): string {
  for (;;) {
    const code = `REF-${Array.from({ length: 6 }, () => CODE_ALPHABET[builtin('node:crypto').randomInt(CODE_ALPHABET.length)]).join('')}`;
    if (!db.prepare('SELECT 1 FROM referral_codes WHERE referral_code = ?').get(code)) return code;
  }
}

/** The validation answer for a code (never an error status). */
function validation(ctx: HandlerContext, code: string) {
  const at = nowIso(ctx);
  const c = ctx.db.prepare(`${CODE_SELECT} WHERE rc.referral_code = ?`).get(code) as (CodeRow & Record<string, unknown>) | undefined;
  if (!c) {
    return {
      success: false,
      is_valid: false,
      error_code: 'REFERRAL_NOT_FOUND',
      reason: 'not_found',
      message: 'referral code not found',
      referral_code: code,
    };
  }
  const status = codeStatus(c, at);
  const reasons = {
    active: ['', 'referral code is valid'],
    inactive: ['REFERRAL_DEACTIVATED', `referral code was deactivated${c.deactivated_reason ? `: ${c.deactivated_reason}` : ''}`],
    expired: ['REFERRAL_EXPIRED', 'referral code has expired'],
    exhausted: ['REFERRAL_EXHAUSTED', 'referral code has no uses left'],
  } as const;
  const valid = status === 'active';
  return {
    success: valid,
    is_valid: valid,
    error_code: valid ? null : reasons[status][0],
    reason: valid ? null : status,
    message: reasons[status][1],
    referral_id: c.referral_id,
    referral_code: c.referral_code,
    referrer_id: c.user_id,
    referrer_username: c.owner_username,
    referrer_full_name: c.owner_full_name,
    usage_limit: c.usage_limit,
    used_count: c.used_count,
    remaining_uses: Math.max(0, c.usage_limit - c.used_count),
    expiry_date: c.expiry_date,
    days_remaining: daysRemaining(c.expiry_date, at),
  };
}

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

function pageOfUses(ctx: HandlerContext, where: string[], args: unknown[], order = 'ru.used_date DESC, ru.id DESC') {
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

function usesSummary(ctx: HandlerContext, where: string, args: unknown[]) {
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
function userStats(ctx: HandlerContext, userId: number, periodDays: number) {
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

function userDetails(ctx: HandlerContext, userId: number) {
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

function codeSearch(ctx: HandlerContext, allCodes: boolean) {
  const { search_keyword, page_number, page_size } = ctx.query;
  const at = nowIso(ctx);
  const where: string[] = [];
  const args: unknown[] = [];
  if (!allCodes) {
    where.push('rc.is_active = 1 AND (rc.expiry_date IS NULL OR rc.expiry_date > ?) AND rc.used_count < rc.usage_limit');
    args.push(at);
  }
  if (search_keyword) {
    where.push(
      "(rc.referral_code LIKE ? ESCAPE '\\' OR rc.description LIKE ? ESCAPE '\\' OR o.username LIKE ? ESCAPE '\\' OR o.full_name LIKE ? ESCAPE '\\')",
    );
    const p = likeAny(search_keyword);
    args.push(p, p, p, p);
  }
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM (${CODE_SELECT} ${w})`).get(...args) as { n: number }).n;
  const { offset } = paging(total, page_number, page_size);
  const rows = ctx.db
    .prepare(`${CODE_SELECT} ${w} ORDER BY rc.created_date DESC, rc.referral_id DESC LIMIT ? OFFSET ?`)
    .all(...args, page_size, offset) as Array<CodeRow & Record<string, unknown>>;
  return { data: { referral_codes: rows.map((r) => codeItem(r, at)), pagination: pagination(total, page_number, page_size) } };
}

export const referralHandlers: HandlerTable = {
  'referrals.generate': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    const at = ctx.now();
    const expiry = dateAfter(at, b.expiry_days, 'days', {
      field: 'expiry_days',
      message: `expiry_days ${b.expiry_days}: the code would expire after 9999-12-31`,
    });
    const { id, code } = ctx.db.transaction(() => {
      const code = newCode(ctx.db);
      const r = ctx.db
        .prepare(
          'INSERT INTO referral_codes (user_id, referral_code, description, usage_limit, used_count, expiry_date, is_active, created_date) VALUES (?, ?, ?, ?, 0, ?, 1, ?)',
        )
        .run(me.user_id, code, b.description, b.usage_limit, expiry, at.toISOString());
      return { id: Number(r.lastInsertRowid), code };
    })();
    ctx.audit('referrals', 'generate', { referral_id: id, referral_code: code, usage_limit: b.usage_limit, expiry_date: expiry });
    return {
      message: 'referral code generated',
      data: {
        success: true,
        error_code: null,
        message: 'referral code generated',
        referral_id: id,
        referral_code: code,
        description: b.description,
        usage_limit: b.usage_limit,
        expiry_date: expiry,
      },
    };
  },

  'referrals.validate': (ctx) => {
    const v = validation(ctx, ctx.body.referral_code);
    return { message: v.message, data: v };
  },

  'referrals.use': (ctx) => {
    const me = caller(ctx);
    const b = ctx.body;
    if (b.new_user_id !== me.user_id && !isStaffRole(me.role)) {
      throw new SandboxError(403, 'you may only record a referral for your own account', 'FORBIDDEN');
    }
    mustGetUser(ctx.db, b.new_user_id);
    const at = nowIso(ctx);
    const applied = ctx.db.transaction(() => applyReferral(ctx.db, b.referral_code, b.new_user_id, at))();
    ctx.audit('referrals', 'use', { referral_id: applied.referral_id, referral_code: applied.referral_code, new_user_id: b.new_user_id });
    const v = validation(ctx, applied.referral_code);
    return {
      message: 'referral recorded',
      data: {
        ...v,
        success: true,
        is_valid: v.is_valid,
        error_code: null,
        message: 'referral recorded',
        new_user_id: b.new_user_id,
        referral_date: at,
      },
    };
  },

  'referrals.update': (ctx) => {
    const b = ctx.body;
    const c = mustGetCode(ctx, b.referral_code_id);
    guardOwner(ctx, c);
    if (b.new_usage_limit === undefined && b.new_expiry_date === undefined) {
      throw new SandboxError(400, 'give new_usage_limit or new_expiry_date', 'NOTHING_TO_UPDATE');
    }
    const at = nowIso(ctx);
    if (b.new_usage_limit !== undefined && b.new_usage_limit < c.used_count) {
      throw new SandboxError(400, `new_usage_limit cannot be below the ${c.used_count} uses already made`, 'LIMIT_BELOW_USES', [
        { field: 'new_usage_limit', message: `at least ${c.used_count}` },
      ]);
    }
    // A date means the end of that day (UTC).
    const expiry = b.new_expiry_date !== undefined ? `${b.new_expiry_date}T23:59:59.999Z` : c.expiry_date;
    if (b.new_expiry_date !== undefined && expiry! <= at) {
      throw new SandboxError(400, 'new_expiry_date must be in the future', 'EXPIRY_IN_PAST', [
        { field: 'new_expiry_date', message: 'in the past' },
      ]);
    }
    ctx.db
      .prepare('UPDATE referral_codes SET usage_limit = ?, expiry_date = ?, modified_date = ? WHERE referral_id = ?')
      .run(b.new_usage_limit ?? c.usage_limit, expiry, at, c.referral_id);
    ctx.audit('referrals', 'update', {
      referral_id: c.referral_id,
      referral_code: c.referral_code,
      usage_limit: [c.usage_limit, b.new_usage_limit ?? c.usage_limit],
      expiry_date: [c.expiry_date, expiry],
    });
    const after = ctx.db.prepare(`${CODE_SELECT} WHERE rc.referral_id = ?`).get(c.referral_id) as CodeRow & Record<string, unknown>;
    return { message: 'referral code updated', data: { success: true, message: 'referral code updated', ...codeItem(after, at) } };
  },

  'referrals.deactivate': (ctx) => {
    const b = ctx.body;
    const c = mustGetCode(ctx, b.referral_code_id);
    guardOwner(ctx, c);
    if (!c.is_active) throw new SandboxError(409, 'referral code is already deactivated', 'ALREADY_DEACTIVATED');
    const at = nowIso(ctx);
    ctx.db
      .prepare(
        'UPDATE referral_codes SET is_active = 0, deactivated_reason = ?, deactivated_date = ?, modified_date = ? WHERE referral_id = ?',
      )
      .run(b.reason, at, at, c.referral_id);
    ctx.audit('referrals', 'deactivate', { referral_id: c.referral_id, referral_code: c.referral_code, reason: b.reason });
    return {
      message: 'referral code deactivated',
      data: {
        success: true,
        message: 'referral code deactivated',
        referral_id: c.referral_id,
        referral_code: c.referral_code,
        reason: b.reason,
        deactivated_date: at,
      },
    };
  },

  'referrals.mine': (ctx) => {
    const me = caller(ctx);
    const { include_inactive, search_keyword, page_number, page_size } = ctx.query;
    const at = nowIso(ctx);
    const where = ['rc.user_id = ?'];
    const args: unknown[] = [me.user_id];
    if (!include_inactive) where.push('rc.is_active = 1');
    if (search_keyword) {
      where.push("(rc.referral_code LIKE ? ESCAPE '\\' OR rc.description LIKE ? ESCAPE '\\')");
      const p = likeAny(search_keyword);
      args.push(p, p);
    }
    const w = `WHERE ${where.join(' AND ')}`;
    const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM (${CODE_SELECT} ${w})`).get(...args) as { n: number }).n;
    const { offset } = paging(total, page_number, page_size);
    const rows = ctx.db
      .prepare(`${CODE_SELECT} ${w} ORDER BY rc.created_date DESC, rc.referral_id DESC LIMIT ? OFFSET ?`)
      .all(...args, page_size, offset) as Array<CodeRow & Record<string, unknown>>;
    const s = userStats(ctx, me.user_id, 30).summary;
    return {
      data: {
        codes: rows.map((r) => codeItem(r, at)),
        summary: {
          total_codes: s.total_codes,
          active_codes: s.active_codes,
          total_referrals: s.total_referrals,
          remaining_uses: s.remaining_uses,
        },
        pagination: pagination(total, page_number, page_size),
      },
    };
  },

  'referrals.stats': (ctx) => {
    const me = caller(ctx);
    const s = userStats(ctx, me.user_id, 30);
    return {
      data: {
        user_summary: { ...userDetails(ctx, me.user_id), ...s.summary },
        summary: s.summary,
        statistics: s.summary,
        code_details: s.items,
        code_usage: s.usage,
        daily_stats: s.daily,
        monthly_stats: s.monthly,
      },
    };
  },

  'referrals.info': (ctx) => {
    const s = userStats(ctx, ctx.params.user_id, 30);
    return {
      data: {
        user_details: userDetails(ctx, ctx.params.user_id),
        codes: s.items,
        code_details: s.items,
        summary: s.summary,
        statistics: s.summary,
      },
    };
  },

  'referrals.referred': (ctx) => {
    const me = caller(ctx);
    const p = pageOfUses(ctx, ['ru.referrer_id = ?'], [me.user_id]);
    return {
      data: { referred_users: p.items, summary: usesSummary(ctx, 'WHERE ru.referrer_id = ?', [me.user_id]), pagination: p.pagination },
    };
  },

  'referrals.search': (ctx) => codeSearch(ctx, false),

  'referrals.admin-search': (ctx) => codeSearch(ctx, true),

  'referrals.admin-list': (ctx) => {
    const qy = ctx.query;
    const at = nowIso(ctx);
    const where: string[] = [];
    const args: unknown[] = [];
    if (qy.filter_status === 'active') {
      where.push('rc.is_active = 1 AND (rc.expiry_date IS NULL OR rc.expiry_date > ?)');
      args.push(at);
    } else if (qy.filter_status === 'inactive') where.push('rc.is_active = 0');
    else if (qy.filter_status === 'expired') {
      where.push('rc.is_active = 1 AND rc.expiry_date <= ?');
      args.push(at);
    }
    if (qy.filter_date_from) {
      where.push('substr(ru.used_date, 1, 10) >= ?');
      args.push(qy.filter_date_from);
    }
    if (qy.filter_date_to) {
      where.push('substr(ru.used_date, 1, 10) <= ?');
      args.push(qy.filter_date_to);
    }
    if (qy.search_keyword) {
      where.push(
        "(rc.referral_code LIKE ? ESCAPE '\\' OR r.username LIKE ? ESCAPE '\\' OR n.username LIKE ? ESCAPE '\\' OR n.email LIKE ? ESCAPE '\\' OR n.full_name LIKE ? ESCAPE '\\')",
      );
      const p = likeAny(qy.search_keyword);
      args.push(p, p, p, p, p);
    }
    const dir = qy.sort_order === 'ASC' ? 'ASC' : 'DESC';
    const col =
      { ReferralDate: 'ru.used_date', Username: 'n.username', ReferralCode: 'rc.referral_code' }[qy.sort_by as string] ?? 'ru.used_date';
    const p = pageOfUses(ctx, where, args, `${col} ${dir}, ru.id ${dir}`);
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const summary = ctx.db
      .prepare(
        `SELECT COUNT(*) AS total_referrals, COUNT(DISTINCT ru.referrer_id) AS unique_referrers, COUNT(DISTINCT ru.referral_id) AS codes_used,
                MIN(ru.used_date) AS first_referral_date, MAX(ru.used_date) AS last_referral_date
           FROM referral_uses ru JOIN referral_codes rc ON rc.referral_id = ru.referral_id
           JOIN users r ON r.user_id = ru.referrer_id JOIN users n ON n.user_id = ru.new_user_id ${w}`,
      )
      .get(...args);
    return { data: { referrals: p.items, summary, pagination: p.pagination } };
  },

  'referrals.admin-referred': (ctx) => {
    const where: string[] = [];
    const args: unknown[] = [];
    if (ctx.query.search_keyword) {
      where.push(
        "(n.username LIKE ? ESCAPE '\\' OR n.email LIKE ? ESCAPE '\\' OR n.full_name LIKE ? ESCAPE '\\' OR r.username LIKE ? ESCAPE '\\' OR rc.referral_code LIKE ? ESCAPE '\\')",
      );
      const p = likeAny(ctx.query.search_keyword);
      args.push(p, p, p, p, p);
    }
    const p = pageOfUses(ctx, where, args);
    return { data: { referred_users: p.items, summary: usesSummary(ctx, '', []), pagination: p.pagination } };
  },

  'referrals.admin-user-referred': (ctx) => {
    const details = userDetails(ctx, ctx.params.user_id);
    const p = pageOfUses(ctx, ['ru.referrer_id = ?'], [ctx.params.user_id]);
    return {
      data: {
        referred_users: p.items,
        user_details: details,
        summary: usesSummary(ctx, 'WHERE ru.referrer_id = ?', [ctx.params.user_id]),
        pagination: p.pagination,
      },
    };
  },

  'referrals.admin-user-stats': (ctx) => {
    const details = userDetails(ctx, ctx.params.user_id);
    const period = ctx.query.stats_period ?? 30;
    const s = userStats(ctx, ctx.params.user_id, period);
    return {
      data: {
        user_summary: { ...details, ...s.summary },
        statistics: s.summary,
        code_usage: s.usage,
        code_details: s.items,
        daily_activity: s.activity,
        daily_stats: s.daily,
        monthly_stats: s.monthly,
      },
    };
  },
};
