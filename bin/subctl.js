#!/usr/bin/env node
// The launcher: colour rules that must hold before any library reads the environment, then the
// bundle. Nothing heavy is loaded here, and it is CommonJS (bin/package.json): an ES module
// entry point would start Node's ES module loader, a cost that a command never needs.
//
// dist/subctl.cjs is one CommonJS bundle, run through vm.Script with the V8 code cache that the
// build wrote beside it (scripts/code-cache.mjs): Node 20 keeps no compile cache for ES modules,
// and compiling the bundle's start-up code from source costs more than the rest of a command.
// When V8 rejects the cache (another Node version or other V8 flags), the bundle is compiled
// from source as usual.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // A stdout that cannot be written (/dev/full, a full disk) is said and exit 1, not a crash's
  // trace; a reader gone (`| head -0`) ends quietly, as every command does.
  process.stdout.on('error', (e) => {
    if (e.code === 'EPIPE') return;
    process.stderr.write(`error: cannot write to standard output: ${e.message}\n`);
    process.exitCode = 1;
  });
  // Answered from package.json without loading the bundle.
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')).version}\n`);
} else {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '' && process.env.FORCE_COLOR === undefined) {
    process.env.FORCE_COLOR = '0';
  }
  if (args.includes('--no-color') && process.env.FORCE_COLOR === undefined) {
    process.env.FORCE_COLOR = '0';
  }
  const { Script } = require('node:vm');
  // The CommonJS loader's Module (wrap, createRequire) as this file's own module knows it:
  // require('node:module') would also load Node's ES module loader and source-map support
  // that no command uses.
  const Module = module.constructor;
  const dir = join(__dirname, '../dist');
  const file = join(dir, 'subctl.cjs');
  // The build leaves the bundle pure ASCII, so latin1 reads it as exactly the same text, faster.
  const source = readFileSync(file, 'latin1');
  // V8 checks a cache's version, flags, source length and size, and ignores one that does not
  // match; it does not checksum the bytes (a checksum here would slow every command).
  // SUBCTL_NO_CODE_CACHE=1 compiles from source, should a damaged file ever crash it.
  let cachedData;
  if (!process.env.SUBCTL_NO_CODE_CACHE) {
    try {
      // The sandbox's own cache for --sandbox and `subctl sandbox ...` (see scripts/code-cache.mjs).
      const sandbox = args.includes('--sandbox') || args[0] === 'sandbox';
      cachedData = readFileSync(process.env.SUBCTL_CODE_CACHE_IN ?? `${file}${sandbox ? '.sandbox' : ''}.cache`);
    } catch {
      // No cache: compiled from source.
    }
  }
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  // The bundle's one way to load an ES module (Ink, for the interactive screens: src/ui/load.ts).
  globalThis[Symbol.for('subctl.import')] = (specifier) => import(specifier);
  // The build only (scripts/code-cache.mjs): write the cache when this training command ends.
  const cacheOut = process.env.SUBCTL_CODE_CACHE_OUT;
  if (cacheOut) process.once('exit', () => writeFileSync(cacheOut, script.createCachedData()));
  const bundle = { exports: {} };
  script.runInThisContext().call(bundle.exports, bundle.exports, Module.createRequire(file), bundle, file, dir);
  bundle.exports.runProcess();
}
