/**
 * `subctl version`: what is running, as text and as JSON for scripts; the built binary carries
 * the commit and build date the build stamped (tsup.config.ts), `--version` stays one line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../src/api/contract/index.js';
import { version } from '../../package.json';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/subctl.js');

function runBin(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: tempDir('subctl-home-'), SUBCTL_CONFIG_DIR: tempDir('subctl-cfg-') },
  });
}

describe('subctl version', () => {
  it('-o json: version, commit, build date, Node, platform and the endpoint count', async () => {
    const r = await runCli('version -o json');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const v = JSON.parse(r.stdout);
    expect(Object.keys(v)).toEqual(['version', 'commit', 'build_date', 'node', 'platform', 'endpoints']);
    expect(v.version).toBe(version);
    expect(v.node).toBe(process.version);
    expect(v.platform).toBe(`${process.platform}-${process.arch}`);
    expect(v.endpoints).toBe(endpoints.length);
    expect(v.endpoints).toBeGreaterThan(90);
    // Run from source, nothing stamped them.
    expect(v.commit).toBe('unknown');
    expect(v.build_date).toBe('unknown');
  });

  it('the built binary says the commit it was built from and when', () => {
    expect(existsSync(join(root, 'dist/subctl.cjs')), 'dist/ is missing: run `npm run build`').toBe(true);
    const r = runBin(['version', '-o', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout);
    const head = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8' });
    if (head.status === 0) expect(v.commit).toMatch(/^[0-9a-f]{12}$/);
    expect(v.build_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Date.parse(v.build_date)).toBeLessThanOrEqual(Date.now());
    const text = runBin(['version']);
    expect(text.stdout).toContain(`version\t${version}\n`);
    expect(text.stdout).toContain(`commit\t${v.commit}\n`);
  });

  it('--version stays one line', () => {
    const r = runBin(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });

  it('takes no arguments', async () => {
    const r = await runCli('version extra');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});
