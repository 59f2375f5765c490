/**
 * `subctl profile get|update` and `subctl devices list|remove` against a real loopback server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';

let server: StubServer;
const TOKEN = 'tok-profile-test';
const env = (extra: Record<string, string> = {}) => ({
  SUBCTL_BASE_URL: server.url,
  SUBCTL_TOKEN: TOKEN,
  SUBCTL_SESSION_ID: 'sess-9',
  ...extra,
});
const body = (i = 0) => server.requests[i].body as Record<string, unknown>;

const profile = {
  basic_info: { user_id: 3, username: 'alice', email: 'a@x', full_name: 'Alice Liddell', role: 'support', status: 'Active' },
  login_history: [
    { login_id: 1, login_time: '2026-01-01T10:00:00Z', login_status: 'SUCCESS', ip_address: '10.0.0.1', user_agent: 'subctl' },
  ],
  permissions: [{ permission_name: 'audit.read', granted_by_username: 'admin', granted_date: '2026-01-01T00:00:00Z' }],
  referral_info: { referral_code: 'REF-AAAAAA', referrer_username: 'bob' },
};

const devices = [
  {
    device_id: 'dev-a',
    device_name: 'laptop',
    device_type: 'desktop',
    ip_address: '10.0.0.1',
    is_current_device: false,
    is_currently_logged_in: true,
    last_activity_time: '2026-01-01T10:00:00Z',
  },
  {
    device_id: 'dev-b',
    device_name: 'phone',
    device_type: 'mobile',
    ip_address: '10.0.0.2',
    is_current_device: true,
    is_currently_logged_in: true,
    last_activity_time: '2026-01-02T10:00:00Z',
  },
];

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(() => ok(profile));
});

describe('profile get', () => {
  it('GET /cms/users/profile with the session header; json prints the whole answer', async () => {
    const r = await runCli('profile get -o json', { env: env() });
    expect(r.code).toBe(0);
    const req = server.requests[0];
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/cms/users/profile');
    expect(req.headers['x-session-id']).toBe('sess-9');
    expect(JSON.parse(r.stdout)).toEqual(profile);
  });

  it('a table shows the basic info, then each part under its heading', async () => {
    const r = await runCli('profile get', { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^user_id\t3\nusername\talice\n/);
    expect(r.stdout).toContain(
      '\nLogin history (1)\nlogin_time\tlogin_status\tip_address\tuser_agent\n2026-01-01T10:00:00Z\tSUCCESS\t10.0.0.1\tsubctl\n',
    );
    expect(r.stdout).toContain('\nPermissions (1)\npermission_name\tgranted_by_username\tgranted_date\naudit.read\tadmin\t');
    expect(r.stdout).toContain('\nReferred by\nreferral_code\tREF-AAAAAA\nreferrer_username\tbob\n');
  });
});

describe('profile update', () => {
  it('PUT /cms/users/profile with the flags given, typed', async () => {
    server.setHandler(() => ok(null, 'profile updated'));
    const r = await runCli(
      'profile update --full-name "Alice L" --city Paris --gender Female --date-of-birth 1990-02-03 --phone-number 0123456789',
      { env: env() },
    );
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].method).toBe('PUT');
    expect(server.requests[0].path).toBe('/cms/users/profile');
    expect(body()).toEqual({
      full_name: 'Alice L',
      city: 'Paris',
      gender: 'Female',
      date_of_birth: '1990-02-03',
      phone_number: '0123456789',
    });
  });

  it('without --full-name (the API requires it): refused before any request, exit 2', async () => {
    server.setHandler((req) => (req.method === 'GET' ? ok(profile) : ok(null, 'profile updated')));
    const r = await runCli('profile update --country France', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: invalid input: full_name (--full-name): required');
    expect(r.stderr).toContain('hint: `subctl profile get` shows the current full name');
    const j = await runCli('profile update --country France --dry-run -o json', { env: env() });
    expect(j.code).toBe(2);
    const e = JSON.parse(j.stderr).error;
    expect(e).toMatchObject({ type: 'validation', details: [{ field: 'full_name' }] });
    expect(e.hint).toContain('`subctl profile get` shows the current full name');
    expect(server.requests).toHaveLength(0);
  });

  it('bad values are named before anything is sent', async () => {
    const r = await runCli('profile update --gender X --phone-number 123 --date-of-birth 1990-2-3', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/gender \(--gender\)/);
    expect(r.stderr).toMatch(/phone_number \(--phone-number\)/);
    expect(r.stderr).toMatch(/date_of_birth \(--date-of-birth\)/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('devices', () => {
  beforeEach(() => server.setHandler(() => ok({ devices, device_count: 2 })));

  it('list marks the current device with * in a column `current`', async () => {
    const r = await runCli('devices list', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/users/devices');
    expect(server.requests[0].query).toEqual({});
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(lines[0]).toEqual([
      'current',
      'device_id',
      'device_name',
      'device_type',
      'ip_address',
      'is_currently_logged_in',
      'last_activity_time',
      'last_login_date',
    ]);
    expect(lines[1].slice(0, 2)).toEqual(['', 'dev-a']);
    expect(lines[2].slice(0, 2)).toEqual(['*', 'dev-b']);
  });

  it("the server's mark written as 1 and 0 (another platform's spelling) marks the same device", async () => {
    server.setHandler(() => ok({ devices: devices.map((d) => ({ ...d, is_current_device: d.is_current_device ? 1 : 0 })) }));
    const r = await runCli('devices list --fields current,device_id', { env: env() });
    expect(r.stdout).toBe('current\tdevice_id\n\tdev-a\n*\tdev-b\n');
  });

  it('when the server marks none, the profile device id is the current one', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { device_id: 'dev-a' } } }));
    server.setHandler(() => ok({ devices: devices.map((d) => ({ ...d, is_current_device: false })), device_count: 2 }));
    const r = await runCli('devices list --fields current,device_id', { env: env({ SUBCTL_CONFIG_DIR: dir }) });
    expect(r.stdout).toBe('current\tdevice_id\n*\tdev-a\n\tdev-b\n');
  });

  it('--include-inactive is sent; json prints the devices as sent', async () => {
    const r = await runCli('devices list --include-inactive -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].query).toEqual({ include_inactive: 'true' });
    expect(JSON.parse(r.stdout)).toEqual(devices);
  });

  it("a session id and a device token are masked in every format (the caller's live CMS session id was printed)", async () => {
    const withSecrets = devices.map((d, i) => ({ ...d, session_id: `sess-live-${i}`, device_token: `devtok-${i}` }));
    server.setHandler(() => ok({ devices: withSecrets }));
    for (const format of ['json', 'ndjson', 'csv', 'table']) {
      const r = await runCli(`devices list -o ${format}`, { env: env() });
      expect(r.code, format).toBe(0);
      expect(r.stdout, format).not.toMatch(/sess-live|devtok-/);
    }
    const j = JSON.parse((await runCli('devices list -o json', { env: env() })).stdout);
    expect(j[0]).toMatchObject({ device_id: 'dev-a', session_id: '***', device_token: '***' });
  });

  it('remove is destructive: --yes off a terminal, then DELETE /cms/users/devices/{id}', async () => {
    const r = await runCli('devices remove dev-a', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/remove device dev-a/);
    expect(server.requests).toHaveLength(0);
    server.setHandler(() => ok(null, 'device removed'));
    const r2 = await runCli('devices remove dev-a --yes', { env: env() });
    expect(r2.code).toBe(0);
    expect(server.requests[0].method).toBe('DELETE');
    expect(server.requests[0].path).toBe('/cms/users/devices/dev-a');
    expect(r2.stdout).toBe('message\tdevice removed\n');
  });

  it("someone else's device is not found: exit 4", async () => {
    server.setHandler(() => fail(404, 'device 99 not found'));
    const r = await runCli('devices remove 99 --yes', { env: env() });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('device 99 not found');
  });
});
