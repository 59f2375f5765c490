/**
 * Secret hygiene, one test per rule, through the CLI as a user runs it: secrets never in argv,
 * --verbose output, error messages, bulk journals or reports; files 0600 in 0700 directories,
 * repaired; http:// refused off loopback; redirects not followed; a private CA through
 * NODE_EXTRA_CA_CERTS against the sandbox over TLS; proxies through a local proxy.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';
import { loopbackCertificates } from '../support/tls-certs.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/subctl.js');
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

const TOKEN = 'tok-SECRET-4471';
const SESSION = 'sess-SECRET-9182';
const PASSWORD = 'pw-SECRET-5530';

describe('secrets never travel or show', () => {
  it('never in argv: the password is read from stdin while the process args hold none', async () => {
    const cfg = tempConfigDir();
    const child = spawn(process.execPath, [bin, 'auth', 'login', '--username', 'admin', '--password-stdin', '--base-url', sb.url], {
      env: { PATH: process.env.PATH, HOME: cfg, SUBCTL_CONFIG_DIR: cfg },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Until the exec has happened, /proc holds the spawning process's arguments.
    const cmdline = await vi.waitFor(
      () => {
        const args = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
        expect(args).toContain(bin);
        return args;
      },
      { timeout: 20_000, interval: 20 },
    );
    expect(cmdline.join(' ')).not.toContain('sandbox-admin');
    expect(cmdline).toContain('--password-stdin');
    child.stdin.end('sandbox-admin\n');
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
    // And a password flag is refused before anything is sent.
    const r = await runCli(['auth', 'login', '--username', 'admin', '--password', PASSWORD, '--base-url', stub.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/passwords never travel in argv/);
    expect(r.stderr).not.toContain(PASSWORD);
  });

  it('never in --verbose output: token, session id and password masked', async () => {
    stub.requests.length = 0;
    stub.setHandler(() =>
      ok({ token: 'tok-FROM-SERVER-1', user_id: 1, username: 'admin', role: 'admin', session_id: 'sess-FROM-SERVER-2' }),
    );
    const cfg = tempConfigDir();
    const r = await runCli(['auth', 'login', '--cms', '--username', 'admin', '--password-stdin', '--verbose', '--base-url', stub.url], {
      env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_SESSION_ID: SESSION },
      stdin: `${PASSWORD}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/> POST http:\/\/127\.0\.0\.1:\d+\/cms\/auth\/login/);
    for (const secret of [PASSWORD, SESSION, 'tok-FROM-SERVER-1', 'sess-FROM-SERVER-2']) expect(r.stderr).not.toContain(secret);
    const list = await runCli(['services', 'list', '--verbose', '--base-url', stub.url], {
      env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_TOKEN: TOKEN, SUBCTL_SESSION_ID: SESSION },
    });
    expect(list.stderr).toMatch(/authorization: Bearer \*\*\*/i);
    expect(list.stderr).not.toContain(TOKEN);
    expect(list.stderr).not.toContain(SESSION);
    // The wire still carried them.
    expect(stub.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // A server that echoes the request's headers in its answer (an HTML error page, a message):
    // the logged answer masks them too (it printed the token).
    stub.setHandler((req) => ({ status: 500, raw: `<html>${JSON.stringify(req.headers)}</html>` }));
    const echo = await runCli(['services', 'list', '--verbose', '--retries', '0', '--base-url', stub.url], {
      env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_TOKEN: TOKEN, SUBCTL_SESSION_ID: SESSION },
    });
    expect(echo.stderr).toMatch(/<\s+<html>/);
    expect(echo.stderr).not.toContain(TOKEN);
    expect(echo.stderr).not.toContain(SESSION);
  });

  it('never in error messages: a refused token is not echoed', async () => {
    const r = await runCli(['services', 'list', '-o', 'json', '--base-url', sb.url], { env: { SUBCTL_TOKEN: TOKEN } });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain(TOKEN);
  });

  it('never in bulk journals or reports: a users create run with a password column', async () => {
    const dir = tempDir('subctl-hyg-');
    const csv = join(dir, 'users.csv');
    writeFileSync(
      csv,
      `username,email,role,password\nhyg1,hyg1@example.com,user,${PASSWORD}\nhyg2,hyg2@example.com,nosuchrole,${PASSWORD}\n`,
    );
    const report = join(dir, 'report.csv');
    const cfg = join(dir, 'cfg');
    const r = await runCli(['users', 'create', '--from-csv', csv, '--yes', '--report', report], {
      env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin') },
    });
    expect(r.code, r.stderr).toBe(8); // one created, one refused: the report and journal hold both
    expect(readFileSync(report, 'utf8')).not.toContain(PASSWORD);
    const jdir = join(cfg, 'state', 'bulk');
    const journals = readdirSync(jdir).map((f) => readFileSync(join(jdir, f), 'utf8'));
    expect(journals.length).toBeGreaterThan(0);
    for (const j of journals) expect(j).not.toContain(PASSWORD);
    expect(r.stderr).not.toContain(PASSWORD);
  });
});

describe('server data never drives the terminal', () => {
  it('dashboard and audit --follow print control characters of server text as \\xHH (a username with ESC sequences cleared the screen and retitled the window)', async () => {
    const evil = 'eve\u001b]0;PWNED\u0007\u001b[2J\u001b[41mRED\u009b';
    const entry = {
      id: 9,
      user_id: 4,
      username: evil,
      module: 'profile\u001b[1m',
      action: 'update',
      details: `x\u001b[2J`,
      created_at: '2026-11-22T10:00:00Z',
    };
    stub.setHandler((req) =>
      req.path === '/admin/dashboard'
        ? ok({ generated_at: '2026-11-22T10:00:00Z', totals: { users: 3, [`k\u001b[2J`]: 1 }, recent_activity: [entry] })
        : ok({ pagination: { current_page: 1, page_size: 100, total_pages: 1, total_records: 1 }, logs: [entry], audit_logs: [entry] }),
    );
    const env = { SUBCTL_BASE_URL: stub.url, SUBCTL_TOKEN: 't' };
    for (const tty of [false, true]) {
      const d = await runCli('dashboard', { env, tty, columns: 120 });
      expect(d.code, d.stderr).toBe(0);
      expect(d.stdout).toContain('eve\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[41mRED\\x9b');
      // Only subctl's own styling may reach the terminal.
      expect(d.stdout.replace(/\u001b\[(1|22|2|0|3\d|9\d|39)m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    stub.requests.length = 0;
    const ac = new AbortController();
    const follow = runCli('audit list --follow --interval 0.2', { env, signal: ac.signal });
    // A second poll is sent only once the first answer is printed.
    const polls = () => stub.requests.filter((q) => q.path.includes('audit')).length;
    await vi.waitFor(() => expect(polls()).toBeGreaterThanOrEqual(2), { timeout: 20_000, interval: 20 });
    ac.abort();
    const f = await follow;
    expect(f.stdout).toContain('eve\\x1b]0;PWNED\\x07');
    expect(f.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});

describe('files', () => {
  it('config and credential files are 0600 in a 0700 directory, and repaired when found looser', async () => {
    const cfg = tempConfigDir();
    const r = await runCli(['auth', 'login', '--username', 'admin', '--password-stdin', '--base-url', sb.url, '--profile', 'p1'], {
      env: { SUBCTL_CONFIG_DIR: cfg },
      stdin: 'sandbox-admin\n',
    });
    expect(r.code, r.stderr).toBe(0);
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(cfg)).toBe(0o700);
    expect(mode(join(cfg, 'config.json'))).toBe(0o600);
    expect(existsSync(join(cfg, 'credentials.json'))).toBe(true);
    expect(mode(join(cfg, 'credentials.json'))).toBe(0o600);
    chmodSync(cfg, 0o755);
    chmodSync(join(cfg, 'config.json'), 0o644);
    chmodSync(join(cfg, 'credentials.json'), 0o644);
    const again = await runCli(['auth', 'status', '--profile', 'p1'], { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(again.code, again.stderr).toBe(0);
    expect(mode(cfg)).toBe(0o700);
    expect(mode(join(cfg, 'config.json'))).toBe(0o600);
    expect(mode(join(cfg, 'credentials.json'))).toBe(0o600);
  });
});

describe('transport', () => {
  it('http:// to loopback through a proxy elsewhere is refused too (the token would go to the proxy in clear); NO_PROXY naming it goes direct', async () => {
    stub.requests.length = 0;
    stub.setHandler(() => ok({ pagination: { total_pages: 1, total_records: 0 }, services: [] }));
    const env = { SUBCTL_TOKEN: TOKEN, HTTP_PROXY: 'http://192.0.2.1:9' };
    const r = await runCli(['services', 'list', '--base-url', stub.url], { env });
    expect(r.code).toBe(2);
    const host = new URL(stub.url).host;
    expect(r.stderr).toContain(
      `error: refusing plain http:// to ${host} through the proxy 192.0.2.1:9 (http_proxy): credentials would travel unencrypted beyond this machine`,
    );
    expect(r.stderr).toContain('hint: add 127.0.0.1 to NO_PROXY (NO_PROXY=127.0.0.1) to reach it directly, or use an https:// address');
    expect(stub.requests).toHaveLength(0);
    const direct = await runCli(['services', 'list', '--base-url', stub.url], { env: { ...env, NO_PROXY: '127.0.0.1' } });
    expect(direct.code, direct.stderr).toBe(0);
    expect(stub.requests).toHaveLength(1);
  });

  it('http:// to a non-loopback host is refused: exit 2, nothing sent', async () => {
    const r = await runCli(['services', 'list', '--base-url', 'http://api.example.com'], { env: { SUBCTL_TOKEN: TOKEN } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/http:\/\//);
    expect(r.stderr).not.toContain(TOKEN);
  });

  it('redirects are not followed: exit 6, the target receives nothing', async () => {
    const target = await startStubServer(() => ok({ services: [] }));
    stub.setHandler(() => ({ status: 302, headers: { location: `${target.url}/admin/services` }, raw: '' }));
    const r = await runCli(['services', 'list', '--base-url', stub.url], { env: { SUBCTL_TOKEN: TOKEN, SUBCTL_SESSION_ID: SESSION } });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/redirect/i);
    expect(target.requests).toHaveLength(0);
    await target.close();
  });

  it('a private CA through NODE_EXTRA_CA_CERTS, against the sandbox served over TLS', async () => {
    const dir = tempDir('subctl-tls-');
    const { key, cert } = loopbackCertificates(dir, 'subctl test CA');
    // TLS in front of the sandbox: every request is passed through to it.
    const upstream = new URL(sb.url);
    const tls = https.createServer({ key, cert }, (req, res) => {
      const p = http.request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(p);
    });
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const env = { SUBCTL_TOKEN: sb.tokenFor('admin') };
    const without = await runCli(['services', 'list', '-o', 'json', '--retries', '0', '--base-url', url], { env });
    expect(without.code).toBe(7);
    expect(without.stderr).toMatch(/NODE_EXTRA_CA_CERTS/);
    const withCa = await runCli(['services', 'list', '-o', 'json', '--base-url', url], {
      env: { ...env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
    });
    expect(withCa.code, withCa.stderr).toBe(0);
    expect((JSON.parse(withCa.stdout) as Array<{ service_code: string }>).length).toBeGreaterThan(0);
    tls.close();
  });

  it('proxies: HTTP_PROXY carries the requests to the sandbox; NO_PROXY bypasses it', async () => {
    const seen: string[] = [];
    const proxy = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const u = new URL(req.url!);
      const p = http.request(
        { host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(p);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const env = { SUBCTL_TOKEN: sb.tokenFor('admin'), HTTP_PROXY: proxyUrl };
    const via = await runCli(['services', 'list', '-o', 'json', '--base-url', sb.url], { env });
    expect(via.code, via.stderr).toBe(0);
    expect(seen.some((s) => s.startsWith(`GET ${sb.url}/admin/services`))).toBe(true);
    seen.length = 0;
    const direct = await runCli(['services', 'list', '-o', 'json', '--base-url', sb.url], { env: { ...env, NO_PROXY: '127.0.0.1' } });
    expect(direct.code, direct.stderr).toBe(0);
    expect(seen).toHaveLength(0);
    proxy.close();
  });
});
