/**
 * What the stages of the administrator area's seed share (seed-admin.ts): the random draws,
 * the accounts, and the rows generated in memory before they are inserted.
 */
import type { PlanSeed } from './seed-admin-data.js';

export const DAY = 86_400_000;
export const TWO_YEARS = 730 * DAY;
export const iso = (ms: number) => new Date(ms).toISOString();

/** Adds `n` units of `unit` to a time (months and years on the calendar). */
export function addDuration(ms: number, n: number, unit: string): number {
  if (unit === 'days') return ms + n * DAY;
  const d = new Date(ms);
  if (unit === 'months') d.setUTCMonth(d.getUTCMonth() + n);
  else d.setUTCFullYear(d.getUTCFullYear() + n);
  return d.getTime();
}

/** Random draws from the seed's one PRNG: every stage draws in the order it always has, so the seed stays what it is. */
export interface Draw {
  rng: () => number;
  nowMs: number;
  pick<T>(xs: readonly T[]): T;
  int(lo: number, hi: number): number;
  money(lo: number, hi: number): number;
  /** `n` characters of an unambiguous upper-case alphabet. */
  chars(n: number): string;
  /** `base` rows at scale 1, multiplied by the scale (at least 1). */
  n(base: number): number;
}

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function draws(rng: () => number, scale: number, nowMs: number): Draw {
  return {
    rng,
    nowMs,
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)],
    int: (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1)),
    money: (lo, hi) => Math.round((lo + rng() * (hi - lo)) * 100) / 100,
    chars: (n) => {
      let s = '';
      for (let i = 0; i < n; i++) s += ALNUM[Math.floor(rng() * 32)];
      return s;
    },
    n: (base) => Math.max(1, Math.round(base * scale)),
  };
}

/** The accounts, by the parts they play in the seed. */
export interface People {
  allUsers: Array<{ user_id: number; role: string; wallet_balance: number; created_date: string }>;
  /** Staff and auditors: accounts other than end users. */
  auditors: number[];
  /** End users (every account when there are none). */
  customers: number[];
  /** Administrators, superadministrators and managers (the first account when there are none). */
  admins: number[];
  /** Every account: wallets and tokens. */
  walletUsers: number[];
}

/** A service's offer of a plan. */
export interface Link {
  id: number;
  serviceId: number;
  plan: PlanSeed & { id: number };
  created: number;
  weight: number;
}

export interface Catalog {
  serviceIds: Map<string, number>;
  /** A link, popular services and cheap plans more often. */
  pickLink(): Link;
}

export interface Sub {
  id: number;
  user: number;
  link: Link;
  status: string;
  start: number;
  end: number;
  created: number;
  updated: number;
  renewals: number;
  total: number;
  used: number;
  payment: string;
  auto: number;
  code: string | null;
  batch: string | null;
  usage: number;
  lastUsage: number | null;
}

export interface Code {
  value: string;
  batch: string;
  link: Link;
  created: number;
  expiry: number;
  usedBy: number | null;
  usedDate: number | null;
  subIdx: number | null;
  createdBy: number;
}

export interface Use {
  user: number;
  sub: number;
  service: number;
  amount: number;
  type: string;
  rt: number;
  at: number;
}

/** Subscriptions, usage codes and usage logs, generated in memory (codes and logs annotate subscriptions). */
export interface Sales {
  subs: Sub[];
  subsByUser: Map<number, number[]>;
  codes: Code[];
  uses: Use[];
}

/** One seeded audit entry before insertion. */
export interface AuditSeed {
  at: number;
  actor: number;
  module: string;
  action: string;
  details: unknown;
  ip: string;
  agent: string;
}

/**
 * An end user's own action as the running sandbox records it (handlers/user-enduser-buy.ts,
 * handlers/user-enduser-use.ts): module `user`, the end user as the actor. No random draw: the
 * rest of the seed stays as it was.
 */
export function endUserEntry(at: number, actor: number, action: string, details: Record<string, unknown>): AuditSeed {
  return {
    at,
    actor,
    module: 'user',
    action,
    details,
    ip: `10.1.${(actor >> 8) & 255}.${actor & 255}`,
    agent: 'SubscriptionApp/2.4 (Android 14)',
  };
}
