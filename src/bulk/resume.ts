/**
 * What an attempt of a run does with each row, from what the run's journal says of it: the
 * rule the run follows and its `--dry-run` shows.
 */
import { fingerprintOf, type RowRecord } from './journal.js';
import { RETRY_ON_RESUME, type PlannedRow } from './types.js';

export type Fate = 'send' | 'check' | 'applied' | 'failed' | 'unknown' | 'other';

/**
 * `send`: never sent, found not applied, refused for a passing reason, or corrected since it
 * failed; `check`: sent and its answer never came, settled against the platform first; the
 * others are final: applied, failed as it is, undecidable, or settled by another run.
 */
export function fateOf(rec: RowRecord | undefined, p: PlannedRow): Fate {
  if (!rec) return 'send';
  switch (rec.state) {
    case 'done':
      return rec.via === 'earlier' || rec.via === 'other' ? 'other' : 'applied';
    case 'failed':
      if (rec.via === 'absent' || rec.via === 'unsent') return 'send';
      if (rec.status !== undefined && RETRY_ON_RESUME.has(rec.status)) return 'send';
      // A corrected row is another request to the same target: it is sent; the same one would fail again.
      return rec.fp !== undefined && rec.fp !== fingerprintOf(p.input) ? 'send' : 'failed';
    case 'unknown':
      if (rec.via === 'unchecked') return 'check';
      return rec.via === 'earlier' || rec.via === 'other' ? 'other' : 'unknown';
    default:
      return 'check';
  }
}

export function countFates(planned: PlannedRow[], known: Map<string, RowRecord>): Record<Fate, number> {
  const n: Record<Fate, number> = { send: 0, check: 0, applied: 0, failed: 0, unknown: 0, other: 0 };
  for (const p of planned) n[fateOf(known.get(p.identity), p)]++;
  return n;
}
