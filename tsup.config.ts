import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'tsup';

/** Start-up: keep modules the CLI never uses out of every command's start (see build/*.cjs). */
const trimStartup = {
  name: 'trim-startup',
  setup(build: {
    onResolve: (o: { filter: RegExp }, cb: (a: { path: string; importer: string }) => { path: string } | undefined) => void;
    onLoad: (o: { filter: RegExp }, cb: (a: { path: string }) => { contents: string; loader: 'js' }) => void;
  }) {
    build.onResolve({ filter: /client-h2(\.js)?$/ }, (a) => (a.importer.includes('undici') ? { path: resolve('build/stub-h2.cjs') } : undefined));
    // Builtins are marked external before plugins see them, so Commander's source is edited instead.
    build.onLoad({ filter: /node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (a) => ({
      contents: readFileSync(a.path, 'utf8').replace("require('node:child_process')", `require(${JSON.stringify(resolve('build/lazy-child-process.cjs'))})`),
      loader: 'js',
    }));
  },
};

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
  noExternal: [/^commander$/, /^zod/, /^undici/, /^cli-table3$/],
  external: ['better-sqlite3', '@napi-rs/keyring', 'ink', 'react', '@inkjs/ui', 'ink-testing-library'],
  esbuildPlugins: [trimStartup],
  banner: {
    js: "import { createRequire as __subctlCreateRequire } from 'node:module'; const require = __subctlCreateRequire(import.meta.url);",
  },
});
