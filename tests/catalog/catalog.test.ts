/**
 * The catalog as code against real sandboxes: the round trip (export, apply to a sandbox with
 * no catalog, export again: the same bytes but the header line), idempotence read from the
 * audit log, diff's exit codes, a reviewed plan compared to a committed text, and file errors
 * with file, line and column, nothing sent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';
import { closeAllTestSandboxes, startTestSandbox, tempDataFile } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

let seeded: Sandbox;
let empty: Sandbox;
let dir: string;

function env(sb: Sandbox, config = tempConfigDir()) {
  return { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin'), SUBCTL_CONFIG_DIR: config };
}

function cli(sb: Sandbox, args: string, config?: string) {
  return runCli(args, { env: env(sb, config) });
}

/** Audit rows written since `after` (every write the sandbox served leaves one). */
function writesSince(sb: Sandbox, after: number): Array<{ module: string; action: string; details: string }> {
  return sb.db.prepare('SELECT module, action, details FROM audit_logs WHERE id > ? ORDER BY id').all(after) as Array<{
    module: string;
    action: string;
    details: string;
  }>;
}

function lastAudit(sb: Sandbox): number {
  return (sb.db.prepare('SELECT COALESCE(MAX(id), 0) AS m FROM audit_logs').get() as { m: number }).m;
}

const withoutHeader = (text: string) =>
  text
    .split('\n')
    .filter((l) => !l.startsWith('# subctl catalog export:'))
    .join('\n');

beforeAll(async () => {
  dir = tempDir('subctl-catalog-');
  seeded = await startTestSandbox();
  const file = tempDataFile('empty-catalog');
  const reset = await runCli(['sandbox', 'reset', '--data', file, '--no-catalog', '--yes'], {});
  expect(reset.code, reset.stderr).toBe(0);
  empty = await startTestSandbox({ dataFile: file });
}, 60_000);
afterAll(() => closeAllTestSandboxes());

describe('sandbox reset --no-catalog', () => {
  it('seeds the accounts but no services, plans, links or custom roles', () => {
    const count = (sql: string) => (empty.db.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT COUNT(*) AS n FROM users')).toBeGreaterThan(5);
    expect(count('SELECT COUNT(*) AS n FROM services')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM subscription_plans')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM service_plans')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM roles WHERE is_system_role = 0')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM roles WHERE is_system_role = 1')).toBeGreaterThan(0);
  });
});

describe('round trip, idempotence and drift', () => {
  it('export, apply to an empty catalog, export again: the same bytes but the header line', async () => {
    const first = await cli(seeded, 'catalog export');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^# subctl catalog export: platform "http:\/\/127\.0\.0\.1:\d+" at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n/);
    expect(first.stdout).toContain('\nservices:\n');
    expect(first.stdout).not.toMatch(/service_id|plan_id|created_date|active_subscriptions/);
    const file = join(dir, 'catalog.yaml');
    writeFileSync(file, first.stdout);

    const applied = await cli(empty, `catalog apply -f ${file} --yes`);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/Plan: \d+ to create, 0 to update, 0 to delete\./);

    const second = await cli(empty, 'catalog export');
    expect(second.code, second.stderr).toBe(0);
    expect(withoutHeader(second.stdout)).toBe(withoutHeader(first.stdout));

    // Idempotent: a second apply sends no write, and diff finds nothing.
    const before = lastAudit(empty);
    const again = await cli(empty, `catalog apply -f ${file} --yes`);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('No changes: the platform matches the file.\n');
    expect(writesSince(empty, before)).toEqual([]);
    const diff = await cli(empty, `catalog diff -f ${file}`);
    expect(diff.code).toBe(0);
    expect(writesSince(empty, before)).toEqual([]);

    // Drift made with `services update` is exit 9, and the plan names it.
    const id = (empty.db.prepare("SELECT service_id FROM services WHERE service_code = 'CLAUDE3'").get() as { service_id: number })
      .service_id;
    const upd = await cli(empty, `services update ${id} --service-name "Claude three"`);
    expect(upd.code, upd.stderr).toBe(0);
    const drift = await cli(empty, `catalog diff -f ${file}`);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toContain('  ~ update CLAUDE3\n      service_name: "Claude three" -> "Claude 3 Opus"');
    const json = await cli(empty, `catalog diff -f ${file} -o json`);
    expect(json.code).toBe(9);
    expect(JSON.parse(json.stdout).changes).toEqual([
      {
        kind: 'services',
        op: 'update',
        key: 'CLAUDE3',
        fields: [{ field: 'service_name', from: 'Claude three', to: 'Claude 3 Opus' }],
        active_subscriptions: null,
        needs_force_delete: false,
      },
    ]);
  }, 120_000);
});

describe('a reviewed change', () => {
  it('price, new plan, new link, deactivated link, pruned service: the plan is the committed text, and the platform matches after', async () => {
    const sb = await startTestSandbox();
    const cfg = tempConfigDir();
    const made = await cli(
      sb,
      'services create --service-code OLD-SVC --service-name "Old service" --service-type USAGE_BASED --provider-name Acme --base-service-url https://old.example --access-pattern /old/* --credit-reset-cycle monthly',
      cfg,
    );
    expect(made.code, made.stderr).toBe(0);
    const exported = await cli(sb, 'catalog export', cfg);
    let text = exported.stdout;
    const edit = (from: string, to: string) => {
      expect(text).toContain(from);
      text = text.replace(from, to);
    };
    edit(
      '    plan_code: BASIC-M\n    plan_name: Básico mensual\n    price: 9.99\n',
      '    plan_code: BASIC-M\n    plan_name: Básico mensual\n    price: 10.49\n',
    );
    edit(
      'plans:\n',
      'plans:\n  - credit_amount: 500\n    credit_unit: tokens\n    currency: USD\n    duration: 3\n    duration_unit: months\n    plan_code: QUARTER-T\n    plan_name: Quarter tokens\n    price: 24.5\n',
    );
    edit('links:\n', 'links:\n  - is_available: true\n    plan_code: QUARTER-T\n    service_code: CLAUDE3\n');
    edit(
      '  - is_available: true\n    plan_code: BASIC-M\n    service_code: CLAUDE3\n',
      '  - is_available: false\n    plan_code: BASIC-M\n    service_code: CLAUDE3\n',
    );
    text = text.replace(/ {2}- access_pattern: \/old\/\*\n( {4}.*\n)+? {4}service_type: USAGE_BASED\n/, '');
    expect(text).not.toContain('OLD-SVC');
    const file = join(dir, 'reviewed.yaml');
    writeFileSync(file, text);

    const diff = await cli(sb, `catalog diff -f ${file} --prune`, cfg);
    expect(diff.code, diff.stderr).toBe(9);
    const expected = readFileSync(join(__dirname, 'expected-plan.txt'), 'utf8').replace(/\{N\}/g, () => String(linkActive(sb)));
    expect(diff.stdout).toBe(expected);

    const before = lastAudit(sb);
    const applied = await cli(sb, `catalog apply -f ${file} --prune --yes`, cfg);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toBe(expected);
    expect(writesSince(sb, before).map((a) => `${a.module} ${a.action}`)).toEqual([
      'subscription-plans create',
      'subscription-plans update',
      'service-plans create',
      'service-plans manage',
      'services delete',
    ]);
    const row = (sql: string) => sb.db.prepare(sql).get() as Record<string, unknown> | undefined;
    expect(row("SELECT price FROM subscription_plans WHERE plan_code = 'BASIC-M'")).toEqual({ price: 10.49 });
    expect(row("SELECT plan_name, price, duration, credit_unit FROM subscription_plans WHERE plan_code = 'QUARTER-T'")).toEqual({
      plan_name: 'Quarter tokens',
      price: 24.5,
      duration: 3,
      credit_unit: 'tokens',
    });
    const link =
      "SELECT sp.is_available FROM service_plans sp JOIN services s USING (service_id) JOIN subscription_plans p USING (plan_id) WHERE s.service_code = 'CLAUDE3' AND p.plan_code = ";
    expect(row(`${link}'QUARTER-T'`)).toEqual({ is_available: 1 });
    expect(row(`${link}'BASIC-M'`)).toEqual({ is_available: 0 });
    expect(row("SELECT service_id FROM services WHERE service_code = 'OLD-SVC'")).toBeUndefined();
    const after = await cli(sb, `catalog diff -f ${file} --prune`, cfg);
    expect(after.code, after.stdout).toBe(0);
  }, 120_000);
});

/** Active subscriptions on the CLAUDE3/BASIC-M link, which the plan reports when deactivating it. */
function linkActive(sb: Sandbox): number {
  return (
    sb.db
      .prepare(
        "SELECT COUNT(*) AS n FROM subscriptions x JOIN service_plans sp ON sp.service_plan_id = x.service_plan_id JOIN services s ON s.service_id = sp.service_id JOIN subscription_plans p ON p.plan_id = sp.plan_id WHERE s.service_code = 'CLAUDE3' AND p.plan_code = 'BASIC-M' AND x.status = 'active'",
      )
      .get() as { n: number }
  ).n;
}

describe('the file is checked before anything is sent', () => {
  it('a bad enum, an over-long name and a duplicate code: each with file, line and column; exit 2; no request at all', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      [
        'services:',
        '  - service_code: GOOD',
        '    service_name: Good',
        '    service_type: TIME_BASED',
        '    provider_name: Acme',
        '    base_service_url: https://good.example',
        '    access_pattern: /good/*',
        '    credit_reset_cycle: fortnightly',
        '  - service_code: good',
        `    service_name: ${'n'.repeat(201)}`,
        '    service_type: TIME_BASED',
        '    provider_name: Acme',
        '    base_service_url: https://good.example',
        '    access_pattern: /good/*',
        '    credit_reset_cycle: daily',
        'plans:',
        '  - plan_code: P1',
        '    plan_name: One',
        '    price: 1',
        '    currency: USD',
        '    duration: 1',
        '    duration_unit: months',
        '    credit_amount: 1',
        '    credit_unit: requests',
        '    colour: blue',
        '  - plan_code: P2',
        '    plan_name: Two',
        '    price: 2',
        '    currency: USD',
        '    duration: 1',
        '    duration_unit: months',
        '    credit_amount: 1',
        '    credit_unit: requests',
        '  - plan_code: p2',
        '    plan_name: Two again',
        '    price: 2',
        '    currency: USD',
        '    duration: 1',
        '    duration_unit: months',
        '    credit_amount: 1',
        '    credit_unit: requests',
        '',
      ].join('\n'),
    );
    // Nothing listens on the address: a request of any kind would be a network error (exit 7).
    const r = await runCli(['catalog', 'apply', '-f', file, '--yes'], {
      env: { SUBCTL_BASE_URL: 'http://127.0.0.1:9', SUBCTL_TOKEN: 'x' },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `${file}:8:25: services[0].credit_reset_cycle: Invalid option: expected one of "daily"|"weekly"|"monthly"|"yearly"`,
    );
    expect(r.stderr).toContain(`${file}:10:19: services[1].service_name:`);
    expect(r.stderr).toMatch(/200/);
    expect(r.stderr).toContain(`${file}:25:5: plans[0]: unknown key 'colour'`);
    expect(r.stderr).toContain(`${file}:34:16: plans[2]: duplicate plan p2 (first at line 26)`);
    expect(r.stderr).toContain('nothing was sent');
  });

  it('a link naming a plan neither in the file nor on the platform: line and column, exit 2, no write', async () => {
    const file = join(dir, 'dangling.yaml');
    writeFileSync(file, 'links:\n  - service_code: CLAUDE3\n    plan_code: NO-SUCH-PLAN\n    is_available: true\n');
    const before = lastAudit(seeded);
    const r = await cli(seeded, `catalog apply -f ${file} --yes`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:3:16: link CLAUDE3/NO-SUCH-PLAN: plan NO-SUCH-PLAN is neither in the file nor on the platform`);
    expect(writesSince(seeded, before)).toEqual([]);
  });

  it('a diff of a file with an error is exit 2, not 9', async () => {
    const file = join(dir, 'bad-diff.yaml');
    writeFileSync(file, 'roles:\n  - role_name: x\n    display_name: Xavier\n');
    const r = await cli(seeded, `catalog diff -f ${file}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:2:16: roles[0].role_name:`);
  });

  it('a new entry without the fields its create needs: line and column, exit 2, no write', async () => {
    const file = join(dir, 'partial.yaml');
    writeFileSync(file, 'plans:\n  - plan_code: BASIC-M\n    price: 9.99\n  - plan_code: BRAND-NEW\n    price: 4\n');
    const before = lastAudit(seeded);
    const r = await cli(seeded, `catalog apply -f ${file} --yes`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:4:5: plan BRAND-NEW is not on the platform, and creating it needs plan_name: required`);
    expect(r.stderr).not.toContain('BASIC-M');
    expect(writesSince(seeded, before)).toEqual([]);
  });
});

describe('deletions and failures', () => {
  it('pruning a service with active subscriptions needs --force-delete: refused before anything is sent, then deleted with it', async () => {
    const sb = await startTestSandbox();
    const cfg = tempConfigDir();
    const exported = await cli(sb, 'catalog export --only services', cfg);
    expect(exported.stdout).not.toContain('\nplans:');
    const text = exported.stdout.replace(
      / {2}- access_pattern: [^\n]*\n( {4}[^\n]*\n)*? {4}service_code: CLAUDE3\n( {4}[^\n]*\n)*? {4}service_type: [A-Z_]+\n/,
      '',
    );
    expect(text).not.toContain('CLAUDE3');
    const file = join(dir, 'prune.yaml');
    writeFileSync(file, text);
    const active = (
      sb.db
        .prepare(
          "SELECT COUNT(*) AS n FROM subscriptions x JOIN services s USING (service_id) WHERE s.service_code = 'CLAUDE3' AND x.status = 'active'",
        )
        .get() as { n: number }
    ).n;
    expect(active).toBeGreaterThan(0);
    const before = lastAudit(sb);
    const refused = await cli(sb, `catalog apply -f ${file} --prune --yes`, cfg);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(`  - delete CLAUDE3  [${active} active subscriptions; needs --force-delete]`);
    expect(refused.stderr).toContain('services CLAUDE3 has active subscriptions: deleting needs --force-delete; nothing was sent');
    expect(writesSince(sb, before)).toEqual([]);
    const forced = await cli(sb, `catalog apply -f ${file} --prune --force-delete --yes`, cfg);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`  - delete CLAUDE3  [${active} active subscriptions; deleted with --force-delete]`);
    expect(writesSince(sb, before).map((w) => `${w.module} ${w.action} ${JSON.parse(w.details).force_delete}`)).toEqual([
      'services delete true',
    ]);
  }, 60_000);

  it('a change the platform refuses: the others applied, its link skipped, exit 8, the report says which', async () => {
    const sb = await startTestSandbox();
    const cfg = tempConfigDir();
    const file = join(dir, 'refused.yaml');
    writeFileSync(
      file,
      [
        'plans:',
        '  - plan_code: BASIC-M',
        '    price: 8.75',
        '  - {plan_code: ODD-CUR, plan_name: Odd, price: 1, currency: DOLLARS, duration: 1, duration_unit: days, credit_amount: 1, credit_unit: requests}',
        'links:',
        '  - {service_code: CLAUDE3, plan_code: ODD-CUR, is_available: true}',
        '',
      ].join('\n'),
    );
    const report = join(dir, 'refused-report.csv');
    const r = await cli(sb, `catalog apply -f ${file} --yes --report ${report}`, cfg);
    expect(r.code, r.stderr).toBe(8);
    expect(readFileSync(report, 'utf8')).toBe(
      [
        'kind,key,op,outcome,http_status,message',
        'plans,BASIC-M,update,applied,,',
        'plans,ODD-CUR,create,failed,400,currency must be a three-letter code such as USD',
        'links,CLAUDE3/ODD-CUR,create,skipped,,plan ODD-CUR was not created',
        '',
      ].join('\n'),
    );
    expect((sb.db.prepare("SELECT price FROM subscription_plans WHERE plan_code = 'BASIC-M'").get() as { price: number }).price).toBe(8.75);
  }, 60_000);

  it('a second apply beside a running one on the same platform stops (exit 5) and sends nothing', async () => {
    const { acquireLock } = await import('../../src/config/lock.js');
    const { createHash } = await import('node:crypto');
    const cfg = tempConfigDir();
    const id = createHash('sha256').update(seeded.url).digest('hex').slice(0, 16);
    // This test's process holds the platform's lock, as a running apply would.
    const lock = acquireLock(join(cfg, 'state', 'catalog', `platform-${id}.lock`), { command: 'catalog apply -f other.yaml' });
    try {
      const file = join(dir, 'locked.yaml');
      writeFileSync(file, 'plans:\n  - plan_code: BASIC-M\n    price: 7.25\n');
      const before = lastAudit(seeded);
      const r = await cli(seeded, `catalog apply -f ${file} --yes`, cfg);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain('catalog apply -f other.yaml');
      expect(writesSince(seeded, before)).toEqual([]);
    } finally {
      lock.release();
    }
  });
});
