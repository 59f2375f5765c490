/**
 * A subscription change as a person previews it before it is sent: what an action will change
 * (`status: active -> paused`), and why the server is likely to refuse it. Shared by
 * `subscriptions manage` (src/commands/admin/subscription-manage.ts) and the console's actions
 * (src/ui/actions.ts).
 */
import { readDate, readNumber } from '../api/read-values.js';

export type Subscription = Record<string, unknown>;

const day = 86_400_000;

/**
 * The statuses each action is allowed from, as the sandbox decides (README, "Sandbox decisions";
 * the specification is silent): a warning in previews, never a reason not to send.
 */
const ALLOWED_FROM: Record<string, readonly string[]> = {
  pause: ['active'],
  resume: ['paused'],
  cancel: ['active', 'paused'],
  extend: ['active', 'paused', 'expired'],
  add_credits: ['active', 'paused'],
};

/** Why the server is likely to refuse `action` on a subscription of `status`, if it is. */
export function likelyRefusal(action: string, status: unknown): string | undefined {
  const allowed = ALLOWED_FROM[action];
  return allowed && status !== undefined && status !== null && !allowed.includes(String(status))
    ? `${action.replace('_', ' ')} needs status ${allowed.join(' or ')}`
    : undefined;
}

/** What an action will change, as `field: before -> after` lines (the sandbox's rules, README). */
export function describeChange(sub: Subscription | undefined, body: Record<string, unknown>, now: Date = new Date()): string[] {
  const action = String(body.action);
  if (!sub)
    return [
      `${action}${body.extend_days ? ` by ${String(body.extend_days)} days` : ''}${body.extend_credits ? ` +${String(body.extend_credits)} credits` : ''}`,
    ];
  // A change the status does not allow is not previewed as if it would happen (`expired -> paused`).
  const refusal = likelyRefusal(action, sub.status);
  if (refusal) return [`likely refused by the server: ${refusal} (it is ${String(sub.status)})`];
  const lines: string[] = [];
  const status = String(sub.status ?? '?');
  const to: Record<string, string> = { pause: 'paused', resume: 'active', cancel: 'cancelled' };
  if (to[action]) lines.push(`status: ${status} -> ${to[action]}`);
  if (action === 'extend' && body.extend_days !== undefined && sub.end_date !== undefined && sub.end_date !== null) {
    // Read with care: a date with or without a time or zone; anything else is said, not guessed.
    const end = readDate(sub.end_date);
    const next = (end ?? NaN) + Number(body.extend_days) * day;
    if (end !== undefined) {
      lines.push(`end_date: ${new Date(end).toISOString().slice(0, 10)} -> ${new Date(next).toISOString().slice(0, 10)}`);
      // The new end date is known: said as it will be, not "if the new end date is in the future".
      if (status === 'expired')
        lines.push(next > now.getTime() ? 'status: expired -> active' : 'status: stays expired (the new end date is still past)');
    } else {
      lines.push(`end_date: ${JSON.stringify(sub.end_date)} is not a date subctl can read: the new end date is the server's to work out`);
      if (status === 'expired') lines.push('status: expired -> active (if the new end date is in the future)');
    }
  }
  if (action === 'add_credits' && body.extend_credits !== undefined) {
    const add = Number(body.extend_credits);
    for (const k of ['total_credits', 'remaining_credits'] as const) {
      const before = sub[k] === undefined || sub[k] === null ? 0 : readNumber(sub[k]);
      lines.push(
        before === undefined
          ? `${k}: ${JSON.stringify(sub[k])} (not a number subctl can read) +${add}`
          : `${k}: ${before} -> ${before + add}`,
      );
    }
  }
  return lines.length ? lines : [action];
}
