/**
 * Secret hygiene, one describe per rule, through the CLI. tests/security/hygiene.test.ts
 * already proves several rules as a user meets them; where it proves a rule exactly, that
 * test is named and not repeated, and what it leaves out is tested here:
 *
 * 1. argv: hygiene "never in argv: the password is read from stdin while the process args
 *    hold none" (/proc/<pid>/cmdline of `auth login --password-stdin`, `--password` refused)
 *    and tests/commands/auth-flows.test.ts "passwords never travel in argv" (every other
 *    password verb). Here: no flag takes a token or a session id either.
 * 2. --verbose: hygiene "never in --verbose output" (against a stub). Here: against the real
 *    sandbox, a CMS sign-in, a user creation and a bulk run with passwords, then `auth status`
 *    and `auth refresh`, all --verbose.
 * 3. error messages: hygiene checks only that the sandbox's 401 does not echo the token (it
 *    never does). Here: servers that echo the token, the session id and the password in their
 *    messages, field errors, HTML pages and error details: never printed, in any format.
 * 4. bulk journals and reports: hygiene "never in bulk journals or reports". Here: a row the
 *    server refuses with its password in the message, and `--dry-run`'s plan.
 * 5. files 0600 in 0700, repaired: hygiene "config and credential files are 0600 in a 0700
 *    directory, and repaired when found looser" proves it exactly (auth login, chmod, any
 *    command, modes back): not repeated.
 * 6. http:// refused off loopback: hygiene checks exit 2. Here: and nothing leaves the process
 *    (a proxy that would carry it sees nothing), for a list, a write and `api`.
 * 7. redirects: hygiene "redirects are not followed: exit 6, the target receives nothing"
 *    proves it exactly: not repeated.
 * 8. NODE_EXTRA_CA_CERTS: hygiene proves it in process (the variable read per run). Here: the
 *    real binary, where Node itself loads the file at start-up, against the sandbox over TLS.
 * 9. proxies: hygiene proves HTTP_PROXY and NO_PROXY for the sandbox on http://. Here:
 *    HTTPS_PROXY (a CONNECT tunnel) to the sandbox over TLS, and NO_PROXY bypassing it.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { binary, run as runBinary } from '../chaos/binary.js';
import { startProxy } from '../support/proxy.js';
import { startTestSandbox } from '../support/sandbox.js';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir, type RunResult } from '../support/run-cli.js';
import { loopbackCertificates } from '../support/tls-certs.js';
import { tempDir } from '../support/tmp.js';

const TOKEN = 'tok-SECRET-7319';
const SESSION = 'sess-SECRET-2284';
const PASSWORD = 'pw-SECRET-6650';

let sb: Sandbox;
let stub: StubServer;

beforeAll(async () => {
  sb = await startTestSandbox();
  stub = await startStubServer();
});
afterAll(async () => {
  await sb?.close();
  await stub?.close();
});
beforeEach(() => {
  stub.requests.length = 0;
  stub.setHandler(() => ok({}));
});

const stubEnv = (extra: Record<string, string> = {}) => ({
  SUBCTL_BASE_URL: stub.url,
  SUBCTL_TOKEN: TOKEN,
  SUBCTL_SESSION_ID: SESSION,
  SUBCTL_CONFIG_DIR: tempConfigDir(),
  ...extra,
});

function expectNoSecrets(r: RunResult | { stdout: string; stderr: string }, secrets: string[] = [TOKEN, SESSION, PASSWORD]) {
  for (const s of secrets) {
    expect(r.stderr, `stderr holds ${s}`).not.toContain(s);
    expect(r.stdout, `stdout holds ${s}`).not.toContain(s);
  }
}

/** A forward proxy that records what it is asked: absolute-URI requests and CONNECT tunnels. */
describe('1. secrets never in argv', () => {
  it.each([['--token'], ['--session-id'], ['--session'], ['--password']])(
    '%s is not an option of any command: exit 2, nothing sent',
    async (flag) => {
      for (const line of [
        ['services', 'list'],
        ['auth', 'status'],
        ['api', 'GET', '/admin/services'],
      ]) {
        const r = await runCli([...line, flag, TOKEN], { env: stubEnv({ SUBCTL_TOKEN: '' }) });
        expect(r.code, `${line.join(' ')} ${flag}`).toBe(2);
        expect(r.stderr).not.toContain(TOKEN);
      }
      expect(stub.requests).toHaveLength(0);
    },
  );
});

describe('2. secrets never in --verbose output (the real sandbox)', () => {
  it('CMS sign-in, user creation, a bulk run, status and refresh: no token, session id or password on stderr', async () => {
    const cfg = tempConfigDir();
    const env = { SUBCTL_BASE_URL: sb.url, SUBCTL_CONFIG_DIR: cfg };
    const outputs: RunResult[] = [];
    const login = await runCli(['auth', 'login', '--cms', '--username', 'admin', '--password-stdin', '--verbose'], {
      env,
      stdin: 'sandbox-admin\n',
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/> POST http:\/\/127\.0\.0\.1:\d+\/cms\/auth\/login \(attempt 1\/1\)/);
    outputs.push(login);
    const stored = JSON.parse(readFileSync(join(cfg, 'credentials.json'), 'utf8')) as {
      profiles?: Record<string, { token?: string; session_id?: string }>;
    } & Record<string, { token?: string; session_id?: string }>;
    const cred = Object.values(stored.profiles ?? stored).find((c) => c && typeof c === 'object' && 'token' in c)!;
    expect(cred.token).toBeTruthy();
    expect(cred.session_id).toBeTruthy();
    const create = await runCli(
      ['users', 'create', '--username', 'verb-user-1', '--email', 'verb1@example.com', '--role', 'user', '--password-stdin', '--verbose'],
      { env, stdin: `${PASSWORD}\n` },
    );
    expect(create.code, create.stderr).toBe(0);
    expect(create.stderr).toContain('"password":"***"');
    outputs.push(create);
    const dir = tempDir('subctl-verbose-bulk-');
    writeFileSync(join(dir, 'u.csv'), `username,email,role,password\nverb-user-2,verb2@example.com,user,${PASSWORD}\n`);
    const bulk = await runCli(['users', 'create', '--from-csv', join(dir, 'u.csv'), '--yes', '--verbose'], { env });
    expect(bulk.code, bulk.stderr).toBe(0);
    outputs.push(bulk);
    outputs.push(await runCli(['auth', 'status', '--verbose'], { env }));
    const refresh = await runCli(['auth', 'refresh', '--verbose'], { env });
    outputs.push(refresh);
    const after = readFileSync(join(cfg, 'credentials.json'), 'utf8');
    const newToken = /"token":\s*"([^"]+)"/.exec(after)?.[1] ?? '';
    for (const r of outputs) expectNoSecrets(r, [PASSWORD, 'sandbox-admin', cred.token!, cred.session_id!, newToken].filter(Boolean));
  });
});

describe('3. secrets never in error messages', () => {
  // Free text can only be cleaned of the secrets this run knows (its token, its session id, the
  // passwords it sent); a secret the run never had is masked by its key, in structured details.
  const echo = `invalid token ${TOKEN} for session ${SESSION}`;
  const details = {
    code: 'UNAUTHORIZED',
    message: echo,
    token: TOKEN,
    password: PASSWORD,
    session_id: SESSION,
    fields: [{ field: 'token', message: `expired: ${TOKEN}` }],
  };

  it.each([
    ['401 echoing every secret, with details naming them', 401, 3],
    ['500 echoing every secret', 500, 6],
    ['400 with field errors echoing the token', 400, 5],
  ])('%s: not on stderr, in table or json output', async (_name, status, code) => {
    stub.setHandler(() => ({ status, json: { status: false, message: echo, data: null, error: details } }));
    for (const o of ['table', 'json']) {
      const r = await runCli(['services', 'list', '-o', o, '--retries', '0'], { env: stubEnv() });
      expect(r.code).toBe(code);
      expectNoSecrets(r);
      expect(r.stderr).toContain('***');
    }
  });

  it('an HTML error page echoing the token, and a 2xx refusal echoing the session: masked', async () => {
    stub.setHandler(() => ({ status: 502, raw: `<html><body>upstream said: Authorization: Bearer ${TOKEN}</body></html>` }));
    const html = await runCli(['services', 'list', '--retries', '0'], { env: stubEnv() });
    expect(html.code).toBe(6);
    expectNoSecrets(html);
    stub.setHandler(() => ({ status: 200, json: { status: false, message: `session ${SESSION} is closed`, data: null } }));
    const refusal = await runCli(['dashboard', '-o', 'json'], { env: stubEnv() });
    expect(refusal.code).toBe(5);
    expectNoSecrets(refusal);
  });

  it('a sign-in refused with the password echoed back: not printed', async () => {
    stub.setHandler(() => ({
      status: 401,
      json: { status: false, message: `wrong password '${PASSWORD}' for admin`, data: null, error: { password: PASSWORD } },
    }));
    const r = await runCli(['auth', 'login', '--username', 'admin', '--password-stdin', '-o', 'json'], {
      env: { SUBCTL_BASE_URL: stub.url, SUBCTL_CONFIG_DIR: tempConfigDir() },
      stdin: `${PASSWORD}\n`,
    });
    expect(r.code).toBe(3);
    expectNoSecrets(r);
    expect(r.stderr).toMatch(/wrong password '\*\*\*' for admin/);
  });

  it('`subctl api` with a secret header or body field: not echoed back either', async () => {
    stub.setHandler(() => ({
      status: 403,
      json: { status: false, message: `key ${'k-SECRET-4409'} and reset token ${'rt-SECRET-1207'} refused`, data: null },
    }));
    const r = await runCli(
      ['api', 'POST', '/some/where', '-H', 'x-api-key: k-SECRET-4409', '-f', 'reset_token=rt-SECRET-1207', '-o', 'json'],
      { env: stubEnv() },
    );
    expect(r.code).toBe(3);
    expectNoSecrets(r, ['k-SECRET-4409', 'rt-SECRET-1207']);
  });
});

describe('4. secrets never in bulk journals or reports', () => {
  it('a row refused with its password in the message, and the --dry-run plan: no password anywhere', async () => {
    const dir = tempDir('subctl-bulk-secrets-');
    const cfg = join(dir, 'cfg');
    const csv = join(dir, 'users.csv');
    writeFileSync(csv, `username,email,role,password\nsec-a,a@example.com,user,${PASSWORD}-a\nsec-b,b@example.com,user,${PASSWORD}-b\n`);
    stub.setHandler((req) => {
      const b = req.body as { username: string; password: string };
      return b.username === 'sec-b'
        ? {
            status: 422,
            json: {
              status: false,
              message: `password ${b.password} is too common`,
              data: null,
              error: { fields: [{ field: 'password', message: `${b.password} was seen in a breach` }] },
            },
          }
        : { status: 201, json: { status: true, message: 'created', data: { user_id: 7, username: b.username } } };
    });
    const env = { SUBCTL_BASE_URL: stub.url, SUBCTL_TOKEN: TOKEN, SUBCTL_CONFIG_DIR: cfg };
    const plan = await runCli(['users', 'create', '--from-csv', csv, '--dry-run', '-o', 'json'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)[0].body).toMatchObject({ username: 'sec-a', password: '***' });
    const report = join(dir, 'report.csv');
    const r = await runCli(['users', 'create', '--from-csv', csv, '--yes', '--report', report], { env });
    expect(r.code).toBe(8);
    // The server did get the passwords: they are only kept out of what subctl writes.
    expect(stub.requests.map((q) => (q.body as { password: string }).password).sort()).toEqual([`${PASSWORD}-a`, `${PASSWORD}-b`]);
    const texts = [
      plan.stdout,
      plan.stderr,
      r.stdout,
      r.stderr,
      readFileSync(report, 'utf8'),
      ...readdirSync(join(cfg, 'state', 'bulk')).map((f) => readFileSync(join(cfg, 'state', 'bulk', f), 'utf8')),
    ];
    for (const t of texts) expect(t).not.toContain(PASSWORD);
    expect(readFileSync(report, 'utf8')).toMatch(/sec-b.*failed,1,422,password \*\*\* is too common/);
  });
});

describe('6. http:// refused for a host that is not loopback: nothing leaves the process', () => {
  it('a list, a write and `api`: exit 2, and a proxy that would carry the request sees nothing', async () => {
    const proxy = await startProxy();
    try {
      for (const line of [
        ['services', 'list'],
        ['services', 'delete', '--service-code', 'X', '--yes'],
        ['api', 'GET', '/admin/services'],
      ]) {
        const r = await runCli([...line, '--base-url', 'http://api.example.com'], {
          env: stubEnv({ http_proxy: proxy.url, HTTP_PROXY: proxy.url }),
        });
        expect(r.code, line.join(' ')).toBe(2);
        expect(r.stderr).toMatch(/refusing plain http:\/\/ to api\.example\.com/);
        expectNoSecrets(r);
      }
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe('8 and 9. the sandbox over TLS: NODE_EXTRA_CA_CERTS in the real process, HTTPS_PROXY tunnels', () => {
  let dir: string;
  let tlsServer: https.Server;
  let url: string;
  let handshakes = 0;

  beforeAll(async () => {
    await binary();
    dir = tempDir('subctl-tls-');
    const { key, cert } = loopbackCertificates(dir, 'subctl secrets test CA');
    // TLS in front of the sandbox: each request passed through to it unchanged.
    const upstream = new URL(sb.url);
    tlsServer = https.createServer({ key, cert }, (req, res) => {
      const p = http.request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      p.on('error', () => res.writeHead(502).end());
      req.pipe(p);
    });
    tlsServer.on('secureConnection', () => handshakes++);
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    tlsServer?.closeAllConnections();
    await new Promise((r) => tlsServer?.close(r));
  });

  const childEnv = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH,
    HOME: dir,
    SUBCTL_CONFIG_DIR: mkdtempSync(join(dir, 'cfg-')),
    SUBCTL_BASE_URL: url,
    SUBCTL_TOKEN: sb.tokenFor('admin'),
    ...extra,
  });

  it('8. the binary trusts the sandbox only with NODE_EXTRA_CA_CERTS (loaded by Node at start-up); without it, exit 7 once, with the hint', async () => {
    const before = handshakes;
    const without = await runBinary(['services', 'list', '-o', 'json'], childEnv());
    expect(without.code).toBe(7);
    expect(without.stderr).toMatch(/TLS connection to 127\.0\.0\.1:\d+ failed/);
    expect(JSON.parse(without.stderr).error.hint).toMatch(/NODE_EXTRA_CA_CERTS/);
    expect(handshakes).toBe(before); // certificate errors are not retried (and never completed)
    const withCa = await runBinary(['services', 'list', '-o', 'json'], childEnv({ NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') }));
    expect(withCa.code, withCa.stderr).toBe(0);
    expect((JSON.parse(withCa.stdout) as unknown[]).length).toBeGreaterThan(0);
  });

  it('9. HTTPS_PROXY: the binary reaches the sandbox over TLS through a CONNECT tunnel; NO_PROXY goes direct', async () => {
    const proxy = await startProxy();
    try {
      const host = new URL(url).host;
      const via = await runBinary(
        ['services', 'list', '-o', 'json'],
        childEnv({ NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), HTTPS_PROXY: proxy.url }),
      );
      expect(via.code, via.stderr).toBe(0);
      expect((JSON.parse(via.stdout) as unknown[]).length).toBeGreaterThan(0);
      expect(proxy.seen).toEqual([`CONNECT ${host}`]);
      proxy.seen.length = 0;
      const direct = await runBinary(
        ['services', 'list', '-o', 'json'],
        childEnv({ NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }),
      );
      expect(direct.code, direct.stderr).toBe(0);
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
