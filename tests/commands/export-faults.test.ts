/**
 * Exports that must account for every row (issue 26, point 1): a platform whose pages shift
 * under the walk, break the announcement, or repeat themselves; --limit over rows sharing one
 * id; --page-number with --limit. Printed rows are compared by id with what survived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes, startTestSandbox, tokenOf } from '../support/sandbox.js';
import { ok, startStubServer, type StubReply, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
  await closeAllTestSandboxes();
});

type Row = { subscription_id: number; username: string };
const make = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ subscription_id: n - i, username: `u${n - i}` }));
const env = () => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' });
const ids = (ndjson: string): number[] =>
  ndjson
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).subscription_id);
const pageOf = (rows: Row[], page: number, size: number, over: Partial<Record<'total_pages' | 'total_records', number>> = {}) =>
  ok({
    pagination: { current_page: page, page_size: size, total_pages: Math.ceil(rows.length / size), total_records: rows.length, ...over },
    subscriptions: rows.slice((page - 1) * size, page * size),
  });

/** Serves `rows` and lets `hook` change them, or the answer, per request. */
function serve(rows: Row[], hook: (page: number, n: number) => StubReply | void = () => {}) {
  server.requests.length = 0;
  let n = 0;
  server.setHandler((req) => {
    const page = Number(req.query.page_number ?? 1);
    const size = Number(req.query.page_size ?? 20);
    return hook(page, ++n) ?? pageOf(rows, page, size);
  });
}

/** The error of a run under -o ndjson: one JSON object on stderr (its hint and note inside). */
const errorOf = (stderr: string) =>
  (JSON.parse(stderr.trim().split('\n').pop()!) as { error: { message: string; hint?: string; note?: string } }).error;

const list = (extra = '') => runCli(`subscriptions list --all -o ndjson --page-size 10 --retries 0 ${extra}`, { env: env() });

describe('pages that shift under the export', () => {
  it('deletions and insertions while it runs: every survivor printed once, new rows too, exit 0', async () => {
    const rows = make(300);
    const deleted = new Set<number>();
    let next = 1000;
    serve(rows, (page, n) => {
      // During the first 25 requests: 4 rows deleted near the front, 2 added at the front, each request.
      if (n <= 25 && page > 1) {
        for (const r of rows.splice(3, 4)) deleted.add(r.subscription_id);
        rows.unshift({ subscription_id: ++next, username: 'new' }, { subscription_id: ++next, username: 'new' });
      }
    });
    const r = await list();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const got = ids(r.stdout);
    expect(new Set(got).size).toBe(got.length);
    const survivors = rows.map((x) => x.subscription_id);
    expect(survivors.filter((id) => !got.includes(id))).toEqual([]);
    expect(got.filter((id) => deleted.has(id)).length).toBeLessThan(deleted.size);
  });

  it('a platform that keeps changing past the bound: exit 6 saying how many rows may be missing and how to go on', async () => {
    const rows = make(400);
    serve(rows, (page) => {
      if (page > 1) rows.splice(0, 3);
    });
    const r = await list();
    expect(r.code).toBe(6);
    const got = ids(r.stdout);
    expect(got.length).toBeGreaterThan(0);
    expect(new Set(got).size).toBe(got.length);
    const e = errorOf(r.stderr);
    expect(e.message).toMatch(
      /^the list kept changing during 5 passes over it: up to \d+ rows that existed may be missing \(\d+ printed\)$/,
    );
    expect(e.hint).toContain('run the same command again when the platform is quieter and merge the two outputs by subscription_id');
  });
});

describe('pages that break the announcement: exit 6 naming the page, the rows before it kept', () => {
  const rows = make(100);
  const cases: Array<[string, StubReply, RegExp]> = [
    [
      'an empty page',
      ok({ pagination: { current_page: 4, page_size: 10, total_pages: 10, total_records: 100 }, subscriptions: [] }),
      /page 4 of GET \/admin\/subscriptions came back empty \(the platform announced 100 rows in 10 pages\)/,
    ],
    ['data: null', ok(null), /page 4 of GET \/admin\/subscriptions came back with data: null/],
    [
      'a page without its list',
      ok({ pagination: { current_page: 4, page_size: 10, total_pages: 10, total_records: 100 } }),
      /page 4 of GET \/admin\/subscriptions came back without its list 'subscriptions'/,
    ],
    [
      'a short page before the last',
      pageOf(rows.slice(0, 33), 4, 10, { total_pages: 10, total_records: 100 }),
      /page 4 of GET \/admin\/subscriptions came back with 3 rows of 10, before the last page/,
    ],
  ];
  it.each(cases)('%s', async (_name, reply, message) => {
    serve(rows, (page) => (page === 4 ? reply : undefined));
    const r = await list();
    expect(r.code).toBe(6);
    const e = errorOf(r.stderr);
    expect(e.message).toMatch(message);
    expect(e.message).toContain('the export is incomplete: 30 rows printed');
    expect(e.note).toBe('pages 1-3 were printed whole; to go on from page 4, run the same command with --page-number 4 --page-size 10');
    expect(ids(r.stdout)).toEqual(rows.slice(0, 30).map((x) => x.subscription_id));
  });

  it('an empty list on the first page is an empty export (exit 0); an empty page past the announced end ends it (exit 0)', async () => {
    serve([]);
    const empty = await list();
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    serve(make(30));
    const exact = await list();
    expect(exact.code).toBe(0);
    expect(ids(exact.stdout)).toHaveLength(30);
    expect(server.requests.map((q) => q.query.page_number)).toEqual(['1', '2', '3', '4']);
  });
});

describe('a platform that repeats itself', () => {
  it('the same full page served forever: exit 6 after a bound, each row printed once', async () => {
    const rows = make(10);
    serve(rows, () => pageOf(rows, 1, 10, { total_pages: 1000, total_records: 10_000 }));
    const r = await list();
    expect(r.code).toBe(6);
    expect(ids(r.stdout)).toEqual(rows.map((x) => x.subscription_id));
    expect(errorOf(r.stderr).message).toMatch(
      /^pages 2-9 of GET \/admin\/subscriptions brought no row not already printed: the platform repeats its pages/,
    );
    expect(server.requests.length).toBeLessThan(20);
  });

  it('--limit 3 over rows that share one id stops after 3 rows read, with one request', async () => {
    const same = Array.from({ length: 100 }, (_, i) => ({ subscription_id: 7, username: `dup${i}` }));
    serve(same, (page) =>
      ok({ pagination: { current_page: page, page_size: 100, total_pages: 1000, total_records: 100_000 }, subscriptions: same }),
    );
    const r = await runCli('subscriptions list --limit 3 -o ndjson', { env: env() });
    expect(r.code).toBe(0);
    expect(ids(r.stdout)).toEqual([7]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('--page-number keeps its meaning with --limit', () => {
  it('--limit 2 --page-number 30 asks page 30 of the default size and prints its first 2 rows', async () => {
    const rows = make(1000);
    serve(rows);
    const r = await runCli('subscriptions list --limit 2 --page-number 30 -o ndjson', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0]!.query).toMatchObject({ page_number: '30', page_size: '20' });
    expect(ids(r.stdout)).toEqual([rows[580]!.subscription_id, rows[581]!.subscription_id]);
  });

  it('--page-size given: pages of that size', async () => {
    serve(make(1000));
    await runCli('subscriptions list --limit 2 --page-number 3 --page-size 50 -o ndjson', { env: env() });
    expect(server.requests[0]!.query).toMatchObject({ page_number: '3', page_size: '50' });
  });
});

describe('the sandbox: subscriptions deleted from its data file while an export of them runs', () => {
  it('every subscription that stayed is printed, once', async () => {
    const sb = await startTestSandbox();
    const before = (sb.db.prepare('SELECT subscription_id FROM subscriptions').all() as Array<{ subscription_id: number }>).map(
      (x) => x.subscription_id,
    );
    const del = sb.db.prepare(
      'DELETE FROM subscriptions WHERE subscription_id IN (SELECT subscription_id FROM subscriptions ORDER BY random() LIMIT 15)',
    );
    let deletions = 0;
    // 600 deletions, 15 every few milliseconds, while the export reads pages of 50.
    const timer = setInterval(() => {
      if (deletions < 600) deletions += del.run().changes;
    }, 3);
    const r = await runCli('subscriptions list --all -o ndjson --page-size 50', {
      env: { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: tokenOf(sb, 'admin') },
    });
    clearInterval(timer);
    expect(r.code, r.stderr).toBe(0);
    expect(deletions).toBeGreaterThan(0);
    const after = new Set(
      (sb.db.prepare('SELECT subscription_id FROM subscriptions').all() as Array<{ subscription_id: number }>).map(
        (x) => x.subscription_id,
      ),
    );
    const got = ids(r.stdout);
    expect(new Set(got).size).toBe(got.length);
    expect(before.filter((id) => after.has(id) && !got.includes(id))).toEqual([]);
  });
});
