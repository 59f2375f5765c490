/**
 * The real binary, for tests that drive it as a child process: a private copy of `bin/` and
 * `dist/` (taken once per test file) so that a rebuild of `dist/` running meanwhile (tsup
 * empties it first) cannot make a child fail to load its chunks, which would look like a crash.
 * `run()` spawns asynchronously: an in-process server (a sandbox, a stub) keeps serving.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../support/tmp.js';

export const root = resolve(__dirname, '../..');

function listing(dir: string): string {
  return readdirSync(dir)
    .filter((f) => !f.endsWith('.map'))
    .map((f) => `${f}:${statSync(join(dir, f)).size}`)
    .sort()
    .join('\n');
}

let snapshot: string | undefined;

/** Path of a `subctl.js` launcher over a consistent copy of the build, shared by the file. */
export async function binary(): Promise<string> {
  snapshot ??= join(await copyOfBuild(), 'bin', 'subctl.js');
  return snapshot;
}

/**
 * A new private copy of the package (`bin/`, `dist/` without source maps, package.json, a link
 * to node_modules), taken while no rebuild is changing `dist/`; its directory, which the caller
 * may change (the code-cache tests replace the cache in theirs).
 */
export async function copyOfBuild(): Promise<string> {
  const dist = join(root, 'dist');
  const work = tempDir('subctl-bin-');
  for (let attempt = 1; ; attempt++) {
    try {
      if (!existsSync(join(dist, 'subctl.cjs.cache'))) throw new Error('dist/subctl.cjs.cache is missing: run npm run build');
      const before = listing(dist);
      rmSync(join(work, 'app'), { recursive: true, force: true });
      mkdirSync(join(work, 'app'));
      cpSync(dist, join(work, 'app', 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
      if (listing(dist) !== before || listing(join(work, 'app', 'dist')) !== before) throw new Error('dist/ changed while it was copied');
      cpSync(join(root, 'bin'), join(work, 'app', 'bin'), { recursive: true });
      cpSync(join(root, 'package.json'), join(work, 'app', 'package.json'));
      symlinkSync(join(root, 'node_modules'), join(work, 'app', 'node_modules'), 'dir');
      return join(work, 'app');
    } catch (e) {
      if (attempt >= 20) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

export interface ChildResult {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the binary with `env` (nothing inherited); `stdin` is written then closed. `stdout`: a
 * file descriptor to write to instead of a pipe (`/dev/full`); `limitKb`: under `ulimit -f`, so
 * the files it writes stop at that size as on a full disk (a short write, then EFBIG).
 */
export async function run(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { stdin?: string; stdout?: number; limitKb?: number } = {},
): Promise<ChildResult> {
  const bin = await binary();
  return new Promise((done) => {
    const child =
      opts.limitKb === undefined
        ? spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', opts.stdout ?? 'pipe', 'pipe'] })
        : spawn('bash', ['-c', `ulimit -f ${opts.limitKb} && exec "$0" "$@"`, process.execPath, bin, ...args], {
            env,
            stdio: ['pipe', opts.stdout ?? 'pipe', 'pipe'],
          });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdin!.on('error', () => {});
    child.stdin!.end(opts.stdin ?? '');
    child.on('close', (code, signal) => done({ args, code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr }));
  });
}

/** A crash: exit 1, death by a signal, or a stack trace on stderr. */
export function crashed(r: ChildResult): boolean {
  return r.code === 1 || r.code === null || /^\s+at .+/m.test(r.stderr);
}

/** Exit codes of the command-line specification (src/api/errors.ts). */
export const DOCUMENTED_EXITS = new Set([0, 2, 3, 4, 5, 6, 7, 8, 130]);
