/**
 * `catalog apply` when the answers to its writes are lost: the run settles each one by the
 * platform as read after it, within the same run. Against the sandbox in both dialects, every
 * write applied and then answered 503 (`--chaos applied-503=1`, a gateway whose upstream
 * connection was reset): every change is applied once, reported `confirmed`, the links waiting
 * for the new services and plans are made, and the run exits 0. Behind a gateway that answers
 * 503 without passing the write on: the change is reported failed, not applied, and never sent
 * twice in the run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/sandbox/dialect.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { closeAllTestSandboxes, startTestSandbox, writesSince } from '../support/sandbox.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

afterAll(closeAllTestSandboxes);

const CATALOG = `services:
  - service_code: LOST-A
    service_name: Lost answers A
    service_type: HYBRID
    provider_name: Test
    base_service_url: https://api.example.com/lost-a
    access_pattern: /lost-a/*
    credit_reset_cycle: monthly
  - service_code: LOST-B
    service_name: Lost answers B
    service_type: HYBRID
    provider_name: Test
    base_service_url: https://api.example.com/lost-b
    access_pattern: /lost-b/*
    credit_reset_cycle: monthly
plans:
  - plan_code: LOST-P
    plan_name: Lost answers plan
    price: 4.5
    currency: USD
    duration: 1
    duration_unit: months
    credit_amount: 10
    credit_unit: requests
links:
  - service_code: LOST-A
    plan_code: LOST-P
    is_available: true
  - service_code: LOST-B
    plan_code: LOST-P
    is_available: true
`;

const lastAudit = (sb: Sandbox) => (sb.db.prepare('SELECT COALESCE(MAX(id), 0) AS m FROM audit_logs').get() as { m: number }).m;

describe('catalog apply settles lost answers in the same run', () => {
  it.each<Dialect>(['default', 'alt'])('every write applied then answered 503 (%s dialect): all confirmed, exit 0', async (dialect) => {
    const sb = await startTestSandbox({ dialect, chaos: { appliedError: 1 } });
    const dir = tempDir('subctl-catalog-lost-');
    const file = join(dir, 'catalog.yaml');
    const report = join(dir, 'report.csv');
    writeFileSync(file, CATALOG);
    const env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin'), SUBCTL_CONFIG_DIR: join(dir, 'cfg') };
    const from = lastAudit(sb);

    const r = await runCli(['catalog', 'apply', '-f', file, '--yes', '--report', report], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/5 applied \(5 read back after a lost answer\), 0 done by an earlier run of \S+, 0 failed, 0 skipped/);
    expect(r.stderr).toContain('confirmed: create links LOST-A/LOST-P is applied (read back after its answer was lost)');

    const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    expect(lines).toHaveLength(5);
    for (const l of lines)
      expect(l, l).toMatch(/,create,confirmed,503,the answer was lost \(.*\); the platform read after it shows the change applied$/);

    const times = writesSince(sb, from);
    expect([...times.values()], JSON.stringify([...times])).toEqual([1, 1, 1, 1, 1]);
    const diff = await runCli(['catalog', 'diff', '-f', file], { env });
    expect(diff.code, diff.stdout).toBe(0);
  });

  it('a gateway answering 503 without passing the write on: failed, not applied, sent once, the next run sends it', async () => {
    const sb = await startTestSandbox();
    // In front of the sandbox: every request passes, except the first create of LOST-B.
    const posts: string[] = [];
    let refused = 0;
    const gateway = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'POST') posts.push(`${req.url} ${body.toString()}`);
        if (req.method === 'POST' && req.url === '/admin/services' && body.includes('"LOST-B"') && refused++ === 0) {
          res.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>upstream unavailable</body></html>');
          return;
        }
        const target = new URL(sb.url);
        const up = http.request(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
          (ans) => {
            res.writeHead(ans.statusCode ?? 502, ans.headers);
            ans.pipe(res);
          },
        );
        up.end(body);
      });
    });
    await new Promise<void>((ok) => gateway.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
    try {
      const dir = tempDir('subctl-catalog-lost-');
      const file = join(dir, 'catalog.yaml');
      const report = join(dir, 'report.csv');
      writeFileSync(file, CATALOG);
      const env = { SUBCTL_BASE_URL: url, SUBCTL_TOKEN: sb.tokenFor('admin'), SUBCTL_CONFIG_DIR: join(dir, 'cfg') };

      const r = await runCli(['catalog', 'apply', '-f', file, '--yes', '--report', report], { env });
      expect(r.code, r.stderr).toBe(8);
      const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
      const b = lines.find((l) => l.startsWith('services,LOST-B,'));
      expect(b).toMatch(/,create,failed,503,.*; the platform read after it does not show it applied: the next run sends it again"?$/);
      expect(lines.find((l) => l.startsWith('links,LOST-B/LOST-P,'))).toMatch(/,skipped,,service LOST-B was not created$/);
      expect(lines.filter((l) => /,(applied|confirmed),/.test(l))).toHaveLength(3);
      expect(posts.filter((p) => p.startsWith('/admin/services ') && p.includes('"LOST-B"'))).toHaveLength(1);
      expect(sb.db.prepare("SELECT COUNT(*) AS n FROM services WHERE service_code = 'LOST-B'").get()).toEqual({ n: 0 });

      const again = await runCli(['catalog', 'apply', '-f', file, '--yes'], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(posts.filter((p) => p.startsWith('/admin/services ') && p.includes('"LOST-B"'))).toHaveLength(2);
      expect(sb.db.prepare("SELECT COUNT(*) AS n FROM services WHERE service_code = 'LOST-B'").get()).toEqual({ n: 1 });
    } finally {
      await new Promise((ok) => gateway.close(ok));
    }
  });
});
