/**
 * A pager for long output on a terminal: `SUBCTL_PAGER`, then `PAGER`, then `less -FRX` (-F
 * leaves at once when the text fits the screen, -R keeps colours, -X leaves the text on the
 * screen). A variable set to '' or `cat` means no pager. The pager starts at the first byte a
 * command prints, so the prompts before it (confirmations, passwords) keep the terminal.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Writable } from 'node:stream';
import type { ChildProcess } from 'node:child_process';

/**
 * The pager's command line, or undefined when none is wanted. The default, less, only where it
 * is installed: text sent to a pager that cannot start would be lost.
 */
export function pagerCommand(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env.SUBCTL_PAGER ?? env.PAGER;
  if (chosen === undefined)
    return (env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, 'less'))) ? 'less -FRX' : undefined;
  const t = chosen.trim();
  return t === '' || t === 'cat' ? undefined : t;
}

/**
 * A stream that feeds a pager started on the first write (through `sh -c`, as git and gh run
 * theirs). The pager writes to `out` (the terminal itself when `out` is this process's stdout).
 * When the user leaves the pager early, writes fail with EPIPE, which the printers read as a
 * reader gone (src/output/pipe.ts): the listing stops quietly.
 */
export class PagerStream extends Writable {
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #failed = false;

  constructor(
    private readonly command: string,
    private readonly out: NodeJS.WritableStream,
    private readonly err: NodeJS.WritableStream,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    super();
  }

  async #start(): Promise<NodeJS.WritableStream | undefined> {
    if (this.#child) return this.#child.stdin ?? undefined;
    const { spawn } = await import('node:child_process');
    const direct = this.out === process.stdout;
    // less reads LESS for its options; -F, -R and -X also when the user's LESS says otherwise.
    const env = { ...this.env, LESS: this.env.LESS ?? 'FRX', LV: this.env.LV ?? '-c' };
    const child = spawn('sh', ['-c', this.command], { stdio: ['pipe', direct ? 'inherit' : 'pipe', direct ? 'inherit' : 'pipe'], env });
    this.#child = child;
    if (!direct) {
      child.stdout?.pipe(this.out as Writable, { end: false });
      child.stderr?.pipe(this.err as Writable, { end: false });
    }
    this.#exited = new Promise((resolve) => {
      child.on('error', () => {
        this.#failed = true;
        resolve();
      });
      child.on('close', () => resolve());
    });
    // A pager that quit early: the writes after it fail with EPIPE (see _write).
    child.stdin?.on('error', () => {});
    return child.stdin ?? undefined;
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.#start().then(
      (stdin) => {
        if (!stdin || this.#failed || (stdin as Writable).destroyed) {
          const e = new Error('the pager has ended') as NodeJS.ErrnoException;
          e.code = 'EPIPE';
          cb(e);
          return;
        }
        stdin.write(chunk, (e) => {
          if (e) {
            const gone = new Error('the pager has ended') as NodeJS.ErrnoException;
            gone.code = 'EPIPE';
            cb(gone);
          } else cb();
        });
      },
      (e: Error) => cb(e),
    );
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.#child?.stdin?.end();
    cb();
  }

  /**
   * Ends the pager's input once every write has reached it, and waits for the user to leave the
   * pager (at once when nothing was written: no pager was started).
   */
  async close(): Promise<void> {
    if (!this.writableEnded && !this.destroyed) await new Promise<void>((resolve) => this.end(() => resolve()));
    this.#child?.stdin?.end();
    await this.#exited;
  }
}
