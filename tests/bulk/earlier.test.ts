/**
 * earlierRows: which rows of a new run an earlier run of another input sent, from the
 * journals and row files of the state directory.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { earlierRows, rowFingerprint, writeRowsFile } from '../../src/bulk/earlier.js';
import { Journal, type JournalEvent } from '../../src/bulk/journal.js';
import { tempDir } from '../support/tmp.js';

const head = { command: 'subscriptions manage', endpoint: 'subscriptions.manage', target: 'https://api.example.com' };
const req = (id: number) => ({ params: { id }, query: {}, body: { action: 'extend', reason: 'r', extend_days: 7 } });

/** An earlier run: its rows (line -> request) and its journal events. */
function run(stateDir: string, digest: string, requests: Array<[number, unknown]>, events: JournalEvent[], h = head, at = new Date('2026-11-20T10:00:00Z')): string {
  const j = new Journal(stateDir, 'subscriptions-manage', digest);
  j.append(...events);
  j.close();
  writeRowsFile(j.path, h, requests.map(([line, r]) => [line, rowFingerprint(r)]), at);
  return j.path;
}

describe('earlierRows', () => {
  it('applied rows and rows sent without an outcome are found; failed ones, ones found absent, and other platforms are not', () => {
    const state = tempDir('subctl-earlier-');
    run(state, 'a'.repeat(24), [[2, req(1)], [3, req(2)], [4, req(3)], [5, req(4)], [6, req(5)]], [
      { line: 2, state: 'sent', at: 1 },
      { line: 2, state: 'done', at: 2 },
      { line: 3, state: 'sent', at: 1 },
      { line: 3, state: 'failed', at: 2, status: 400 },
      { line: 4, state: 'sent', at: 1 },
      { line: 5, state: 'sent', at: 1 },
      { line: 5, state: 'unknown', at: 2, via: 'absent' },
      { line: 6, state: 'sent', at: 1 },
      { line: 6, state: 'unknown', at: 2 },
    ]);
    // The same requests to another platform: not this platform's history.
    run(state, 'b'.repeat(24), [[2, req(2)]], [{ line: 2, state: 'done', at: 2 }], { ...head, target: 'https://staging.example.com' });
    const self = new Journal(state, 'subscriptions-manage', 'c'.repeat(24)).path;
    const mine = new Map([1, 2, 3, 4, 5, 6].map((id) => [10 + id, rowFingerprint(req(id))]));
    const found = earlierRows(self, head, mine);
    expect(found.map((f) => [f.line, f.state])).toEqual([
      [11, 'applied'],
      [13, 'maybe'],
      [15, 'maybe'],
    ]);
    expect(found[0].at).toBe('2026-11-20T10:00:00.000Z');
  });

  it("a row that a later run skipped (--skip-applied) points at the run that applied it; this run's own journal is not an earlier run", () => {
    const state = tempDir('subctl-earlier-');
    run(state, 'a'.repeat(24), [[2, req(1)]], [{ line: 2, state: 'done', at: 2 }], head, new Date('2026-11-20T10:00:00Z'));
    run(state, 'b'.repeat(24), [[7, req(1)]], [{ line: 7, state: 'done', at: 3, via: 'earlier' }], head, new Date('2026-11-21T10:00:00Z'));
    const self = run(state, 'c'.repeat(24), [[2, req(9)]], [{ line: 2, state: 'done', at: 4 }]);
    const found = earlierRows(self, head, new Map([[3, rowFingerprint(req(1))], [4, rowFingerprint(req(9))]]));
    expect(found).toEqual([{ line: 3, state: 'applied', at: '2026-11-20T10:00:00.000Z', journal: expect.stringContaining('a'.repeat(24)) }]);
  });

  it('the same request with its fields in another order (columns reordered, a value moved to a flag) is the same row', () => {
    const state = tempDir('subctl-earlier-');
    run(state, 'a'.repeat(24), [[2, { params: { id: 5 }, query: {}, body: { action: 'extend', reason: 'r', extend_days: 7 } }]], [{ line: 2, state: 'done', at: 2 }]);
    const self = join(state, 'bulk', 'subscriptions-manage-x.jsonl');
    const reordered = { body: { extend_days: 7, reason: 'r', action: 'extend' }, query: {}, params: { id: 5 } };
    expect(earlierRows(self, head, new Map([[9, rowFingerprint(reordered)]])).map((f) => [f.line, f.state])).toEqual([[9, 'applied']]);
    // Another value is another request.
    expect(earlierRows(self, head, new Map([[9, rowFingerprint({ ...reordered, body: { ...reordered.body, extend_days: 8 } })]]))).toEqual([]);
  });

  it('row files of the first version (fingerprints of the JSON as built, no `v`) are still read, with the fingerprints of that version', () => {
    const state = tempDir('subctl-earlier-');
    const j = new Journal(state, 'subscriptions-manage', 'a'.repeat(24));
    j.append({ line: 2, state: 'done', at: 2 });
    j.close();
    const asBuilt = (id: number) => createHash('sha256').update(JSON.stringify(req(id))).digest('hex').slice(0, 32);
    writeFileSync(`${j.path}.rows`, `${JSON.stringify({ ...head, created_at: '2026-11-20T10:00:00.000Z', rows: [[2, asBuilt(1)]] })}\n`);
    const self = join(state, 'bulk', 'subscriptions-manage-x.jsonl');
    let asked = 0;
    const v1 = () => {
      asked++;
      return new Map([[4, asBuilt(1)], [5, asBuilt(2)]]);
    };
    const found = earlierRows(self, head, new Map([[4, rowFingerprint(req(1))], [5, rowFingerprint(req(2))]]), v1);
    expect(found.map((f) => [f.line, f.state])).toEqual([[4, 'applied']]);
    expect(asked).toBe(1);
    // Without a file of that version, they are not asked for.
    const other = tempDir('subctl-earlier-');
    run(other, 'b'.repeat(24), [[2, req(1)]], [{ line: 2, state: 'done', at: 2 }]);
    earlierRows(join(other, 'bulk', 'subscriptions-manage-x.jsonl'), head, new Map([[4, rowFingerprint(req(1))]]), v1);
    expect(asked).toBe(1);
  });

  it('a damaged rows file is passed over', () => {
    const state = tempDir('subctl-earlier-');
    const p = run(state, 'a'.repeat(24), [[2, req(1)]], [{ line: 2, state: 'done', at: 2 }]);
    writeFileSync(`${p}.rows`, '{"command": "subscr');
    const self = join(state, 'bulk', 'subscriptions-manage-x.jsonl');
    expect(earlierRows(self, head, new Map([[2, rowFingerprint(req(1))]]))).toEqual([]);
  });
});
