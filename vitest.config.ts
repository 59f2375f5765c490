import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One file per core: most files wait on child processes, servers and time-outs, so vitest's
    // default (one core left free) kept a 2-core machine half idle.
    maxWorkers: '100%',
    globalSetup: ['tests/support/global-setup.ts'],
    reporters: ['default'],
  },
});
