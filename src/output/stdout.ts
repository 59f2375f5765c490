/**
 * Where a command's standard output goes on its way out: through `--jq` (kept, then filtered
 * once the command is done), then through a pager on a terminal. Both are decided here, once,
 * for every command; without --jq and off a terminal the command writes to stdout itself and
 * nothing of this is loaded beyond this file.
 */
import { PassThrough } from 'node:stream';
import type { IO } from '../io.js';
import { guardPipe, writeText } from './pipe.js';

export interface StdoutPlan {
  /** `--jq EXPR`. */
  jq?: string;
  /** -o ndjson: jq reads one document a line and prints each result on one line. */
  compact: boolean;
  /** A pager may be used (a terminal, no --no-pager, no --follow, not the console). */
  pager: boolean;
}

export interface StdoutSink {
  /** The IO the command writes to. */
  io: IO;
  /** The command succeeded: filter what it printed, hand it on, let the pager finish. */
  finish(): Promise<void>;
  /** The command failed (or finished): end the pager, dropping what --jq had kept. */
  close(): Promise<void>;
}

const screens = new WeakMap<IO, IO>();

/**
 * The IO an interactive screen (a form drawn by Ink) draws on: the terminal itself, never the
 * pager or the --jq buffer a command's printed output goes through.
 */
export function screenIO(io: IO): IO {
  return screens.get(io) ?? io;
}

export async function stdoutSink(io: IO, plan: StdoutPlan): Promise<StdoutSink> {
  let out: NodeJS.WritableStream = io.stdout;
  let pager: import('./pager.js').PagerStream | undefined;
  if (plan.pager && io.stdoutIsTTY) {
    const { pagerCommand, PagerStream } = await import('./pager.js');
    const cmd = pagerCommand(io.env);
    if (cmd) out = pager = new PagerStream(cmd, io.stdout, io.stderr, io.env);
  }
  let kept: Buffer[] | undefined;
  let commandOut = out;
  if (plan.jq !== undefined) {
    kept = [];
    const capture = new PassThrough();
    capture.on('data', (c: Buffer) => kept!.push(c));
    commandOut = capture;
  }
  const shaped: IO = commandOut === io.stdout ? io : { ...io, stdout: commandOut as IO['stdout'] };
  if (shaped !== io) screens.set(shaped, io);
  const close = async (): Promise<void> => {
    kept = undefined;
    if (pager) {
      const p = pager;
      pager = undefined;
      await p.close();
    }
  };
  return {
    io: shaped,
    close,
    async finish() {
      if (kept && plan.jq !== undefined) {
        const { applyJq } = await import('./jq.js');
        const text = await applyJq(Buffer.concat(kept).toString('utf8'), plan.jq, plan.compact);
        kept = undefined;
        const guard = guardPipe(out);
        await writeText(out, guard, text);
        const failure = guard.error();
        if (failure) throw failure;
      }
      await close();
    },
  };
}
