/**
 * The sandbox's `alt` dialect (src/sandbox/dialect.ts) on the wire: the same data as the default
 * dialect, written another way; the default dialect as it is. Also how a user picks it:
 * `sandbox serve --dialect alt` and SUBCTL_SANDBOX_DIALECT for the embedded sandbox.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { binary } from '../chaos/binary.js';
import { call, startTestSandbox } from '../support/sandbox.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

let def: Sandbox;
let alt: Sandbox;

beforeAll(async () => {
  def = await startTestSandbox();
  alt = await startTestSandbox({ dialect: 'alt' });
}, 120_000);
afterAll(async () => {
  await Promise.all([def?.close(), alt?.close()]);
});

type Row = Record<string, unknown>;

describe('the alt dialect answers the same data another way', () => {
  it('decimals as strings, booleans as 0/1, ids as numeric strings, date-times without zone, paging under other names with numbers as strings', async () => {
    const q = { page_size: 100 };
    const d = (await call(def, 'GET', '/admin/subscription-plans', { as: 'admin', query: q })).json;
    const a = (await call(alt, 'GET', '/admin/subscription-plans', { as: 'admin', query: q })).json;
    expect(a.status).toBe(true);
    const dRows = d.data.subscription_plans as Row[];
    const aRows = a.data.subscription_plans as Row[];
    expect(aRows).toHaveLength(dRows.length);
    expect(dRows.length).toBeGreaterThan(0);
    expect(dRows.some((r) => !Number.isInteger(r.price))).toBe(true);
    for (const [i, r] of dRows.entries()) {
      const x = aRows[i];
      expect(x.plan_id).toBe(String(r.plan_id));
      expect(x.price).toBe((r.price as number).toFixed(2));
      expect(Number(x.price)).toBe(r.price);
      expect(x.is_active).toBe(r.is_active ? 1 : 0);
      expect(x.credit_amount).toBe(r.credit_amount);
      expect(x.created_date).toBe((r.created_date as string).slice(0, 19).replace('T', ' '));
      expect(x.plan_code).toBe(r.plan_code);
    }
    expect(d.data.pagination).toEqual({
      current_page: 1,
      page_size: 100,
      total_pages: 1,
      total_records: dRows.length,
      has_next_page: false,
      has_previous_page: false,
    });
    expect(a.data.pagination).toEqual({
      current_page: '1',
      page_size: '100',
      totalPages: '1',
      total_count: String(dRows.length),
      has_next_page: 0,
      has_previous_page: 0,
    });
  });

  it('a role as an object, flat paging totals renamed and as strings', async () => {
    const d = (await call(def, 'GET', '/users', { as: 'admin', query: { page_size: 5 } })).json.data;
    const a = (await call(alt, 'GET', '/users', { as: 'admin', query: { page_size: 5 } })).json.data;
    expect(a.users.map((u: Row) => u.user_id)).toEqual(d.users.map((u: Row) => String(u.user_id)));
    expect(a.users.map((u: Row) => u.role)).toEqual(d.users.map((u: Row) => ({ role_name: u.role })));
    expect(typeof d.total_count).toBe('number');
    expect(a.total_count).toBeUndefined();
    expect(a.total_items).toBe(String(d.total_count));
    expect(a.totalPages).toBe(String(d.total_pages));
  });

  it('end-user lists under a key where the default gives a bare list; devices as a bare list; referral lists under other keys', async () => {
    const d = (await call(def, 'GET', '/user/services/available', { as: 'enduser' })).json.data as Row[];
    const a = (await call(alt, 'GET', '/user/services/available', { as: 'enduser' })).json.data;
    expect(Array.isArray(d)).toBe(true);
    expect(Object.keys(a)).toEqual(['available_services']);
    expect(a.available_services.map((s: Row) => s.service_id)).toEqual(d.map((s) => String(s.service_id)));

    const headers = { 'x-device-id': 'dialect-test' };
    const dd = (await call(def, 'GET', '/cms/users/devices', { as: 'admin', headers })).json.data;
    const ad = (await call(alt, 'GET', '/cms/users/devices', { as: 'admin', headers })).json.data;
    expect(Array.isArray(ad)).toBe(true);
    expect(ad.map((x: Row) => x.device_id)).toEqual(dd.devices.map((x: Row) => x.device_id));

    const ds = (await call(def, 'GET', '/cms/admin/referral-codes/search', { as: 'admin' })).json.data;
    const as = (await call(alt, 'GET', '/cms/admin/referral-codes/search', { as: 'admin' })).json.data;
    expect(as.referral_codes).toBeUndefined();
    expect(as.items.map((c: Row) => c.referral_id)).toEqual(ds.referral_codes.map((c: Row) => String(c.referral_id)));
    expect(as.pagination.totalRecords).toBe(String(ds.pagination.total_records));
  });

  it('error codes as numbers, in the envelope and in the user area data; HTTP status and message unchanged', async () => {
    const d = await call(def, 'GET', '/admin/services/detail', { as: 'admin', query: { service_code: 'NO-SUCH' } });
    const a = await call(alt, 'GET', '/admin/services/detail', { as: 'admin', query: { service_code: 'NO-SUCH' } });
    expect(a.status).toBe(d.status);
    expect(d.json.error.code).toBe('NOT_FOUND');
    expect(a.json).toEqual({ ...d.json, error: { ...d.json.error, code: 1404 } });

    const du = await call(def, 'GET', '/user/services/access', { as: 'enduser', query: { service_code: 'NO-SUCH' } });
    const au = await call(alt, 'GET', '/user/services/access', { as: 'enduser', query: { service_code: 'NO-SUCH' } });
    expect(du.json.status).toBe(false);
    expect(typeof du.json.data.error_code).toBe('string');
    expect(au.status).toBe(du.status);
    expect(typeof au.json.data.error_code).toBe('number');
    expect(au.json.data.error_code).toBe(au.json.error.code);
    expect(au.json.message).toBe(du.json.message);
  });

  it('leaves the rows the sandbox remembers between requests as they are (the same page twice, in both dialects)', async () => {
    const path = '/admin/subscriptions';
    const query = { page_size: 50, status: 'active' };
    const first = await call(alt, 'GET', path, { as: 'admin', query });
    const again = await call(alt, 'GET', path, { as: 'admin', query });
    expect(again.json).toEqual(first.json);
    const d1 = await call(def, 'GET', path, { as: 'admin', query });
    const d2 = await call(def, 'GET', path, { as: 'admin', query });
    expect(d2.json).toEqual(d1.json);
    expect(typeof d1.json.data.subscriptions[0].price).toBe('number');
    expect(typeof first.json.data.subscriptions[0].price).toBe('string');
  });
});

describe('choosing the dialect', () => {
  it('sandbox serve --dialect alt serves it and says so; an unknown dialect is exit 2 before anything is served', async () => {
    const bin = await binary();
    const cfg = tempDir('subctl-dialect-');
    const env = { PATH: process.env.PATH, HOME: cfg, SUBCTL_CONFIG_DIR: join(cfg, 'cfg') };
    const server = spawn(process.execPath, [bin, 'sandbox', 'serve', '--port', '0', '--data', join(cfg, 'serve.db'), '--dialect', 'alt'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    server.stderr.on('data', (d) => (stderr += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (d) => {
          out += d;
          if (out.includes('\n')) resolve(out.trim());
        });
        server.on('exit', (c) => reject(new Error(`serve exited ${c}: ${stderr}`)));
      });
      const body = (await (await fetch(`${url}/test/services`)).json()) as { data: { services: Row[] } };
      expect(body.data.services.length).toBeGreaterThan(0);
      expect(body.data.services.every((s) => typeof s.service_id === 'string' && (s.requires_auth === 0 || s.requires_auth === 1))).toBe(
        true,
      );
      await new Promise<void>((resolve) => {
        const wait = () => (/alt dialect/.test(stderr) ? resolve() : setTimeout(wait, 50));
        wait();
      });
      expect(stderr).toMatch(/^sandbox serving http:\/\/127\.0\.0\.1:\d+ \(data .*\), answering in the alt dialect$/m);
    } finally {
      server.kill('SIGINT');
    }
    const bad = await runCli('sandbox serve --port 0 --dialect other', { env: { SUBCTL_CONFIG_DIR: tempConfigDir() } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--dialect.*'other' is invalid\. Allowed choices are default, alt/);
    expect(bad.stdout).toBe('');
  }, 120_000);

  it('the embedded sandbox reads SUBCTL_SANDBOX_DIALECT; an unknown value is exit 2 naming the variable', async () => {
    const cfg = tempConfigDir();
    const line = '--sandbox api GET /admin/subscription-plans -f page_size=1 -o json';
    const a = await runCli(line, { env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_SANDBOX_DIALECT: 'alt' } });
    expect(a.code, a.stderr).toBe(0);
    const altPlan = JSON.parse(a.stdout).subscription_plans[0];
    expect(typeof altPlan.price).toBe('string');
    expect(typeof altPlan.plan_id).toBe('string');
    const d = await runCli(line, { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(d.code, d.stderr).toBe(0);
    const plan = JSON.parse(d.stdout).subscription_plans[0];
    expect(altPlan).toMatchObject({ plan_id: String(plan.plan_id), price: plan.price.toFixed(2) });
    const bad = await runCli(line, { env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_SANDBOX_DIALECT: 'other' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/SUBCTL_SANDBOX_DIALECT expects one of default, alt, got 'other'/);
    expect(bad.stdout).toBe('');
  }, 120_000);
});
