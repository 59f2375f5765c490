/**
 * The faults real platforms have, against the sandbox, for CI (the larger runs are in
 * `npm run chaos`): a gateway that applies a write and then answers 503 or resets the
 * connection; the platform's clock a minute ahead or behind; audit entries served oldest first;
 * the same platform under two spellings of its address across a kill and a resume; two runs on
 * overlapping files started together. Each must apply every row exactly once, read from the sandbox's database: the end
 * date moved by exactly one extension, one audit entry.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox, type TestSandboxOptions } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { binary, run } from './binary.js';

const DAY = 86_400_000;
let sb: Sandbox | undefined;
/** Subscriptions used by earlier tests of the same sandbox are not used again. */
let used = 0;

beforeAll(async () => {
  await binary();
});
afterEach(() => {
  sb?.close();
  sb = undefined;
  used = 0;
});

async function sandbox(opts: TestSandboxOptions = {}): Promise<Sandbox> {
  sb = await startTestSandbox(opts);
  return sb;
}

/** `n` subscriptions to extend by 3 days, and the proof that each was extended exactly once since. */
function extension(s: Sandbox, n: number) {
  const subs = s.db
    .prepare(
      "SELECT subscription_id, end_date FROM subscriptions WHERE status IN ('active','paused','expired') ORDER BY subscription_id LIMIT ? OFFSET ?",
    )
    .all(n, used) as Array<{ subscription_id: number; end_date: string }>;
  used += n;
  const before = new Map(subs.map((x) => [x.subscription_id, Date.parse(x.end_date)]));
  const auditBefore = (s.db.prepare('SELECT COALESCE(MAX(id), 0) AS m FROM audit_logs').get() as { m: number }).m;
  const dir = tempDir('subctl-faults-');
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    SUBCTL_CONFIG_DIR: join(dir, 'cfg'),
    SUBCTL_BASE_URL: s.url,
    SUBCTL_TOKEN: s.tokenFor('admin'),
    NO_COLOR: '1',
  };
  const file = (name: string, ids: number[]) => {
    const p = join(dir, name);
    writeFileSync(p, `subscription_id,action,reason,extend_days\n${ids.map((id) => `${id},extend,faults,3`).join('\n')}\n`);
    return p;
  };
  /** Rows applied twice and rows lost (not applied, or applied without the report saying so). */
  const proof = (ids = subs.map((x) => x.subscription_id)) => {
    const audits = new Map<number, number>();
    for (const a of s.db
      .prepare("SELECT details FROM audit_logs WHERE id > ? AND module = 'subscriptions' AND action = 'manage'")
      .all(auditBefore) as Array<{ details: string }>) {
      const id = JSON.parse(a.details).subscription_id as number;
      audits.set(id, (audits.get(id) ?? 0) + 1);
    }
    const after = new Map(
      (
        s.db.prepare(`SELECT subscription_id, end_date FROM subscriptions WHERE subscription_id IN (${ids.join(',')})`).all() as Array<{
          subscription_id: number;
          end_date: string;
        }>
      ).map((x) => [x.subscription_id, Date.parse(x.end_date) - before.get(x.subscription_id)!]),
    );
    const twice = ids.filter((id) => (audits.get(id) ?? 0) > 1 || after.get(id)! > 3 * DAY);
    const lost = ids.filter((id) => (audits.get(id) ?? 0) === 0 || after.get(id)! < 3 * DAY);
    return { twice, lost };
  };
  return { ids: subs.map((x) => x.subscription_id), dir, env, file, proof };
}

/** Runs the same command until it exits 0 (at most `max` runs); the exit codes. */
async function untilDone(args: string[], env: NodeJS.ProcessEnv, max = 8): Promise<Array<number | null>> {
  const codes: Array<number | null> = [];
  for (let i = 0; i < max; i++) {
    const r = await run(args, env);
    codes.push(r.code);
    expect([0, 8], r.stderr).toContain(r.code);
    if (r.code === 0) break;
  }
  return codes;
}

describe('a gateway that applies and then fails the answer', () => {
  it('10% of writes answered 503 after being applied, 5% reset after being applied: every row once, reported applied', async () => {
    const s = await sandbox({ chaos: { appliedError: 0.1, appliedReset: 0.05, latencyMs: [0, 5] } });
    const x = extension(s, 80);
    const report = join(x.dir, 'report.csv');
    const codes = await untilDone(
      [
        'subscriptions',
        'manage',
        '--from-csv',
        x.file('rows.csv', x.ids),
        '--concurrency',
        '8',
        '--yes',
        '--report',
        report,
        '--timeout',
        '2000',
      ],
      x.env,
    );
    expect(x.proof()).toEqual({ twice: [], lost: [] });
    expect(codes.at(-1), `exit codes: ${codes.join(', ')}`).toBe(0);
    // Settled in the run that lost the answers: one run, every row reported applied.
    expect(codes).toEqual([0]);
    expect(readFileSync(report, 'utf8')).toMatch(/confirmed on the platform/);
  }, 120_000);
});

describe("the platform's clock", () => {
  for (const skew of [-60_000, 60_000]) {
    it(`${skew > 0 ? 'ahead' : 'behind'} by 60 s, with answers lost after applying: every row once`, async () => {
      const s = await sandbox({ now: () => new Date(Date.now() + skew), chaos: { appliedError: 0.15 } });
      const x = extension(s, 40);
      const codes = await untilDone(
        ['subscriptions', 'manage', '--from-csv', x.file('rows.csv', x.ids), '--concurrency', '8', '--yes', '--timeout', '2000'],
        x.env,
      );
      expect(x.proof()).toEqual({ twice: [], lost: [] });
      expect(codes).toEqual([0]);
    }, 120_000);
  }
});

describe('audit entries served oldest first', () => {
  it('with answers lost after applying: every row once (the run reads the state of its rows, never the audit log)', async () => {
    const s = await sandbox({ chaos: { auditOldestFirst: true, appliedError: 0.15 } });
    // The fault is in place: the log's first page holds its oldest entries.
    const res = await fetch(`${s.url}/audit?page=1&page_size=5`, { headers: { authorization: `Bearer ${s.tokenFor('admin')}` } });
    const served = ((await res.json()) as { data: { logs: Array<{ id: number }> } }).data.logs.map((l) => l.id);
    expect(served).toEqual((s.db.prepare('SELECT id FROM audit_logs ORDER BY id LIMIT 5').all() as Array<{ id: number }>).map((l) => l.id));
    const x = extension(s, 40);
    const codes = await untilDone(
      ['subscriptions', 'manage', '--from-csv', x.file('rows.csv', x.ids), '--concurrency', '8', '--yes', '--timeout', '2000'],
      x.env,
    );
    expect(x.proof()).toEqual({ twice: [], lost: [] });
    expect(codes).toEqual([0]);
  }, 120_000);
});

describe('one platform, two spellings of its address', () => {
  it('killed under 127.0.0.1, resumed under localhost/: every row once', async () => {
    const s = await sandbox();
    const x = extension(s, 300);
    const csv = x.file('rows.csv', x.ids);
    const args = ['subscriptions', 'manage', '--from-csv', csv, '--concurrency', '8', '--yes', '--timeout', '2000'];
    const bin = await binary();
    const journalDir = join(x.dir, 'cfg', 'state', 'bulk');
    const events = () => {
      try {
        return readdirSync(journalDir)
          .filter((f) => f.endsWith('.jsonl'))
          .reduce((n, f) => n + readFileSync(join(journalDir, f), 'utf8').split('\n').length - 1, 0);
      } catch {
        return 0;
      }
    };
    // Killed once it has sent some rows (by the journal's progress, not by time).
    await new Promise<void>((done) => {
      const child = spawn(process.execPath, [bin, ...args], { env: x.env, stdio: 'ignore' });
      const t = setInterval(() => {
        if (events() >= 120) child.kill('SIGKILL');
      }, 3);
      child.on('exit', () => {
        clearInterval(t);
        done();
      });
    });
    const port = new URL(s.url).port;
    const resumed = await run(args, { ...x.env, SUBCTL_BASE_URL: `http://localhost:${port}/` });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming subscriptions manage/);
    expect(x.proof()).toEqual({ twice: [], lost: [] });
  }, 120_000);
});

describe('two runs on overlapping files started together', () => {
  it('five trials: the shared rows are applied once, by one of the runs; the other reports them as applied by it', async () => {
    // Latency keeps each run going for a while, so that the two overlap.
    const s = await sandbox({ chaos: { latencyMs: [20, 40] } });
    let overlapped = 0;
    for (let trial = 0; trial < 5; trial++) {
      const x = extension(s, 60);
      // Rows 0-39 in one file, rows 20-59 in the other: 20 shared.
      const a = x.file(`a${trial}.csv`, x.ids.slice(0, 40));
      const b = x.file(`b${trial}.csv`, [...x.ids.slice(20, 60)].reverse());
      const args = (f: string) => ['subscriptions', 'manage', '--from-csv', f, '--concurrency', '4', '--yes', '--timeout', '2000'];
      const [ra, rb] = await Promise.all([run(args(a), x.env), run(args(b), x.env)]);
      // One that started after the other had finished is refused as a re-run of applied rows
      // (exit 2, nothing sent): --skip-applied sends its other rows.
      // A row left for the next attempt (a time-out on a loaded machine, found not applied) is
      // sent by running the file again.
      for (const [r, f] of [
        [ra, a],
        [rb, b],
      ] as const) {
        if (r.code === 2) expect((await untilDone([...args(f), '--skip-applied'], x.env)).at(-1)).toBe(0);
        else if (r.code === 8) expect((await untilDone(args(f), x.env)).at(-1)).toBe(0);
        else expect(r.code, r.stderr).toBe(0);
      }
      expect(x.proof(), `trial ${trial + 1}`).toEqual({ twice: [], lost: [] });
      if (/20 rows applied by a run going on beside this one skipped/.test(`${ra.stderr}${rb.stderr}`)) overlapped++;
    }
    expect(overlapped).toBeGreaterThan(0);
  }, 180_000);
});
