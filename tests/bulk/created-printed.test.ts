/**
 * What a bulk create made reaches stdout, whatever stops the run: `usage-codes generate
 * --from-csv` killed mid-run three times, then resumed, has printed every code of every batch
 * exactly once over all its attempts (a killed attempt prints nothing: its answers' codes are
 * printed by the attempt that finishes, read back from the platform). Against the sandbox
 * answering every write with 503 after applying it, every code is printed, read back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';
import { killEnv, runKilled } from '../support/kill-run.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';
import type { Sandbox } from '../../src/sandbox/server.js';

afterAll(closeAllTestSandboxes);

/** A file of `n` batches of 3 codes under `tag`, and what the database then holds for them. */
function batches(sb: Sandbox, tag: string, n: number) {
  const link = (sb.db.prepare('SELECT service_plan_id AS id FROM service_plans ORDER BY service_plan_id LIMIT 1').get() as { id: number })
    .id;
  const dir = tempDir('subctl-created-');
  const csv = join(dir, 'batches.csv');
  const rows = Array.from({ length: n }, (_, i) => `${tag}-${String(i).padStart(3, '0')},3,30,${link}`);
  writeFileSync(csv, `batch_id,code_count,expiration_days,service_plan_id\n${rows.join('\n')}\n`);
  const codes = () =>
    (
      sb.db.prepare('SELECT code_value FROM usage_codes WHERE batch_id LIKE ? ORDER BY code_value').all(`${tag}-%`) as Array<{
        code_value: string;
      }>
    ).map((r) => r.code_value);
  return { dir, csv, codes };
}

/** The code values of a CSV stdout (its first column, the header aside). */
const printedCodes = (stdout: string) =>
  stdout
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((l) => l.split(',')[0]);

describe('bulk creates print what they made, once, whatever stops the run', () => {
  it('usage-codes generate killed three times mid-run, resumed: every code on stdout exactly once over the attempts', async () => {
    const sb = await startTestSandbox();
    const { dir, csv, codes } = batches(sb, 'KILLPRINT', 40);
    const journalDir = join(dir, 'cfg', 'state', 'bulk');
    const env = killEnv(dir, sb.url, sb.tokenFor('admin'));
    const args = ['usage-codes', 'generate', '--from-csv', csv, '--concurrency', '2', '--yes', '-o', 'csv', '--timeout', '2000'];
    const printed: string[] = [];
    let killed = 0;
    // Each row writes two journal lines (sent, done): kills after 6, 12 and 18 more land mid-run.
    for (const afterEvents of [6, 12, 18]) {
      const r = await runKilled(args, env, { afterEvents, journalDir });
      if (r.signal === 'SIGKILL') killed++;
      printed.push(...printedCodes(r.stdout));
    }
    const final = await runKilled(args, env);
    expect(final.code, final.stderr).toBe(0);
    expect(killed).toBe(3);
    expect(final.stderr).toMatch(/the items \d+ rows created were read back from the platform/);
    printed.push(...printedCodes(final.stdout));

    expect(codes()).toHaveLength(120);
    expect([...printed].sort()).toEqual(codes());

    // Asked again, the finished run sends and prints nothing more.
    const again = await runKilled(args, env);
    expect(again.code, again.stderr).toBe(0);
    expect(printedCodes(again.stdout)).toEqual([]);
    expect(again.stderr).toMatch(/nothing sent/);
  }, 120_000);

  it('every answer lost (applied, then 503): the codes are read back and printed', async () => {
    const sb = await startTestSandbox({ chaos: { appliedError: 1 } });
    const { dir, csv, codes } = batches(sb, 'LOSTPRINT', 4);
    const env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin'), SUBCTL_CONFIG_DIR: join(dir, 'cfg') };
    const r = await runCli(['usage-codes', 'generate', '--from-csv', csv, '--yes', '-o', 'csv', '--timeout', '3000'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('the items 4 rows created were read back from the platform');
    expect(r.stdout.split('\n')[0]).toBe('code_value,batch_id,expiry_date,code_id');
    expect(printedCodes(r.stdout).sort()).toEqual(codes());
    expect(codes()).toHaveLength(12);
  });
});
