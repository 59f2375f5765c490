import { defineConfig } from 'tsup';

// One ESM bundle with code splitting: dist/main.js stays tiny (it answers --version on its
// own) and loads the command tree, the sandbox and the Ink screens as separate chunks on demand.
// Pure-JS dependencies are bundled (one file parses much faster than hundreds); native addons
// and the Ink/React stack stay external.
export default defineConfig({
  // sandbox-bench: the sandbox server alone, for bench/ (a child process serves it under load).
  entry: { main: 'src/main.ts', 'sandbox-bench': 'src/sandbox/server.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  splitting: true,
  sourcemap: true,
  clean: true,
  noExternal: [/^commander$/, /^zod/, /^undici/, /^cli-table3$/, /^csv-stringify/, /^csv-parse/],
  external: ['better-sqlite3', '@napi-rs/keyring', 'ink', 'react', '@inkjs/ui', 'ink-testing-library'],
  banner: {
    js: "import { createRequire as __subctlCreateRequire } from 'node:module'; const require = __subctlCreateRequire(import.meta.url);",
  },
});
