/**
 * earlierRows: which rows of a new run other runs of the same command on the same platform
 * sent (an earlier run of another input, or one going on beside it), by the rows' identities.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { earlierRows, otherRuns, writeRowsFile } from '../../src/bulk/earlier.js';
import { Journal, type JournalEvent } from '../../src/bulk/journal.js';
import { tempDir } from '../support/tmp.js';

const head = { command: 'subscriptions manage', endpoint: 'subscriptions.manage', target: 'https://api.example.com' };
const id = (n: number) => `subscriptions.manage id=${n} extend #1`;

/** A run: its rows (line -> identity) and its journal events. */
function run(
  stateDir: string,
  digest: string,
  rows: Array<[number, string]>,
  events: JournalEvent[],
  h = head,
  at = new Date('2026-11-20T10:00:00Z'),
): string {
  const j = new Journal(stateDir, 'subscriptions-manage', digest);
  j.append(...events);
  j.close();
  writeRowsFile(j.path, h, rows, at);
  return j.path;
}
const ev = (n: number, state: JournalEvent['state'], more: Partial<JournalEvent> = {}): JournalEvent => ({
  row: id(n),
  line: n,
  state,
  at: 1,
  ...more,
});

describe('earlierRows', () => {
  it('applied rows and rows sent without an outcome are found; failed ones, ones found absent, and other platforms are not', () => {
    const state = tempDir('subctl-earlier-');
    run(
      state,
      'a'.repeat(24),
      [1, 2, 3, 4, 5].map((n) => [n + 1, id(n)]),
      [
        ev(1, 'sent'),
        ev(1, 'done'),
        ev(2, 'sent'),
        ev(2, 'failed', { status: 400 }),
        ev(3, 'sent'),
        ev(4, 'sent'),
        ev(4, 'failed', { via: 'absent' }),
        ev(5, 'sent'),
        ev(5, 'unknown'),
      ],
    );
    // The same rows on another platform: not this platform's history.
    run(state, 'b'.repeat(24), [[2, id(2)]], [ev(2, 'done')], { ...head, target: 'https://staging.example.com' });
    const self = new Journal(state, 'subscriptions-manage', 'c'.repeat(24)).path;
    const found = earlierRows(otherRuns(self, head), new Map([1, 2, 3, 4, 5].map((n) => [10 + n, id(n)])));
    expect(found.map((f) => [f.line, f.state])).toEqual([
      [11, 'applied'],
      [13, 'maybe'],
      [15, 'maybe'],
    ]);
    expect(found[0].at).toBe('2026-11-20T10:00:00.000Z');
  });

  it("a row that a later run skipped (--skip-applied) points at the run that applied it; this run's own journal is not another run", () => {
    const state = tempDir('subctl-earlier-');
    run(state, 'a'.repeat(24), [[2, id(1)]], [ev(1, 'done')], head, new Date('2026-11-20T10:00:00Z'));
    run(state, 'b'.repeat(24), [[7, id(1)]], [ev(1, 'done', { via: 'earlier' })], head, new Date('2026-11-21T10:00:00Z'));
    const self = run(state, 'c'.repeat(24), [[2, id(9)]], [ev(9, 'done')]);
    const found = earlierRows(
      otherRuns(self, head),
      new Map([
        [3, id(1)],
        [4, id(9)],
      ]),
    );
    expect(found).toEqual([
      { line: 3, state: 'applied', at: '2026-11-20T10:00:00.000Z', journal: expect.stringContaining('a'.repeat(24)) },
    ]);
  });

  it('a run going on: its rows not settled yet are pending', () => {
    const state = tempDir('subctl-earlier-');
    const other = run(
      state,
      'a'.repeat(24),
      [
        [2, id(1)],
        [3, id(2)],
        [4, id(3)],
      ],
      [ev(1, 'done'), ev(2, 'sent')],
    );
    const found = earlierRows(
      [other],
      new Map([
        [5, id(1)],
        [6, id(2)],
        [7, id(3)],
        [8, id(4)],
      ]),
      () => true,
    );
    expect(found.map((f) => [f.line, f.state])).toEqual([
      [5, 'applied'],
      [6, 'maybe'],
      [7, 'pending'],
    ]);
  });

  it('a damaged rows file is passed over', () => {
    const state = tempDir('subctl-earlier-');
    const other = run(state, 'a'.repeat(24), [[2, id(1)]], [ev(1, 'done')]);
    writeFileSync(
      `${other}.rows`,
      '{"command":"subscriptions manage","endpoint":"subscriptions.manage","target":"https://api.example.com","created_at":"x","rows":[[2,',
    );
    const self = new Journal(state, 'subscriptions-manage', 'c'.repeat(24)).path;
    expect(earlierRows(otherRuns(self, head), new Map([[2, id(1)]]))).toEqual([]);
  });
});
