/**
 * Referral handlers: generating, validating, using, updating and deactivating codes, the
 * caller's codes, statistics and referred users, and the staff and admin views.
 */
import { dateAfter } from '../limits.js';
import { SandboxError, type HandlerTable } from '../types.js';
import { applyReferral } from './user-auth.js';
import { caller, isStaffRole, likeAny, mustGetUser, nowIso, pagination, paging } from './user-common.js';
import { CODE_SELECT, codeItem, codeSearch, guardOwner, mustGetCode, newCode, validation, type CodeRow } from './user-referrals-codes.js';
import { pageOfUses, userDetails, userStats, usesSummary } from './user-referrals-uses.js';

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
