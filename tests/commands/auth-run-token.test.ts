/**
 * `auth logout` and `auth refresh` with a token given for the run (SUBCTL_TOKEN, --token-file)
 * act on that token: the request on the wire carries it, no stored credential is touched, and
 * refresh prints the new token only to a data format.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';

let server: StubServer;
let configDir: string;
const env = (extra: Record<string, string> = {}) => ({ SUBCTL_BASE_URL: server.url, SUBCTL_CONFIG_DIR: configDir, ...extra });

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  configDir = tempConfigDir();
  server.requests.length = 0;
  server.setHandler((req) => {
    if (req.path === '/auth/login') return ok({ token: 'tok-stored', user_id: 9, username: 'ann', role: 'admin' });
    if (req.path === '/auth/refresh') return ok({ token: 'tok-fresh', expires_in: 3600 });
    return ok({ success: true });
  });
});

async function signIn(): Promise<void> {
  const r = await runCli('auth login --username ann --password-stdin', { env: env(), stdin: 'pw-secret\n' });
  expect(r.code).toBe(0);
  server.requests.length = 0;
}

describe('auth logout with a run token', () => {
  it('SUBCTL_TOKEN alone: POST /auth/logout with that token as bearer and in the body, no user_id', async () => {
    const r = await runCli('auth logout', { env: env({ SUBCTL_TOKEN: 'tok-run' }) });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/auth/logout');
    expect(req.headers.authorization).toBe('Bearer tok-run');
    expect(req.body).toEqual({ token: 'tok-run' });
    expect(r.stderr).toContain('revoked the token of SUBCTL_TOKEN; no stored credential was touched');
    expect(r.stderr).not.toContain('tok-run');
  });

  it("with a profile signed in to another account: the profile's user_id is not sent, and its credential stays", async () => {
    await signIn();
    const r = await runCli('auth logout', { env: env({ SUBCTL_TOKEN: 'tok-run' }) });
    expect(r.code).toBe(0);
    expect(server.requests[0].body).toEqual({ token: 'tok-run' });
    expect(server.requests[0].headers.authorization).toBe('Bearer tok-run');
    // The stored sign-in is still there: a logout without the run token sends it.
    server.requests.length = 0;
    const own = await runCli('auth logout', { env: env() });
    expect(own.code).toBe(0);
    expect(server.requests[0].body).toEqual({ user_id: 9, token: 'tok-stored' });
    expect(server.requests[0].headers.authorization).toBe('Bearer tok-stored');
  });

  it('the run token is the stored one: its user_id is known and sent', async () => {
    await signIn();
    const r = await runCli('auth logout', { env: env({ SUBCTL_TOKEN: 'tok-stored' }) });
    expect(r.code).toBe(0);
    expect(server.requests[0].body).toEqual({ token: 'tok-stored', user_id: 9 });
  });

  it('--token-file: the file holds the token revoked; a 401 says the token was no longer accepted', async () => {
    const file = join(configDir, 'token');
    writeFileSync(file, 'tok-file\n');
    chmodSync(file, 0o600);
    const r = await runCli(['auth', 'logout', '--token-file', file], { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].body).toEqual({ token: 'tok-file' });
    expect(server.requests[0].headers.authorization).toBe('Bearer tok-file');
    server.setHandler(() => fail(401, 'Token expired'));
    const gone = await runCli(['auth', 'logout', '--token-file', file], { env: env() });
    expect(gone.code).toBe(0);
    expect(gone.stderr).toContain('no longer accepted');
  });
});

describe('auth refresh with a run token', () => {
  it('-o json: exchanges the run token and prints the new one on stdout; the stored credential is untouched', async () => {
    await signIn();
    const r = await runCli('auth refresh -o json', { env: env({ SUBCTL_TOKEN: 'tok-run' }) });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].path).toBe('/auth/refresh');
    expect(server.requests[0].body).toEqual({ token: 'tok-run' });
    const printed = JSON.parse(r.stdout);
    expect(printed.token).toBe('tok-fresh');
    expect(printed.expires_in).toBe(3600);
    server.requests.length = 0;
    await runCli('auth logout', { env: env() });
    expect(server.requests[0].body).toEqual({ user_id: 9, token: 'tok-stored' });
  });

  it('without a data format: refused before sending (exit 2), no token on stdout', async () => {
    const r = await runCli('auth refresh', { env: env({ SUBCTL_TOKEN: 'tok-run' }) });
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('needs -o json');
  });
});
