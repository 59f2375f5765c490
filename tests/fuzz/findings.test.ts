/**
 * What the fuzzing found, one focused test each (contract.fuzz.test.ts finds them at random;
 * these say them plainly and keep them fixed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, validateInput } from '../../src/api/client.js';
import { endpointByName } from '../../src/api/contract/index.js';
import { ValidationError } from '../../src/api/errors.js';
import { oneLine } from '../../src/api/redact.js';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

let server: StubServer;
let cfg: string;
const env = () => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 'tok-findings', SUBCTL_CONFIG_DIR: cfg });
const json = (body: unknown, status = 200) => ({ status, json: body });

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  cfg = tempConfigDir();
  server.requests.length = 0;
  server.setHandler(() => ok({}));
});

describe("path ids '.' and '..'", () => {
  it('are refused before sending: a URL resolves them, the request would reach another endpoint', async () => {
    const members = endpointByName('roles.members');
    for (const role of ['.', '..']) {
      expect(() => validateInput(members, { params: { role } })).toThrow(ValidationError);
      const e = (() => {
        try {
          validateInput(members, { params: { role } });
        } catch (x) {
          return x as ValidationError;
        }
      })()!;
      expect(e.problems[0].field).toBe('role');
    }
    const c = new ApiClient({ baseUrl: server.url, retries: 0 });
    await expect(c.call(members, { params: { role: '..' } } as never)).rejects.toThrow(/'\.' and '\.\.' cannot be sent as a path segment/);
    await c.close();
    const r = await runCli(['roles', 'members', '.'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/role .*'\.' and '\.\.' cannot be sent/);
    const raw = await runCli(['api', 'GET', '/cms/roles/./users'], { env: env() });
    expect(raw.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    // Other ids with dots are ordinary text.
    expect(() => validateInput(members, { params: { role: '.admin.' } })).not.toThrow();
  });
});

describe('server text on the terminal', () => {
  it('oneLine drops escape sequences and makes control characters and line breaks spaces', () => {
    expect(oneLine('bad\n\u001b[31minput\u001b[0m')).toBe('bad input');
    expect(oneLine('\u001b]0;owned\u0007title\r\n    at Object.<anonymous> (/srv/app.js:1:1)')).toBe(
      'title at Object.<anonymous> (/srv/app.js:1:1)',
    );
    expect(oneLine('a\u0000b\u009b2Jc\u0008')).toBe('a bc');
    expect(oneLine('  plain  ')).toBe('plain');
  });

  it('an error message and field errors with escapes and newlines print as clean lines', async () => {
    server.setHandler(() =>
      json(
        {
          status: false,
          message: 'bad\u001b[2J request\n    at handler (/srv/app.js:9:1)',
          error: { code: 'X\u0007', fields: [{ field: 'name\n', message: 'too\u001b]0;owned\u0007 long' }] },
        },
        400,
      ),
    );
    const r = await runCli(['services', 'list'], { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).not.toMatch(/^ {4}at /m);
    expect(r.stderr).toMatch(/^error: bad request at handler \(\/srv\/app\.js:9:1\) \(HTTP 400\)$/m);
    expect(r.stderr).toMatch(/^ {2}name: too long$/m);
    const j = await runCli(['services', 'list', '-o', 'json'], { env: env() });
    const last = JSON.parse(j.stderr.trim().split('\n').pop()!);
    expect(last.error.code).toBe('X');
    expect(last.error.details.fields[0]).toEqual({ field: 'name', message: 'too long' });
  });
});

describe('answers without data, or with items that are not objects', () => {
  it('a renderer is not given a null: `services get` prints the message', async () => {
    server.setHandler(() => json({ status: true, message: 'nothing here', data: null }));
    const r = await runCli(['services', 'get', '--service-code', 'X'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('nothing here');
  });

  it('a list summary is not given a null: `usage-codes list` and `referrals mine` print an empty list', async () => {
    server.setHandler(() => json({ status: true, message: 'OK', data: null }));
    for (const line of [
      ['usage-codes', 'list'],
      ['referrals', 'mine'],
      ['wallet', 'list', '-o', 'json'],
    ]) {
      const r = await runCli(line, { env: env() });
      expect(r.code, `${line.join(' ')}: ${r.stderr}`).toBe(0);
    }
  });

  it('arrays holding non-objects print with a value column (api, and any verb answering one)', async () => {
    server.setHandler(() => json({ status: true, message: 'OK', data: [null, 3, 'x', { a: 1 }] }));
    const csv = await runCli(['api', 'GET', '/anything', '-o', 'csv'], { env: env() });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n').slice(0, 4)).toEqual(['value', '', '3', 'x']);
    const del = await runCli(['roles', 'delete', '9', '--yes'], { env: env() });
    expect(del.code, del.stderr).toBe(0);
    expect(del.stdout).toContain('3');
  });
});

describe('csv of keys csv-stringify trips on', () => {
  it("a column named '' next to a negative number written as text: printed, not a crash", async () => {
    server.setHandler(() => json({ status: true, message: 'OK', data: { '-7': 'a', '': 1, x: '-2' } }));
    const one = await runCli(['api', 'GET', '/x', '-o', 'csv'], { env: env() });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe('-7,,x\na,1,-2\n');
    server.setHandler(() =>
      json({
        status: true,
        message: 'OK',
        data: [
          { '': '-1', b: '=cmd' },
          { '': 2, b: 'ok' },
        ],
      }),
    );
    const list = await runCli(['api', 'GET', '/x', '-o', 'csv'], { env: env() });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe(",b\n-1,'=cmd\n2,ok\n");
  });
});

describe('auth answers outside the contract', () => {
  it('a sign-in answered 200 with an error message is exit 3 (not a usage error: something was sent)', async () => {
    server.setHandler(() => json({ status: true, message: 'OK', data: { success: false, error_message: 'wrong\npassword' } }));
    const r = await runCli(['auth', 'login', '--username', 'ann', '--password-stdin'], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_CONFIG_DIR: cfg },
      stdin: 'pw-1\n',
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: sign-in refused: wrong password$/m);
    server.setHandler(() => json({ status: true, message: 'OK', data: null }));
    const none = await runCli(['auth', 'login', '--username', 'ann', '--password-stdin'], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_CONFIG_DIR: cfg },
      stdin: 'pw-1\n',
    });
    expect(none.code).toBe(6);
    expect(none.stderr).toMatch(/no token in the answer/);
  });

  it('auth status with no data does not crash; auth refresh without a token keeps the stored one (exit 6)', async () => {
    const dir = tempDir('subctl-refresh-');
    const e = { SUBCTL_BASE_URL: server.url, SUBCTL_CONFIG_DIR: dir };
    server.setHandler(() =>
      json({ status: true, message: 'OK', data: { token: 'tok-stored-1', user_id: 1, username: 'ann', role: 'admin' } }),
    );
    expect((await runCli(['auth', 'login', '--username', 'ann', '--password-stdin'], { env: e, stdin: 'pw-1\n' })).code).toBe(0);
    server.setHandler(() => json({ status: true, message: 'OK', data: null }));
    const status = await runCli(['auth', 'status', '-o', 'json'], { env: e });
    expect([0, 3], status.stderr).toContain(status.code);
    expect(status.stderr).not.toMatch(/this is a bug/);
    const refresh = await runCli(['auth', 'refresh'], { env: e });
    expect(refresh.code).toBe(6);
    expect(refresh.stderr).toMatch(/holds no token; the stored token is kept/);
    // Still signed in with the old token.
    server.requests.length = 0;
    server.setHandler(() => ok({ services: [] }));
    await runCli(['services', 'list'], { env: e });
    expect(server.requests[0].headers.authorization).toBe('Bearer tok-stored-1');
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toContain('tok-stored-1');
  });
});

describe("cleanup's summary from an answer of any shape", () => {
  it('a message object without toString and keys with escape sequences: printed as text, escaped, exit 0', async () => {
    server.setHandler(() =>
      json({
        status: true,
        message: 'OK',
        data: {
          cleanup_summary: { 'expired\u001b[2J': 3, ok: { n: 1 } },
          thresholds: { 'days\u001b]0;x\u0007': 30 },
          message: { toString: null, valueOf: 'v' },
        },
      }),
    );
    const r = await runCli('cleanup --dry-run --cleanup-expired-days 30', { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('expired\\x1b[2J');
    expect(r.stdout).toMatch(/^ {2}ok +\{"n":1\}$/m);
    expect(r.stdout).toMatch(/^ {2}days\\x1b\]0;x\\x07 +30$/m);
    expect(r.stderr).toContain('{"toString":null,"valueOf":"v"}');
  });
});

describe('a "no" in a valid answer, with a reason of any shape (fuzz seed 260)', () => {
  it('`me access` and `referrals validate`: exit 5, an error line (a JSON object under -o json), the reason as text', async () => {
    server.setHandler(() => json({ status: true, message: 'OK', data: { has_access: false, access_reason: { d: false } } }));
    const r = await runCli(['me', 'access', 'GPT4'], { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^error: no access to GPT4 \(\{"d":false\}\)$/m);
    expect(r.stderr).not.toContain('[object Object]');
    const j = await runCli(['me', 'access', 'GPT4', '-o', 'json'], { env: env() });
    expect(j.code).toBe(5);
    expect(JSON.parse(j.stderr.trim().split('\n').pop()!).error.message).toBe('no access to GPT4 ({"d":false})');
    server.setHandler(() => json({ status: true, message: 'OK', data: { is_valid: false, message: {} } }));
    const v = await runCli(['referrals', 'validate', 'ABC123'], { env: env() });
    expect(v.code).toBe(5);
    expect(v.stderr).toMatch(/^error: referral code ABC123 is not valid: \{\}$/m);
  });
});
