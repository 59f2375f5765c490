/**
 * The launcher runs dist/subctl.cjs through vm.Script with the V8 code cache the build wrote
 * (scripts/code-cache.mjs). These tests hold the three things that must be true for that to be
 * both fast and safe: the bundle reads the same as latin1 as as UTF-8, this Node accepts the
 * cache, and a cache V8 cannot use (missing, cut short, foreign) only costs time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyOfBuild } from '../chaos/binary.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bundle = join(root, 'dist/subctl.cjs');

beforeAll(() => {
  if (!existsSync(`${bundle}.cache`)) throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
});

function endpoints(app: string, extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(app, 'bin/subctl.js'), 'api', 'endpoints', '-o', 'json'], {
    env: { PATH: process.env.PATH!, HOME: tempDir('subctl-home-'), SUBCTL_CONFIG_DIR: tempDir('subctl-cfg-'), ...extra },
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr, count: r.status === 0 ? (JSON.parse(r.stdout) as unknown[]).length : 0 };
}

describe('the code cache', () => {
  it('the bundle is pure ASCII, so the launcher may read it as latin1', () => {
    const bytes = readFileSync(bundle);
    expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
  });

  it.each(['subctl.cjs.cache', 'subctl.cjs.sandbox.cache'])('this Node accepts %s, written by the build', (name) => {
    const probe = `
      const { Script } = require('node:vm'); const Module = require('node:module'); const fs = require('node:fs');
      const s = new Script(Module.wrap(fs.readFileSync(${JSON.stringify(bundle)}, 'latin1')), { filename: ${JSON.stringify(bundle)}, cachedData: fs.readFileSync(${JSON.stringify(join(root, 'dist', name))}) });
      process.stdout.write(String(s.cachedDataRejected));`;
    const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('false');
  });

  it('without a cache, or with one V8 cannot use, every command still runs (compiled from source)', async () => {
    const app = await copyOfBuild();
    expect(endpoints(app)).toEqual({ status: 0, stderr: '', count: 95 });
    const cache = join(app, 'dist/subctl.cjs.cache');
    const good = readFileSync(cache);
    // cut short (a torn write), not a cache at all, empty, and a cache of another script
    writeFileSync(cache, good.subarray(0, good.length >> 1));
    expect(endpoints(app)).toEqual({ status: 0, stderr: '', count: 95 });
    writeFileSync(cache, 'not a cache');
    expect(endpoints(app)).toEqual({ status: 0, stderr: '', count: 95 });
    writeFileSync(cache, '');
    expect(endpoints(app)).toEqual({ status: 0, stderr: '', count: 95 });
    const other = spawnSync(process.execPath, [
      '-e',
      "process.stdout.write(new (require('node:vm').Script)('1 + 1').createCachedData())",
    ]).stdout;
    writeFileSync(cache, other);
    expect(endpoints(app)).toEqual({ status: 0, stderr: '', count: 95 });
    rmSync(cache);
    expect(endpoints(app)).toEqual({ status: 0, stderr: '', count: 95 });
  });

  it('SUBCTL_NO_CODE_CACHE=1 compiles from source and leaves the cache unread', async () => {
    const app = await copyOfBuild();
    const cache = join(app, 'dist/subctl.cjs.cache');
    // A cache damaged inside (V8 does not checksum the bytes, so this one would be used).
    const damaged = Buffer.from(readFileSync(cache));
    damaged.fill(0x5a, 64, 4096);
    writeFileSync(cache, damaged);
    expect(endpoints(app, { SUBCTL_NO_CODE_CACHE: '1' })).toEqual({ status: 0, stderr: '', count: 95 });
  });
});
