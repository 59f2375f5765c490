/**
 * The audit log as a person reads it: each entry's target (what it was done to) and its change
 * (the rest of `details`), drawn from the details the platform sent. Shared by `audit list`,
 * `audit user`, `audit --follow`, `users show` and the console. json, ndjson and csv print the
 * entries as sent: these readings are for tables only.
 */

import { escapeControls } from '../output/format.js';
import { displayWidth } from '../output/width.js';
import { wrapWidth } from '../output/wrap.js';
import { terminalTime } from '../output/time.js';
import { readDate } from '../api/read-values.js';

type Entry = Record<string, unknown>;

/** The table columns of an audit list: when, who, what, to what, and how. */
export const AUDIT_COLUMNS = ['id', 'created_at', 'username', 'action', 'target', 'change'];

/** An entry's details as an object: the platform sends an object, a JSON string, or text. */
function detailsOf(entry: Entry): Record<string, unknown> | string | undefined {
  const d = entry.details;
  if (d === null || d === undefined || d === '') return undefined;
  if (typeof d === 'object' && !Array.isArray(d)) return d as Record<string, unknown>;
  if (typeof d === 'string') {
    const t = d.trim();
    if (t.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(t);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
      } catch {
        // Text that only looks like JSON is shown as text.
      }
    }
    return d;
  }
  return JSON.stringify(d);
}

/** Detail keys that name the target, in the order a target is chosen: the first present wins. */
const TARGETS: Array<[key: string, label: string]> = [
  ['subscription_id', 'subscription'],
  ['subscription_ids', 'subscriptions'],
  ['service_plan_id', 'link'],
  ['service_code', 'service'],
  ['plan_code', 'plan'],
  ['plan_id', 'plan'],
  ['service_id', 'service'],
  ['batch_id', 'batch'],
  ['referral_code', 'referral'],
  ['role_name', 'role'],
  ['role_id', 'role'],
  ['device_id', 'device'],
  ['transaction_id', 'transaction'],
  ['new_user_id', 'user'],
  ['user_id', 'user'],
];

/** Keys shown with the target (never again in the change). */
const QUALIFIERS = ['service_code', 'plan_code', 'username'];

function scalar(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(scalar).join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * What an entry was done to: `subscription 1037 (EMBED-V3)`, `service GPT4`, `user 188 (ana)`.
 * The actor is not a target: a user's own login names no target.
 */
function auditTarget(entry: Entry): { text: string; keys: string[] } {
  const d = detailsOf(entry);
  if (!d || typeof d === 'string') return { text: '', keys: [] };
  for (const [key, label] of TARGETS) {
    const v = d[key];
    if (v === undefined || v === null || v === '') continue;
    if (key === 'user_id' && entry.user_id !== undefined && String(v) === String(entry.user_id)) continue;
    const keys = [key];
    const extra = QUALIFIERS.filter((q) => q !== key && d[q] !== undefined && d[q] !== null && d[q] !== '').filter(
      (q) => !(q === 'plan_code' && key === 'service_code'),
    );
    keys.push(...extra);
    const qual = extra.map((q) => scalar(d[q])).join(' ');
    return { text: `${label} ${scalar(v)}${qual ? ` (${qual})` : ''}`, keys };
  }
  return { text: '', keys: [] };
}

/** `changes: {a: 1}` reads `a=1`; nested keys are joined with dots. */
function pairs(obj: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(...pairs(v as Record<string, unknown>, `${prefix}${k}.`));
    else out.push(`${prefix}${k}=${scalar(v)}`);
  }
  return out;
}

/**
 * The change an entry records: the details not used by the target, as `key=value` pairs, the
 * manage action first: `extend extend_days=30 reason=customer asked`. Text details as they are.
 */
function auditChange(entry: Entry, targetKeys: string[] = auditTarget(entry).keys): string {
  const d = detailsOf(entry);
  if (d === undefined) return '';
  if (typeof d === 'string') return d.replace(/\s+/g, ' ');
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) if (!targetKeys.includes(k) && k !== 'endpoint') rest[k] = v;
  const lead = typeof rest.action === 'string' ? `${rest.action} ` : '';
  delete rest.action;
  return `${lead}${pairs(rest).join(' ')}`.trim().replace(/\s+/g, ' ');
}

/** `subscriptions.manage`: module and action in one word. */
function auditAction(entry: Entry): string {
  const m = scalar(entry.module);
  const a = scalar(entry.action);
  return m && a ? `${m}.${a}` : m || a;
}

/** The entry as a table shows it: the readable columns added, the entry's own fields kept. */
export function readableAudit(entry: Entry): Entry {
  // A row that is not an entry (another platform's answer) is shown as it came.
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
  const t = auditTarget(entry);
  return { ...entry, action: auditAction(entry), target: t.text, change: auditChange(entry, t.keys) };
}

/** Does the entry's details name this subscription (its id, or among `subscription_ids`)? */
export function namesSubscription(entry: Entry, id: number): boolean {
  const d = detailsOf(entry);
  if (!d || typeof d === 'string') return false;
  if (Number(d.subscription_id) === id) return true;
  const ids = d.subscription_ids;
  return Array.isArray(ids) && ids.some((x) => Number(x) === id);
}

/** Does the entry's details name this service code (case-insensitively)? */
export function namesService(entry: Entry, code: string): boolean {
  const d = detailsOf(entry);
  if (!d || typeof d === 'string') return false;
  return typeof d.service_code === 'string' && d.service_code.toLowerCase() === code.toLowerCase();
}

/** Does the entry's details name this user (as the target, a new user, or by username)? */
export function namesUser(entry: Entry, user: { id: number; username?: string }): boolean {
  const d = detailsOf(entry);
  if (!d || typeof d === 'string') return false;
  if (Number(d.user_id) === user.id || Number(d.new_user_id) === user.id) return true;
  return user.username !== undefined && d.username === user.username;
}

/**
 * One entry as it reads: time, user, module.action, target, change.
 * On a terminal the time shows seconds and zone (src/output/time.ts) and a line longer than the
 * terminal wraps, its continuation indented, so that the change is read whole; off one, the
 * time as sent and one line an entry.
 */
export function auditLine(e: Entry, width?: number, tty = width !== undefined): string {
  const at = String(e.created_at ?? '');
  // readDate: a time without a zone is UTC, as the platform writes its times.
  const ms = tty ? readDate(at) : undefined;
  const time = ms !== undefined ? terminalTime(new Date(ms)) : at;
  const t = auditTarget(e);
  const parts = [time, String(e.username ?? e.user_id ?? '-'), auditAction(e), t.text, auditChange(e, t.keys)].filter((p) => p !== '');
  // Server data must not drive the terminal: control characters (ESC included) as `\xHH`.
  const line = escapeControls(parts.join('  '));
  if (!width || displayWidth(line) <= width) return line;
  const [head, ...rest] = wrapWidth(line, width);
  return [head.trimEnd(), ...wrapWidth(rest.join('').trimStart(), Math.max(10, width - 4)).map((l) => `    ${l.trimEnd()}`)].join('\n');
}
