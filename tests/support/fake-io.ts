/**
 * An IO with in-memory streams, for driving printers and whole commands in process:
 *
 *   const io = fakeIO({ tty: true, columns: 60 });
 *   await printList(rows, { format: 'table', io });
 *   expect(io.out()).toBe('id  name\n1   Alpha\n');
 *
 * The environment is only what the test passes (not the runner's), so NO_COLOR or FORCE_COLOR
 * set around the test run cannot change the bytes asserted.
 */
import { PassThrough, Readable } from 'node:stream';
import type { IO } from '../../src/io.js';

export interface FakeIOOptions {
  /** stdout is a terminal (and, unless said otherwise, stdin and stderr too). Default false. */
  tty?: boolean;
  stdinTTY?: boolean;
  stderrTTY?: boolean;
  /** Terminal width; 80 by default on a terminal, undefined off one. */
  columns?: number;
  env?: NodeJS.ProcessEnv;
  /** What stdin holds (then it ends). Default: empty. */
  stdin?: string | Buffer;
}

export interface FakeIO extends IO {
  stdout: PassThrough;
  stderr: PassThrough;
  /** Everything written to stdout so far, as UTF-8. */
  out(): string;
  /** Everything written to stderr so far, as UTF-8. */
  err(): string;
  /** stdout's raw bytes. */
  outBytes(): Buffer;
}

function collector(): { stream: PassThrough; text: () => string; bytes: () => Buffer } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer | string) => chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c)));
  return { stream, bytes: () => Buffer.concat(chunks), text: () => Buffer.concat(chunks).toString('utf8') };
}

export function fakeIO(opts: FakeIOOptions = {}): FakeIO {
  const tty = opts.tty ?? false;
  const out = collector();
  const err = collector();
  const stdin = Readable.from(opts.stdin === undefined ? [] : [Buffer.from(opts.stdin)]);
  return {
    stdin,
    stdout: out.stream,
    stderr: err.stream,
    stdinIsTTY: opts.stdinTTY ?? tty,
    stdoutIsTTY: tty,
    stderrIsTTY: opts.stderrTTY ?? tty,
    columns: opts.columns ?? (tty ? 80 : undefined),
    env: { ...(opts.env ?? {}) },
    out: out.text,
    err: err.text,
    outBytes: out.bytes,
  };
}
