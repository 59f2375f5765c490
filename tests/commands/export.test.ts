/**
 * `--all` exports while the table changes under them: every row that existed when the export
 * started is printed exactly once, in every format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());

type Row = { subscription_id: number; username: string };

/**
 * A list served newest first, with a hook that mutates it before page `n` is answered the first
 * time (a rescan reads pages again: the changes happen once, while the first pass runs).
 */
function serve(rows: Row[], mutate: (page: number, rows: Row[]) => void) {
  server.requests.length = 0;
  const visited = new Set<number>();
  server.setHandler((req) => {
    const page = Number(req.query.page_number ?? 1);
    const size = Number(req.query.page_size ?? 20);
    if (!visited.has(page)) mutate(page, rows);
    visited.add(page);
    return ok({
      pagination: { current_page: page, page_size: size, total_pages: Math.ceil(rows.length / size), total_records: rows.length },
      subscriptions: rows.slice((page - 1) * size, page * size),
    });
  });
}

const make = (from: number, to: number): Row[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ subscription_id: to - i, username: `u${to - i}, "q"` }));

function idsOf(out: string, format: string): number[] {
  if (format === 'ndjson')
    return out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).subscription_id);
  if (format === 'json') return JSON.parse(out).map((r: Row) => r.subscription_id);
  return out
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => Number(l.split(',')[0]));
}

describe.each(['ndjson', 'json', 'csv'])('--all -o %s while the table changes', (format) => {
  it('rows added at the front during the export are not printed twice', async () => {
    const rows = make(1, 950);
    const original = rows.map((r) => r.subscription_id);
    let added = 1000;
    serve(rows, (page) => {
      if (page === 3 || page === 6) for (let i = 0; i < 37; i++) rows.unshift({ subscription_id: ++added, username: 'new' });
    });
    const r = await runCli(['subscriptions', 'list', '--all', '-o', format, '--fields', 'subscription_id,username'], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
    });
    expect(r.code).toBe(0);
    const ids = idsOf(r.stdout, format);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of original) expect(ids).toContain(id);
  });

  it('rows deleted behind the read position do not make others skipped', async () => {
    const rows = make(1, 950);
    const deleted = new Set<number>();
    serve(rows, (page) => {
      if (page === 4) for (const r of rows.splice(10, 45)) deleted.add(r.subscription_id);
    });
    const r = await runCli(['subscriptions', 'list', '--all', '-o', format, '--fields', 'subscription_id,username'], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
    });
    expect(r.code).toBe(0);
    const ids = idsOf(r.stdout, format);
    expect(new Set(ids).size).toBe(ids.length);
    const survivors = make(1, 950)
      .map((x) => x.subscription_id)
      .filter((id) => !deleted.has(id));
    for (const id of survivors) expect(ids).toContain(id);
  });

  it('rows added faster than 8 pages a page read are not printed twice either (only the last 8 pages were remembered)', async () => {
    const rows = make(1, 3000);
    const original = rows.map((r) => r.subscription_id);
    let added = 10_000;
    // 1,000 rows (10 pages of 100) at the front before every page read from the 3rd on.
    serve(rows, (page) => {
      if (page >= 3 && page <= 12) for (let i = 0; i < 1000; i++) rows.unshift({ subscription_id: ++added, username: 'new' });
    });
    const r = await runCli(['subscriptions', 'list', '--all', '-o', format, '--fields', 'subscription_id,username', '--page-size', '100'], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
    });
    expect(r.code).toBe(0);
    const ids = idsOf(r.stdout, format);
    expect(ids.length - new Set(ids).size).toBe(0);
    for (const id of original) expect(ids).toContain(id);
  });

  it('more rows deleted behind the read position than 7 pages hold: no row that stayed is skipped (at most 7 pages back were read again)', async () => {
    const rows = make(1, 3000);
    const deleted = new Set<number>();
    let once = false;
    serve(rows, (page) => {
      if (page === 15 && !once) {
        once = true;
        for (const r of rows.splice(0, 1200)) deleted.add(r.subscription_id);
      }
    });
    const r = await runCli(['subscriptions', 'list', '--all', '-o', format, '--fields', 'subscription_id,username', '--page-size', '100'], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
    });
    expect(r.code).toBe(0);
    const ids = idsOf(r.stdout, format);
    expect(new Set(ids).size).toBe(ids.length);
    const missing = make(1, 3000)
      .map((x) => x.subscription_id)
      .filter((id) => !deleted.has(id) && !ids.includes(id));
    expect(missing).toEqual([]);
  });

  it('rows added at the end during the export are reached (the walk ends at a short page)', async () => {
    const rows = make(1, 400).reverse(); // oldest first
    let added = 400;
    serve(rows, (page) => {
      if (page === 2) for (let i = 0; i < 150; i++) rows.push({ subscription_id: ++added, username: 'late' });
    });
    const r = await runCli(['subscriptions', 'list', '--all', '-o', format, '--fields', 'subscription_id,username'], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
    });
    expect(r.code).toBe(0);
    const ids = idsOf(r.stdout, format);
    expect(ids).toEqual(Array.from({ length: 550 }, (_, i) => i + 1));
  });
});

describe('--all that fails part-way', () => {
  it('the rows of the pages before the failure are out whole; the note names the page to go on from, and going on from it gives the rest', async () => {
    const rows = make(1, 950);
    server.requests.length = 0;
    let failOn: number | undefined = 6;
    server.setHandler((req) => {
      const page = Number(req.query.page_number ?? 1);
      const size = Number(req.query.page_size ?? 20);
      if (page === failOn) return { status: 503, json: { success: false, message: 'overloaded', data: null } };
      return ok({
        pagination: { current_page: page, page_size: size, total_pages: Math.ceil(rows.length / size), total_records: rows.length },
        subscriptions: rows.slice((page - 1) * size, page * size),
      });
    });
    const env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' };
    const r = await runCli('subscriptions list --all -o csv --retries 0', { env });
    expect(r.code).toBe(6);
    expect(idsOf(r.stdout, 'csv')).toEqual(rows.slice(0, 500).map((x) => x.subscription_id));
    expect(r.stderr).toContain('error: overloaded (HTTP 503)\n');
    expect(r.stderr).toContain(
      'note: pages 1-5 were printed whole; to go on from page 6, run the same command with --page-number 6 --page-size 100\n',
    );
    failOn = undefined;
    const rest = await runCli('subscriptions list --all -o csv --retries 0 --page-number 6 --page-size 100', { env });
    expect(rest.code).toBe(0);
    expect([...idsOf(r.stdout, 'csv'), ...idsOf(rest.stdout, 'csv')]).toEqual(rows.map((x) => x.subscription_id));
    // The first page failing: nothing printed, nothing to go on from.
    failOn = 1;
    const none = await runCli('subscriptions list --all -o csv --retries 0', { env });
    expect(none.code).toBe(6);
    expect(none.stdout).toBe('');
    expect(none.stderr).not.toContain('note:');
  });

  it('Ctrl-C part-way: the same note after "interrupted", and going on from the page it names gives the rest', async () => {
    const rows = make(1, 950);
    let slowPage: number | undefined = 6;
    server.setHandler((req) => {
      const page = Number(req.query.page_number ?? 1);
      const size = Number(req.query.page_size ?? 20);
      const reply = ok({
        pagination: { current_page: page, page_size: size, total_pages: Math.ceil(rows.length / size), total_records: rows.length },
        subscriptions: rows.slice((page - 1) * size, page * size),
      });
      return page === slowPage ? { ...reply, delayMs: 3000 } : reply;
    });
    server.requests.length = 0;
    const env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' };
    const ac = new AbortController();
    const running = runCli('subscriptions list --all -o csv', { env, signal: ac.signal });
    while (!server.requests.some((q) => q.query.page_number === '6')) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    ac.abort();
    const r = await running;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(
      'interrupted\nnote: pages 1-5 were printed whole; to go on from page 6, run the same command with --page-number 6 --page-size 100\n',
    );
    expect(idsOf(r.stdout, 'csv')).toEqual(rows.slice(0, 500).map((x) => x.subscription_id));
    slowPage = undefined;
    const rest = await runCli('subscriptions list --all -o csv --page-number 6 --page-size 100', { env });
    expect([...idsOf(r.stdout, 'csv'), ...idsOf(rest.stdout, 'csv')]).toEqual(rows.map((x) => x.subscription_id));
  });
});
