/**
 * `audit list --follow`: prints the newest page, then only entries not seen before, oldest
 * first, until Ctrl-C (exit 130); one line per entry, fit for SSH and TERM=dumb.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { inZone } from '../support/zone.js';

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
      logs.unshift({
        id,
        created_at: `2026-11-22T10:00:${String(id).padStart(2, '0')}Z`,
        username: 'admin',
        module: 'subscriptions',
        action: 'manage',
        details: `{"subscription_id":${id},"reason":"a, \\"b\\""}`,
      });
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

/** Lines printed so far. */
const lineCount = (stdout: string) => stdout.split('\n').length - 1;

/**
 * `audit list --follow` until what it printed satisfies `until`, then two polls more (a line
 * printed twice, or one too many, would show), then Ctrl-C; at most 20 s. Waiting on what is
 * printed, not on a clock, holds on a loaded machine.
 */
async function follow(
  args: string,
  until: (stdout: string, stderr: string) => boolean,
  opts: { tty?: boolean; env?: Record<string, string> } = {},
) {
  const ac = new AbortController();
  let after = Infinity;
  const onOutput = (stdout: string, stderr: string) => {
    if (after === Infinity && until(stdout, stderr)) after = server.requests.length + 2;
  };
  const deadline = setTimeout(() => ac.abort(), 20_000);
  const watch = setInterval(() => server.requests.length >= after && ac.abort(), 10);
  try {
    return await runCli(`audit list --follow --interval 0.2 ${args}`, {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', ...opts.env },
      signal: ac.signal,
      tty: opts.tty,
      columns: 80,
      onOutput,
    });
  } finally {
    clearTimeout(deadline);
    clearInterval(watch);
  }
}

describe('audit --follow', () => {
  it('prints each entry once, oldest first, one line each, until Ctrl-C (exit 130)', async () => {
    feed();
    const r = await follow('--module subscriptions', (o) => lineCount(o) >= 6);
    expect(r.code, r.stderr).toBe(130);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines.map((l) => l.match(/ subscription (\d+) /)![1])).toEqual(['1', '2', '3', '4', '5', '6']);
    // Off a terminal, the time as the server sent it (as tables print it there); the target and
    // the change read from the details.
    expect(lines[0]).toBe('2026-11-22T10:00:01Z  admin  subscriptions.manage  subscription 1  reason=a, "b"');
    expect(server.requests.every((q) => q.query.module === 'subscriptions' && q.query.page === '1')).toBe(true);
    expect(server.requests.length).toBeGreaterThanOrEqual(4);
  });

  it('on a terminal, the time in the same zone as `audit list` shows it (local), to the second, with the zone', async () => {
    await inZone('Asia/Tokyo', async () => {
      feed();
      const r = await follow('', (o) => lineCount(o) >= 1, { tty: true });
      expect(r.stdout.trim().split('\n')[0]).toMatch(/^2026-11-22 19:00:01 \+09:00 {2}admin {2}subscriptions\.manage/);
      const list = await runCli('audit list --limit 1 --fields id,created_at', {
        env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
        tty: true,
        columns: 80,
      });
      expect(list.stdout).toMatch(/2026-11-22 19:00:06 \+09:00/);
      feed();
      const utc = await follow('--utc', (o) => lineCount(o) >= 1, { tty: true });
      expect(utc.stdout.trim().split('\n')[0]).toMatch(/^2026-11-22 10:00:01 \+00:00 {2}admin/);
      const env = await runCli('audit list --limit 1 --fields id,created_at', {
        env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', SUBCTL_TZ: 'UTC' },
        tty: true,
        columns: 80,
      });
      expect(env.stdout).toMatch(/2026-11-22 10:00:06 \+00:00/);
    });
  });

  it('on an 80-column terminal with TERM=dumb: lines wrapped at 80, no escape codes', async () => {
    feed();
    const r = await follow('', (o) => lineCount(o) >= 3, { tty: true, env: { TERM: 'dumb' } });
    expect(r.code).toBe(130);
    for (const l of r.stdout.trim().split('\n')) expect([...l].length).toBeLessThanOrEqual(80);
    expect(r.stdout).not.toMatch(/\u001b/);
  });

  it('-o csv writes the header once; -o json streams one object a line', async () => {
    feed();
    const csv = await follow('-o csv --fields id,action', (o) => lineCount(o) >= 7);
    expect(csv.stdout).toBe('id,action\n1,manage\n2,manage\n3,manage\n4,manage\n5,manage\n6,manage\n');
    feed();
    const json = await follow('-o json --fields id', (o) => lineCount(o) >= 6);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

/** A paged audit log, newest first, as the platform pages it; `script(n)` runs before answer n. */
/** `cap`: a platform serving at most that many entries a page, saying only the size it served and whether a page follows. */
function pagedFeed(script: (n: number, add: (k: number) => void) => { status: number; message: string } | void, cap?: number) {
  const logs: Array<Record<string, unknown>> = [];
  let id = 0;
  const add = (k: number) => {
    for (let i = 0; i < k; i++) {
      id++;
      logs.unshift({
        id,
        created_at: '2026-11-22T10:00:00Z',
        username: 'admin',
        module: 'subscriptions',
        action: 'manage',
        details: { subscription_id: id },
      });
    }
  };
  add(30);
  server.requests.length = 0;
  let n = 0;
  server.setHandler((req) => {
    const failure = script(n++, add);
    if (failure) return { status: failure.status, json: { success: false, message: failure.message, data: null } };
    const page = Number(req.query.page ?? 1);
    const size = Math.min(Number(req.query.page_size ?? 20), cap ?? Infinity);
    if (cap !== undefined)
      return ok({
        logs: logs.slice((page - 1) * size, page * size),
        page,
        page_size: size,
        has_next_page: page * size < logs.length ? 'Y' : 'N',
      });
    return ok({
      logs: logs.slice((page - 1) * size, page * size),
      page,
      page_size: size,
      total_items: logs.length,
      total_pages: Math.ceil(logs.length / size),
    });
  });
  return { total: () => id };
}

const printedIds = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { id: number }).id);

describe('audit --follow: nothing missed', () => {
  it('a burst of 250 entries between two polls (a bulk run) is printed whole, each once, oldest first', async () => {
    const feedState = pagedFeed((n, add) => {
      if (n === 1) add(250);
    });
    const r = await follow('-o json', (o) => lineCount(o) >= 270);
    expect(r.code).toBe(130);
    // The first poll shows the newest 20 as context (11-30), then every one of the burst.
    expect(printedIds(r.stdout)).toEqual(Array.from({ length: 270 }, (_, i) => 11 + i));
    expect(feedState.total()).toBe(280);
    expect(server.requests.every((q) => q.query.page_size === '100')).toBe(true);
  });

  it('a burst on a platform serving 7 entries a page (and saying a page follows) is printed whole, each asked at 100', async () => {
    const feedState = pagedFeed((n, add) => {
      if (n === 1) add(50);
    }, 7);
    const r = await follow('-o json', (o) => lineCount(o) >= 57);
    expect(r.code).toBe(130);
    // The first poll's context is the platform's first page (24-30), then every one of the burst.
    expect(printedIds(r.stdout)).toEqual(Array.from({ length: 57 }, (_, i) => 24 + i));
    expect(feedState.total()).toBe(80);
    expect(server.requests.every((q) => q.query.page_size === '100')).toBe(true);
  });

  it('--limit N starts with the newest N as context, as `tail -n N -f` does; --page-size N too', async () => {
    pagedFeed(() => undefined);
    const r = await follow('-o json --limit 3', (o) => lineCount(o) >= 3);
    expect(r.code, r.stderr).toBe(130);
    expect(printedIds(r.stdout)).toEqual([28, 29, 30]);
    pagedFeed(() => undefined);
    const p = await follow('-o json --page-size 5', (o) => lineCount(o) >= 5);
    expect(printedIds(p.stdout)).toEqual([26, 27, 28, 29, 30]);
  });

  it('entries arriving while it reads the later pages (they shift the pages) are printed once', async () => {
    pagedFeed((n, add) => {
      if (n === 1) add(150);
      // Between the reads of pages 1 and 2 of the catch-up, and again later.
      if (n === 2 || n === 3) add(7);
    });
    const r = await follow('-o json', (o) => lineCount(o) >= 184);
    const ids = printedIds(r.stdout);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(Array.from({ length: 164 + 20 }, (_, i) => 11 + i));
  });

  it('an outage (503s, then the server is back): said once on stderr, the poll tried again, the entries of the outage caught up', async () => {
    pagedFeed((n, add) => {
      if (n >= 1 && n <= 3) {
        add(40);
        return { status: 503, message: 'maintenance' };
      }
    });
    const r = await follow('-o json --retries 0', (o, e) => lineCount(o) >= 140 && /answers again/.test(e));
    expect(r.code).toBe(130);
    expect(printedIds(r.stdout)).toEqual(Array.from({ length: 140 }, (_, i) => 11 + i));
    expect(r.stderr.match(/warning: the audit log cannot be read \(maintenance\); trying again until it answers/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/the audit log answers again, after \d+ s; entries since then follow/);
  });

  it('a refused credential (401) is not waited out: exit 3 with the sign-in hint', async () => {
    pagedFeed((n) => (n >= 1 ? { status: 401, message: 'token expired' } : undefined));
    const r = await follow('-o json --retries 0', () => false);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('token expired');
    expect(r.stderr).toMatch(/subctl auth login/);
  });
});

describe('audit --follow: long runs', () => {
  it('leaves no listener behind poll after poll (they piled up: a warning after 11 polls, memory for as long as it ran)', async () => {
    const { EventEmitter } = await import('node:events');
    const listeners = (t: AbortSignal) =>
      (EventEmitter as unknown as { getEventListeners(t: EventTarget, name: string): unknown[] }).getEventListeners(t, 'abort');
    pagedFeed(() => undefined);
    const ac = new AbortController();
    const run = runCli('audit list --follow --interval 0.2 -o json', {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
      signal: ac.signal,
    });
    await vi.waitFor(() => expect(server.requests.length).toBeGreaterThanOrEqual(12), { timeout: 25_000, interval: 50 });
    expect(listeners(ac.signal).length).toBeLessThanOrEqual(4);
    ac.abort();
    expect((await run).code).toBe(130);
  });
});
