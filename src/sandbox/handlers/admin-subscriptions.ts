/**
 * Subscriptions and maintenance (the API documents' administrator area, "Subscriptions and maintenance"):
 * the list, the manage actions and their transitions, delete, and the cleanup.
 */
import { prep } from '../db.js';
import { addCredits, dateAfter, daysBefore } from '../limits.js';
import { SandboxError, type DB, type HandlerContext, type HandlerTable } from '../types.js';
import {
  b01,
  badRequest,
  conflict,
  count,
  dateRange,
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

const SUB_SORT: SortMap = {
  Username: 'u.username',
  // NULL when the service is gone (LEFT JOIN).
  ServiceCode: { expr: 's.service_code', nullable: true },
  StartDate: 'x.start_date',
  EndDate: 'x.end_date',
  CreatedDate: 'x.created_date',
};

/** The list item (point 3 "User subscription") plus the detail's reset dates; is_expired is set against the clock per request. */
const SUB_ITEM = `x.subscription_id, x.user_id, u.username, u.full_name, u.email, s.service_code, s.service_name, p.plan_code, p.plan_name,
  x.status, x.start_date, x.end_date, NULL AS is_expired, x.auto_renewal, x.payment_method, x.price, x.currency,
  x.total_credits, x.used_credits, x.total_credits - x.used_credits AS remaining_credits, x.renewal_count, x.activation_code,
  x.activation_batch, x.created_date, x.last_updated, x.last_reset_date, x.next_reset_date`;
const SUB_FROM = `subscriptions x JOIN users u ON u.user_id = x.user_id LEFT JOIN services s ON s.service_id = x.service_id
  LEFT JOIN subscription_plans p ON p.plan_id = x.plan_id`;

function list(ctx: HandlerContext) {
  const q = ctx.query;
  const now = nowIso(ctx);
  const w = new Where()
    .opt(q.user_id, 'x.user_id = ?')
    .opt(
      q.username,
      "x.user_id IN (SELECT user_id FROM users WHERE fold(username) LIKE fold(?) ESCAPE '\\')",
      q.username === undefined ? undefined : likeAny(q.username),
    )
    .opt(q.service_code, 'x.service_id = (SELECT service_id FROM services WHERE service_code = ?)')
    .opt(q.plan_code, 'x.plan_id = (SELECT plan_id FROM subscription_plans WHERE plan_code = ?)')
    .opt(q.status, 'x.status = ?')
    .opt(q.payment_method, 'x.payment_method = ?')
    .opt(b01(q.auto_renewal), 'x.auto_renewal = ?');
  dateRange(w, 'x.start_date', q.start_date_from, q.start_date_to);
  dateRange(w, 'x.end_date', q.end_date_from, q.end_date_to);
  if (q.is_expired !== undefined) w.add(q.is_expired ? 'x.end_date < ?' : 'x.end_date >= ?', now);
  const total = count(ctx.db, `SELECT COUNT(*) FROM subscriptions x ${w.sql}`, w.args);
  const sort = sortColumns(SUB_SORT, q.sort_by);
  const subscriptions = pageRows(ctx.db, {
    select: SUB_ITEM,
    from: SUB_FROM,
    // Every subscription has its user (NOT NULL, ON DELETE CASCADE) and at most one service and
    // plan, and the filters name only x: the page's rows are chosen in x alone unless the
    // sort is on a joined table.
    keyFrom: sort.every((c) => c.expr.startsWith('x.')) ? 'subscriptions x' : undefined,
    where: w,
    sort,
    tiebreak: 'x.subscription_id',
    order: q.sort_order,
    page: q.page_number,
    size: q.page_size,
    bools: ['auto_renewal'],
  });
  for (const s of subscriptions) s.is_expired = (s.end_date as string) < now;
  return { data: { pagination: pagination(total, q.page_number, q.page_size), subscriptions } };
}

interface SubRow {
  subscription_id: number;
  user_id: number;
  status: string;
  start_date: string;
  end_date: string;
  total_credits: number;
  used_credits: number;
  auto_renewal: number;
  next_reset_date: string | null;
}

const VERB: Record<string, string> = { add_credits: 'add credits to' };

function forbidden(action: string, status: string): SandboxError {
  return new SandboxError(400, `cannot ${VERB[action] ?? action} a subscription that is ${status}`, 'INVALID_TRANSITION', [
    { field: 'action', message: `${action} is not allowed when the status is ${status}` },
  ]);
}

/** A subscription's row as `manage` changes it. */
interface ManagedState {
  status: string;
  end: string;
  total: number;
  autoRenewal: number;
  message: string;
}

/**
 * The manage transitions (the specification leaves them open; README "Sandbox decisions"):
 * extend: active|paused|expired, end_date += extend_days (expired comes back to active when the
 * new end is in the future); pause: active; resume: paused (not past its end); cancel:
 * active|paused; add_credits: active|paused.
 *
 * Where `b.action` takes subscription `sub` (`id`) at `now`, or why it cannot (400).
 */
function transition(sub: SubRow, b: HandlerContext['body'], id: number, now: string): ManagedState {
  const from = sub.status;
  let status = sub.status;
  let end = sub.end_date;
  let total = sub.total_credits;
  let autoRenewal = sub.auto_renewal;
  let message: string;
  switch (b.action) {
    case 'extend': {
      if (b.extend_days === undefined) throw badRequest('extend needs extend_days (a whole number of days, at least 1)', 'extend_days');
      if (b.extend_days <= 0) throw badRequest('extend_days must be at least 1', 'extend_days');
      if (from === 'cancelled')
        throw new SandboxError(400, 'cannot extend a cancelled subscription', 'INVALID_TRANSITION', [
          { field: 'action', message: 'extend is not allowed when the status is cancelled' },
        ]);
      end = dateAfter(sub.end_date, b.extend_days, 'days', {
        field: 'extend_days',
        message: `extend_days ${b.extend_days} would move subscription ${id}'s end (${sub.end_date.slice(0, 10)}) past 9999-12-31`,
      });
      if (from === 'expired' && end > now) status = 'active';
      message = `subscription ${id} extended by ${b.extend_days} day(s) to ${end.slice(0, 10)}${status !== from ? ' and active again' : ''}`;
      break;
    }
    case 'pause':
      if (from !== 'active') throw forbidden('pause', from);
      status = 'paused';
      message = `subscription ${id} paused`;
      break;
    case 'resume':
      if (from !== 'paused') throw forbidden('resume', from);
      if (sub.end_date <= now) {
        throw new SandboxError(
          400,
          `cannot resume subscription ${id}: it ended on ${sub.end_date.slice(0, 10)}; extend it first`,
          'INVALID_TRANSITION',
          [{ field: 'action', message: 'the subscription has ended' }],
        );
      }
      status = 'active';
      message = `subscription ${id} resumed`;
      break;
    case 'cancel':
      if (from !== 'active' && from !== 'paused') throw forbidden('cancel', from);
      status = 'cancelled';
      autoRenewal = 0;
      message = `subscription ${id} cancelled`;
      break;
    case 'add_credits':
      if (b.extend_credits === undefined)
        throw badRequest('add_credits needs extend_credits (a whole number, at least 1)', 'extend_credits');
      if (b.extend_credits <= 0) throw badRequest('extend_credits must be at least 1', 'extend_credits');
      if (from !== 'active' && from !== 'paused') throw forbidden('add_credits', from);
      total = addCredits(sub.total_credits, b.extend_credits, {
        field: 'extend_credits',
        message: `extend_credits ${b.extend_credits} would take subscription ${id}'s ${sub.total_credits} credits past ${Number.MAX_SAFE_INTEGER}`,
      });
      message = `${b.extend_credits} credit(s) added to subscription ${id}`;
      break;
    default:
      throw badRequest(`unknown action ${b.action}`, 'action');
  }
  return { status, end, total, autoRenewal, message };
}

/** Writes the changed columns of `sub` (`id`). */
function writeManaged(db: DB, sub: SubRow, to: ManagedState, id: number, now: string): void {
  const { status, end, total, autoRenewal } = to;
  // The row as it ends up: a running subscription's next reset is its end. Only the columns
  // that change are written: SQLite rewrites every index on a column it sets, even to the
  // same value, and each index page touched is written to the WAL again at commit.
  const next = status === 'active' || status === 'paused' ? end : sub.next_reset_date;
  const set = ['last_updated = ?'];
  const args: unknown[] = [now];
  const change = (column: string, from: unknown, to: unknown) => {
    if (from !== to) {
      set.push(`${column} = ?`);
      args.push(to);
    }
  };
  change('status', sub.status, status);
  change('end_date', sub.end_date, end);
  change('total_credits', sub.total_credits, total);
  change('auto_renewal', sub.auto_renewal, autoRenewal);
  change('next_reset_date', sub.next_reset_date, next);
  prep(db, `UPDATE subscriptions SET ${set.join(', ')} WHERE subscription_id = ?`).run(...args, id);
}

/** Manages one subscription (transition), writes the change and audits it. */
function manage(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  const id = ctx.params.id as number;
  return inTransaction(db, () => {
    const sub = prep(
      db,
      'SELECT subscription_id, user_id, status, start_date, end_date, total_credits, used_credits, auto_renewal, next_reset_date FROM subscriptions WHERE subscription_id = ?',
    ).get(id) as SubRow | undefined;
    if (!sub) throw notFound(`subscription ${id}`);
    if (b.reason.trim() === '') throw badRequest('reason must not be empty', 'reason');
    const now = ctx.now().toISOString();
    const from = sub.status;
    const to = transition(sub, b, id, now);
    const { status, end, total, message } = to;
    writeManaged(db, sub, to, id, now);
    ctx.audit('subscriptions', 'manage', {
      subscription_id: id,
      action: b.action,
      reason: b.reason,
      ...(b.extend_days !== undefined ? { extend_days: b.extend_days } : {}),
      ...(b.extend_credits !== undefined ? { extend_credits: b.extend_credits } : {}),
      from_status: from,
      to_status: status,
    });
    return {
      message,
      data: {
        subscription_id: id,
        action: b.action,
        message,
        previous_status: from,
        status,
        start_date: sub.start_date,
        end_date: end,
        total_credits: total,
        remaining_credits: total - sub.used_credits,
      },
    };
  });
}

function remove(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  return inTransaction(db, () => {
    let found: Array<{ subscription_id: number; status: string; user_id: number; service_id: number | null }>;
    if (b.subscription_id !== undefined) {
      found = prep(db, 'SELECT subscription_id, status, user_id, service_id FROM subscriptions WHERE subscription_id = ?').all(
        b.subscription_id,
      ) as typeof found;
      if (!found.length) throw notFound(`subscription ${b.subscription_id}`);
      // A user_id or service_id given beside it must be the subscription's: the caller meant
      // another subscription, and deleting this one would not be what they asked (as a service
      // delete refuses a service_id and service_code that disagree).
      const s = found[0];
      for (const [field, given, actual] of [
        ['user_id', b.user_id, s.user_id],
        ['service_id', b.service_id, s.service_id],
      ] as const) {
        if (given !== undefined && given !== actual) {
          const owner = actual === null ? 'no service (its service was deleted)' : `${field === 'user_id' ? 'user' : 'service'} ${actual}`;
          throw badRequest(`subscription ${s.subscription_id} belongs to ${owner}, not ${given} (${field}); nothing deleted`, field);
        }
      }
    } else if (b.user_id !== undefined && b.service_id !== undefined) {
      found = prep(db, 'SELECT subscription_id, status FROM subscriptions WHERE user_id = ? AND service_id = ?').all(
        b.user_id,
        b.service_id,
      ) as typeof found;
      if (!found.length) throw notFound(`subscriptions of user ${b.user_id} to service ${b.service_id}`);
    } else throw badRequest('give subscription_id, or user_id and service_id', 'subscription_id');
    const running = found.filter((r) => r.status === 'active' || r.status === 'paused');
    if (running.length && !b.force_delete) {
      throw conflict(
        running.length === 1 && found.length === 1
          ? `subscription ${running[0].subscription_id} is ${running[0].status}; cancel it first or pass force_delete`
          : `${running.length} of these subscriptions are active or paused; cancel them first or pass force_delete`,
      );
    }
    let affected = 0;
    const ids = found.map((r) => r.subscription_id);
    for (const sid of ids) {
      if (b.delete_related_data) affected += prep(db, 'DELETE FROM usage_logs WHERE subscription_id = ?').run(sid).changes;
      affected += prep(db, 'DELETE FROM subscriptions WHERE subscription_id = ?').run(sid).changes;
    }
    ctx.audit('subscriptions', 'delete', {
      subscription_ids: ids,
      force_delete: b.force_delete ?? false,
      delete_related_data: b.delete_related_data ?? false,
      affected_records: affected,
    });
    const message = ids.length === 1 ? `subscription ${ids[0]} deleted` : `${ids.length} subscriptions deleted`;
    return { message, data: { message, affected_records: affected, deleted_subscription_ids: ids } };
  });
}

/** Defaults of the cleanup when a threshold is not given (the specification shows none). */
const CLEANUP_DEFAULTS = { cleanup_expired_days: 90, cleanup_inactive_tokens_days: 30, cleanup_usage_logs_days: 180 };

/**
 * Counts (dry run) or deletes, in one transaction: expired or cancelled subscriptions whose end
 * is more than N days ago; tokens expired or revoked more than N days ago; usage logs older
 * than N days. Both answers have the same shape.
 */
function cleanup(ctx: HandlerContext) {
  const db = ctx.db;
  const b = ctx.body;
  const nowMs = ctx.now().getTime();
  const days = {
    cleanup_expired_days: b.cleanup_expired_days ?? CLEANUP_DEFAULTS.cleanup_expired_days,
    cleanup_inactive_tokens_days: b.cleanup_inactive_tokens_days ?? CLEANUP_DEFAULTS.cleanup_inactive_tokens_days,
    cleanup_usage_logs_days: b.cleanup_usage_logs_days ?? CLEANUP_DEFAULTS.cleanup_usage_logs_days,
  };
  // A threshold further back than any date is clamped to the earliest one: nothing is older.
  const cut = (n: number) => daysBefore(nowMs, n);
  const cutoffs = {
    expired_subscriptions_before: cut(days.cleanup_expired_days),
    inactive_tokens_before: cut(days.cleanup_inactive_tokens_days),
    usage_logs_before: cut(days.cleanup_usage_logs_days),
  };
  const dry = b.dry_run === true;
  const SUBS = "FROM subscriptions WHERE status IN ('expired', 'cancelled') AND end_date < ?";
  const TOKENS = 'FROM tokens WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)';
  const LOGS = 'FROM usage_logs WHERE used_at < ?';
  const summary = inTransaction(db, () => {
    if (dry) {
      return {
        expired_subscriptions: prep(db, `SELECT COUNT(*) ${SUBS}`, 'pluck').get(cutoffs.expired_subscriptions_before) as number,
        inactive_tokens: prep(db, `SELECT COUNT(*) ${TOKENS}`, 'pluck').get(
          cutoffs.inactive_tokens_before,
          cutoffs.inactive_tokens_before,
        ) as number,
        usage_logs: prep(db, `SELECT COUNT(*) ${LOGS}`, 'pluck').get(cutoffs.usage_logs_before) as number,
        dry_run: true,
      };
    }
    return {
      expired_subscriptions: prep(db, `DELETE ${SUBS}`).run(cutoffs.expired_subscriptions_before).changes,
      inactive_tokens: prep(db, `DELETE ${TOKENS}`).run(cutoffs.inactive_tokens_before, cutoffs.inactive_tokens_before).changes,
      usage_logs: prep(db, `DELETE ${LOGS}`).run(cutoffs.usage_logs_before).changes,
      dry_run: false,
    };
  });
  const what = `${summary.expired_subscriptions} expired subscription(s), ${summary.inactive_tokens} inactive token(s), ${summary.usage_logs} usage log(s)`;
  const message = dry ? `dry run: would delete ${what}` : `deleted ${what}`;
  ctx.audit('maintenance', 'cleanup', { ...days, ...summary });
  return { message, data: { cleanup_summary: summary, message, thresholds: days, cutoffs } };
}

export const subscriptionHandlers: HandlerTable = {
  'subscriptions.list': list,
  'subscriptions.list-alt': list,
  'subscriptions.manage': manage,
  'subscriptions.delete': remove,
  'cleanup.run': cleanup,
};
