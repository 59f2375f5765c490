/**
 * A bulk run whose journal cannot be written in full (a full disk; here a file-size limit,
 * `ulimit -f`, which fails the same way: a short write, then an error) stops with an error that
 * names the journal, and never sends a row whose `sent` record is not on disk. Resumed with room,
 * every row is applied exactly once. The real binary runs against a real sandbox; the proof is
 * read from the sandbox database and from the journal on disk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { run } from '../chaos/binary.js';
import { startTestSandbox } from '../support/sandbox.js';
import { extendRun, timesEach } from './extend-run.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

describe('bulk runs on a full disk', () => {
  it('the journal cannot be written: the run stops naming it, no row leaves without its `sent` on disk, the resume applies every row once', async () => {
    const { subs, csv, env, journalDir, applied, wrongEndDates } = extendRun(sb, 600, 'subctl-disk-full-', 'disk test');
    const args = ['subscriptions', 'manage', '--from-csv', csv, '--concurrency', '8', '--yes', '--timeout', '1500'];

    /** Subscriptions with a `sent` record in the journal on disk (a cut line does not count). */
    const sentOnDisk = (): Set<number> => {
      const ids = new Set<number>();
      for (const f of readdirSync(journalDir)) {
        for (const l of readFileSync(join(journalDir, f), 'utf8').split('\n')) {
          try {
            const e = JSON.parse(l) as { line: number; state: string };
            if (e.state === 'sent') ids.add(subs[e.line - 2].subscription_id);
          } catch {
            // a cut line
          }
        }
      }
      return ids;
    };

    // The row file (what the run's rows are, about 40 bytes a row) is written before any row
    // is sent: cut, the run stops there, nothing sent.
    const early = await run(args, env, { limitKb: 8 });
    expect(early.code, early.stderr).toBe(1);
    expect(early.stderr).toMatch(
      /^error: cannot write the bulk journal's row file .*subscriptions-manage-[0-9a-f]+\.jsonl\.rows: file too large \(EFBIG\)$/m,
    );
    expect(applied()).toEqual([]);

    // Three runs that each meet the limit further on (a journal row is about 170 bytes: sent, then done).
    for (const limitKb of [40, 64, 88]) {
      const r = await run(args, env, { limitKb });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^error: cannot write the bulk journal .*subscriptions-manage-[0-9a-f]+\.jsonl: file too large \(EFBIG\)$/m);
      expect(r.stderr).toContain('hint: ');
      expect(r.stderr).not.toContain('this is a bug');
      const sent = sentOnDisk();
      const done = applied();
      expect(done.length).toBeGreaterThan(0);
      expect(done.length).toBeLessThan(600);
      expect(done.filter((id) => !sent.has(id))).toEqual([]);
    }

    const final = await run(args, env);
    expect(final.code, final.stderr).toBe(0);
    expect(wrongEndDates()).toEqual([]);
    const perSub = timesEach(applied());
    expect(perSub.size).toBe(600);
    expect([...perSub.entries()].filter(([, n]) => n !== 1)).toEqual([]);
  }, 120_000);
});
