/**
 * Writing to stdout when the reader may go away (`subctl wallet list --all -o csv | head -1`)
 * and may be slower than us (backpressure).
 */

export interface PipeGuard {
  /** The reader went away (EPIPE) or the stream can no longer be written: stop producing output. */
  closed(): boolean;
  /** A write error other than a closed pipe (EBADF, ENOSPC ...), kept for the printer to rethrow. */
  error(): Error | undefined;
}

/** Error codes that mean "nobody is reading any more": end quietly, like `cat` or `gh`. */
const READER_GONE = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

type Stream = NodeJS.WritableStream & {
  destroyed?: boolean;
  writableEnded?: boolean;
  writableNeedDrain?: boolean;
  errored?: NodeJS.ErrnoException | null;
};

function readerGone(err: NodeJS.ErrnoException | null | undefined): boolean {
  return READER_GONE.has(String(err?.code));
}

const guards = new WeakMap<object, PipeGuard>();

/**
 * Ends quietly when the reader goes away: installs (once per stream) an 'error' handler that
 * swallows EPIPE and sets the flag `closed()` reports, so printList stops pulling rows and
 * returns. Other write errors are kept in `error()` rather than crashing the process.
 */
export function guardPipe(stream: NodeJS.WritableStream): PipeGuard {
  const known = guards.get(stream);
  if (known) return known;
  const s = stream as Stream;
  let gone = false;
  let failure: Error | undefined;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (readerGone(err)) gone = true;
    else failure ??= err;
  });
  const guard: PipeGuard = {
    // A failed write marks the stream (`errored`, `destroyed`) at once; 'error' is emitted a tick
    // later, and a loop that never leaves the microtask queue would not see it before the end.
    closed: () => gone || failure !== undefined || s.destroyed === true || s.writableEnded === true || (s.errored ?? null) !== null,
    error: () => failure ?? (s.errored && !readerGone(s.errored) ? s.errored : undefined),
  };
  guards.set(stream, guard);
  return guard;
}

/** Resolves when `stream` may take more data: at once if it is not full, else on 'drain', 'close' or 'error'. */
export function drained(stream: NodeJS.WritableStream, guard: PipeGuard): Promise<void> {
  const s = stream as Stream;
  if (!s.writableNeedDrain || guard.closed()) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}

/** Writes `text` unless the reader is gone, then waits for room. */
export async function writeText(stream: NodeJS.WritableStream, guard: PipeGuard, text: string): Promise<void> {
  if (text === '' || guard.closed()) return;
  stream.write(text);
  await drained(stream, guard);
}
