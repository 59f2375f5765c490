/**
 * The journal's coalesced appends: the records of every caller of one turn of the event loop
 * go to disk in one write, and each caller resumes only once its records are on disk (a bulk
 * worker sends its row after that, so `sent` always precedes the request).
 */
import { createHash } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, Journal, journalLine, runDigest, runDigests, type JournalEvent } from '../../src/bulk/journal.js';
import { tempDir } from '../support/tmp.js';

const lines = (j: Journal) => (existsSync(j.path) ? readFileSync(j.path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

describe('Journal.appendSoon', () => {
  it('writes nothing until the turn ends, then every record of the turn before any caller resumes', async () => {
    const j = new Journal(tempDir('journal-'), 'subscriptions-manage', 'abc');
    const seen: number[][] = [];
    const a = j.appendSoon({ line: 2, state: 'done', at: 1 }, { line: 3, state: 'sent', at: 2 }).then(() => seen.push(lines(j).map((e) => e.line)));
    const b = j.appendSoon({ line: 4, state: 'sent', at: 3 }).then(() => seen.push(lines(j).map((e) => e.line)));
    expect(lines(j)).toEqual([]);
    await Promise.all([a, b]);
    // Both callers saw all three records already on disk: one write for the turn, in call order.
    expect(seen).toEqual([
      [2, 3, 4],
      [2, 3, 4],
    ]);
    // A later turn appends after them.
    await j.appendSoon({ line: 5, state: 'sent', at: 4 });
    expect(lines(j).map((e) => [e.line, e.state])).toEqual([
      [2, 'done'],
      [3, 'sent'],
      [4, 'sent'],
      [5, 'sent'],
    ]);
    j.close();
  });

  it('rejects every caller of the turn when the write fails (nothing is sent)', async () => {
    const dir = tempDir('journal-');
    const j = new Journal(dir, 'x', 'y');
    // The journal's path is a directory: opening it for appending fails.
    const { mkdirSync } = await import('node:fs');
    mkdirSync(j.path);
    const results = await Promise.allSettled([j.appendSoon({ line: 1, state: 'sent', at: 1 }), j.appendSoon({ line: 2, state: 'sent', at: 1 })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason.code).toBe('EISDIR');
  });
});

describe('a journal cut short', () => {
  it('a line cut by a kill or a full disk is ended before the next record, which is read back', async () => {
    const dir = tempDir('journal-');
    const j = new Journal(dir, 'subscriptions-manage', 'cut');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(dir, 'bulk'), { recursive: true });
    writeFileSync(j.path, '{"line":2,"state":"sent","at":1}\n{"line":2,"state":"done","at":2,"status":200,"mess');
    await j.appendSoon({ line: 3, state: 'sent', at: 3 });
    j.append({ line: 3, state: 'done', at: 4, status: 200 });
    j.close();
    expect(readFileSync(j.path, 'utf8')).toBe(
      '{"line":2,"state":"sent","at":1}\n{"line":2,"state":"done","at":2,"status":200,"mess\n{"line":3,"state":"sent","at":3}\n{"line":3,"state":"done","at":4,"status":200}\n',
    );
    const rows = new Journal(dir, 'subscriptions-manage', 'cut').load();
    expect(rows.get(2)?.state).toBe('sent');
    expect(rows.get(3)?.state).toBe('done');
  });

  it('a whole journal is appended to as it is: no blank line, nothing rewritten', async () => {
    const dir = tempDir('journal-');
    const first = new Journal(dir, 'x', 'whole');
    await first.appendSoon({ line: 2, state: 'sent', at: 1 });
    first.close();
    const again = new Journal(dir, 'x', 'whole');
    await again.appendSoon({ line: 2, state: 'done', at: 2 });
    again.close();
    expect(readFileSync(again.path, 'utf8')).toBe('{"line":2,"state":"sent","at":1}\n{"line":2,"state":"done","at":2}\n');
  });
});

describe('journalLine', () => {
  const cases: JournalEvent[] = [
    { line: 2, state: 'sent', at: 1_795_000_000_000 },
    { line: 3, state: 'done', at: 5, status: 200, message: 'Subscription "x" extended\n\u00e9\u4e2d', created_id: 77 },
    { line: 4, state: 'done', at: 5, status: 200, created_id: 'ab"c' },
    { line: 5, state: 'failed', at: 5, status: 409, message: 'in use' },
    { line: 6, state: 'unknown', at: 5, via: 'absent', message: 'm' },
    { line: 7, state: 'done', at: 5, status: 200, message: undefined, created_id: undefined },
    { line: 8, state: 'done', at: 5, attempt: 2, status: 200, created_id: { id: 1 } },
    // Unusual values fall back to JSON.stringify: never a line that does not parse.
    { line: 9, state: 'done', at: Number.NaN },
    { line: 1.5, state: 'sent', at: 5 },
    { line: 10, state: 'done', at: 5, status: Infinity },
    { line: 11, state: 'done', at: 5, created_id: () => 1 } as unknown as JournalEvent,
    { line: 12, state: 'sent', at: 5, extra: 'kept' } as unknown as JournalEvent,
    { line: 13, state: 'sent"', at: 5 } as unknown as JournalEvent,
  ];
  it.each(cases.map((e) => [e.line, e] as const))('line %s reads back as JSON.stringify would write it', (_n, e) => {
    const text = journalLine(e);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(e)));
  });
  it('writes the usual events without JSON.stringify, field for field', () => {
    expect(journalLine({ line: 2, state: 'sent', at: 1 })).toBe('{"line":2,"state":"sent","at":1}\n');
    expect(journalLine({ line: 2, state: 'done', at: 1, status: 200, message: 'ok', created_id: 9 })).toBe('{"line":2,"state":"done","at":1,"status":200,"message":"ok","created_id":9}\n');
  });
});

describe('runDigest', () => {
  const rows = (n: number, reason = (i: number) => `r${i}`) => Array.from({ length: n }, (_, i) => ({ line: i + 2, input: { params: { id: 100 + i }, query: {}, body: { action: 'extend', reason: reason(i), extend_days: 1 } } }));

  it('is the same for the same command, endpoint and rows, and 24 hex characters', () => {
    expect(runDigest('subscriptions manage', 'subscriptions.manage', rows(2500))).toBe(runDigest('subscriptions manage', 'subscriptions.manage', rows(2500)));
    expect(runDigest('subscriptions manage', 'subscriptions.manage', rows(3))).toMatch(/^[0-9a-f]{24}$/);
  });

  it('changes with any row, its line, the row count, the command or the endpoint, on either side of a 1,000-row chunk', () => {
    const base = runDigest('subscriptions manage', 'subscriptions.manage', rows(2500));
    const seen = new Set([base]);
    for (const i of [0, 999, 1000, 2499]) {
      seen.add(runDigest('subscriptions manage', 'subscriptions.manage', rows(2500, (k) => (k === i ? 'changed' : `r${k}`))));
      const moved = rows(2500);
      moved[i] = { ...moved[i], line: 9999 };
      seen.add(runDigest('subscriptions manage', 'subscriptions.manage', moved));
    }
    seen.add(runDigest('subscriptions manage', 'subscriptions.manage', rows(2499)));
    seen.add(runDigest('subscriptions manage', 'subscriptions.manage', rows(2501)));
    seen.add(runDigest('subscriptions delete', 'subscriptions.manage', rows(2500)));
    seen.add(runDigest('subscriptions manage', 'subscriptions.delete', rows(2500)));
    expect(seen.size).toBe(1 + 8 + 4);
  });
});

describe('runDigests', () => {
  /** The digest as every earlier version computed it: journals on users' disks are named by it. */
  function reference(command: string, endpoint: string, rows: Array<{ line: number; input: unknown }>, target: string) {
    const h = createHash('sha256');
    const l = createHash('sha256');
    h.update(`${command}\n${endpoint}\n${target}\n`);
    l.update(`${command}\n${endpoint}\n`);
    for (let i = 0; i < rows.length; i += 1000) {
      const chunk: unknown[] = [];
      for (let j = i; j < rows.length && j < i + 1000; j++) chunk.push(rows[j].line, rows[j].input);
      const text = `${JSON.stringify(chunk)}\n`;
      h.update(text);
      l.update(text);
    }
    return { digest: h.digest('hex').slice(0, 24), legacy: l.digest('hex').slice(0, 24) };
  }

  it('names a run as earlier versions did (their journals are found), and gives each row its fingerprint', () => {
    for (const n of [0, 1, 999, 1000, 1001, 2500]) {
      const rows = Array.from({ length: n }, (_, i) => ({ line: i + 2, input: { params: { id: i }, query: i % 3 ? {} : { q: 'x' }, body: { reason: `é 中 😀 "q" \\ ${i}`, n: i / 3, b: i % 2 === 0, z: null } } }));
      const d = runDigests('subscriptions manage', 'subscriptions.manage', rows, 'https://api.example.com');
      expect({ digest: d.digest, legacy: d.legacy }).toEqual(reference('subscriptions manage', 'subscriptions.manage', rows, 'https://api.example.com'));
      const fingerprints = d.fingerprints();
      expect([...fingerprints.keys()]).toEqual(rows.map((r) => r.line));
      // Of the canonical JSON (keys sorted at every level); version 1 of the JSON as built.
      const sorted = (r: (typeof rows)[number]) => ({ body: { b: r.input.body.b, n: r.input.body.n, reason: r.input.body.reason, z: null }, params: r.input.params, query: r.input.query });
      const v1 = d.fingerprintsV1();
      for (const r of rows.slice(0, 5)) {
        expect(fingerprints.get(r.line)).toBe(createHash('sha256').update(JSON.stringify(sorted(r))).digest('hex').slice(0, 32));
        expect(v1.get(r.line)).toBe(createHash('sha256').update(JSON.stringify(r.input)).digest('hex').slice(0, 32));
      }
    }
  });
});

describe('canonicalJson', () => {
  /** The reference: JSON.stringify with every object's keys sorted by a replacer. */
  const reference = (v: unknown) =>
    JSON.stringify(v, (_k, x: unknown) => (x === null || typeof x !== 'object' || Array.isArray(x) ? x : Object.fromEntries(Object.keys(x as object).sort().map((k) => [k, (x as Record<string, unknown>)[k]]))));
  const shuffled = (v: unknown, seed: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x, i) => shuffled(x, seed + i));
    const entries = Object.entries(v as Record<string, unknown>);
    entries.sort((a, b) => ((a[0].length * 31 + seed) % 7) - ((b[0].length * 31 + seed) % 7) || (seed % 2 ? 1 : -1));
    return Object.fromEntries(entries.map(([k, x], i) => [k, shuffled(x, seed + i)]));
  };
  it('is JSON.stringify with sorted keys at every level, and the same text however the keys were ordered', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 1000 }), (v, seed) => {
        expect(canonicalJson(v)).toBe(reference(v));
        expect(canonicalJson(shuffled(v, seed))).toBe(canonicalJson(v));
      }),
      { numRuns: 500 },
    );
  });
});

