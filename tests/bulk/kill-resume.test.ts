/**
 * The bulk promise: a 2,000-row `subscriptions manage --action extend` run killed with SIGKILL
 * at random moments twenty times, resumed each time, applies every row exactly once.
 * The real binary runs against a real sandbox; the proof is read from the sandbox database.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/subctl.js');
const DAY = 86_400_000;
let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

/** Journal lines written so far (every file of the state directory's bulk journals). */
function journalLines(dir: string): number {
  let n = 0;
  try {
    for (const f of readdirSync(dir)) for (const c of readFileSync(join(dir, f), 'utf8')) if (c === '\n') n++;
  } catch {
    // not created yet
  }
  return n;
}

type Kill = { afterMs: number } | { afterEvents: number; journalDir: string };

function run(args: string[], env: NodeJS.ProcessEnv, kill?: Kill): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    let timer: NodeJS.Timeout | undefined;
    if (kill && 'afterMs' in kill) timer = setTimeout(() => child.kill('SIGKILL'), kill.afterMs);
    else if (kill) {
      // By progress, not by time: a kill lands mid-run however fast the machine and server are.
      const start = journalLines(kill.journalDir);
      timer = setInterval(() => {
        if (journalLines(kill.journalDir) - start >= kill.afterEvents) child.kill('SIGKILL');
      }, 3);
    }
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearInterval(timer);
      done({ code, signal, stderr });
    });
  });
}

describe('bulk runs never lose or repeat a row', () => {
  it('SIGKILL at random moments twenty times, resumed each time: every subscription extended exactly once', async () => {
    const subs = sb.db
      .prepare("SELECT subscription_id, end_date FROM subscriptions WHERE status IN ('active','paused','expired') ORDER BY subscription_id LIMIT 2000")
      .all() as Array<{ subscription_id: number; end_date: string }>;
    expect(subs.length).toBe(2000);
    const before = new Map(subs.map((s) => [s.subscription_id, Date.parse(s.end_date)]));
    const auditBefore = (sb.db.prepare("SELECT COALESCE(MAX(id), 0) AS m FROM audit_logs").get() as { m: number }).m;

    const dir = tempDir('subctl-kill-');
    const csv = join(dir, 'actions.csv');
    writeFileSync(csv, `subscription_id,action,reason,extend_days\n${subs.map((s) => `${s.subscription_id},extend,"kill test, run 1",7`).join('\n')}\n`);
    const report = join(dir, 'report.csv');
    const env = { PATH: process.env.PATH, HOME: dir, SUBCTL_CONFIG_DIR: join(dir, 'cfg'), SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin') };
    const args = ['subscriptions', 'manage', '--from-csv', csv, '--concurrency', '16', '--yes', '--report', report, '--timeout', '1500'];

    const journalDir = join(dir, 'cfg', 'state', 'bulk');
    let killed = 0;
    for (let i = 0; i < 20; i++) {
      // Random moments: every fifth run at a random time early on (start-up, reading, planning,
      // the first requests), the others after a random number of journal events (each row
      // writes two: sent, then done): 20 runs of at most 240 events stay short of the 4,000.
      const kill: Kill = i % 5 === 0 ? { afterMs: 100 + Math.floor(Math.random() * 300) } : { afterEvents: Math.floor(Math.random() * 240), journalDir };
      const r = await run(args, env, kill);
      if (r.signal === 'SIGKILL') killed++;
      else expect(r.code, r.stderr).toBe(0);
    }
    const final = await run(args, env);
    expect(final.code, final.stderr).toBe(0);
    expect(killed).toBeGreaterThanOrEqual(15);

    // Every end date moved by exactly one extension.
    const after = sb.db.prepare(`SELECT subscription_id, end_date FROM subscriptions WHERE subscription_id IN (${subs.map((s) => s.subscription_id).join(',')})`).all() as Array<{
      subscription_id: number;
      end_date: string;
    }>;
    const wrong = after.filter((s) => Date.parse(s.end_date) - before.get(s.subscription_id)! !== 7 * DAY);
    expect(wrong).toEqual([]);
    // And the server saw exactly one manage per subscription.
    const audits = sb.db
      .prepare("SELECT details FROM audit_logs WHERE id > ? AND module = 'subscriptions' AND action = 'manage'")
      .all(auditBefore) as Array<{ details: string }>;
    const perSub = new Map<number, number>();
    for (const a of audits) {
      const id = JSON.parse(a.details).subscription_id as number;
      perSub.set(id, (perSub.get(id) ?? 0) + 1);
    }
    expect(perSub.size).toBe(2000);
    expect([...perSub.values()].every((n) => n === 1)).toBe(true);

    // Kills caught rows in flight, and the resumes settled them against the server.
    const jdir = journalDir;
    const events = readdirSync(jdir)
      .flatMap((f) => readFileSync(join(jdir, f), 'utf8').split('\n'))
      .filter(Boolean)
      .map((l) => {
        try {
          return JSON.parse(l) as { via?: string };
        } catch {
          return {};
        }
      });
    expect(events.filter((e) => e.via === 'verified' || e.via === 'absent').length).toBeGreaterThan(0);

    // The report accounts for every row.
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('line,key,outcome,http_status,message,created_id');
    expect(lines).toHaveLength(2001);
    expect(lines.slice(1).every((l) => l.split(',')[2] === 'applied')).toBe(true);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0])).size).toBe(2000);
  }, 240_000);
});
