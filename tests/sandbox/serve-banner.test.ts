/**
 * `sandbox serve` prints its address, the seeded accounts and a command to try: that command,
 * run as printed (with `subctl` this build), signs in and lists services, and keeps the
 * password out of every process's argv (it travels on stdin).
 */
import { spawn } from 'node:child_process';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binary } from '../chaos/binary.js';
import { tempDir } from '../support/tmp.js';

describe('sandbox serve', () => {
  it("the command it suggests works as printed, and has no password in any program's arguments", async () => {
    const bin = await binary();
    const cfg = tempDir('subctl-serve-');
    const env = { PATH: process.env.PATH, HOME: cfg, SUBCTL_CONFIG_DIR: join(cfg, 'cfg') };
    const server = spawn(process.execPath, [bin, 'sandbox', 'serve', '--port', '0', '--data', join(cfg, 'serve.db')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const tried = await new Promise<string>((resolve, reject) => {
      server.stderr.on('data', (d) => {
        stderr += d;
        const m = /^try: (.*)$/m.exec(stderr);
        if (m) resolve(m[1]);
      });
      server.on('exit', (c) => reject(new Error(`serve exited ${c}: ${stderr}`)));
    });
    try {
      // The password appears only as the argument of printf, the shell's own (no process).
      const words = tried.split(/\s+/);
      expect(words.filter((w) => w.includes('sandbox-admin'))).toEqual(['sandbox-admin']);
      expect(words[words.indexOf('sandbox-admin') - 2]).toBe('printf');
      const shell = `subctl() { "${process.execPath}" "${bin}" "$@"; }; ${tried}`;
      const r = await new Promise<{ code: number | null; out: string; err: string }>((done) => {
        const c = spawn('bash', ['-c', shell], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        c.stdout.on('data', (d) => (out += d));
        c.stderr.on('data', (d) => (err += d));
        c.on('exit', (code) => done({ code, out, err }));
      });
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/signed in as admin \(admin\) on profile 'local'/);
      expect(r.out).toContain('GPT4');
    } finally {
      server.kill('SIGINT');
    }
  }, 60_000);

  it('a data file named with --data that others can read is said (it holds live tokens); its mode is left to its owner', async () => {
    const bin = await binary();
    const cfg = tempDir('subctl-serve-');
    const env = { PATH: process.env.PATH, HOME: cfg, SUBCTL_CONFIG_DIR: join(cfg, 'cfg') };
    const data = join(cfg, 'shared.db');
    writeFileSync(data, '');
    chmodSync(data, 0o644);
    const server = spawn(process.execPath, [bin, 'sandbox', 'serve', '--port', '0', '--data', data], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    try {
      await new Promise<void>((resolve, reject) => {
        server.stderr.on('data', (d) => {
          stderr += d;
          if (/^try: /m.test(stderr)) resolve();
        });
        server.on('exit', (c) => reject(new Error(`serve exited ${c}: ${stderr}`)));
      });
      expect(stderr).toContain(`warning: ${data} can be read by others (mode 0644), and it holds live sign-in tokens: chmod 600 ${data}`);
      expect(statSync(data).mode & 0o777).toBe(0o644);
    } finally {
      server.kill('SIGINT');
    }
  }, 60_000);
});
