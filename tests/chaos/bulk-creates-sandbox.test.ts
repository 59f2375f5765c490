/**
 * Bulk creates whose every answer is lost, against the sandbox in both of its dialects
 * (src/sandbox/dialect.ts: `alt` writes ids as text, booleans as 0/1, money as text, a role as
 * an object): every write is applied and then answered 503 (`--chaos applied-503=1`), so every
 * row is settled by the look-up alone. Each create verb that can be looked up ends with every
 * row applied once, reported with the id the database holds; referral codes, which the platform
 * names itself, are reported unknown and never sent again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/sandbox/dialect.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

afterAll(closeAllTestSandboxes);

/** Runs a bulk create of `csv` as `user`; the report's lines (without the header) and the exit code. */
async function bulk(sb: Sandbox, dir: string, verb: string[], csv: string, user = 'admin') {
  const file = join(dir, `${verb.join('-')}.csv`);
  const report = join(dir, `${verb.join('-')}-report.csv`);
  writeFileSync(file, csv);
  const env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor(user), SUBCTL_CONFIG_DIR: join(dir, `cfg-${user}`) };
  const r = await runCli([...verb, '--from-csv', file, '--yes', '--report', report, '--timeout', '3000'], { env });
  const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
  return { r, lines, again: () => runCli([...verb, '--from-csv', file, '--yes', '--timeout', '3000'], { env }) };
}

/** Each report line applied, with the id the database holds for its name. */
function expectApplied(lines: string[], ids: Map<string, unknown>, nameOf: (line: string) => string) {
  expect(lines).toHaveLength(ids.size);
  for (const l of lines) {
    const name = nameOf(l);
    expect(l, l).toMatch(
      /^\d+,[^,]*(,[^,]*)*,applied,1,(503)?,applied \((HTTP 503 without saying whether it was applied|answer lost); confirmed on the platform\),/,
    );
    expect(l.endsWith(`,${ids.get(name)}`), `${l}: created id ${ids.get(name)}`).toBe(true);
  }
}

for (const dialect of ['default', 'alt'] as Dialect[]) {
  describe(`the sandbox in its ${dialect} dialect, every answer lost after the write`, () => {
    it('services, plans, links, roles, users and usage-code batches: each row applied once, found by its name, its id reported; referral codes unknown', async () => {
      const sb = await startTestSandbox({ dialect, chaos: { appliedError: 1 } });
      const dir = tempDir('subctl-creates-sandbox-');
      const t = `Z${dialect.toUpperCase()}`;
      const count = (sql: string, ...args: unknown[]) => (sb.db.prepare(sql).get(...args) as { n: number }).n;
      const idsOf = (sql: string, ...args: unknown[]) =>
        new Map((sb.db.prepare(sql).all(...args) as Array<{ k: string; id: number }>).map((x) => [x.k, x.id]));

      const services = await bulk(
        sb,
        dir,
        ['services', 'create'],
        `service_code,service_name,service_type,provider_name,base_service_url,access_pattern,credit_reset_cycle,requires_auth\n${[1, 2, 3].map((i) => `${t}-S${i},Svc ${i},HYBRID,Acme,https://s${i}.example,/v1/*,monthly,true`).join('\n')}\n`,
      );
      expect(services.r.code, services.r.stderr).toBe(0);
      expectApplied(
        services.lines,
        idsOf('SELECT service_code AS k, service_id AS id FROM services WHERE service_code LIKE ?', `${t}-S%`),
        (l) => /service_code=([^,]+)/.exec(l)![1],
      );

      const plans = await bulk(
        sb,
        dir,
        ['plans', 'create'],
        `plan_code,plan_name,price,currency,duration,duration_unit,credit_amount,credit_unit,is_active\n${[1, 2, 3].map((i) => `${t}-P${i},Plan ${i},19.99,USD,1,months,500,tokens,true`).join('\n')}\n`,
      );
      expect(plans.r.code, plans.r.stderr).toBe(0);
      expectApplied(
        plans.lines,
        idsOf('SELECT plan_code AS k, plan_id AS id FROM subscription_plans WHERE plan_code LIKE ?', `${t}-P%`),
        (l) => /plan_code=([^,]+)/.exec(l)![1],
      );

      const links = await bulk(
        sb,
        dir,
        ['service-plans', 'create'],
        `service_code,plan_code,is_available\n${[1, 2, 3].map((i) => `${t}-S${i},${t}-P${i},true`).join('\n')}\n`,
      );
      expect(links.r.code, links.r.stderr).toBe(0);
      const linkIds = idsOf(
        `SELECT s.service_code AS k, sp.service_plan_id AS id FROM service_plans sp JOIN services s ON s.service_id = sp.service_id WHERE s.service_code LIKE ?`,
        `${t}-S%`,
      );
      expectApplied(links.lines, linkIds, (l) => /service_code=([^ ,]+)/.exec(l)![1]);

      const roles = await bulk(
        sb,
        dir,
        ['roles', 'create'],
        `role_name,display_name,description,priority\n${[1, 2].map((i) => `${t.toLowerCase()}-r${i},Role ${i},made in bulk,1`).join('\n')}\n`,
      );
      expect(roles.r.code, roles.r.stderr).toBe(0);
      expectApplied(
        roles.lines,
        idsOf('SELECT role_name AS k, role_id AS id FROM roles WHERE role_name LIKE ?', `${t.toLowerCase()}-r%`),
        (l) => /role_name=([^,]+)/.exec(l)![1],
      );

      const users = await bulk(
        sb,
        dir,
        ['users', 'create'],
        `username,email,role,password,full_name\n${[1, 2].map((i) => `${t.toLowerCase()}.u${i},${t.toLowerCase()}.u${i}@example.com,support,Long-enough-${i}-pw,User ${i}`).join('\n')}\n`,
      );
      expect(users.r.code, users.r.stderr).toBe(0);
      expectApplied(
        users.lines,
        idsOf('SELECT username AS k, user_id AS id FROM users WHERE username LIKE ?', `${t.toLowerCase()}.u%`),
        (l) => /username=([^ ,]+)/.exec(l)![1],
      );

      const link = linkIds.get(`${t}-S1`)!;
      const batches = await bulk(
        sb,
        dir,
        ['usage-codes', 'generate'],
        `batch_id,code_count,expiration_days,service_plan_id\n${t}-B1,4,30,${link}\n${t}-B2,3,30,${link}\n`,
      );
      expect(batches.r.code, batches.r.stderr).toBe(0);
      expectApplied(
        batches.lines,
        new Map([
          [`${t}-B1`, `${t}-B1`],
          [`${t}-B2`, `${t}-B2`],
        ]),
        (l) => /batch_id=([^ ,]+)/.exec(l)![1],
      );
      expect(count('SELECT COUNT(*) AS n FROM usage_codes WHERE batch_id LIKE ?', `${t}-B%`)).toBe(7);

      // Every row was sent once: one audit entry per created item, whatever the answers said.
      for (const [module, n] of [
        ['services', 3],
        ['subscription-plans', 3],
        ['service-plans', 3],
        ['roles', 2],
        ['users', 2],
      ] as const) {
        const tag = module === 'roles' || module === 'users' ? t.toLowerCase() : t;
        expect(
          count(`SELECT COUNT(*) AS n FROM audit_logs WHERE module = ? AND action = 'create' AND details LIKE ?`, module, `%${tag}%`),
          module,
        ).toBe(n);
      }

      // Referral codes are named by the platform: a lost answer cannot be looked up.
      const referrals = await bulk(
        sb,
        dir,
        ['referrals', 'generate'],
        'description,expiry_days,usage_limit\nbulk referral,30,5\n',
        'enduser',
      );
      expect(referrals.r.code).toBe(8);
      expect(referrals.lines[0]).toMatch(/,unknown,1,(503)?,.*cannot tell whether it was applied/);
      const again = await referrals.again();
      expect(again.code).toBe(8);
      expect(count("SELECT COUNT(*) AS n FROM referral_codes WHERE description = 'bulk referral'")).toBe(1);
      await sb.close();
    }, 120_000);
  });
}
