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
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** Earlier runs looked through: the newest this many. */
const MAX_RUNS = 200;

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
    .filter((p) => p !== own)
    .map((p) => ({ p, mtime: statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.mtime - a.mtime)
    .slice(0, MAX_RUNS);
  // Fingerprint -> the earliest finding for it (an applied one wins over a maybe), by version.
  const foundBy = new Map<number, Map<string, Omit<EarlierRow, 'line'>>>();
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
      const prev = found.get(fp);
      if (!prev || (prev.state === 'maybe' && state === 'applied')) found.set(fp, { state, at: rows.created_at, journal });
    }
  }
  const out: EarlierRow[] = [];
  const current = foundBy.get(ROWS_VERSION);
  const v1 = foundBy.get(1);
  const v1Prints = v1 ? fingerprintsV1!() : undefined;
  for (const [line, fp] of fingerprints) {
    const a = current?.get(fp);
    const b = v1Prints && v1!.get(v1Prints.get(line)!);
    // Applied wins over maybe, whichever version's file said it.
    const f = a && b ? (a.state === 'applied' || b.state !== 'applied' ? a : b) : (a ?? b);
    if (f) out.push({ line, ...f });
  }
  return out;
}
