import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles: ['tests/support/zod-setup.ts'],
    globalSetup: ['tests/support/global-setup.ts'],
    reporters: ['default'],
  },
});
