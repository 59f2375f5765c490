/**
 * The journal of a catalog apply: one JSON line per event, appended under the state directory
 * (`catalog/<run>.jsonl`). A change is recorded as `sent` before its request leaves and as
 * `done` or `failed` after its answer; a run killed at any moment leaves, on restart, the changes
 * that finished and the ones in flight. Apply is driven by the diff against the platform, so a
 * change in flight is settled by reading the platform again, never by resending it blindly:
 * the journal names the run, feeds its report, and tells a resumed run what it did before.
 *
 * This is the catalog's own small journal (one line a change, a handful of changes a run), kept
 * apart from the bulk engine's (src/bulk/journal.ts), whose row-numbered events fit a CSV run.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { localError } from '../api/errors.js';
import { ensurePrivateDir } from '../config/paths.js';

type StepState = 'sent' | 'done' | 'failed' | 'verified' | 'absent';

export interface StepEvent {
  step: string;
  state: StepState;
  /** The change as the report names it. */
  kind?: string;
  op?: string;
  label?: string;
  at: number;
  status?: number;
  message?: string;
}

/** The default run name: the file's bytes, the platform and the flags that change the plan. */
export function defaultRunName(text: string, platform: string, flags: { prune?: boolean; forceDelete?: boolean; only?: string }): string {
  const h = createHash('sha256');
  h.update(`catalog apply\n${platform}\n${flags.prune ? 'prune' : ''}\n${flags.forceDelete ? 'force' : ''}\n${flags.only ?? ''}\n`);
  h.update(text);
  return `catalog-${h.digest('hex').slice(0, 16)}`;
}

export const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class CatalogJournal {
  readonly file: string;
  #fd: number | undefined;

  constructor(dir: string, run: string) {
    this.file = join(dir, `${run}.jsonl`);
  }

  /** The last event of each step written so far (a line cut by a kill is ignored). */
  load(): Map<string, StepEvent> {
    const last = new Map<string, StepEvent>();
    if (!existsSync(this.file)) return last;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const e = JSON.parse(line) as StepEvent;
        if (typeof e.step === 'string') last.set(e.step, e);
      } catch {
        // the line a kill cut short
      }
    }
    return last;
  }

  /** Appends one event as one write of one whole line. */
  append(e: Omit<StepEvent, 'at'>): void {
    try {
      if (this.#fd === undefined) {
        ensurePrivateDir(join(this.file, '..'));
        this.#fd = openSync(this.file, 'a', 0o600);
      }
      const line = Buffer.from(`${JSON.stringify({ ...e, at: Date.now() })}\n`);
      let off = 0;
      while (off < line.length) off += writeSync(this.#fd, line, off);
    } catch (err) {
      throw localError(err, `the catalog journal ${this.file}`) ?? err;
    }
  }

  /**
   * A run that applied everything is over: its journal is kept under another name, so that the
   * same command run later (the same file, after the platform drifted) is a new run.
   */
  finish(now: Date): void {
    this.close();
    if (existsSync(this.file))
      renameSync(this.file, this.file.replace(/\.jsonl$/, `.done-${now.toISOString().replace(/[:.]/g, '-')}.jsonl`));
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
