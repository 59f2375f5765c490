/**
 * One temporary directory per test run: TMPDIR points into it for the Vitest workers and every
 * process they start (unless a test hands a child an environment without TMPDIR), and it is
 * removed when the run ends, whatever the test files left. Test files clean up after
 * themselves (`tempDir` in `tmp.ts`); anything still here at the end is named on stderr, so a
 * leak shows in the run's output instead of filling the disk of the machine that runs CI.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'subctl-tests-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    let left: string[] = [];
    try {
      left = readdirSync(root);
    } catch {
      // already gone
    }
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (left.length > 0) {
      process.stderr.write(
        `tests: ${left.length} temporary entries outlived their test files (now removed): ${left.slice(0, 8).join(', ')}${left.length > 8 ? ', ...' : ''}\n`,
      );
    }
  };
}
