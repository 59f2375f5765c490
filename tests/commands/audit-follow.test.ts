/**
 * `audit list --follow`: prints the newest page, then only entries not seen before, oldest
 * first, until Ctrl-C (exit 130); one line per entry, fit for SSH and TERM=dumb.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());

function feed() {
  const logs: Array<Record<string, unknown>> = [];
  let id = 0;
  const add = (n: number) => {
    for (let i = 0; i < n; i++) {
      id++;
      logs.unshift({ id, created_at: `2026-11-22T10:00:${String(id).padStart(2, '0')}Z`, username: 'admin', module: 'subscriptions', action: 'manage', details: `{"subscription_id":${id},"reason":"a, \\"b\\""}` });
    }
  };
  add(3);
  server.requests.length = 0;
  server.setHandler((req) => {
    const n = server.requests.length;
    if (n === 2) add(2);
    if (n === 3) add(1);
    return ok({ logs: logs.slice(0, Number(req.query.page_size ?? 20)), page: 1, page_size: 20, total_items: logs.length, total_pages: 1 });
  });
}

async function follow(args: string, ms: number, opts: { tty?: boolean; env?: Record<string, string> } = {}) {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), ms);
  return runCli(`audit list --follow --interval 0.2 ${args}`, { env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', ...opts.env }, signal: ac.signal, tty: opts.tty, columns: 80 });
}

describe('audit --follow', () => {
  it('prints each entry once, oldest first, one line each, until Ctrl-C (exit 130)', async () => {
    feed();
    const r = await follow('--module subscriptions', 1300);
    expect(r.code).toBe(130);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines.map((l) => l.match(/"subscription_id":(\d+)/)![1])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(lines[0]).toMatch(/^2026-11-22 10:00:01 {2}admin {2}subscriptions\.manage {2}/);
    expect(server.requests.every((q) => q.query.module === 'subscriptions' && q.query.page === '1')).toBe(true);
    expect(server.requests.length).toBeGreaterThanOrEqual(4);
  });

  it('on an 80-column terminal with TERM=dumb: lines cut to 80, no escape codes', async () => {
    feed();
    const r = await follow('', 700, { tty: true, env: { TERM: 'dumb' } });
    expect(r.code).toBe(130);
    for (const l of r.stdout.trim().split('\n')) expect([...l].length).toBeLessThanOrEqual(80);
    expect(r.stdout).not.toMatch(/\u001b/);
  });

  it('-o csv writes the header once; -o json streams one object a line', async () => {
    feed();
    const csv = await follow('-o csv --fields id,action', 1300);
    expect(csv.stdout).toBe('id,action\n1,manage\n2,manage\n3,manage\n4,manage\n5,manage\n6,manage\n');
    feed();
    const json = await follow('-o json --fields id', 1300);
    expect(json.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
