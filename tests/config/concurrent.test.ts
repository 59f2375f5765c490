/**
 * Several subctl processes changing the config at once (parallel provisioning, overlapping cron
 * jobs): every change lands. Each read-modify-write of config.json or credentials.json holds
 * the config directory's lock; without it, six parallel logins of six profiles left four
 * tokens, and two profiles without their base address. The real binary.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { run } from '../chaos/binary.js';
import { startTestSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

describe('parallel changes of the config', () => {
  it('eight `config set` of eight profiles at once: eight profiles, each with its address; no lock left', async () => {
    const cfg = tempDir('subctl-cfg-');
    const env = { PATH: process.env.PATH, HOME: tempDir('subctl-home-'), SUBCTL_CONFIG_DIR: cfg };
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) => run(['config', 'set', 'base-url', `https://p${i}.example.com`, '--profile', `p${i}`], env)),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const profiles = JSON.parse(readFileSync(join(cfg, 'config.json'), 'utf8')).profiles as Record<string, { base_url?: string }>;
    expect(Object.keys(profiles).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `p${i}`));
    for (let i = 0; i < 8; i++) expect(profiles[`p${i}`].base_url).toBe(`https://p${i}.example.com`);
    expect(readdirSync(cfg).filter((f) => f.includes('lock'))).toEqual([]);
  });

  it('six `auth login` of six profiles at once: six tokens stored, and each profile signed in and usable', async () => {
    const cfg = tempDir('subctl-cfg-');
    const env = { PATH: process.env.PATH, HOME: tempDir('subctl-home-'), SUBCTL_CONFIG_DIR: cfg };
    const users = ['superadmin', 'admin', 'manager', 'support', 'agent', 'enduser'];
    const logins = await Promise.all(
      users.map((u) =>
        run(['auth', 'login', '--base-url', sb.url, '--username', u, '--password-stdin', '--profile', `pr-${u}`], env, {
          stdin: `sandbox-${u}\n`,
        }),
      ),
    );
    for (const r of logins) expect(r.code, r.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(join(cfg, 'credentials.json'), 'utf8')).profiles as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(users.map((u) => `pr-${u}`).sort());
    const status = await Promise.all(users.map((u) => run(['auth', 'status', '--profile', `pr-${u}`, '-o', 'json'], env)));
    for (const [i, r] of status.entries()) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(users[i]);
    }
  });
});
