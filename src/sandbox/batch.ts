/**
 * Group commit for the sandbox's write requests.
 *
 * A commit costs more than the writes of a typical request: each page a transaction touched is
 * written to the WAL again (the audit table and its four indexes, the row and its indexes:
 * many pages for one subscription manage), and the checkpoints that copy the WAL
 * back are paid by the page. Write requests that arrive together (bulk runs send 16 at once)
 * touch many of the same pages, so they are run one after the other inside one transaction and
 * committed once; each answer is sent after that commit, so no caller (nor another process)
 * hears of a write before it is committed.
 *
 * Batching changes nothing else: the requests run in arrival order; a handler's own transaction
 * becomes a savepoint (better-sqlite3 nests them), so its writes are still all or nothing; a
 * handler that throws keeps whatever it wrote outside a transaction, exactly as when each
 * statement commits on its own. A request alone (the usual case with one client) runs on its
 * own, outside any batch.
 */
import { dataRolledBack, prep } from './db.js';
import type { DB } from './types.js';

interface Job {
  fn: () => unknown;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface WriteBatcher {
  /** Runs `fn` (synchronous; it may return a promise, whose rest runs after the commit) in the next batch. */
  run<T>(fn: () => T): Promise<Awaited<T>>;
  /** Runs what is waiting now (before the connection closes). */
  flush(): void;
}

/** At most this many requests share a commit (the write lock is held while they run). */
const MAX_BATCH = 64;

export function writeBatcher(db: DB): WriteBatcher {
  const queue: Job[] = [];
  let scheduled = false;

  const attempt = (j: Job): Outcome => {
    try {
      return { ok: true, value: j.fn() };
    } catch (error) {
      // The handler may have rolled back (part of) its work: cached reads must not outlive it.
      dataRolledBack(db);
      return { ok: false, error };
    }
  };
  const settle = (j: Job, o: Outcome) => (o.ok ? j.resolve(o.value) : j.reject(o.error));
  const alone = (j: Job) => settle(j, attempt(j));

  function runBatch(jobs: Job[]): void {
    if (jobs.length === 1 || db.inTransaction) {
      for (const j of jobs) alone(j);
      return;
    }
    try {
      prep(db, 'BEGIN IMMEDIATE').run();
    } catch {
      // The write lock stayed busy (another process): each request meets that on its own.
      for (const j of jobs) alone(j);
      return;
    }
    const outcomes: Outcome[] = [];
    for (let i = 0; i < jobs.length; i++) {
      outcomes.push(attempt(jobs[i]));
      if (!db.inTransaction) {
        // An error that rolls back the whole transaction (disk full, I/O): the requests before
        // this one lost their writes with it. This one's error stands; the others run alone.
        dataRolledBack(db);
        settle(jobs[i], outcomes[i]);
        for (let k = 0; k < jobs.length; k++) if (k !== i) alone(jobs[k]);
        return;
      }
    }
    try {
      prep(db, 'COMMIT').run();
    } catch (error) {
      if (db.inTransaction) {
        try {
          prep(db, 'ROLLBACK').run();
        } catch {
          // Already gone.
        }
      }
      dataRolledBack(db);
      for (const j of jobs) j.reject(error);
      return;
    }
    jobs.forEach((j, i) => settle(j, outcomes[i]));
  }

  function flush(): void {
    scheduled = false;
    while (queue.length) {
      const jobs = queue.splice(0, MAX_BATCH);
      try {
        runBatch(jobs);
      } catch (error) {
        // Not expected (runBatch settles every job); never leave a request unanswered.
        for (const j of jobs) j.reject(error);
      }
    }
  }

  return {
    run<T>(fn: () => T): Promise<Awaited<T>> {
      return new Promise((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          // After the poll phase: every request whose body arrived in it joins this batch.
          setImmediate(flush);
        }
      });
    },
    flush,
  };
}
