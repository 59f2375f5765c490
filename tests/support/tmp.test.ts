/**
 * The suite cleans up after itself: what a test run leaves in the temporary directory (data
 * files, config directories, copies of the build) would fill a CI machine with little free disk
 * (ENOSPC).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './tmp.js';

const root = resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|tsx|mjs|cjs|js)$/.test(e.name) ? [p] : [];
  });
}

describe('temporary files of the tests', () => {
  it('tempDir makes a new directory each call; removeTempDirs removes them with their contents', () => {
    const a = tempDir('subctl-tmp-a-');
    const b = tempDir('subctl-tmp-a-');
    expect(a).not.toBe(b);
    mkdirSync(join(a, 'x', 'y'), { recursive: true });
    writeFileSync(join(a, 'x', 'y', 'z.db'), 'data');
    writeFileSync(join(b, 'f'), 'data');
    removeTempDirs();
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(false);
  });

  it('no test or support file makes a temporary directory except through tempDir', () => {
    const offenders = sources(join(root, 'tests'))
      // tmp.ts makes them; global-setup.ts makes the run's own TMPDIR.
      .filter((f) => !f.endsWith(join('support', 'tmp.ts')) && !f.endsWith(join('support', 'global-setup.ts')))
      .filter((f) => /mkdtemp(Sync)?\(\s*(path\.)?join\(\s*(os\.)?tmpdir\(\)/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });

  it('after a test file ends, nothing it made is left: tempDir, config directories, sandbox data files, copies of the build, modules loaded again', () => {
    const work = tempDir('subctl-tmp-guard-');
    const childTmp = join(work, 'tmp');
    mkdirSync(childTmp);
    const out = join(work, 'made.json');
    const r = spawnSync(
      process.execPath,
      [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'tests/support/tmp-fixture/vitest.config.ts'],
      {
        cwd: root,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: childTmp, FIXTURE_OUT: out },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const { made, missing } = JSON.parse(readFileSync(out, 'utf8')) as { made: string[]; missing: string[] };
    expect(made.length).toBe(5);
    expect(new Set(made).size).toBe(5);
    expect(missing).toEqual([]);
    for (const p of made) expect(p.startsWith(childTmp + '/')).toBe(true);
    expect(made.filter((p) => existsSync(p))).toEqual([]);
    expect(readdirSync(childTmp)).toEqual([]);
  }, 60_000);
});
