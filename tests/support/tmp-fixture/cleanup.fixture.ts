/**
 * Makes temporary files every way the suite does (tempDir, a config directory and a CLI run, a
 * sandbox's data files, a private copy of the build, a support module loaded again after
 * vi.resetModules) and records their paths in $FIXTURE_OUT.
 * tests/support/tmp.test.ts runs this file in a child Vitest and checks that none of them is
 * left once it ends.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { copyOfBuild } from '../../chaos/binary.js';
import { runCli, tempConfigDir } from '../run-cli.js';
import { call, closeAllTestSandboxes, startTestSandbox, tempDataFile } from '../sandbox.js';
import { tempDir } from '../tmp.js';

const made: string[] = [];

afterAll(async () => {
  await closeAllTestSandboxes();
  // The file's own after-hooks run before tempDir's: everything is still there.
  const missing = made.filter((p) => !existsSync(p));
  writeFileSync(process.env.FIXTURE_OUT!, JSON.stringify({ made, missing }));
});

it('makes temporary directories the ways the suite does', async () => {
  const d = tempDir('fixture-');
  mkdirSync(join(d, 'sub'));
  writeFileSync(join(d, 'sub', 'f.txt'), 'x');
  made.push(d);

  const cfg = tempConfigDir();
  const r = await runCli('config set base-url https://api.example.com --profile prod', { env: { SUBCTL_CONFIG_DIR: cfg } });
  expect(existsSync(join(cfg, 'config.json'))).toBe(true);
  expect(r.code).toBe(0);
  made.push(cfg);

  const sb = await startTestSandbox();
  expect((await call(sb, 'GET', '/admin/services', { as: 'admin' })).status).toBe(200);
  made.push(dirname(tempDataFile()));

  made.push(await copyOfBuild());
});

it('a support module imported again after vi.resetModules, inside a test', async () => {
  vi.resetModules();
  const again = await import('../sandbox.js');
  const sb = await again.startTestSandbox();
  await sb.close();
  made.push(dirname(again.tempDataFile()));
});
