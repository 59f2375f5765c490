/**
 * `catalog apply` killed with SIGKILL at random moments ten times, resumed each time (the same
 * command: the run's name comes from the file and the platform): every change reaches the
 * platform exactly once. The real binary (dist/, so build first) runs against a real sandbox;
 * the proof is read from the sandbox's audit log, which records every write it served.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox, writesSince } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { killEnv, runKilled, type Kill } from '../support/kill-run.js';
import { runCli } from '../support/run-cli.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

describe('catalog apply never loses or repeats a change', () => {
  it('SIGKILL at random moments ten times, resumed each time: every change applied exactly once', async () => {
    const dir = tempDir('subctl-catalog-kill-');
    const env = killEnv(dir, sb.url, sb.tokenFor('admin'));
    const journalDir = join(dir, 'cfg', 'state', 'catalog');
    // 40 new plans, each linked to CLAUDE3, and a new price for every existing plan.
    const exported = await runCli('catalog export --only plans', { env });
    expect(exported.code, exported.stderr).toBe(0);
    const existing = sb.db.prepare('SELECT plan_code, price FROM subscription_plans ORDER BY plan_code').all() as Array<{
      plan_code: string;
      price: number;
    }>;
    const lines = ['plans:'];
    for (const p of existing) lines.push(`  - plan_code: ${p.plan_code}`, `    price: ${Math.round((p.price + 1.25) * 100) / 100}`);
    const fresh = Array.from({ length: 40 }, (_, i) => `KILL-${String(i).padStart(2, '0')}`);
    for (const code of fresh) {
      lines.push(
        `  - plan_code: ${code}`,
        `    plan_name: Kill test ${code}`,
        '    price: 3.5',
        '    currency: USD',
        '    duration: 1',
        '    duration_unit: months',
        '    credit_amount: 100',
        '    credit_unit: requests',
      );
    }
    lines.push('links:');
    for (const code of fresh) lines.push('  - service_code: CLAUDE3', `    plan_code: ${code}`, '    is_available: true');
    const file = join(dir, 'catalog.yaml');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const changes = existing.length + 2 * fresh.length;

    const auditBefore = (sb.db.prepare('SELECT COALESCE(MAX(id), 0) AS m FROM audit_logs').get() as { m: number }).m;
    const report = join(dir, 'report.csv');
    const args = ['catalog', 'apply', '-f', file, '--yes', '--report', report];
    let killed = 0;
    for (let i = 0; i < 10; i++) {
      // Every fourth run at a random time early on (start-up, reading the platform), the others
      // after a random number of journal events (two a change). The kills must land before the
      // run could end, on a fast machine too: seven runs of at most 12 events, and three killed
      // within 180 ms of their start, stay well short of the run's 2 x (existing + 80).
      const kill: Kill =
        i % 4 === 0 ? { afterMs: 30 + Math.floor(Math.random() * 150) } : { afterEvents: 1 + Math.floor(Math.random() * 12), journalDir };
      const r = await runKilled(args, env, kill);
      if (r.signal === 'SIGKILL') killed++;
      else expect(r.code, r.stderr).toBe(0);
    }
    const final = await runKilled(args, env);
    expect(final.code, final.stderr).toBe(0);
    expect(killed).toBeGreaterThanOrEqual(7);

    const times = writesSince(sb, auditBefore);
    expect([...times.values()].reduce((a, b) => a + b, 0)).toBe(changes);
    expect([...times.values()].every((n) => n === 1)).toBe(true);
    for (const code of fresh) {
      expect(times.get(`subscription-plans create ${code}`)).toBe(1);
      expect(times.get(`service-plans create CLAUDE3/${code}`)).toBe(1);
    }
    for (const p of existing) expect(times.get(`subscription-plans update ${p.plan_code}`)).toBe(1);
    const prices = sb.db.prepare('SELECT plan_code, price FROM subscription_plans').all() as Array<{ plan_code: string; price: number }>;
    for (const p of existing) expect(prices.find((x) => x.plan_code === p.plan_code)?.price).toBeCloseTo(p.price + 1.25, 2);

    // The last run's report accounts for every change, each done once by one of the runs.
    const rows = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    expect(rows).toHaveLength(changes);
    expect(rows.every((r) => /,(applied|applied-earlier|verified),/.test(r))).toBe(true);
    const diff = await runCli(['catalog', 'diff', '-f', file], { env });
    expect(diff.code, diff.stdout).toBe(0);
  }, 240_000);
});
