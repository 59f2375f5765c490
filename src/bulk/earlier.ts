/**
 * Rows that an earlier bulk run of another input already applied.
 *
 * A run's journal is keyed by a digest of its whole input, so the same file run again resumes
 * (nothing twice). But the usual way out of a run with failed rows is to fix or remove those
 * rows and run the file again: another digest, a new journal, and every row that had been
 * applied was sent again (a subscription extended twice). So each run also keeps, beside its
 * journal, what its rows are (`<journal>.rows`: the command, the platform, and a fingerprint of
 * each row's request); a new run looks through the earlier runs of the same command on the same
 * platform for rows with the same request, and finds which of them were applied.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { localError } from '../api/errors.js';
import { canonicalJson, fingerprintOf, Journal } from './journal.js';

/** The identity of a row's request (its params, query and body, in any order): what runDigests gives each row. */
export function rowFingerprint(input: unknown): string {
  return fingerprintOf(canonicalJson(input));
}

/** Row files written now: fingerprints of each request's canonical JSON (version 1, without `v`: of its JSON as built). */
const ROWS_VERSION = 2;

interface RowsFile {
  v?: number;
  command: string;
  endpoint: string;
  target: string;
  created_at: string;
  /** [line, fingerprint] of each row. */
  rows: Array<[number, string]>;
}

/** `<journal>.rows`, beside the journal. */
export function rowsPath(journalPath: string): string {
  return `${journalPath}.rows`;
}

/**
 * Writes what a run's rows are, beside its journal, whole or not at all (a temporary file
 * renamed over it): a file cut by a full disk would hide the run from later ones. A failure is
 * named, and stops the run before anything is sent.
 */
export function writeRowsFile(journalPath: string, head: Omit<RowsFile, 'rows' | 'created_at' | 'v'>, rows: Array<[number, string]>, now = new Date()): void {
  const file: RowsFile = { v: ROWS_VERSION, ...head, created_at: now.toISOString(), rows };
  const path = rowsPath(journalPath);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(file)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw localError(e, `the bulk journal's row file ${path}`) ?? e;
  }
}

export interface EarlierRow {
  /** The line of the row in this run's input. */
  line: number;
  /** `applied`: the earlier run recorded it done; `maybe`: it was sent and its answer never recorded. */
  state: 'applied' | 'maybe';
  /** When the earlier run began. */
  at: string;
  journal: string;
}

/** Earlier runs of the same command on the same platform looked through: the newest this many. */
const MAX_RUNS = 200;

/**
 * The command, endpoint and platform of a row file, from its first bytes (they come first in
 * it): runs of other commands and platforms are passed over without reading their rows, before
 * the newest MAX_RUNS are taken (taken first, 200 runs of anything hid every earlier run of this
 * command, and a reordered copy of an applied file was applied again).
 */
function headOf(path: string): Pick<RowsFile, 'command' | 'endpoint' | 'target'> | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(4096);
    const text = buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
    const end = text.indexOf(',"created_at":');
    if (end < 0) return undefined;
    const head = JSON.parse(`${text.slice(0, end)}}`) as Partial<RowsFile>;
    return typeof head.command === 'string' && typeof head.endpoint === 'string' && typeof head.target === 'string' ? (head as RowsFile) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The rows of this run (`fingerprints`: line -> fingerprint) whose request an earlier run of the
 * same command on the same platform applied, or sent without learning the outcome. Runs of the
 * same input (this journal) are not earlier runs: they resume.
 */
export function earlierRows(
  journalPath: string,
  head: Omit<RowsFile, 'rows' | 'created_at' | 'v'>,
  fingerprints: Map<number, string>,
  /** This run's fingerprints as version-1 row files have them; asked for only when there is one. */
  fingerprintsV1?: () => Map<number, string>,
): EarlierRow[] {
  const dir = dirname(journalPath);
  const own = rowsPath(journalPath);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl.rows'));
  } catch {
    return [];
  }
  const runs = names
    .map((n) => join(dir, n))
    .filter((p) => {
      if (p === own) return false;
      const h = headOf(p);
      return h !== undefined && h.command === head.command && h.endpoint === head.endpoint && h.target === head.target;
    })
    .map((p) => ({ p, mtime: statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.mtime - a.mtime)
    .slice(0, MAX_RUNS);
  // Fingerprint -> what earlier runs did with rows of that request, one finding per row they
  // sent (applied ones first): each finding answers for one line of this run, so a file holding
  // the same request twice, applied once before, has one line skipped, not both.
  const foundBy = new Map<number, Map<string, Array<Omit<EarlierRow, 'line'>>>>();
  for (const { p } of runs) {
    let rows: RowsFile;
    try {
      rows = JSON.parse(readFileSync(p, 'utf8')) as RowsFile;
    } catch {
      continue;
    }
    if (rows.command !== head.command || rows.endpoint !== head.endpoint || rows.target !== head.target || !Array.isArray(rows.rows)) continue;
    const journal = p.slice(0, -'.rows'.length);
    if (!existsSync(journal)) continue;
    const version = rows.v ?? 1;
    if (version > ROWS_VERSION || (version === 1 && !fingerprintsV1)) continue;
    let found = foundBy.get(version);
    if (!found) foundBy.set(version, (found = new Map()));
    const states = Journal.loadFile(journal);
    for (const [line, fp] of rows.rows) {
      const rec = states.get(line);
      // A row that run itself skipped (--skip-applied) points at the run that applied it.
      if (!rec || rec.via === 'earlier') continue;
      const state = rec.state === 'done' ? 'applied' : rec.state === 'sent' || (rec.state === 'unknown' && rec.via !== 'absent') ? 'maybe' : undefined;
      if (!state) continue;
      let list = found.get(fp);
      if (!list) found.set(fp, (list = []));
      list.push({ state, at: rows.created_at, journal });
    }
  }
  // Applied findings are used first, then maybes.
  for (const found of foundBy.values()) for (const list of found.values()) list.sort((a, b) => (a.state === b.state ? 0 : a.state === 'applied' ? -1 : 1));
  const out: EarlierRow[] = [];
  const current = foundBy.get(ROWS_VERSION);
  const v1 = foundBy.get(1);
  const v1Prints = v1 ? fingerprintsV1!() : undefined;
  for (const [line, fp] of fingerprints) {
    const a = current?.get(fp);
    const b = v1Prints ? v1!.get(v1Prints.get(line)!) : undefined;
    // Applied wins over maybe, whichever version's file said it; each finding is used once.
    const from = a?.length && b?.length ? (a[0].state === 'applied' || b[0].state !== 'applied' ? a : b) : a?.length ? a : b?.length ? b : undefined;
    const f = from?.shift();
    if (f) out.push({ line, ...f });
  }
  return out;
}
