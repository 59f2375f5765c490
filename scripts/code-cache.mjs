// After tsup: makes dist/subctl.cjs pure ASCII and writes its V8 code cache,
// dist/subctl.cjs.cache, which bin/subctl.js hands to vm.Script.
//
// The cache holds the bytecode of every function compiled while it was made, so it is trained:
// a few common commands run one after another against an embedded sandbox in a throw-away
// directory, each starting from the cache the previous one wrote and adding what it compiled.
// Node checks a cache against its own version and V8 flags and ignores one that does not match,
// so a stale or foreign cache only costs the time it saves.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist/subctl.cjs');
const cache = `${bundle}.cache`;

// esbuild escapes non-ASCII text in strings but leaves a few comments as they were. \uXXXX is
// the same character in a string, a template, a regular expression or an identifier, and
// harmless in a comment; the launcher then reads the file as latin1 (one byte, one character).
const text = readFileSync(bundle, 'utf8');
const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
if (ascii !== text) writeFileSync(bundle, ascii);

const work = mkdtempSync(join(tmpdir(), 'subctl-code-cache-'));
try {
  const csv = join(work, 'rows.csv');
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    SUBCTL_CONFIG_DIR: join(work, 'config'),
  };
  const training = [
    ['--help'],
    ['--sandbox', 'services', 'list', '-o', 'json'],
    ['--sandbox', 'services', 'list'],
    ['--sandbox', 'subscriptions', 'list', '--status', 'active', '--page-size', '3', '-o', 'json'],
    ['--sandbox', 'subscriptions', 'manage', '--from-csv', csv, '--concurrency', '4', '--extend-days', '1', '--yes'],
    ['--sandbox', 'wallet', 'list', '--all', '-o', 'csv', '--limit', '300'],
  ];
  let previous = join(work, 'none');
  training.forEach((args, i) => {
    const out = join(work, `cache-${i}`);
    const r = spawnSync(process.execPath, [join(root, 'bin/subctl.js'), ...args], {
      env: { ...env, SUBCTL_CODE_CACHE_IN: previous, SUBCTL_CODE_CACHE_OUT: out },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`code cache: subctl ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    // The bulk step extends the three active subscriptions the list step printed.
    if (args.includes('subscriptions') && args.includes('list')) {
      const ids = JSON.parse(r.stdout).map((s) => s.subscription_id);
      writeFileSync(csv, `id,action,reason\n${ids.map((id) => `${id},extend,code cache`).join('\n')}\n`);
    }
    previous = out;
  });
  renameSync(previous, cache);
} finally {
  rmSync(work, { recursive: true, force: true });
}
