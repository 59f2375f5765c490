/**
 * `subctl cleanup`: the maintenance cleanup, built for cron. `--dry-run` prints what would be
 * removed; a real run asks on a terminal and needs --yes off one, and holds a lock in the
 * state directory so that two runs never overlap. `-q` prints nothing on success; `-o json`
 * prints one object fit for a log.
 */
import { join } from 'node:path';
import { cleanupRun } from '../../api/contract/admin-subscriptions.js';
import type { Ctx } from '../../cli/context.js';
import { configureVerb, type VerbInput } from '../../cli/verbs.js';
import { ensurePrivateDir } from '../../config/paths.js';
import { printObject } from '../../output/index.js';
import type { Group } from '../types.js';

async function runCleanup(input: VerbInput, ctx: Ctx): Promise<number> {
  const dryRun = input.body.dry_run === true;
  const started = ctx.now();
  let lock: { release(): void } | undefined;
  if (!dryRun) {
    const { acquireLock } = await import('../../config/lock.js');
    const dir = ctx.paths().stateDir;
    ensurePrivateDir(dir);
    lock = acquireLock(join(dir, 'cleanup.lock'), { command: 'subctl cleanup' });
  }
  try {
    const api = await ctx.api();
    if (!dryRun) {
      const what = Object.entries(input.body)
        .filter(([k]) => k.startsWith('cleanup_'))
        .map(([k, v]) => `${k.replace(/^cleanup_/, '').replace(/_days$/, '')} older than ${String(v)} days`)
        .join(', ');
      await ctx.confirm(`remove subscription data for real: ${what || 'server defaults'}`);
    }
    const res = await api.callFull(cleanupRun, { body: input.body } as never, { signal: ctx.signal });
    const data = (res.data ?? {}) as Record<string, unknown>;
    const g = ctx.globals;
    if (g.quiet && g.output === 'table') return 0;
    const target = ctx.target();
    const record = {
      dry_run: dryRun,
      cleanup_summary: data.cleanup_summary ?? null,
      message: data.message ?? res.message ?? null,
      profile: target?.profile,
      base_url: target?.sandbox ? 'SANDBOX' : target?.baseUrl,
      started_at: started.toISOString(),
      duration_ms: ctx.now().getTime() - started.getTime(),
    };
    if (g.output === 'json' || g.output === 'ndjson') {
      // One object, on one line, for log files.
      ctx.io.stdout.write(`${JSON.stringify(record)}\n`);
    } else if (g.output === 'csv') {
      await printObject(flatten(record), { format: 'csv', io: ctx.io, noColor: g.noColor });
    } else {
      ctx.io.stdout.write(`${dryRun ? 'Would remove (dry run, nothing removed)' : 'Removed'}:\n`);
      const summary = (record.cleanup_summary ?? {}) as Record<string, unknown>;
      // The heading says whether it was a dry run; the summary's own dry_run flag would repeat it.
      for (const [k, v] of Object.entries(summary).filter(([key]) => key !== 'dry_run')) ctx.io.stdout.write(`  ${k.padEnd(26)} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
      if (record.message) ctx.note(String(record.message));
    }
    return 0;
  } finally {
    lock?.release();
  }
}

function flatten(o: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v as Record<string, unknown>, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

export const cleanupGroup: Group = {
  name: 'cleanup',
  summary: 'maintenance cleanup of subscription data (cron-safe; --dry-run first)',
  build(cmd, bind) {
    configureVerb(
      cmd,
      {
        name: 'cleanup',
        endpoint: cleanupRun,
        summary: 'remove expired subscriptions, inactive tokens and old usage logs; --dry-run prints the counts only',
        override: (input, ctx) => runCleanup(input, ctx),
        // One cleanup is one request, run under cleanup.lock: rows of a file would each be a
        // cleanup, and went around the lock (a second cleanup overlapped a running one).
        bulk: false,
      },
      bind,
    );
  },
};
