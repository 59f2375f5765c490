/**
 * Lost answers settled by state: a stub platform that holds subscriptions (their end dates,
 * credits and status), applies manage requests to them, and then answers as a faulty gateway
 * would (503 or 502 after applying, a reset connection after applying, 503 without applying).
 * Every row must end applied exactly once, by the platform's state, whatever the answer said;
 * Ctrl-C while unanswered rows are checked sends nothing more; runs have names (`--run-id`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type RecordedRequest, type StubReply, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

let server: StubServer;
let dir: string;
let env: Record<string, string>;
const DAY = 86_400_000;

interface Sub {
  subscription_id: number;
  status: string;
  end_date: string;
  total_credits: number;
  remaining_credits: number;
}
let subs: Map<number, Sub>;
/** How each PUT is answered once applied (or not): by subscription id. */
type Fault = 'ok' | 'applied-503' | 'applied-502' | 'applied-reset' | 'refused-503' | 'refused-400';
let faults: Map<number, Fault>;
/** GET /admin/subscriptions: answered, failed, or never answered. */
let listMode: 'ok' | 'fail' | 'hang';

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  subs = new Map();
  for (let id = 1; id <= 60; id++)
    subs.set(id, {
      subscription_id: id,
      status: 'active',
      end_date: new Date(Date.UTC(2027, 0, 1) + id * DAY).toISOString(),
      total_credits: 100,
      remaining_credits: 100,
    });
  faults = new Map();
  listMode = 'ok';
  server.setHandler(platform);
  dir = tempDir('subctl-bulk-resume-');
  env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', SUBCTL_CONFIG_DIR: join(dir, 'cfg') };
});

const idOf = (req: RecordedRequest) => Number(req.path.split('/')[3]);
const puts = () => server.requests.filter((r) => r.method === 'PUT');
const putsOf = (id: number) => puts().filter((r) => idOf(r) === id).length;

function platform(req: RecordedRequest): StubReply {
  if (req.method === 'GET' && req.path === '/admin/subscriptions') {
    if (listMode === 'hang') return { hang: true };
    if (listMode === 'fail') return fail(500, 'list down');
    // Newest first, as the platform lists them.
    const all = [...subs.values()].sort((a, b) => b.subscription_id - a.subscription_id);
    const size = Number(req.query.page_size ?? 20);
    const page = Number(req.query.page_number ?? 1);
    const rows = all.slice((page - 1) * size, page * size);
    const pages = Math.ceil(all.length / size);
    return ok({
      pagination: {
        current_page: page,
        page_size: size,
        total_pages: pages,
        total_records: all.length,
        has_next_page: page < pages,
        has_previous_page: page > 1,
      },
      subscriptions: rows,
    });
  }
  const id = idOf(req);
  const fault = faults.get(id) ?? 'ok';
  if (fault === 'refused-503') return fail(503, 'upstream unavailable');
  const body = req.body as { action: string; extend_days?: number; extend_credits?: number };
  const sub = subs.get(id)!;
  if (body.action === 'add_credits' && body.extend_credits === undefined) return fail(400, 'extend_credits is required');
  if (fault === 'refused-400') return fail(400, 'cannot extend a cancelled subscription');
  if (body.action === 'extend') sub.end_date = new Date(Date.parse(sub.end_date) + Number(body.extend_days) * DAY).toISOString();
  if (body.action === 'add_credits') sub.total_credits += Number(body.extend_credits);
  if (fault === 'applied-503') return fail(503, 'upstream connection reset');
  if (fault === 'applied-502') return fail(502, 'bad gateway');
  if (fault === 'applied-reset') return { reset: true };
  return ok({ subscription_id: id, action: body.action, message: 'ok' });
}

/** The end date moved by this many days since the start. */
const movedDays = (id: number) => Math.round((Date.parse(subs.get(id)!.end_date) - (Date.UTC(2027, 0, 1) + id * DAY)) / DAY);

function csv(ids: number[], name = 'rows.csv'): string {
  const p = join(dir, name);
  writeFileSync(p, `subscription_id,action,reason,extend_days\n${ids.map((id) => `${id},extend,ticket ${id},7`).join('\n')}\n`);
  return p;
}
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const report = () => join(dir, 'report.csv');
const outcomes = () =>
  Object.fromEntries(
    readFileSync(report(), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => [Number(/id=(\d+)/.exec(l)![1]), l.split(',')[2]]),
  );
const args = (file: string, ...more: string[]) => [
  'subscriptions',
  'manage',
  '--from-csv',
  file,
  '--yes',
  '--concurrency',
  '4',
  '--report',
  report(),
  '--timeout',
  '300',
  ...more,
];

describe('answers lost after the platform applied the row', () => {
  it('503, 502 and a reset after applying: settled as applied by the state recorded before sending, never sent again; a 503 that did not apply is sent again by the next run', async () => {
    for (const id of [3, 7, 13]) faults.set(id, 'applied-503');
    faults.set(5, 'applied-502');
    faults.set(9, 'applied-reset');
    faults.set(11, 'refused-503');
    const f = csv(range(1, 20));
    const first = await runCli(args(f), { env });
    expect(first.code, first.stderr).toBe(8);
    expect(first.stderr).toContain('20 rows: 19 applied, 1 failed, 0 unknown');
    const o = outcomes();
    for (const id of [3, 5, 7, 9, 13]) expect(o[id]).toBe('applied');
    expect(o[11]).toBe('failed');
    expect(readFileSync(report(), 'utf8')).toMatch(
      /^12,id=11,failed,1,503,not applied \(HTTP 503 without saying whether it was applied; confirmed on the platform\): the next run sends it again,$/m,
    );
    faults.clear();
    const second = await runCli(args(f), { env });
    expect(second.code, second.stderr).toBe(0);
    expect(outcomes()[11]).toBe('applied');
    expect(readFileSync(report(), 'utf8')).toMatch(/^12,id=11,applied,2,200,/m);
    for (const id of range(1, 20)) {
      expect(movedDays(id), `subscription ${id}`).toBe(7);
      expect(putsOf(id), `subscription ${id}`).toBe(id === 11 ? 2 : 1);
    }
  });

  it('a target changed by someone else between the record and the check is undecidable: unknown, the command that checks it named, never sent again', async () => {
    faults.set(4, 'applied-503');
    server.setHandler((req) => {
      const reply = platform(req);
      // Someone else extends subscription 4 by a day meanwhile.
      if (req.method === 'PUT' && idOf(req) === 4) subs.get(4)!.end_date = new Date(Date.parse(subs.get(4)!.end_date) + DAY).toISOString();
      return reply;
    });
    const f = csv(range(1, 6));
    const first = await runCli(args(f), { env });
    expect(first.code).toBe(8);
    expect(outcomes()[4]).toBe('unknown');
    expect(readFileSync(report(), 'utf8')).toMatch(
      /id=4,unknown,1,503,.*cannot tell whether it was applied: left alone; check with: subctl subscriptions list/,
    );
    const again = await runCli(args(f), { env });
    expect(again.code).toBe(8);
    expect(again.stderr).toMatch(/finished at .*nothing sent/);
    expect(putsOf(4)).toBe(1);
  });
});

describe('a check that fails too', () => {
  it('the answer lost and the platform unreadable when it is checked: pending, the next run checks it (never resends blindly) and finds it applied', async () => {
    faults.set(4, 'applied-503');
    server.setHandler((req) => {
      const reply = platform(req);
      // The list that would settle the row goes down once the write is applied.
      if (req.method === 'PUT' && idOf(req) === 4) listMode = 'fail';
      return reply;
    });
    const f = csv(range(1, 6));
    const first = await runCli(args(f, '--retries', '0', '-q'), { env });
    expect(first.code, first.stderr).toBe(8);
    // Said even with -q: the run exits 8 for it (cron mails it).
    expect(first.stderr).toContain('1 answer(s) lost and not yet checked (the next run checks them)');
    expect(outcomes()[4]).toBe('pending');
    expect(readFileSync(report(), 'utf8')).toMatch(
      /id=4,pending,,503,"HTTP 503 without saying whether it was applied, and the check against the platform failed \(list down\): the next run checks it again"/,
    );
    listMode = 'ok';
    server.setHandler(platform);
    const second = await runCli(args(f), { env });
    expect(second.code, second.stderr).toBe(0);
    expect(outcomes()[4]).toBe('applied');
    expect(putsOf(4)).toBe(1);
    expect(movedDays(4)).toBe(7);
  });
});

describe('Ctrl-C means stop', () => {
  it('during the check of unanswered rows: exit 130, no request after the signal, the rows still to be checked by the next run', async () => {
    // Every answer lost, and the platform's list down once the rows are sent (their state was
    // recorded before): the rows are left to the next run's check.
    for (const id of range(1, 30)) faults.set(id, 'applied-502');
    server.setHandler((req) => {
      if (req.method === 'PUT') listMode = 'fail';
      return platform(req);
    });
    const f = csv(range(1, 30));
    const first = await runCli(args(f, '--retries', '0'), { env });
    expect(first.code).toBe(8);
    expect(first.stderr).toMatch(/could not check unanswered rows/);
    faults.clear();
    server.setHandler(platform);
    // The next run checks them first; the list never answers; Ctrl-C then.
    listMode = 'hang';
    const ac = new AbortController();
    const before = server.requests.length;
    let abortedAt = 0;
    const watch = setInterval(() => {
      if (!abortedAt && server.requests.slice(before).some((r) => r.method === 'GET')) {
        abortedAt = Date.now();
        ac.abort();
      }
    }, 5);
    const second = await runCli(args(f, '--retries', '0'), { env, signal: ac.signal });
    clearInterval(watch);
    expect(abortedAt).toBeGreaterThan(0);
    expect(second.code).toBe(130);
    expect(server.requests.slice(before).filter((r) => r.method === 'PUT')).toHaveLength(0);
    expect(server.requests.filter((r) => r.at > abortedAt)).toHaveLength(0);
    // Answered again: the third run checks them, finds every row applied, sends nothing.
    listMode = 'ok';
    const third = await runCli(args(f), { env });
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain('30 were in flight (30 found applied, 0 found not applied and sent again, 0 left unknown)');
    for (const id of range(1, 30)) expect(putsOf(id)).toBe(1);
  });

  it('during the check of a large file: exit 130, nothing sent', async () => {
    const p = join(dir, 'big.csv');
    writeFileSync(
      p,
      `subscription_id,action,reason,extend_days\n${Array.from({ length: 60_000 }, (_, i) => `${(i % 60) + 1},extend,big ${i},1`).join('\n')}\n`,
    );
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const r = await runCli(args(p), { env, signal: ac.signal });
    expect(r.code).toBe(130);
    expect(puts()).toHaveLength(0);
  });
});

describe('runs have names', () => {
  it('--run-id: the same id resumes, a finished id sends nothing and says so, a new id applies the file again', async () => {
    faults.set(2, 'refused-503');
    const f = csv(range(1, 4));
    const first = await runCli(args(f, '--run-id', '2026-11'), { env });
    expect(first.code).toBe(8);
    faults.clear();
    const resumed = await runCli(args(f, '--run-id', '2026-11'), { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming subscriptions manage: 3 rows finished earlier, 1 to run/);
    expect(puts()).toHaveLength(5);
    const finished = await runCli(args(f, '--run-id', '2026-11', '-q'), { env });
    expect(finished.code).toBe(0);
    expect(finished.stderr).toMatch(
      /^subscriptions manage: run '2026-11' finished at [0-9T:.-]+Z \(started [0-9T:.-]+Z\), 4 rows: nothing sent\. To apply the file again, name a new run: --run-id NAME/,
    );
    expect(puts()).toHaveLength(5);
    const next = await runCli(args(f, '--run-id', '2026-12'), { env });
    expect(next.code, next.stderr).toBe(0);
    expect(puts()).toHaveLength(9);
    for (const id of range(1, 4)) expect(movedDays(id)).toBe(14);
  });

  it('without --run-id, a finished run asked again sends nothing and says so on stderr even with -q (cron mails it)', async () => {
    const f = csv(range(1, 3));
    expect((await runCli(args(f, '-q'), { env })).code).toBe(0);
    const again = await runCli(args(f, '-q'), { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      /^subscriptions manage: this run of these rows finished at .*, 3 rows: nothing sent\. To apply the file again, name a new run: --run-id NAME \(for a monthly grant, --run-id \d{4}-\d{2}\); journal .*\.jsonl\n$/,
    );
    expect(puts()).toHaveLength(3);
  });

  it('re-run with changed defaults and --skip-applied: the applied extend is not sent again, the corrected add_credits is', async () => {
    const p = join(dir, 'mixed.csv');
    writeFileSync(p, 'subscription_id,action,reason,extend_days,extend_credits\n8,extend,grant,30,\n9,add_credits,grant,,\n');
    const first = await runCli(args(p), { env });
    expect(first.code).toBe(8);
    const again = await runCli(args(p, '--skip-applied', '--extend-credits', '100'), { env });
    expect(again.code, again.stderr).toBe(0);
    expect(putsOf(8)).toBe(1);
    expect(putsOf(9)).toBe(2);
    expect(movedDays(8)).toBe(30);
    expect(subs.get(9)!.total_credits).toBe(200);
    expect(readFileSync(report(), 'utf8')).toMatch(/^3,id=9,applied,2,200,/m);
  });

  it('the same platform under another spelling of its address resumes its run: nothing sent again', async () => {
    const f = csv(range(1, 5));
    expect((await runCli(args(f), { env })).code).toBe(0);
    for (const url of [`http://localhost:${server.port}/`, `http://127.0.0.1:${server.port}//`]) {
      const again = await runCli(args(f), { env: { ...env, SUBCTL_BASE_URL: url } });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/finished at .*nothing sent/);
    }
    expect(puts()).toHaveLength(5);
  });
});

describe('NDJSON rows', () => {
  it('a key given twice on a line is refused with the line, exit 2, nothing sent', async () => {
    const r = await runCli(['subscriptions', 'manage', '--from-ndjson', '-', '--yes'], {
      env,
      stdin:
        '{"subscription_id":1,"action":"extend","reason":"a","extend_days":1}\n{"subscription_id":2,"action":"extend","reason":"a","extend_days":1,"extend_days":30}\n',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: -: line 2: the key 'extend_days' is given twice: keep one");
    expect(server.requests).toHaveLength(0);
  });
});
