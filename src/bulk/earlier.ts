/**
 * Rows that another run of the same command on the same platform sent: an earlier run of
 * another input (the file with its failed rows taken out), or a run going on beside this one
 * (two cron jobs on overlapping files).
 *
 * Each run keeps, beside its journal, what its rows are (`<journal>.rows`: the command, the
 * platform, and each row's identity, plan.ts). A new run looks through the other runs' row
 * files for rows with the same identity and reads, in their journals, what became of them. A
 * run whose lock is held by a live process is going on: its rows are waited for (claim.ts).
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { localError } from '../api/errors.js';
import { Journal } from './journal.js';

export interface RowsHead {
  command: string;
  endpoint: string;
  /** The platform's normalised address (platform.ts). */
  target: string;
  /** The profile the run was started with, for messages. */
  profile?: string;
  /** `--run-id`, when the run was named. */
  run_id?: string;
}

interface RowsFile extends RowsHead {
  created_at: string;
  /** [line, identity] of each row. */
  rows: Array<[number, string]>;
}

/** `<journal>.rows`, beside the journal. */
function rowsPath(journalPath: string): string {
  return `${journalPath}.rows`;
}

/**
 * Writes what a run's rows are, beside its journal, whole or not at all (a temporary file
 * renamed over it): a file cut by a full disk would hide the run from later ones. A failure is
 * named, and stops the run before anything is sent.
 */
export function writeRowsFile(journalPath: string, head: RowsHead, rows: Array<[number, string]>, now = new Date()): void {
  const file: RowsFile = { ...head, created_at: now.toISOString(), rows };
  const path = rowsPath(journalPath);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    // Never through a symlink planted at the temporary name (safe-files.ts).
    rmSync(tmp, { force: true });
    writeFileSync(tmp, `${JSON.stringify(file)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw localError(e, `the bulk journal's row file ${path}`) ?? e;
  }
}

/** When the run of `journalPath` began, from its row file; undefined when it has none. */
export function runStartedAt(journalPath: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(rowsPath(journalPath), 'utf8')) as RowsFile).created_at;
  } catch {
    return undefined;
  }
}

export interface EarlierRow {
  /** The line of the row in this run's input. */
  line: number;
  /** `applied`: the other run recorded it done; `maybe`: sent, its answer never recorded; `pending`: not settled yet. */
  state: 'applied' | 'maybe' | 'pending';
  /** When the other run began. */
  at: string;
  journal: string;
}

/** Other runs of the same command on the same platform looked through: the newest this many. */
const MAX_RUNS = 200;

/** The head of a row file, from its first bytes: runs of other commands and platforms are passed over unread. */
function headOf(path: string): RowsHead | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(4096);
    const text = buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
    const end = text.indexOf(',"created_at":');
    if (end < 0) return undefined;
    const head = JSON.parse(`${text.slice(0, end)}}`) as Partial<RowsHead>;
    return typeof head.command === 'string' && typeof head.endpoint === 'string' && typeof head.target === 'string'
      ? (head as RowsHead)
      : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The journals of the other runs of this command on this platform, newest first. */
export function otherRuns(journalPath: string, head: RowsHead): string[] {
  const dir = dirname(journalPath);
  const own = rowsPath(journalPath);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl.rows'));
  } catch {
    return [];
  }
  return names
    .map((n) => join(dir, n))
    .filter((p) => {
      if (p === own) return false;
      const h = headOf(p);
      return h !== undefined && h.command === head.command && h.endpoint === head.endpoint && h.target === head.target;
    })
    .map((p) => ({ p, mtime: statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.mtime - a.mtime)
    .slice(0, MAX_RUNS)
    .map(({ p }) => p.slice(0, -'.rows'.length));
}

/**
 * The rows of this run (`identities`: line -> identity) that the runs of `journals` sent, and what
 * became of them. A row of a run whose journal says nothing of it yet is `pending` when `live`
 * says that run is going on, and passed over otherwise. Each finding answers for one line.
 */
export function earlierRows(
  journals: string[],
  identities: Map<number, string>,
  live: (journal: string) => boolean = () => false,
): EarlierRow[] {
  const found = new Map<string, Array<Omit<EarlierRow, 'line'>>>();
  for (const journal of journals) {
    let rows: RowsFile;
    try {
      rows = JSON.parse(readFileSync(rowsPath(journal), 'utf8')) as RowsFile;
    } catch {
      continue;
    }
    if (!Array.isArray(rows.rows)) continue;
    const going = live(journal);
    if (!going && !existsSync(journal)) continue;
    const states = Journal.loadFile(journal);
    for (const [, identity] of rows.rows) {
      const rec = states.get(identity);
      // A row that run itself skipped (--skip-applied) points at the run that applied it.
      if (rec?.via === 'earlier' || rec?.via === 'other') continue;
      const settled = rec?.state === 'done' ? 'applied' : rec?.state === 'sent' || rec?.state === 'unknown' ? 'maybe' : undefined;
      const state = settled ?? (going && (!rec || rec.via === 'absent' || rec.via === 'unsent') ? 'pending' : undefined);
      if (!state) continue;
      let list = found.get(identity);
      if (!list) found.set(identity, (list = []));
      list.push({ state, at: rows.created_at, journal });
    }
  }
  const rank = { applied: 0, pending: 1, maybe: 2 };
  for (const list of found.values()) list.sort((a, b) => rank[a.state] - rank[b.state]);
  const out: EarlierRow[] = [];
  for (const [line, identity] of identities) {
    const f = found.get(identity)?.shift();
    if (f) out.push({ line, ...f });
  }
  return out;
}
