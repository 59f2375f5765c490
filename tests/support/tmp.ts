/**
 * Temporary directories for tests, removed after the test file's last test.
 *
 * Every test (and every support module) makes its temporary directories here, never with
 * `mkdtempSync(tmpdir())` directly: `tests/support/tmp.test.ts` holds the suite to that.
 * `process.once('exit')` never runs in a Vitest worker that is stopped, so a run would otherwise
 * leave its data files, config directories and copies of the build behind, and a CI machine
 * with little free disk would fail with ENOSPC. The global setup
 * (`tests/support/global-setup.ts`) also points TMPDIR at one directory per run and removes it,
 * so that whatever a child process makes in its temporary directory goes too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';

interface FileDirs {
  made: string[];
  /** Whether an `afterAll` removes them: the module was first loaded while the file was collected. */
  hooked: boolean;
}

// Per test file, and shared by every instance of this module in the process: a test that resets
// the module registry (vi.resetModules) and imports a support module again gets a new instance,
// whose directories the first instance's hook must still remove.
const key = Symbol.for('subctl.tests.tempDirs');
const files: Map<string, FileDirs> = ((globalThis as Record<symbol, unknown>)[key] as Map<string, FileDirs> | undefined) ?? new Map();
(globalThis as Record<symbol, unknown>)[key] = files;
const file = expect.getState().testPath ?? '';
let dirs = files.get(file);
if (!dirs) files.set(file, (dirs = { made: [], hooked: false }));
// A hook registered while a test runs would never run, so only a load during collection hooks.
if (!dirs.hooked && expect.getState().currentTestName === undefined) {
  afterAll(removeTempDirs);
  dirs.hooked = true;
}

/**
 * A new, empty directory `<tmpdir>/<prefix>XXXXXX`, removed with everything in it after the last
 * test of the file that made it (after the file's own `afterAll` hooks, which run first: Vitest
 * runs after-hooks in reverse order and this one is registered when the module loads).
 */
export function tempDir(prefix = 'subctl-test-'): string {
  if (!dirs!.hooked) {
    throw new Error(
      `tempDir: tests/support/tmp.ts was first loaded inside a test of ${file}, so nothing would remove the directory; import it (or the support module that uses it) at the top of the file`,
    );
  }
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs!.made.push(d);
  return d;
}

/** Removes every directory `tempDir` made so far in this file (what the `afterAll` runs). */
export function removeTempDirs(): void {
  for (const d of dirs!.made.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 3 });
}
