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
import { HttpError, NetworkError } from '../../api/errors.js';
import { builtin } from '../../builtin.js';
import { ensurePrivateDir } from '../../config/paths.js';
import { escapeControls, formatCell, pickFields } from '../../output/format.js';
import { printObject } from '../../output/index.js';
import type { Group } from '../types.js';

/** A value of the platform's summary as one line of text, its control characters escaped (objects as JSON). */
const cellText = (v: unknown) => escapeControls(formatCell(v, { tty: false }));

/** The three thresholds of the body, in the contract's order, with what each one removes. */
const THRESHOLDS = [
  ['cleanup_expired_days', 'expired subscriptions'],
  ['cleanup_inactive_tokens_days', 'inactive tokens'],
  ['cleanup_usage_logs_days', 'usage logs'],
] as const;

/**
 * What a real run is about to do, for its confirmation: each threshold as given, or "not given"
 * (the platform then applies its own default, which the specification does not state: a run
 * naming only usage logs also removes expired subscriptions and tokens under the defaults, which
 * a confirmation naming only usage logs would hide), and, on a terminal, the counts of a dry run of
 * the same body made just before, with the thresholds the platform says it used.
 */
function confirmation(body: Record<string, unknown>, preview: Record<string, unknown> | undefined): string {
  const used = (preview?.thresholds ?? {}) as Record<string, unknown>;
  const lines = THRESHOLDS.map(([k, what]) => {
    const given = body[k];
    const said = used[k];
    if (given !== undefined) return `  ${what} older than ${String(given)} days`;
    return `  ${what}: --${k.replace(/_/g, '-')} not given, the platform's default applies${typeof said === 'number' ? ` (it says ${said} days)` : ''}`;
  });
  const summary = (preview?.cleanup_summary ?? undefined) as Record<string, unknown> | undefined;
  const counted = summary
    ? `\n  a dry run of the same counts: ${Object.entries(summary)
        .filter(([k]) => k !== 'dry_run')
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(', ')}`
    : '';
  return `remove subscription data for real:\n${lines.join('\n')}${counted}`;
}

/**
 * The lock of one platform's cleanup: named after the profile and the address, so that two
 * platforms' cleanups run side by side and a held lock names whose cleanup it is.
 */
function platformLock(ctx: Ctx): { file: string; command: string } {
  const t = ctx.target()!;
  const address = t.sandbox ? 'the sandbox' : t.baseUrl;
  const key = builtin('node:crypto')
    .createHash('sha256')
    .update(`${t.profile}\0${t.sandbox ? 'sandbox' : t.baseUrl}`)
    .digest('hex')
    .slice(0, 16);
  return { file: join(ctx.paths().stateDir, `cleanup-${key}.lock`), command: `subctl cleanup of profile "${t.profile}" on ${address}` };
}

/**
 * A real run whose answer did not come in time, or came from a failing server or the gateway in
 * front of it (a 504 after its own time-out): it may have run all the same.
 */
function mayHaveRun(e: unknown, ctx: Ctx): never {
  if ((e instanceof NetworkError && e.code === 'ETIMEDOUT') || (e instanceof HttpError && (e.status ?? 0) >= 500)) {
    const t = ctx.target();
    e.message = `${e.message}: the cleanup may have run on the platform all the same`;
    e.hint = `check before running it again: \`subctl cleanup --dry-run\` counts what is left, and \`subctl audit list --module maintenance --action cleanup\` shows the runs the platform recorded${t ? ` (profile ${t.profile})` : ''}; --timeout MS allows more time`;
  }
  throw e;
}

async function runCleanup(input: VerbInput, ctx: Ctx): Promise<number> {
  const dryRun = input.body.dry_run === true;
  const started = ctx.now();
  let lock: { release(): void } | undefined;
  // Where it runs first (no platform configured off a terminal stops here, before any file is
  // made), then that platform's lock.
  const api = await ctx.api();
  if (!dryRun) {
    const { acquireLock } = await import('../../config/lock.js');
    ensurePrivateDir(ctx.paths().stateDir);
    const { file, command } = platformLock(ctx);
    lock = acquireLock(file, { command });
  }
  try {
    if (!dryRun) {
      // Asking on a terminal: count first (the platform's own dry run of the same body), so the
      // question says what will go. With --yes, or off a terminal (where confirm refuses), not.
      const asking = !ctx.globals.yes && ctx.interactive();
      const preview = asking
        ? ((await api.callFull(cleanupRun, { body: { ...input.body, dry_run: true } } as never, { signal: ctx.signal })).data as Record<
            string,
            unknown
          > | null)
        : undefined;
      await ctx.confirm(confirmation(input.body, preview ?? undefined));
    }
    const res = await api
      .callFull(cleanupRun, { body: input.body } as never, { signal: ctx.signal })
      .catch((e: unknown) => (dryRun ? Promise.reject(e) : mayHaveRun(e, ctx)));
    const data = (res.data ?? {}) as Record<string, unknown>;
    const g = ctx.globals;
    // -q: a real run prints nothing on success (cron mails nothing); a dry run's counts are its
    // result, printed as any command's result is (left out, they would leave an empty file).
    if (g.quiet && g.output === 'table' && !dryRun) return 0;
    const target = ctx.target();
    // Everything the platform answered (the summary, and where it gives them the thresholds and
    // cutoffs it used), then where and when this ran.
    const { cleanup_summary: summary, message, ...rest } = data;
    const full: Record<string, unknown> = {
      dry_run: dryRun,
      cleanup_summary: summary ?? null,
      ...rest,
      message: message ?? res.message ?? null,
      profile: target?.profile,
      base_url: target?.sandbox ? 'SANDBOX' : target?.baseUrl,
      started_at: started.toISOString(),
      duration_ms: ctx.now().getTime() - started.getTime(),
    };
    const record = g.fields ? pickFields(full, g.fields) : full;
    if (g.output === 'json' || g.output === 'ndjson') {
      // One object, on one line, for log files.
      ctx.io.stdout.write(`${JSON.stringify(record)}\n`);
    } else if (g.output === 'csv') {
      await printObject(g.fields ? record : flatten(record), { format: 'csv', io: ctx.io, noColor: g.noColor });
    } else if (g.fields) {
      await printObject(record, { format: 'table', io: ctx.io, noColor: g.noColor });
    } else {
      ctx.io.stdout.write(`${dryRun ? 'Would remove (dry run, nothing removed)' : 'Removed'}:\n`);
      const counts = (full.cleanup_summary ?? {}) as Record<string, unknown>;
      // The heading says whether it was a dry run; the summary's own dry_run flag would repeat it.
      for (const [k, v] of Object.entries(counts).filter(([key]) => key !== 'dry_run'))
        ctx.io.stdout.write(`  ${escapeControls(k).padEnd(26)} ${cellText(v)}\n`);
      for (const part of ['thresholds', 'cutoffs']) {
        const o = rest[part];
        if (!o || typeof o !== 'object') continue;
        ctx.io.stdout.write(`${part}:\n`);
        for (const [k, v] of Object.entries(o as Record<string, unknown>))
          ctx.io.stdout.write(`  ${escapeControls(k).padEnd(30)} ${cellText(v)}\n`);
      }
      if (full.message) ctx.note(formatCell(full.message, { tty: false }));
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
  build(cmd, bind) {
    configureVerb(
      cmd,
      {
        name: 'cleanup',
        examples: [
          'subctl cleanup --cleanup-expired-days 90 --cleanup-usage-logs-days 180 --dry-run -o json',
          'subctl cleanup --cleanup-expired-days 90 --yes --quiet',
        ],
        endpoint: cleanupRun,
        summary: 'remove expired subscriptions, inactive tokens and old usage logs; --dry-run prints the counts only',
        override: (input, ctx) => runCleanup(input, ctx),
        // One cleanup is one request, run under cleanup.lock: rows of a file would each be a
        // cleanup, and go around the lock (a second cleanup would overlap a running one).
        bulk: false,
      },
      bind,
    );
  },
};
