/**
 * `subctl doctor` against real loopback servers: every check ok, an unreachable address (exit 7),
 * a refused token (exit 3), a clock 2 minutes off (a warning), a self-signed https server
 * (TLS fails without NODE_EXTRA_CA_CERTS and passes with it), loose file modes, the sandbox.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ok, startStubServer, type RecordedRequest, type StubReply, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

interface CheckRow {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix: string | null;
}

const GOOD = 'tok-good';
let server: StubServer;

/** The platform as doctor sees it: GET / answers anything, validate-session knows one token. */
function platform(extraHeaders: Record<string, string> = {}) {
  return (req: RecordedRequest): StubReply => {
    let reply: StubReply;
    if (req.method === 'POST' && req.path === '/auth/validate-session') {
      const valid = (req.body as { token?: string }).token === GOOD;
      reply = valid
        ? ok({ valid: true, user_id: 1, username: 'admin', role: 'admin', message: 'session is valid' }, 'session is valid')
        : ok(
            { valid: false, user_id: null, username: null, role: null, message: 'token unknown, revoked or expired' },
            'session is not valid',
          );
    } else reply = { status: 404, json: { status: false, message: 'not found', data: null } };
    return { ...reply, headers: { ...reply.headers, ...extraHeaders } };
  };
}

async function doctor(args: string, env: Record<string, string | undefined>) {
  const r = await runCli(`doctor -o json ${args}`, { env });
  let checks: CheckRow[] = [];
  try {
    checks = JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON: ${r.stdout}\n${r.stderr}`);
  }
  const by = (name: string) => checks.find((c) => c.check === name)!;
  return { ...r, checks, by };
}

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(platform());
});

describe('doctor', () => {
  it('all ok: every check passes, exit 0, -o json gives {check, status, detail, fix}', async () => {
    const r = await doctor('', { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: GOOD });
    expect(r.code).toBe(0);
    expect(r.checks.map((c) => c.check)).toEqual([
      'profile',
      'config-files',
      'base-url',
      'proxy',
      'reachability',
      'tls',
      'clock',
      'credential',
    ]);
    for (const c of r.checks) {
      expect(Object.keys(c).sort()).toEqual(['check', 'detail', 'fix', 'status']);
      expect(c.status, `${c.check}: ${c.detail}`).toBe('ok');
      expect(c.fix).toBeNull();
    }
    expect(r.by('base-url').detail).toContain(server.url);
    expect(r.by('base-url').detail).toContain('SUBCTL_BASE_URL');
    expect(r.by('reachability').detail).toMatch(/answered in \d+ ms/);
    expect(r.by('credential').detail).toContain('valid (user admin, role admin)');
    expect(r.by('credential').detail).toContain('SUBCTL_TOKEN');
    expect(r.by('clock').detail).toContain('in sync');
    const validate = server.requests.find((q) => q.path === '/auth/validate-session')!;
    expect(validate.body).toEqual({ token: GOOD });
  });

  it("another platform's spelling of a valid session (valid 1, the role as an object) is ok", async () => {
    server.setHandler((req) =>
      req.path === '/auth/validate-session'
        ? ok({ valid: 1, user_id: '1', username: 'admin', role: { role_name: 'admin' }, message: 'session is valid' })
        : platform()(req),
    );
    const r = await doctor('', { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: GOOD });
    expect(r.code, r.stderr).toBe(0);
    expect(r.by('credential').status).toBe('ok');
    expect(r.by('credential').detail).toContain('valid (user admin, role admin)');
  });

  it('prints `status  check: detail` lines and a fix under each failure', async () => {
    const r = await runCli('doctor', { env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 'tok-bad' } });
    expect(r.code).toBe(3);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^ok {4}profile: /);
    const failAt = lines.findIndex((l) => l.startsWith('fail  credential: '));
    expect(failAt).toBeGreaterThan(0);
    // The token came from SUBCTL_TOKEN: the fix is that token's (a sign-in would not replace it).
    expect(lines[failAt + 1]).toMatch(/^ {6}fix: set a valid token in SUBCTL_TOKEN, or unset it/);
  });

  it('unreachable: reachability fails with a fix, exit 7', async () => {
    const gone = await startStubServer();
    const url = gone.url;
    await gone.close();
    const r = await doctor('', { SUBCTL_BASE_URL: url, SUBCTL_TOKEN: GOOD });
    expect(r.code).toBe(7);
    expect(r.by('reachability').status).toBe('fail');
    expect(r.by('reachability').detail).toContain('ECONNREFUSED');
    expect(r.by('reachability').fix).toContain('nothing listens');
    expect(r.by('credential').status).toBe('warn'); // present, not validated
  });

  it('an expired or revoked token: the credential fails, exit 3', async () => {
    const r = await doctor('', { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 'tok-revoked' });
    expect(r.code).toBe(3);
    expect(r.by('credential')).toMatchObject({ status: 'fail' });
    expect(r.by('credential').detail).toContain('expired or revoked');
    // From SUBCTL_TOKEN: mend that token; a stored one: sign in again.
    expect(r.by('credential').fix).toBe("set a valid token in SUBCTL_TOKEN, or unset it to use the profile's sign-in");
  });

  it('an answer that does not say whether the token is valid (empty, or without `valid`: a gateway answering) is a warning, never "expired or revoked" (exit 0)', async () => {
    for (const [reply, said] of [
      [{ status: 200, raw: '', headers: { 'content-type': 'application/json' } }, 'was empty'],
      [ok({ services: [] }), 'does not say whether it is valid'],
    ] as const) {
      server.setHandler((req) => (req.path === '/auth/validate-session' ? reply : platform()(req)));
      const r = await doctor('', { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: GOOD });
      expect(r.by('credential'), said).toEqual({
        check: 'credential',
        status: 'warn',
        detail: `present (SUBCTL_TOKEN); not validated: the answer of POST /auth/validate-session ${said}`,
        fix: 'run `subctl doctor --verbose` to see the exchange; a gateway or proxy in front of the platform may be answering in its place',
      });
      expect(r.code, said).toBe(0);
    }
  });

  it('no credential at all against a real address: exit 3', async () => {
    const r = await doctor('', { SUBCTL_BASE_URL: server.url });
    expect(r.code).toBe(3);
    expect(r.by('credential').detail).toContain('no credential');
  });

  it('a server clock 2 minutes off: a warning naming the skew, exit 0', async () => {
    server.setHandler(platform({ date: new Date(Date.now() - 120_000).toUTCString() }));
    const r = await doctor('', { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: GOOD });
    expect(r.code).toBe(0);
    expect(r.by('clock').status).toBe('warn');
    expect(r.by('clock').detail).toMatch(/2 min 0 s ahead of the server|1 min 59 s ahead of the server|2 min 1 s ahead of the server/);
    expect(r.by('clock').fix).toContain('timedatectl');
  });

  it('an unusable base address or a missing profile: exit 2', async () => {
    const r = await doctor('--base-url http://example.com', { SUBCTL_TOKEN: GOOD });
    expect(r.code).toBe(2);
    expect(r.by('base-url').status).toBe('fail');
    expect(r.by('base-url').fix).toContain('https://example.com');
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { prod: { base_url: server.url } } }));
    const missing = await doctor('--profile staging', { SUBCTL_CONFIG_DIR: dir });
    expect(missing.code).toBe(2);
    expect(missing.by('profile')).toMatchObject({ status: 'fail' });
    expect(missing.by('profile').detail).toContain('no profile named "staging"');
    expect(missing.by('profile').detail).toContain('prod');
  });

  it('loose file modes: a warning saying what was found and repaired', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: server.url } } }));
    chmodSync(join(dir, 'config.json'), 0o644);
    const r = await doctor('', { SUBCTL_CONFIG_DIR: dir, SUBCTL_TOKEN: GOOD });
    expect(r.code).toBe(0);
    expect(r.by('config-files').status).toBe('warn');
    expect(r.by('config-files').detail).toContain('was 0644');
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(r.by('profile').detail).toContain('"default"');
    expect(r.by('base-url').detail).toContain('profile "default"');
  });

  it('reports the proxies in effect', async () => {
    const r = await doctor('', {
      SUBCTL_BASE_URL: server.url,
      SUBCTL_TOKEN: GOOD,
      https_proxy: 'http://user:secret@proxy.invalid:3128',
      no_proxy: '127.0.0.1',
    });
    expect(r.by('proxy').status).toBe('ok');
    expect(r.by('proxy').detail).toContain('proxy.invalid:3128');
    expect(r.by('proxy').detail).not.toContain('secret');
    expect(r.by('proxy').detail).toContain('reached directly');
    expect(r.code).toBe(0);
  });

  it('the embedded sandbox: SANDBOX, TLS skipped, exit 0', async () => {
    const r = await doctor('--sandbox', {});
    expect(r.code).toBe(0);
    expect(r.by('base-url').detail).toContain('SANDBOX');
    expect(r.by('tls').detail).toContain('skipped');
    expect(r.checks.every((c) => c.status === 'ok')).toBe(true);
  });
});

describe('doctor over https with a self-signed certificate', () => {
  let dir: string;
  let httpsServer: https.Server;
  let url: string;

  beforeAll(async () => {
    dir = tempDir('subctl-tls-');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '30',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    const handler = platform();
    httpsServer = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const u = new URL(req.url ?? '/', 'https://x');
        const reply = handler({
          method: req.method ?? '',
          path: u.pathname,
          query: {},
          headers: req.headers,
          rawBody: raw,
          body: raw ? JSON.parse(raw) : undefined,
          at: Date.now(),
        });
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.json ?? null));
      });
    });
    await new Promise<void>((r) => httpsServer.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(httpsServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    httpsServer.closeAllConnections();
    await new Promise((r) => httpsServer.close(r));
  });

  it('without NODE_EXTRA_CA_CERTS: TLS fails with the fix to set it, exit 7', async () => {
    const r = await doctor('', { SUBCTL_BASE_URL: url, SUBCTL_TOKEN: GOOD, NODE_EXTRA_CA_CERTS: undefined });
    expect(r.code).toBe(7);
    expect(r.by('tls').status).toBe('fail');
    expect(r.by('tls').detail).toMatch(/not trusted/);
    expect(r.by('tls').fix).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('with NODE_EXTRA_CA_CERTS pointing at the certificate: TLS ok with expiry and days left, exit 0', async () => {
    const r = await doctor('', { SUBCTL_BASE_URL: url, SUBCTL_TOKEN: GOOD, NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') });
    expect(r.by('tls').status, r.by('tls').detail).toBe('ok');
    expect(r.by('tls').detail).toMatch(/valid for 127\.0\.0\.1/);
    expect(r.by('tls').detail).toMatch(/expires \d{4}-\d{2}-\d{2} \((29|30) days left\)/);
    expect(r.by('tls').detail).toContain('NODE_EXTRA_CA_CERTS');
    expect(r.by('credential').status).toBe('ok');
    expect(r.code).toBe(0);
  });

  it('an unreadable NODE_EXTRA_CA_CERTS is reported', async () => {
    const r = await doctor('', { SUBCTL_BASE_URL: url, SUBCTL_TOKEN: GOOD, NODE_EXTRA_CA_CERTS: join(dir, 'missing.pem') });
    expect(r.by('tls').status).toBe('fail');
    expect(r.by('tls').detail).toContain('is not readable');
    expect(r.by('tls').fix).toContain('readable PEM');
  });
});
