/**
 * The superadmin user list (`users.search`): filters, a page of users with their roles and
 * activity, and statistics over every user the filters keep.
 */
import { daysBefore } from '../limits.js';
import type { Handler, HandlerContext } from '../types.js';
import { DAY_MS, daysBetween, heldRoles, likeAny, paging, type UserRow } from './user-common.js';

/** The one list filter naming Suspended reads it as Banned. */
export function statusFilter(s: string | undefined): string | undefined {
  return s === 'Suspended' ? 'Banned' : s;
}

function activityStatus(last: string | null, now: Date): string {
  if (!last) return 'Never logged in';
  const days = (now.getTime() - Date.parse(last)) / DAY_MS;
  if (days < 1) return 'Active today';
  if (days < 7) return 'Active this week';
  if (days < 30) return 'Active this month';
  if (days < 90) return 'Inactive 30+ days';
  return 'Dormant';
}

/** The query's filters as SQL conditions on `users u`, with their arguments. */
function searchWhere(qy: HandlerContext['query'], now: Date): { where: string[]; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  const st = statusFilter(qy.status);
  if (st) {
    where.push('u.status = ?');
    args.push(st);
  }
  if (qy.search_keyword) {
    where.push("(u.username LIKE ? ESCAPE '\\' OR u.email LIKE ? ESCAPE '\\' OR u.full_name LIKE ? ESCAPE '\\')");
    const p = likeAny(qy.search_keyword);
    args.push(p, p, p);
  }
  if (qy.role) {
    where.push('(u.role = ? COLLATE NOCASE OR EXISTS (SELECT 1 FROM user_roles ur WHERE ur.user_id = u.user_id AND ur.role_name = ?))');
    args.push(qy.role, qy.role);
  }
  if (qy.created_date_from) {
    where.push('substr(u.created_date, 1, 10) >= ?');
    args.push(qy.created_date_from);
  }
  if (qy.created_date_to) {
    where.push('substr(u.created_date, 1, 10) <= ?');
    args.push(qy.created_date_to);
  }
  if (qy.created_by !== undefined) {
    where.push('u.created_by = ?');
    args.push(qy.created_by);
  }
  if (qy.last_login_days !== undefined) {
    where.push('u.last_login_date IS NOT NULL AND u.last_login_date >= ?');
    // Any number of days back is fine: past the earliest date it keeps everyone who signed in.
    args.push(daysBefore(now, qy.last_login_days));
  }
  if (qy.has_referrals !== undefined) {
    where.push(`${qy.has_referrals ? '' : 'NOT '}EXISTS (SELECT 1 FROM referral_uses ru WHERE ru.referrer_id = u.user_id)`);
  }
  return { where, args };
}

type FoundUser = UserRow & Record<string, unknown>;

/** One user of the list: roles held (and how many are active), creator, activity, referrals. */
function searchItem(ctx: HandlerContext, u: FoundUser, activeRoles: Set<string>, now: Date) {
  const held = heldRoles(ctx.db, u.user_id);
  return {
    user_id: u.user_id,
    username: u.username,
    email: u.email,
    full_name: u.full_name,
    status: u.status,
    role_names: held.map((h) => h.role_name),
    active_role_count: held.filter((h) => activeRoles.has(h.role_name.toLowerCase())).length,
    created_date: u.created_date,
    created_by_username: u.created_by_username ?? null,
    created_by_full_name: u.created_by_full_name ?? null,
    days_since_created: daysBetween(u.created_date, now),
    last_login_date: u.last_login_date,
    days_since_last_login: u.last_login_date ? daysBetween(u.last_login_date, now) : null,
    activity_status: activityStatus(u.last_login_date, now),
    referral_count: u.referral_count,
    times_referred: u.times_referred,
  };
}

/** Counts by status and by last sign-in over every user `base` (with `%COLS%` to fill) keeps. */
function searchStatistics(ctx: HandlerContext, base: string, args: unknown[], now: Date): unknown {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
  const weekAgo = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  const monthAgo = new Date(now.getTime() - 30 * DAY_MS).toISOString();
  const statistics = ctx.db
    .prepare(
      base.replace(
        '%COLS%',
        `COUNT(*) AS total_users,
         COALESCE(SUM(u.status = 'Active'), 0) AS active_users,
         COALESCE(SUM(u.status = 'Inactive'), 0) AS inactive_users,
         COALESCE(SUM(u.status = 'Banned'), 0) AS banned_users,
         COALESCE(SUM(u.status = 'Pending'), 0) AS pending_users,
         COALESCE(SUM(u.last_login_date IS NULL), 0) AS never_logged_in,
         COALESCE(SUM(u.last_login_date >= @dayStart), 0) AS logged_in_today,
         COALESCE(SUM(u.last_login_date >= @weekAgo), 0) AS logged_in_this_week,
         COALESCE(SUM(u.last_login_date >= @monthAgo), 0) AS logged_in_this_month,
         COUNT(DISTINCT u.created_by) AS unique_creators,
         MIN(u.created_date) AS first_user_created,
         MAX(u.created_date) AS last_user_created`,
      ),
    )
    .get(...args, { dayStart, weekAgo, monthAgo });
  return statistics;
}

export const searchUsers: Handler = (ctx) => {
  const qy = ctx.query;
  const now = ctx.now();
  const { where, args } = searchWhere(qy, now);
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const base = `SELECT %COLS% FROM users u ${w}`;
  const total = (ctx.db.prepare(base.replace('%COLS%', 'COUNT(*) AS n')).get(...args) as { n: number }).n;
  const { offset, total_pages } = paging(total, qy.page_number, qy.page_size);
  const dir = qy.sort_order === 'ASC' ? 'ASC' : 'DESC';
  const sortCol = {
    created_date: 'u.created_date',
    last_login_date: 'u.last_login_date',
    username: 'u.username',
    email: 'u.email',
    status: 'u.status',
  }[qy.sort_by as string]!;
  const rows = ctx.db
    .prepare(
      `${base
        .replace(
          '%COLS%',
          `u.*, c.username AS created_by_username, c.full_name AS created_by_full_name,
         (SELECT COUNT(*) FROM referral_uses ru WHERE ru.referrer_id = u.user_id) AS referral_count,
         (SELECT COUNT(*) FROM referral_uses ru WHERE ru.new_user_id = u.user_id) AS times_referred`,
        )
        .replace(`FROM users u ${w}`, `FROM users u LEFT JOIN users c ON c.user_id = u.created_by ${w}`)}
       ORDER BY (${sortCol} IS NULL), ${sortCol} ${dir}, u.user_id ${dir} LIMIT ? OFFSET ?`,
    )
    .all(...args, qy.page_size, offset) as Array<UserRow & Record<string, unknown>>;
  const activeRoles = new Set(
    (ctx.db.prepare('SELECT role_name FROM roles WHERE is_active = 1').all() as Array<{ role_name: string }>).map((r) =>
      r.role_name.toLowerCase(),
    ),
  );
  const users = rows.map((u) => searchItem(ctx, u, activeRoles, now));
  const statistics = searchStatistics(ctx, base, args, now);
  return {
    data: {
      users,
      statistics,
      page_info: { page_number: qy.page_number, page_size: qy.page_size, total_count: total, total_pages },
    },
  };
};
