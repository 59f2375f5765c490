// After tsup: makes dist/subctl.cjs pure ASCII and writes its V8 code caches, which
// bin/subctl.js hands to vm.Script:
//   dist/subctl.cjs.cache          commands against a platform (a profile or --base-url)
//   dist/subctl.cjs.sandbox.cache  commands run with --sandbox, and `subctl sandbox ...`
// Two, because V8 reads a whole cache on every start: the sandbox's server, handlers and SQL
// would cost every remote command their share, and remote commands never run them.
//
// A cache holds the bytecode of every function compiled while it was made, so it is trained: a
// few quick, common commands run one after another, each starting from the cache the previous
// one wrote and adding what it compiled. The remote commands run against a sandbox served from this
// process. Node checks a cache against its own version and V8 flags and ignores one that does
// not match, so a stale or foreign cache only costs the time it saves.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist/subctl.cjs');

// esbuild escapes non-ASCII text in strings but leaves a few comments as they were. \uXXXX is
// the same character in a string, a template, a regular expression or an identifier, and
// harmless in a comment; the launcher then reads the file as latin1 (one byte, one character).
const text = readFileSync(bundle, 'utf8');
const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
if (ascii !== text) writeFileSync(bundle, ascii);

/** Runs the binary without blocking this process (which may be serving the sandbox). */
function subctl(args, env) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/subctl.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolveRun(stdout) : reject(new Error(`code cache: subctl ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

/** The training of one cache: `commands` in order, each adding to what the previous wrote. */
async function train(out, commands, env, work) {
  let previous = join(work, 'none');
  let i = 0;
  for (const args of commands) {
    const next = join(work, `cache-${i++}`);
    await subctl(args, { ...env, SUBCTL_CODE_CACHE_IN: previous, SUBCTL_CODE_CACHE_OUT: next });
    previous = next;
  }
  renameSync(previous, out);
}

const work = mkdtempSync(join(tmpdir(), 'subctl-code-cache-'));
const { startSandbox } = await import(pathToFileURL(join(root, 'dist/sandbox-bench.js')).href);
const sb = await startSandbox({ dataFile: join(work, 'served.db'), port: 0, quiet: true });
try {
  const env = { PATH: process.env.PATH, HOME: work, SUBCTL_CONFIG_DIR: join(work, 'config') };
  // Quick commands, where start-up is most of the time a user waits: lists, a detail, help.
  // Long runs (bulk input, --all exports) compile what they need themselves, which is nothing
  // beside their run time, and left out they keep the cache that every command reads small.
  const everyday = [
    ['services', 'list', '-o', 'json'],
    ['services', 'list'],
    ['services', 'get', 'GPT4', '-o', 'json'],
    ['subscriptions', 'list', '--status', 'active', '--page-size', '3'],
  ];
  await train(`${bundle}.cache`, [['--help'], ...everyday], { ...env, SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor('admin') }, work);
  // The embedded sandbox's data file is seeded first, by a run that writes no cache: seeding
  // happens once per machine, and its code, compiled into the cache, would be read back by
  // every start after it.
  await subctl(['--sandbox', 'services', 'list', '-o', 'json'], { ...env, SUBCTL_NO_CODE_CACHE: '1' });
  await train(
    `${bundle}.sandbox.cache`,
    everyday.map((args) => ['--sandbox', ...args]),
    env,
    work,
  );
} finally {
  await sb.close();
  rmSync(work, { recursive: true, force: true });
}
