/**
 * The process's streams and terminal facts, injected so that tests drive the whole CLI in
 * process with fake streams and a chosen TTY-ness.
 */
import type { Readable, Writable } from 'node:stream';

export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** stdin is a terminal (prompts need it). */
  stdinIsTTY: boolean;
  /** stdout is a terminal (tables fitted and coloured, notes about hidden rows). */
  stdoutIsTTY: boolean;
  /** stderr is a terminal (progress bars, spinners). */
  stderrIsTTY: boolean;
  /** Terminal width, when stdout is a terminal. */
  columns?: number;
  env: NodeJS.ProcessEnv;
}

export function processIO(): IO {
  const out = process.stdout as NodeJS.WriteStream;
  const err = process.stderr as NodeJS.WriteStream;
  return {
    // stdin is opened on first use only: making process.stdin builds a stream for the
    // descriptor, which takes time, and most commands never read it.
    get stdin() {
      return process.stdin;
    },
    stdout: out,
    stderr: err,
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    stdoutIsTTY: out.isTTY === true,
    stderrIsTTY: err.isTTY === true,
    columns: out.isTTY ? out.columns : undefined,
    env: process.env,
  };
}

/** Colour decision of clig.dev: --no-color, NO_COLOR, TERM=dumb turn it off; FORCE_COLOR wins. */
export function useColor(io: IO, stream: 'stdout' | 'stderr', noColorFlag = false): boolean {
  const env = io.env;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '')
    return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false' && !noColorFlag;
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
}
