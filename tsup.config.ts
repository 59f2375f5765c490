import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'tsup';

type Build = {
  onResolve: (
    o: { filter: RegExp },
    cb: (a: { path: string; importer: string; kind: string }) => { path: string; external?: boolean; namespace?: string } | undefined,
  ) => void;
  onLoad: (o: { filter: RegExp; namespace?: string }, cb: (a: { path: string }) => { contents: string; loader: 'js' }) => void;
};

/** Start-up: keep modules the CLI never uses out of every command's start (see build/*.cjs). */
const trimStartup = {
  name: 'trim-startup',
  setup(build: Build) {
    build.onResolve({ filter: /client-h2(\.js)?$/ }, (a) =>
      a.importer.includes('undici') ? { path: resolve('build/stub-h2.cjs') } : undefined,
    );
    // Builtins are marked external before plugins see them, so Commander's source is edited instead.
    build.onLoad({ filter: /node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (a) => ({
      contents: readFileSync(a.path, 'utf8').replace(
        "require('node:child_process')",
        `require(${JSON.stringify(resolve('build/lazy-child-process.cjs'))})`,
      ),
      loader: 'js',
    }));
  },
};

/**
 * undici (a large part of the bundle) serves bulk runs, exports and proxies only; every other
 * command would read it for nothing (reading the file and the code cache V8 checks against it
 * cost each start time). The undici transport and undici itself are their own file,
 * dist/transport-undici.cjs, which the bundle requires when it first needs them.
 */
const undiciApart = {
  name: 'undici-apart',
  setup(build: Build) {
    build.onResolve({ filter: /[\\/]transport-undici(\.js)?$/ }, (a) =>
      a.kind === 'dynamic-import' ? { path: './transport-undici.cjs', external: true } : undefined,
    );
  },
};

/**
 * Ink is an ES module graph with a top-level await (yoga-layout), which `require()` cannot load,
 * and Node 20 loses a script's import() callback when the script comes from a code cache. So in
 * the CommonJS bundle, `loadUi()` (src/ui/load.ts) imports Ink through the launcher's own
 * import() before any screen module runs, and leaves the namespace on globalThis; every import
 * of 'ink' in the bundle, static or dynamic, reads it from there.
 */
const inkFromLoadUi = {
  name: 'ink-from-load-ui',
  setup(build: Build) {
    build.onResolve({ filter: /^ink$/ }, () => ({ path: 'ink', namespace: 'esm-global' }));
    build.onLoad({ filter: /.*/, namespace: 'esm-global' }, (a) => ({
      contents: `const ns = globalThis[Symbol.for('subctl.esm')]?.[${JSON.stringify(a.path)}];
if (!ns) throw new Error(${JSON.stringify(`${a.path} is loaded by loadUi() (src/ui/load.ts) before any screen`)});
module.exports = ns;`,
      loader: 'js',
    }));
  },
};

/**
 * What `subctl version` says of the build (src/commands/version/index.ts): the commit, from git
 * where the tree is a checkout, and the build date (SOURCE_DATE_EPOCH for a reproducible build).
 */
function buildStamp(): Record<string, string> {
  let commit = 'unknown';
  try {
    commit =
      execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() ||
      'unknown';
  } catch {
    // Not a git checkout (a tarball, a package): the commit is unknown.
  }
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const date = (Number.isFinite(epoch) && epoch > 0 ? new Date(epoch * 1000) : new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { __SUBCTL_COMMIT__: JSON.stringify(commit), __SUBCTL_BUILD_DATE__: JSON.stringify(date) };
}

/** What the two CommonJS files of the CLI (the bundle and transport-undici.cjs) share. */
const minifiedCjs = {
  format: ['cjs'] as const,
  outExtension: () => ({ js: '.cjs' }),
  target: 'node20',
  platform: 'node' as const,
  splitting: false,
  // import.meta.url only ever feeds createRequire here, which takes a path as well: tsup's
  // shim would build a URL object as the bundle starts, a cost on every command.
  shims: false,
  define: { 'import.meta.url': '__filename', ...buildStamp() },
  // Minified (names too): the file every command reads and the code cache it deserializes are
  // smaller, so `services list` runs fewer instructions. A bug's
  // stack trace is translated back to source positions with the map (src/cli/stack.ts).
  minify: true,
  sourcemap: true,
  clean: false, // package.json's build script empties dist/ first (the builds run at once)
};

export default defineConfig([
  // The CLI: one CommonJS file, because Node 20 keeps a V8 code cache only for scripts, not for
  // ES modules. bin/subctl.js runs it through vm.Script with the cache that scripts/code-cache.mjs
  // writes after the build (dist/subctl.cjs.cache). Modules behind `await import()` are still
  // evaluated only when first imported (esbuild's lazy module wrappers), so a command evaluates
  // only what it uses. Everything pure-JS is bundled; the keyring addon and React stay external,
  // and Ink is reached through loadUi (below).
  {
    ...minifiedCjs,
    entry: { subctl: 'src/main.ts' },
    // better-sqlite3's JavaScript is bundled too; its compiled addon is named outright when a
    // database is opened (src/sandbox/db.ts), so its `bindings` lookup never runs.
    // jq-web loads its jq.wasm from beside its own file (src/output/jq.ts, --jq only).
    noExternal: [/^(?!react($|\/)|@napi-rs\/keyring$|jq-web$)/],
    external: ['@napi-rs/keyring', 'react', 'ink-testing-library', 'jq-web'],
    esbuildPlugins: [trimStartup, inkFromLoadUi, undiciApart],
    // The one external import() (transport-undici.cjs) becomes a require: a script run from a
    // code cache has no import() callback on Node 20.
    esbuildOptions(options) {
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
  },
  // The undici transport with undici, required by the bundle when a run first needs it.
  {
    ...minifiedCjs,
    entry: { 'transport-undici': 'src/api/transport-undici.ts' },
    noExternal: [/./],
    esbuildPlugins: [trimStartup],
  },
  // The sandbox server alone, for bench/ (a child process serves it under load).
  {
    entry: { 'sandbox-bench': 'src/sandbox/server.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    splitting: false,
    sourcemap: true,
    clean: false,
    noExternal: [/^zod/],
    external: ['better-sqlite3'],
    banner: {
      js: "import { createRequire as __subctlCreateRequire } from 'node:module'; const require = __subctlCreateRequire(import.meta.url);",
    },
  },
]);
