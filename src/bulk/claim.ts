/**
 * The lock stage. A run holds its own lock (`<journal>.lock`: the same run started twice stops
 * with exit 5), and claims its rows' targets on the platform: under a short platform-wide lock,
 * it writes what its rows are (earlier.ts) and reads what every other run of the command on the
 * platform holds. Two runs started together on overlapping files thus never both send a shared
 * row: the later one finds the earlier one's claim, waits for that run to end, and takes its
 * outcome for those rows.
 */
import { join, dirname } from 'node:path';
import { InterruptedError } from '../api/errors.js';
import { acquireLock, acquireLockWaiting, LockHeldError, pidAlive, type Lock } from '../config/lock.js';
import { earlierRows, otherRuns, writeRowsFile, type EarlierRow, type RowsHead } from './earlier.js';
import type { PlannedRow } from './types.js';

export interface Claim {
  lock: Lock;
  /** Rows of runs that were going on when this one claimed its rows, settled by them since. */
  overlapping: EarlierRow[];
  /** Rows that finished runs of other inputs sent (not looked for when `fresh` is false). */
  earlier: EarlierRow[];
}

/** Is the run of `journal` going on (its lock held by a live process)? */
function running(journal: string): boolean {
  try {
    acquireLock(`${journal}.lock`, { command: 'probe' }).release();
    return false;
  } catch (e) {
    if (e instanceof LockHeldError) return true;
    throw e;
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** How long a run waits for its lock while what holds it is not a live run. */
const LOCK_PATIENCE_MS = 15_000;

/**
 * The run's own lock. A live run holding it stops this one at once (exit 5); what is not a live
 * run is waited for: another run's probe (`running`) holds it for a moment, and a run killed
 * between creating the file and writing it, or in the middle of taking over a stale lock, leaves
 * a lock that becomes stale only after a few seconds (on a loaded machine the lock's own retries
 * can give up before that, and a resume after a kill would stop with exit 5).
 */
async function runLock(journal: string, what: string, signal: AbortSignal): Promise<Lock> {
  const deadline = Date.now() + LOCK_PATIENCE_MS;
  for (;;) {
    try {
      return acquireLock(`${journal}.lock`, { command: what });
    } catch (e) {
      if (!(e instanceof LockHeldError)) throw e;
      const h = e.holder;
      const liveRun = h.pid !== undefined && pidAlive(h.pid) && h.command !== 'probe';
      if (liveRun || Date.now() > deadline) throw e;
      if (signal.aborted) throw new InterruptedError();
      await sleep(50, signal);
    }
  }
}

/**
 * Takes the run's lock and claims its rows. `lookBack`: whether finished runs of other inputs
 * are looked through (a new run without `--run-id`); `note` says why the run waits.
 */
export async function claimRows(
  journal: string,
  head: RowsHead,
  planned: PlannedRow[],
  opts: { lookBack: boolean; pending: (p: PlannedRow) => boolean; signal: AbortSignal; note: (text: string) => void; what: string },
): Promise<Claim> {
  const lock = await runLock(journal, opts.what, opts.signal);
  try {
    const identities = new Map<number, string>();
    for (const p of planned) if (opts.pending(p)) identities.set(p.line, p.identity);
    const platformLock = join(dirname(journal), `${head.command.replace(/[^a-z0-9-]+/gi, '-')}.claim.lock`);
    let live: string[];
    let earlier: EarlierRow[] = [];
    const guard = acquireLockWaiting(platformLock, { command: opts.what }, 60_000);
    try {
      const others = otherRuns(journal, head);
      live = others.filter(running);
      if (opts.lookBack)
        earlier = earlierRows(
          others.filter((j) => !live.includes(j)),
          identities,
        );
      writeRowsFile(
        journal,
        head,
        planned.map((p) => [p.line, p.identity]),
      );
    } finally {
      guard.release();
    }
    const shared = earlierRows(live, identities, () => true);
    if (shared.length) {
      const runs = [...new Set(shared.map((s) => s.journal))];
      opts.note(
        `${shared.length} of these rows belong to ${runs.length === 1 ? 'another run' : `${runs.length} other runs`} going on now (${runs.join(', ')}): waiting for ${runs.length === 1 ? 'it' : 'them'} to end before deciding on those rows`,
      );
      while (runs.some(running)) {
        if (opts.signal.aborted) throw new InterruptedError();
        await sleep(250, opts.signal);
      }
    }
    const overlapping = shared.length ? earlierRows(live, new Map(shared.map((s) => [s.line, identities.get(s.line)!]))) : [];
    return { lock, overlapping, earlier: earlier.filter((e) => !shared.some((s) => s.line === e.line)) };
  } catch (e) {
    lock.release();
    throw e;
  }
}
