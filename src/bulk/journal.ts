/**
 * The bulk journal: one JSON line per event, appended in the state directory, named by the
 * command and the run (platform.ts), each event naming its row by identity (plan.ts). A row is
 * recorded as `sent` (with what it will change) before its request leaves and as `done`/`failed`
 * after its answer, so a run killed at any moment knows, on restart, which rows finished, which
 * failed, and which were in flight (answer unknown).
 *
 * Appends are single write(2) calls of whole lines (O_APPEND), so a SIGKILL can cut at most
 * the line being written, which the loader ignores; a short write (a full disk) is completed or
 * fails loudly (`#write`).
 */
import { hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { openNoFollow } from '../config/safe-files.js';
import { join } from 'node:path';
import { localError } from '../api/errors.js';
import { ensurePrivateDir } from '../config/paths.js';

type RowState = 'sent' | 'done' | 'failed' | 'unknown';

export interface JournalEvent {
  /** The row's identity within its run (plan.ts): endpoint, target, action, occurrence. */
  row: string;
  /** Its line in the input of the attempt that wrote the event (for people reading the file). */
  line: number;
  state: RowState;
  /** ms since epoch */
  at: number;
  status?: number;
  message?: string;
  created_id?: unknown;
  /**
   * How a row was settled: 'verified' (found applied), 'absent' (found not applied: sent again by
   * the next attempt), 'unsent' (its `sent` was written, then Ctrl-C came before it left),
   * 'earlier' (applied by an earlier or overlapping run), 'other' (left to an overlapping run).
   */
  via?: string;
  /** With `sent`: what the row will change, as the platform showed it before the row left. */
  before?: unknown;
  /** With `failed`: the fingerprint of the request that failed (a corrected row is sent again). */
  fp?: string;
}

export interface RowRecord {
  row: string;
  line: number;
  state: RowState;
  sentAt?: number;
  /** How many times the row was sent, over every attempt of the run. */
  attempt: number;
  /** The attempt that settled the row (its `sent` count then). */
  settledBy?: number;
  status?: number;
  message?: string;
  created_id?: unknown;
  via?: string;
  before?: unknown;
  fp?: string;
  at: number;
  /** What the row created (`usage-codes generate`: its codes) was printed on stdout by some attempt. */
  printed?: boolean;
}

/** A row's fingerprint: the first 128 bits of the SHA-256 of its canonical JSON, as 32 hex digits. */
export function fingerprintOf(input: unknown): string {
  return hash('sha256', canonicalJson(input), 'hex').slice(0, 32);
}

/**
 * `JSON.stringify(value)` with every object's keys in code-unit order: the same text for the
 * same value, however it was built.
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value));
}

function sortedCopy(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(sortedCopy);
  const o = v as Record<string, unknown>;
  // No prototype: a key named __proto__ is a key like any other.
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(o).sort()) out[k] = sortedCopy(o[k]);
  return out;
}

/** One journal line, ended by a newline. */
function journalLine(e: JournalEvent): string {
  return `${JSON.stringify(e)}\n`;
}

/** Journal lines of `events`, each ended by a newline. */
function lines(events: JournalEvent[]): string {
  let text = '';
  for (const e of events) text += journalLine(e);
  return text;
}

export class Journal {
  readonly path: string;
  private fd: number | undefined;

  constructor(stateDir: string, command: string, digest: string) {
    const dir = join(stateDir, 'bulk');
    ensurePrivateDir(stateDir);
    ensurePrivateDir(dir);
    this.path = join(dir, `${command.replace(/[^a-z0-9-]+/gi, '-')}-${digest}.jsonl`);
  }

  exists(): boolean {
    return existsSync(this.path);
  }

  /** Every row's last known state, from the journal on disk. */
  load(): Map<string, RowRecord> {
    return Journal.loadFile(this.path);
  }

  /** Every row's last known state in the journal at `path` (none when there is no file). */
  static loadFile(path: string): Map<string, RowRecord> {
    const rows = new Map<string, RowRecord>();
    if (!existsSync(path)) return rows;
    const text = readFileSync(path, 'utf8');
    for (const l of text.split('\n')) {
      if (!l) continue;
      let e: JournalEvent;
      try {
        e = JSON.parse(l) as JournalEvent;
      } catch {
        continue; // a line cut by a kill
      }
      if (Array.isArray((e as { printed?: unknown })?.printed)) {
        for (const id of (e as unknown as { printed: unknown[] }).printed) {
          const r = typeof id === 'string' ? rows.get(id) : undefined;
          if (r) r.printed = true;
        }
        continue;
      }
      if (typeof e?.row !== 'string') continue;
      const prev = rows.get(e.row) ?? { row: e.row, line: e.line, state: e.state, attempt: 0, at: e.at };
      const next: RowRecord = { ...prev, state: e.state, line: e.line, at: e.at };
      if (e.state === 'sent') {
        next.sentAt = e.at;
        next.attempt = prev.attempt + 1;
        next.before = e.before;
        next.status = next.message = next.via = undefined;
      } else {
        next.status = e.status;
        next.message = e.message;
        next.created_id = e.created_id;
        next.via = e.via;
        next.fp = e.fp;
        next.settledBy = prev.attempt;
      }
      rows.set(e.row, next);
    }
    return rows;
  }

  #pending = '';
  #waiting: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  #scheduled = false;

  /**
   * Appends `events` together with those of every other caller of the same turn of the event
   * loop, in one write(2), and resolves once they are written (rejects if the write fails). A
   * bulk worker awaits this before it sends its row, so `sent` is still on disk before the
   * request leaves; the answers that arrive together then cost one write instead of one each,
   * and their next requests leave together.
   */
  appendSoon(...events: JournalEvent[]): Promise<void> {
    this.#pending += lines(events);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    const text = this.#pending;
    const waiting = this.#waiting;
    this.#pending = '';
    this.#waiting = [];
    this.#scheduled = false;
    try {
      this.#write(text);
    } catch (e) {
      for (const w of waiting) w.reject(e);
      return;
    }
    for (const w of waiting) w.resolve();
  }

  append(...events: JournalEvent[]): void {
    this.#write(lines(events));
  }

  /** Records that what `rows` created is on stdout: a later attempt prints only the others. */
  markPrinted(rows: string[]): void {
    if (rows.length) this.#write(`${JSON.stringify({ printed: rows, at: Date.now() })}\n`);
  }

  /** Whether the file may end inside a line (cut by a kill or a full disk): the next write ends it first. */
  #cut = false;

  /**
   * Whole lines in one write(2) where the kernel takes them all: a kill cuts at most the last
   * line, which the loader ignores. A write the disk cannot hold in full is short without an
   * error: the rest is written again until the kernel refuses with ENOSPC, which is thrown, so
   * no caller ever goes on as if a record it did not write were on disk. A line left cut (here
   * or by a kill in an earlier run) is ended before the next record, which would otherwise join
   * it and be lost with it.
   */
  #write(text: string): void {
    try {
      if (this.fd === undefined) {
        this.fd = openNoFollow(this.path, 'a+', 0o600);
        const size = fstatSync(this.fd).size;
        if (size > 0) {
          const last = Buffer.alloc(1);
          readSync(this.fd, last, 0, 1, size - 1);
          this.#cut = last[0] !== 0x0a;
        }
      }
      let bytes = Buffer.from(this.#cut ? `\n${text}` : text, 'utf8');
      while (bytes.length > 0) {
        this.#cut = true;
        const n = writeSync(this.fd, bytes);
        bytes = bytes.subarray(n);
      }
      this.#cut = false;
    } catch (e) {
      throw localError(e, `the bulk journal ${this.path}`) ?? e;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Removes the journal, and what its rows were (`<journal>.rows`, see earlier.ts). */
  discard(): void {
    this.close();
    for (const f of [this.path, `${this.path}.rows`]) if (existsSync(f)) unlinkSync(f);
  }
}
