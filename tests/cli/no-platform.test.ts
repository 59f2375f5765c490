/**
 * Cron never lands on the sandbox by accident (issue 26, point 2): off a terminal, with no
 * profile and no --sandbox, commands that reach a platform exit 2 before making anything;
 * `doctor` says so with a non-zero exit; cleanups of two platforms run side by side, and a held
 * cleanup lock names the profile and the address.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

const bin = join(__dirname, '..', '..', 'bin', 'subctl.js');

/** The built CLI under `env -i`-like conditions: only the variables given, stdin not a terminal. */
function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('off a terminal with no platform configured', () => {
  it('`cleanup --yes -q` under env -i with a wrong HOME: exit 2, the two ways out, nothing created in the home directory', async () => {
    const home = tempDir('subctl-wrong-home-');
    const r = await run(['cleanup', '--yes', '-q'], { PATH: '/usr/bin:/bin', HOME: home });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: no platform configured: no profile in ${join(home, '.config', 'subctl')} points at one`);
    expect(r.stderr).toContain('or pass --sandbox to run on the local sandbox');
    expect(r.stderr).not.toContain('[sandbox]');
    expect(readdirSync(home)).toEqual([]);
  });

  it('a list command in process: exit 2, no request; with --sandbox it runs', async () => {
    const dir = tempDir('subctl-nocfg-');
    const r = await runCli('services list -o json', { env: { SUBCTL_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no platform configured');
    expect(existsSync(join(dir, 'data'))).toBe(false);
    const sb = await runCli('--sandbox services list -o json', { env: { SUBCTL_CONFIG_DIR: dir } });
    expect(sb.code).toBe(0);
    expect(JSON.parse(sb.stdout).length).toBeGreaterThan(0);
  });

  it("on a terminal the embedded sandbox stays the newcomer's default, said on stderr", async () => {
    const r = await runCli('services list -o json', { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('[sandbox] no profile points at a platform');
  });

  it('doctor with no platform configured: exit 2, the base-url check fails naming the fix, no sandbox started', async () => {
    const dir = tempDir('subctl-nocfg-');
    const r = await runCli('doctor -o json', { env: { SUBCTL_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    const base = (JSON.parse(r.stdout) as Array<{ check: string; status: string; detail: string; fix: string }>).find(
      (c) => c.check === 'base-url',
    )!;
    expect(base.status).toBe('fail');
    expect(base.detail).toContain('no platform configured');
    expect(base.fix).toContain('--sandbox');
    expect(existsSync(join(dir, 'data'))).toBe(false);
    const onTty = await runCli('doctor', { env: { SUBCTL_CONFIG_DIR: dir }, tty: true });
    expect(onTty.code).toBe(2);
  });
});

describe('cleanup locks belong to a platform', () => {
  let a: StubServer;
  let b: StubServer;
  beforeAll(async () => {
    const slow = () => ({ ...ok({ cleanup_summary: { expired_subscriptions: 1 } }), delayMs: 1500 });
    a = await startStubServer(slow);
    b = await startStubServer(slow);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('two cleanups on two platforms at once both run; a second on the same one is refused naming the profile and address', async () => {
    const dir = tempDir('subctl-locks-');
    const env = (url: string) => ({ PATH: '/usr/bin:/bin', HOME: dir, SUBCTL_CONFIG_DIR: dir, SUBCTL_BASE_URL: url, SUBCTL_TOKEN: 't' });
    const [ra, rb, again] = await Promise.all([
      run(['cleanup', '--yes', '-q'], env(a.url)),
      run(['cleanup', '--yes', '-q'], env(b.url)),
      // Started after the first has taken its lock (the stub holds each answer 1.5 s).
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const wait = setInterval(() => {
          if (a.requests.length > 0) {
            clearInterval(wait);
            void run(['cleanup', '--yes', '-q'], env(a.url)).then(resolve);
          }
        }, 20);
      }),
    ]);
    expect([ra.code, rb.code], ra.stderr + rb.stderr).toEqual([0, 0]);
    expect(a.requests.filter((q) => q.path === '/admin/maintenance/cleanup-subscription-data')).toHaveLength(1);
    expect(b.requests.filter((q) => q.path === '/admin/maintenance/cleanup-subscription-data')).toHaveLength(1);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain(`error: another subctl cleanup of profile "default" on ${a.url} is running (pid `);
  });
});

describe('cleanup that times out', () => {
  it('says the cleanup may have run, and how to check', async () => {
    const s = await startStubServer(() => ({ ...ok({}), delayMs: 3000 }));
    try {
      const r = await runCli('cleanup --yes --timeout 300', { env: { SUBCTL_BASE_URL: s.url, SUBCTL_TOKEN: 't' } });
      expect(r.code).toBe(7);
      expect(r.stderr).toContain('timed out after 300 ms: the cleanup may have run on the platform all the same');
      expect(r.stderr).toContain(
        '`subctl cleanup --dry-run` counts what is left, and `subctl audit list --module maintenance --action cleanup` shows the runs',
      );
    } finally {
      await s.close();
    }
  });
});
