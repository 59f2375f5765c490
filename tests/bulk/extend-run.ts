/**
 * The set-up and the proof shared by the bulk tests that interrupt a real run (kill-resume,
 * disk-full): `n` subscriptions to extend by 7 days, their CSV, the binary's environment; then,
 * read from the sandbox database, whether every end date moved by exactly one extension and the
 * server saw exactly one manage per subscription.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../support/tmp.js';

const DAY = 86_400_000;

export interface ExtendRun {
  /** CSV line n + 2 is subs[n] (line 1 is the header). */
  subs: Array<{ subscription_id: number; end_date: string }>;
  dir: string;
  csv: string;
  env: NodeJS.ProcessEnv;
  journalDir: string;
  /** Subscription ids of every manage the server applied since the set-up, in order. */
  applied(): number[];
  /** Subscriptions whose end date did not move by exactly one extension. */
  wrongEndDates(): Array<{ subscription_id: number; end_date: string }>;
}

export function extendRun(sb: Sandbox, n: number, prefix: string, reason: string): ExtendRun {
  const subs = sb.db
    .prepare(
      "SELECT subscription_id, end_date FROM subscriptions WHERE status IN ('active','paused','expired') ORDER BY subscription_id LIMIT ?",
    )
    .all(n) as Array<{ subscription_id: number; end_date: string }>;
  if (subs.length !== n) throw new Error(`the sandbox has ${subs.length} subscriptions to extend, not ${n}`);
  const before = new Map(subs.map((s) => [s.subscription_id, Date.parse(s.end_date)]));
  const auditBefore = (sb.db.prepare('SELECT COALESCE(MAX(id), 0) AS m FROM audit_logs').get() as { m: number }).m;
  const dir = tempDir(prefix);
  const csv = join(dir, 'actions.csv');
  writeFileSync(
    csv,
    `subscription_id,action,reason,extend_days\n${subs.map((s) => `${s.subscription_id},extend,"${reason}",7`).join('\n')}\n`,
  );
  return {
    subs,
    dir,
    csv,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      SUBCTL_CONFIG_DIR: join(dir, 'cfg'),
      SUBCTL_BASE_URL: sb.url,
      SUBCTL_TOKEN: sb.tokenFor('admin'),
    },
    journalDir: join(dir, 'cfg', 'state', 'bulk'),
    applied: () =>
      (
        sb.db
          .prepare("SELECT details FROM audit_logs WHERE id > ? AND module = 'subscriptions' AND action = 'manage' ORDER BY id")
          .all(auditBefore) as Array<{ details: string }>
      ).map((a) => JSON.parse(a.details).subscription_id as number),
    wrongEndDates: () =>
      (
        sb.db
          .prepare(
            `SELECT subscription_id, end_date FROM subscriptions WHERE subscription_id IN (${subs.map((s) => s.subscription_id).join(',')})`,
          )
          .all() as Array<{
          subscription_id: number;
          end_date: string;
        }>
      ).filter((s) => Date.parse(s.end_date) - before.get(s.subscription_id)! !== 7 * DAY),
  };
}

/** How many times each subscription was managed. */
export function timesEach(ids: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const id of ids) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
}
