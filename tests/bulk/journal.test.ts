/**
 * The journal's coalesced appends: the records of every caller of one turn of the event loop
 * go to disk in one write, and each caller resumes only once its records are on disk (a bulk
 * worker sends its row after that, so `sent` always precedes the request).
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintOf, Journal } from '../../src/bulk/journal.js';
import { duplicateKey } from '../../src/bulk/input.js';
import { planRows } from '../../src/bulk/plan.js';
import { platformKey, runDigest } from '../../src/bulk/platform.js';
import { subscriptionsManage } from '../../src/api/contract/admin-subscriptions.js';
import { tempDir } from '../support/tmp.js';

const lines = (j: Journal) =>
  existsSync(j.path)
    ? readFileSync(j.path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

describe('Journal.appendSoon', () => {
  it('writes nothing until the turn ends, then every record of the turn before any caller resumes', async () => {
    const j = new Journal(tempDir('journal-'), 'subscriptions-manage', 'abc');
    const seen: number[][] = [];
    const a = j
      .appendSoon({ row: 'r2', line: 2, state: 'done', at: 1 }, { row: 'r3', line: 3, state: 'sent', at: 2 })
      .then(() => seen.push(lines(j).map((e) => e.line)));
    const b = j.appendSoon({ row: 'r4', line: 4, state: 'sent', at: 3 }).then(() => seen.push(lines(j).map((e) => e.line)));
    expect(lines(j)).toEqual([]);
    await Promise.all([a, b]);
    // Both callers saw all three records already on disk: one write for the turn, in call order.
    expect(seen).toEqual([
      [2, 3, 4],
      [2, 3, 4],
    ]);
    // A later turn appends after them.
    await j.appendSoon({ row: 'r5', line: 5, state: 'sent', at: 4 });
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
    const results = await Promise.allSettled([
      j.appendSoon({ row: 'r1', line: 1, state: 'sent', at: 1 }),
      j.appendSoon({ row: 'r2', line: 2, state: 'sent', at: 1 }),
    ]);
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
    writeFileSync(j.path, '{"row":"r2","line":2,"state":"sent","at":1}\n{"row":"r2","line":2,"state":"done","at":2,"status":200,"mess');
    await j.appendSoon({ row: 'r3', line: 3, state: 'sent', at: 3 });
    j.append({ row: 'r3', line: 3, state: 'done', at: 4, status: 200 });
    j.close();
    expect(readFileSync(j.path, 'utf8')).toBe(
      '{"row":"r2","line":2,"state":"sent","at":1}\n{"row":"r2","line":2,"state":"done","at":2,"status":200,"mess\n{"row":"r3","line":3,"state":"sent","at":3}\n{"row":"r3","line":3,"state":"done","at":4,"status":200}\n',
    );
    const rows = new Journal(dir, 'subscriptions-manage', 'cut').load();
    expect(rows.get('r2')?.state).toBe('sent');
    expect(rows.get('r3')?.state).toBe('done');
  });

  it('a whole journal is appended to as it is: no blank line, nothing rewritten', async () => {
    const dir = tempDir('journal-');
    const first = new Journal(dir, 'x', 'whole');
    await first.appendSoon({ row: 'r2', line: 2, state: 'sent', at: 1 });
    first.close();
    const again = new Journal(dir, 'x', 'whole');
    await again.appendSoon({ row: 'r2', line: 2, state: 'done', at: 2 });
    again.close();
    expect(readFileSync(again.path, 'utf8')).toBe(
      '{"row":"r2","line":2,"state":"sent","at":1}\n{"row":"r2","line":2,"state":"done","at":2}\n',
    );
  });
});

describe('a row read back', () => {
  it('counts its attempts, keeps what was recorded before it was sent, and which attempt settled it', () => {
    const dir = tempDir('journal-');
    const j = new Journal(dir, 'x', 'attempts');
    j.append(
      { row: 'a #1', line: 2, state: 'sent', at: 1, before: { end_date: '2026-01-01' } },
      { row: 'a #1', line: 2, state: 'failed', at: 2, via: 'absent' },
      { row: 'a #1', line: 3, state: 'sent', at: 3, before: { end_date: '2026-01-02' } },
      { row: 'a #1', line: 3, state: 'done', at: 4, status: 200 },
    );
    j.close();
    const rec = j.load().get('a #1')!;
    expect([rec.state, rec.attempt, rec.settledBy, rec.line, rec.before, rec.via]).toEqual([
      'done',
      2,
      2,
      3,
      { end_date: '2026-01-02' },
      undefined,
    ]);
  });
});

describe('one platform, one journal', () => {
  it('localhost, 127.0.0.1 and ::1 are one host; default ports, case and trailing slashes do not count', () => {
    const key = (u: string) => platformKey({ baseUrl: u, sandbox: false });
    expect(key('http://localhost:8080/')).toBe('http://loopback:8080');
    expect(key('http://127.0.0.1:8080')).toBe(key('http://localhost:8080///'));
    expect(key('http://[::1]:8080/api/')).toBe(key('http://LOCALHOST:8080/api'));
    expect(key('https://API.example.com:443/v1/')).toBe('https://api.example.com/v1');
    expect(key('http://api.example.com:80')).toBe(key('http://api.example.com'));
    expect(key('http://localhost:8081')).not.toBe(key('http://localhost:8080'));
    expect(key('https://localhost:8080')).not.toBe(key('http://localhost:8080'));
    expect(platformKey({ baseUrl: 'x', sandbox: true })).toBe('sandbox');
  });
});

describe('a run and its rows', () => {
  const verb = {
    command: 'subscriptions manage',
    endpoint: subscriptionsManage,
    aliases: { subscription_id: 'id' },
    convert: (_f: string, v: unknown) => (/^\d+$/.test(String(v)) ? Number(v) : v),
  };
  const plan = (records: Array<Record<string, unknown>>, defaults: Record<string, unknown> = {}) =>
    planRows(
      verb,
      records.map((record, i) => ({ line: i + 2, record })),
      { params: {}, query: {}, body: defaults },
    );

  it('a row is its endpoint, target, action and occurrence, not its cells', async () => {
    const rows = await plan([
      { subscription_id: 5, action: 'extend', reason: 'a', extend_days: 3 },
      { subscription_id: 5, action: 'add_credits', reason: 'a', extend_credits: 3 },
      { subscription_id: 5, action: 'extend', reason: 'b', extend_days: 9 },
    ]);
    expect(rows.map((r) => r.identity)).toEqual([
      'subscriptions.manage id=5 extend #1',
      'subscriptions.manage id=5 add_credits #1',
      'subscriptions.manage id=5 extend #2',
    ]);
    // Another reason, other days, a default that fills a cell: the same rows, the same run.
    const changed = await plan(
      [
        { subscription_id: 5, action: 'extend', reason: 'c' },
        { subscription_id: 5, action: 'add_credits', reason: 'a', extend_credits: 3 },
        { subscription_id: 5, action: 'extend', reason: 'd' },
      ],
      { extend_days: 100 },
    );
    expect(runDigest('subscriptions manage', 'p', changed)).toBe(runDigest('subscriptions manage', 'p', rows));
    expect(runDigest('subscriptions manage', 'p', [...rows].reverse())).toBe(runDigest('subscriptions manage', 'p', rows));
    // Another platform, another row set, or a run id: another run.
    expect(runDigest('subscriptions manage', 'q', rows)).not.toBe(runDigest('subscriptions manage', 'p', rows));
    expect(runDigest('subscriptions manage', 'p', rows.slice(1))).not.toBe(runDigest('subscriptions manage', 'p', rows));
    expect(runDigest('subscriptions manage', 'p', rows, '2026-12')).not.toBe(runDigest('subscriptions manage', 'p', rows));
    expect(runDigest('subscriptions manage', 'p', rows.slice(1), '2026-12')).toBe(runDigest('subscriptions manage', 'p', rows, '2026-12'));
    expect(fingerprintOf(changed[0].input)).not.toBe(fingerprintOf(rows[0].input));
  });

  it('a Ctrl-C while a file is checked stops the check: nothing planned', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(
      planRows(
        verb,
        [{ line: 2, record: { subscription_id: 1, action: 'pause', reason: 'r' } }],
        { params: {}, query: {}, body: {} },
        ac.signal,
      ),
    ).rejects.toMatchObject({ exitCode: 130 });
  });
});

describe('duplicateKey', () => {
  it('finds a key given twice in one object, at any depth, and nothing else', () => {
    expect(duplicateKey('{"a":1,"b":2,"a":3}')).toBe('a');
    expect(duplicateKey('{"a":{"x":1,"x":2}}')).toBe('x');
    expect(duplicateKey('{"a":{"x":1},"b":{"x":2}}')).toBeUndefined();
    expect(duplicateKey('{"a":"\\"a\\":","b":["a","a"]}')).toBeUndefined();
    expect(duplicateKey('{"\\u0061":1, "a" :2}')).toBe('a');
  });
});
