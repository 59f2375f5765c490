/**
 * The bulk promise: a 2,000-row `subscriptions manage --action extend` run killed with SIGKILL
 * at random moments twenty times, resumed each time, applies every row exactly once; a 200-row
 * `services create` run killed ten times creates every service once, none left unknown.
 * The real binary runs against a real sandbox; the proof is read from the sandbox database.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { killEnv, runKilled, type Kill } from '../support/kill-run.js';
import { extendRun, timesEach } from './extend-run.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

describe('bulk runs never lose or repeat a row', () => {
  it('SIGKILL at random moments twenty times, resumed each time: every subscription extended exactly once', async () => {
    const { csv, dir, env, journalDir, applied, wrongEndDates } = extendRun(sb, 2000, 'subctl-kill-', 'kill test, run 1');
    const report = join(dir, 'report.csv');
    const args = ['subscriptions', 'manage', '--from-csv', csv, '--concurrency', '16', '--yes', '--report', report, '--timeout', '1500'];
    let killed = 0;
    for (let i = 0; i < 20; i++) {
      // Random moments: every fifth run at a random time early on (start-up, reading, planning,
      // the first requests), the others after a random number of journal events (each row
      // writes two: sent, then done): 20 runs of at most 240 events stay short of the 4,000.
      const kill: Kill =
        i % 5 === 0 ? { afterMs: 100 + Math.floor(Math.random() * 300) } : { afterEvents: Math.floor(Math.random() * 240), journalDir };
      const r = await runKilled(args, env, kill);
      if (r.signal === 'SIGKILL') killed++;
      else expect(r.code, r.stderr).toBe(0);
    }
    const final = await runKilled(args, env);
    expect(final.code, final.stderr).toBe(0);
    expect(killed).toBeGreaterThanOrEqual(15);

    // Every end date moved by exactly one extension, and the server saw exactly one manage per subscription.
    expect(wrongEndDates()).toEqual([]);
    const perSub = timesEach(applied());
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
    expect(lines[0]).toBe('line,key,outcome,attempt,http_status,message,created_id');
    expect(lines).toHaveLength(2001);
    expect(lines.slice(1).every((l) => l.split(',')[2] === 'applied')).toBe(true);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0])).size).toBe(2000);
  }, 240_000);

  it('SIGKILL ten times in a 200-row services create, resumed each time: every service exists once, none left unknown, each row with its created id', async () => {
    const dir = tempDir('subctl-kill-create-');
    const tag = `K${Date.now().toString(36).toUpperCase()}`;
    const codes = Array.from({ length: 200 }, (_, i) => `${tag}-${i}`);
    const csv = join(dir, 'services.csv');
    writeFileSync(
      csv,
      `service_code,service_name,service_type,provider_name,base_service_url,access_pattern,credit_reset_cycle\n${codes.map((c) => `${c},Kill test ${c},USAGE_BASED,Kill Co,https://kill.example/${c},/v1/*,monthly`).join('\n')}\n`,
    );
    const env = killEnv(dir, sb.url, sb.tokenFor('admin'));
    const journalDir = join(dir, 'cfg', 'state', 'bulk');
    const report = join(dir, 'report.csv');
    const args = ['services', 'create', '--from-csv', csv, '--concurrency', '8', '--yes', '--report', report, '--timeout', '1500'];
    let killed = 0;
    for (let i = 0; i < 10; i++) {
      const kill: Kill =
        i % 5 === 0 ? { afterMs: 100 + Math.floor(Math.random() * 300) } : { afterEvents: Math.floor(Math.random() * 40), journalDir };
      const r = await runKilled(args, env, kill);
      if (r.signal === 'SIGKILL') killed++;
      else expect(r.code, r.stderr).toBe(0);
    }
    const final = await runKilled(args, env);
    expect(final.code, final.stderr).toBe(0);
    expect(killed).toBeGreaterThanOrEqual(6);
    const held = sb.db.prepare('SELECT service_code, service_id FROM services WHERE service_code LIKE ?').all(`${tag}-%`) as Array<{
      service_code: string;
      service_id: number;
    }>;
    expect(held).toHaveLength(200);
    const idOf = new Map(held.map((h) => [h.service_code, h.service_id]));
    const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    expect(lines).toHaveLength(200);
    for (const l of lines) {
      const [, key, outcome] = l.split(',');
      const code = key.replace('service_code=', '');
      expect(outcome, l).toBe('applied');
      expect(l.endsWith(`,${idOf.get(code)}`), l).toBe(true);
    }
  }, 240_000);
});
