/**
 * Runs the whole CLI in process with fake streams: `runCli('services list -o json', {...})`
 * resolves to the exit code and the exact bytes written to stdout and stderr.
 */
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/main.js';
import type { IO } from '../../src/io.js';
import { tempDir } from './tmp.js';

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** stdin content (a pipe), or undefined for an empty pipe. */
  stdin?: string | Buffer;
  /** Pretend stdout/stderr/stdin are terminals. */
  tty?: boolean;
  columns?: number;
  signal?: AbortSignal;
  /** Lines typed at prompts when tty is true. */
  answers?: string[];
  /** Called after each write with everything written so far (to stop a command once it has said enough). */
  onOutput?: (stdout: string, stderr: string) => void;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Splits like a shell: quotes group, backslash escapes. */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q: '"' | "'" | null = null;
  let any = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === q) q = null;
      else if (c === '\\' && q === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      q = c;
      any = true;
    } else if (c === '\\' && i + 1 < line.length) cur += line[++i];
    else if (/\s/.test(c)) {
      if (cur || any) out.push(cur);
      cur = '';
      any = false;
    } else cur += c;
  }
  if (cur || any) out.push(cur);
  return out;
}

/** A fresh, empty config directory so no test sees another's profiles. */
export function tempConfigDir(): string {
  return tempDir('subctl-test-');
}

export async function runCli(args: string | string[], opts: RunOptions = {}): Promise<RunResult> {
  const argv = Array.isArray(args) ? args : splitArgs(args);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => {
    out += d.toString();
    opts.onOutput?.(out, err);
  });
  stderr.on('data', (d) => {
    err += d.toString();
    opts.onOutput?.(out, err);
  });
  let stdin: NodeJS.ReadableStream;
  if (opts.tty && opts.answers) {
    const s = new PassThrough();
    // Answer each prompt as it appears on stderr.
    const answers = [...opts.answers];
    stderr.on('data', () => {
      if (answers.length) setImmediate(() => s.write(`${answers.shift()}\n`));
    });
    stdin = s;
  } else {
    stdin = Readable.from(opts.stdin !== undefined ? [Buffer.from(opts.stdin)] : []);
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SUBCTL_CONFIG_DIR: opts.env?.SUBCTL_CONFIG_DIR ?? tempConfigDir(),
    ...opts.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const io: IO = {
    stdin: stdin as IO['stdin'],
    stdout,
    stderr,
    stdinIsTTY: opts.tty === true,
    stdoutIsTTY: opts.tty === true,
    stderrIsTTY: opts.tty === true,
    columns: opts.tty ? (opts.columns ?? 100) : undefined,
    env,
  };
  const code = await main(argv, { io, signal: opts.signal ?? new AbortController().signal });
  await new Promise((r) => setImmediate(r));
  return { code, stdout: out, stderr: err };
}
