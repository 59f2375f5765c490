// Runs only the fixture of tests/support/tmp.test.ts, in a child Vitest, without the suite's
// global setup: the child's TMPDIR is the directory the parent test inspects afterwards.
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: resolve(import.meta.dirname, '../../..'),
  test: {
    include: ['tests/support/tmp-fixture/*.fixture.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['dot'],
  },
});
