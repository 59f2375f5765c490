/**
 * What the chaos runs found in the bulk engine: a row refused with 429 or 503 (not applied,
 * and likely to pass later) stayed `failed` forever, so that running the command again did
 * nothing and only `--restart` (which applies every finished row a second time) could retry it.
 * Now such a row is sent again by the next run of the same command; a final refusal (4xx) is
 * not; and a 5xx that does not say whether the row was applied (500, 502, 504) is settled like
 * a lost answer, against the server (the audit log for `subscriptions manage`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type RecordedRequest, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

let server: StubServer;
let dir: string;
let env: Record<string, string>;
/** Audit entries the stub's GET /audit answers with (newest first, as the platform). */
let audit: Array<Record<string, unknown>>;

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  audit = [];
  dir = tempDir('subctl-bulk-resume-');
  env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', SUBCTL_CONFIG_DIR: join(dir, 'cfg') };
});

const idOf = (req: RecordedRequest) => Number(req.path.split('/')[3]);
const puts = () => server.requests.filter((r) => r.method === 'PUT').map(idOf);

/** Answers PUT /admin/subscriptions/{id}/manage with `reply(id, n)` (n = how many times that id was sent), and GET /audit from `audit`. */
function serve(reply: (id: number, n: number) => ReturnType<typeof ok>) {
  const seen = new Map<number, number>();
  server.setHandler((req) => {
    if (req.method === 'GET' && req.path === '/audit') return ok({ logs: audit, page: 1, page_size: 100, total_items: audit.length, total_pages: 1 });
    const id = idOf(req);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    return reply(id, seen.get(id)!);
  });
}

function csv(ids: number[]): string {
  const p = join(dir, 'rows.csv');
  writeFileSync(p, `subscription_id,action,reason,extend_days\n${ids.map((id) => `${id},extend,ticket ${id},7`).join('\n')}\n`);
  return p;
}

const report = () => join(dir, 'report.csv');
const outcomes = () =>
  Object.fromEntries(
    readFileSync(report(), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => [Number(/id=(\d+)/.exec(l)![1]), l.split(',')[2]]),
  );
const args = (file: string) => ['subscriptions', 'manage', '--from-csv', file, '--yes', '--concurrency', '2', '--report', report(), '--timeout', '200'];

describe('a bulk run again after refusals', () => {
  it('429 and 503 rows are sent again by the next run, the applied ones are not; a 400 row stays failed', async () => {
    serve((id, n) => {
      if (id === 102 && n === 1) return { ...fail(503, 'busy'), headers: { 'retry-after': '1' } };
      if (id === 103 && n === 1) return fail(429, 'slow down');
      if (id === 104) return fail(400, 'cannot extend a cancelled subscription');
      return ok({ subscription_id: id, message: 'extended' });
    });
    const file = csv([101, 102, 103, 104]);
    const first = await runCli(args(file), { env });
    expect(first.code).toBe(8);
    expect(first.stderr).toMatch(/4 rows: 1 applied, 3 failed, 0 unknown/);
    expect(readFileSync(report(), 'utf8')).toMatch(/^3,id=102,failed,503,busy \(not applied: run the command again to send it again\),$/m);
    expect(outcomes()).toEqual({ 101: 'applied', 102: 'failed', 103: 'failed', 104: 'failed' });
    expect(puts().sort()).toEqual([101, 102, 103, 104]);

    server.requests.length = 0;
    const second = await runCli(args(file), { env });
    expect(second.stderr).toMatch(/resuming subscriptions manage: 2 rows finished earlier, 0 were in flight, 2 to run/);
    expect(puts().sort()).toEqual([102, 103]);
    expect(second.code).toBe(8);
    expect(outcomes()).toEqual({ 101: 'applied', 102: 'applied', 103: 'applied', 104: 'failed' });

    // Nothing left that a run could change: a third run sends nothing.
    server.requests.length = 0;
    const third = await runCli(args(file), { env });
    expect(third.code).toBe(8);
    expect(puts()).toEqual([]);
  });

  it('two rows of one request, one answered and one lost: the answered row\'s audit entry does not vouch for the lost one, which is sent again (it was reported applied and never sent)', async () => {
    // Every manage the platform applies leaves an entry; the second send of 301 gets no answer
    // and is not applied.
    serve((id, n) => {
      const entry = (days: number) => audit.unshift({ id: audit.length + 1, module: 'subscriptions', action: 'manage', created_at: new Date().toISOString(), details: JSON.stringify({ subscription_id: id, action: 'extend', reason: 'same', extend_days: days }) });
      if (id === 301 && n === 2) return { reset: true };
      entry(7);
      return ok({ subscription_id: id, message: 'extended' });
    });
    const file = join(dir, 'twice.csv');
    writeFileSync(file, 'subscription_id,action,reason,extend_days\n301,extend,same,7\n301,extend,same,7\n');
    const first = await runCli([...args(file), '--concurrency', '1'], { env });
    expect(first.code).toBe(8);
    expect(readFileSync(report(), 'utf8')).toMatch(/^3,id=301,unknown,,not applied \(no answer; confirmed absent\)/m);
    const again = await runCli([...args(file), '--concurrency', '1'], { env });
    expect(again.code, again.stderr).toBe(0);
    // Sent three times in all (twice answered), each one applied once: two entries for two rows.
    expect(puts()).toEqual([301, 301, 301]);
    expect(audit).toHaveLength(2);
  });

  it('an entry naming other days does not vouch for a row (id, action and reason the same)', async () => {
    serve((id, n) => {
      if (n === 1) {
        audit.unshift({ id: 1, module: 'subscriptions', action: 'manage', created_at: new Date().toISOString(), details: JSON.stringify({ subscription_id: id, action: 'extend', reason: `ticket ${id}`, extend_days: 30 }) });
        return { reset: true };
      }
      return ok({ subscription_id: id, message: 'extended' });
    });
    const file = csv([401]);
    const first = await runCli(args(file), { env });
    expect(first.code).toBe(8);
    expect(outcomes()).toEqual({ 401: 'unknown' });
  });

  it('a 502 row found applied in the audit log is reported applied and never sent again', async () => {
    serve((id) => {
      if (id === 202) {
        // The gateway timed out after the platform had applied it.
        audit.unshift({ id: 9, module: 'subscriptions', action: 'manage', created_at: new Date().toISOString(), details: JSON.stringify({ subscription_id: 202, action: 'extend', reason: 'ticket 202' }) });
        return fail(502, 'bad gateway');
      }
      return ok({ subscription_id: id, message: 'extended' });
    });
    const file = csv([201, 202]);
    const first = await runCli(args(file), { env });
    expect(first.code, first.stderr).toBe(0);
    expect(outcomes()).toEqual({ 201: 'applied', 202: 'applied' });
    expect(readFileSync(report(), 'utf8')).toMatch(/^3,id=202,applied,502,applied \(HTTP 502; confirmed on the server\),$/m);
    server.requests.length = 0;
    expect((await runCli(args(file), { env })).code).toBe(0);
    expect(puts()).toEqual([]);
  });

  it('a check that itself fails is said to have failed (not that the server cannot tell); the next run checks again, and its counts add up', async () => {
    let auditDown = true;
    const seen = new Map<number, number>();
    server.setHandler((req) => {
      if (req.method === 'GET' && req.path === '/audit') return auditDown ? fail(503, 'audit store unavailable') : ok({ logs: audit, page: 1, page_size: 100, total_items: audit.length, total_pages: 1 });
      const id = idOf(req);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return id === 402 && seen.get(id) === 1 ? fail(500, 'internal error') : ok({ subscription_id: id, message: 'extended' });
    });
    const file = csv([401, 402]);
    const first = await runCli([...args(file), '--retries', '0'], { env });
    expect(first.code).toBe(8);
    expect(first.stderr).toContain('could not check unanswered rows: audit store unavailable');
    expect(readFileSync(report(), 'utf8')).toMatch(
      /^3,id=402,unknown,500,"HTTP 500 without saying whether it was applied, and the check against the server failed \(audit store unavailable\): left alone; the next run checks it again",$/m,
    );
    // A dry run says what the next run does with it: check it first (not skip it).
    const dry = await runCli(['subscriptions', 'manage', '--from-csv', file, '--dry-run', '-o', 'json', '--retries', '0'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as Array<{ line: number; run: string }>;
    expect(plan.map((p) => [p.line, p.run.split(':')[0]])).toEqual([
      [2, 'skip'],
      [3, 'check first'],
    ]);
    auditDown = false;
    server.requests.length = 0;
    const second = await runCli([...args(file), '--retries', '0'], { env });
    expect(second.code, second.stderr).toBe(0);
    // 1 + 1 + 0 = the 2 rows of the file.
    expect(second.stderr).toMatch(/resuming subscriptions manage: 1 rows finished earlier, 1 were in flight \(0 found applied, 1 found not applied and sent again, 0 left unknown\), 0 to run/);
    expect(puts()).toEqual([402]);
  });

  it('a 500 row absent from the audit log is unknown (not failed) and sent again by the next run', async () => {
    serve((id, n) => (id === 302 && n === 1 ? fail(500, 'internal error') : ok({ subscription_id: id, message: 'extended' })));
    const file = csv([301, 302]);
    const first = await runCli(args(file), { env });
    expect(first.code).toBe(8);
    expect(first.stderr).toMatch(/2 rows: 1 applied, 0 failed, 1 unknown/);
    expect(readFileSync(report(), 'utf8')).toMatch(/^3,id=302,unknown,500,not applied \(HTTP 500 without saying whether it was applied; confirmed absent\): run the command again to retry,$/m);
    server.requests.length = 0;
    const second = await runCli(args(file), { env });
    expect(second.code, second.stderr).toBe(0);
    expect(puts()).toEqual([302]);
  });
});
