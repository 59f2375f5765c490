/**
 * A small TypeScript script over the project's sources, bundled to CommonJS so that a plain
 * `node` child process runs it (a process of its own: a collection, a crash, a second writer),
 * and its run with stdout, stderr and how it ended.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

/** Writes `source` into `dir` and bundles it (better-sqlite3 left to the project's node_modules); the bundle's path. */
export async function bundleChild(dir: string, source: string): Promise<string> {
  const entry = join(dir, 'child.ts');
  const child = join(dir, 'child.cjs');
  writeFileSync(entry, source);
  const { build } = await import('esbuild');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3'],
    outfile: child,
    logLevel: 'error',
  });
  return child;
}

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** Runs a bundle of `bundleChild` with `args`, to its end. */
export function runChild(child: string, ...args: string[]): Promise<ChildRun> {
  return new Promise((res) => {
    const p = spawn(process.execPath, [child, ...args], { env: { ...process.env, NODE_PATH: join(root, 'node_modules') } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code, signal) => res({ code, signal, out, err }));
  });
}
