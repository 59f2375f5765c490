/**
 * Referral codes as the referral handlers (user-referrals.ts) read them: a code's status and
 * list item, the owner's guard, a new code, the validation answer, and the code search.
 */
import { builtin } from '../../builtin.js';
import { SandboxError, type DB, type HandlerContext } from '../types.js';
import { bool, caller, DAY_MS, isAdminRole, likeAny, nowIso, pagination, paging } from './user-common.js';

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export interface CodeRow {
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

export function codeItem(c: CodeRow & Record<string, unknown>, at: string) {
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

export const CODE_SELECT = `SELECT rc.*, o.username AS owner_username, o.full_name AS owner_full_name FROM referral_codes rc JOIN users o ON o.user_id = rc.user_id`;

export function mustGetCode(ctx: HandlerContext, id: number): CodeRow {
  const c = ctx.db.prepare('SELECT * FROM referral_codes WHERE referral_id = ?').get(id) as CodeRow | undefined;
  if (!c) throw new SandboxError(404, `referral code ${id} not found`, 'REFERRAL_NOT_FOUND');
  return c;
}

/** The owner or an admin may change a code (403 otherwise). */
export function guardOwner(ctx: HandlerContext, c: CodeRow) {
  const me = caller(ctx);
  if (c.user_id !== me.user_id && !isAdminRole(me.role))
    throw new SandboxError(403, 'only the owner or an admin may change this referral code', 'FORBIDDEN');
}

export function newCode(db: DB): string {
  for (;;) {
    const code = `REF-${Array.from({ length: 6 }, () => CODE_ALPHABET[builtin('node:crypto').randomInt(CODE_ALPHABET.length)]).join('')}`;
    if (!db.prepare('SELECT 1 FROM referral_codes WHERE referral_code = ?').get(code)) return code;
  }
}

/** The validation answer for a code (never an error status). */
export function validation(ctx: HandlerContext, code: string) {
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

export function codeSearch(ctx: HandlerContext, allCodes: boolean) {
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
