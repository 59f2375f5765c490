/**
 * The bulk journal: one JSON line per event, appended in the state directory, keyed by the
 * command and a digest of its input. A row is recorded as `sent` before its request leaves and
 * as `done`/`failed` after its answer, so a run killed at any moment knows, on restart, which
 * rows finished, which failed, and which were in flight (answer unknown).
 *
 * Appends are single write(2) calls of whole lines (O_APPEND), so a SIGKILL can cut at most
 * the line being written, which the loader ignores; a short write (a full disk) is completed or
 * fails loudly (`#write`).
 */
import { createHash, hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, readFileSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { openNoFollow } from '../config/safe-files.js';
import { join } from 'node:path';
import { localError } from '../api/errors.js';
import { ensurePrivateDir } from '../config/paths.js';

export type RowState = 'sent' | 'done' | 'failed' | 'unknown';

export interface JournalEvent {
  line: number;
  state: RowState;
  /** ms since epoch */
  at: number;
  attempt?: number;
  status?: number;
  message?: string;
  created_id?: unknown;
  /** How an unknown row was settled on resume: 'verified' (found applied), 'absent' (found not applied). */
  via?: string;
}

export interface RowRecord {
  line: number;
  state: RowState;
  sentAt?: number;
  attempt: number;
  status?: number;
  message?: string;
  created_id?: unknown;
  via?: string;
}

/**
 * The digest of a bulk run: the command, the endpoint and every row's line and resolved input.
 * Hashed 1,000 rows at a time, one `JSON.stringify` a chunk: one call per row cost a run of
 * 10,000 rows about 15 ms before its first request, cold.
 */
export function runDigest(command: string, endpoint: string, rows: ReadonlyArray<{ line: number; input: unknown }>, target?: string): string {
  const d = runDigests(command, endpoint, rows, target ?? '');
  return target === undefined ? d.legacy : d.digest;
}

/**
 * The run's digest with its platform (`digest`), and the one journals written before the
 * platform was part of it were named by (`legacy`), from one pass over the rows. The platform
 * the rows go to is part of the run: the same file sent to staging and then to production is two
 * runs (without it, the second "resumed" the first and sent nothing).
 */
export function runDigests(
  command: string,
  endpoint: string,
  rows: ReadonlyArray<{ line: number; input: unknown }>,
  target: string,
): { digest: string; legacy: string; fingerprints: () => Map<number, string>; fingerprintsV1: () => Map<number, string> } {
  const h = createHash('sha256');
  const l = createHash('sha256');
  h.update(`${command}\n${endpoint}\n${target}\n`);
  l.update(`${command}\n${endpoint}\n`);
  // Each row's JSON once: joined into the text `JSON.stringify([line, input, line, input, ...])`
  // of 1,000 rows, hashed a chunk at a time, and kept for the rows' fingerprints (earlier.ts),
  // which only a new run asks for (30-40 ms of hashing for 10,000 rows that a resume skips).
  const jsons: string[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i += 1000) {
    let text = '[';
    for (let j = i; j < rows.length && j < i + 1000; j++) {
      jsons[j] = JSON.stringify(rows[j].input);
      text += `${j > i ? ',' : ''}${JSON.stringify(rows[j].line)},${jsons[j]}`;
    }
    text += ']\n';
    h.update(text);
    l.update(text);
  }
  // A row's request, whatever order its fields came in (columns reordered, a value moved from
  // a column to a flag): the fingerprint of its canonical JSON. Row files of version 1 hold
  // fingerprints of the JSON as built (earlier.ts still reads them).
  const fingerprints = () => {
    const m = new Map<number, string>();
    for (const r of rows) m.set(r.line, fingerprintOf(canonicalJson(r.input)));
    return m;
  };
  const fingerprintsV1 = () => {
    const m = new Map<number, string>();
    for (let j = 0; j < rows.length; j++) m.set(rows[j].line, fingerprintOf(jsons[j]));
    return m;
  };
  return { digest: h.digest('hex').slice(0, 24), legacy: l.digest('hex').slice(0, 24), fingerprints, fingerprintsV1 };
}

/** A row's fingerprint: the first 128 bits of the SHA-256 of its JSON, as 32 hex digits. */
export function fingerprintOf(text: string): string {
  // One-shot crypto.hash (Node 20.12+, engines says 20.18): no Hash object per row, about a
  // third of createHash's time for 10,000 rows before the first request.
  return hash('sha256', text, 'hex').slice(0, 32);
}

/**
 * `JSON.stringify(value)` with every object's keys in code-unit order: the same text for the
 * same value, however it was built. (A sorted copy, then one stringify: a replacer function
 * called for every value cost 10,000 rows about twice as much.)
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value));
}

function sortedCopy(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(sortedCopy);
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1]! <= keys[i]!;
  // Already canonical, nothing nested: the object itself.
  if (inOrder && keys.every((k) => o[k] === null || typeof o[k] !== 'object')) return o;
  if (!inOrder) keys.sort();
  // No prototype: a key named __proto__ is a key like any other.
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of keys) out[k] = sortedCopy(o[k]);
  return out;
}

const int = (v: unknown) => Number.isSafeInteger(v);

/**
 * One journal line, ended by a newline: the same JSON as `JSON.stringify(e)` gives (fields in
 * a fixed order), written out directly for the usual events; a bulk run writes two per row.
 * Anything unusual (a number that is not a safe integer, a field it does not know) goes
 * through `JSON.stringify`, so a line is always valid JSON.
 * @example journalLine({ line: 2, state: 'sent', at: 1 }) // '{"line":2,"state":"sent","at":1}\n'
 */
export function journalLine(e: JournalEvent): string {
  if (!int(e.line) || !int(e.at) || (e.status !== undefined && !int(e.status)) || (e.attempt !== undefined && !int(e.attempt)) || !STATES.has(e.state)) {
    return `${JSON.stringify(e)}\n`;
  }
  let known = 3;
  let s = `{"line":${e.line},"state":"${e.state}","at":${e.at}`;
  if (e.attempt !== undefined) (s += `,"attempt":${e.attempt}`), known++;
  if (e.status !== undefined) (s += `,"status":${e.status}`), known++;
  if (e.message !== undefined) (s += `,"message":${JSON.stringify(e.message)}`), known++;
  if (e.created_id !== undefined) {
    const c = JSON.stringify(e.created_id);
    if (c !== undefined) s += `,"created_id":${c}`;
    known++;
  }
  if (e.via !== undefined) (s += `,"via":${JSON.stringify(e.via)}`), known++;
  // Only what the fields above cover; an extra field (or an undefined one counted above) falls back.
  let own = 0;
  for (const k in e) if ((e as unknown as Record<string, unknown>)[k] !== undefined) own++;
  return own === known ? `${s}}\n` : `${JSON.stringify(e)}\n`;
}
const STATES = new Set<string>(['sent', 'done', 'failed', 'unknown']);

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

  /** Takes over the journal at `older` (an earlier version's name for the same run) when this one is absent; whether it did. */
  adopt(older: string): boolean {
    if (older === this.path || this.exists() || !existsSync(older)) return false;
    renameSync(older, this.path);
    return true;
  }

  /** Every row's last known state, from the journal on disk. */
  load(): Map<number, RowRecord> {
    return Journal.loadFile(this.path);
  }

  /** Every row's last known state in the journal at `path` (none when there is no file). */
  static loadFile(path: string): Map<number, RowRecord> {
    const rows = new Map<number, RowRecord>();
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
      const prev = rows.get(e.line) ?? { line: e.line, state: e.state, attempt: 0 };
      const next: RowRecord = { ...prev, state: e.state };
      if (e.state === 'sent') {
        next.sentAt = e.at;
        next.attempt = (prev.attempt ?? 0) + 1;
      } else {
        next.status = e.status;
        next.message = e.message;
        next.created_id = e.created_id;
        next.via = e.via;
      }
      rows.set(e.line, next);
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
