/**
 * The context's prompts: a yes/no confirmation, a plain line and a masked secret, each on a
 * terminal only (off one they refuse, naming the flag that replaces them).
 */
import { InterruptedError, RefusedError, UsageError } from '../api/errors.js';
import { builtin } from '../builtin.js';
import type { IO } from '../io.js';

/** Whether prompting is allowed: stdin and stdout are terminals, --no-input is not set, TERM is not dumb. */
export function mayPrompt(io: IO, noInput: boolean | undefined): boolean {
  return io.stdinIsTTY && io.stdoutIsTTY && !noInput && io.env.TERM !== 'dumb';
}

/** Asks `what` with the target named by `where`; refuses off a terminal (--yes confirms instead). */
export async function confirmOnTerminal(
  what: string,
  where: string,
  interactive: boolean,
  promptLine: (label: string) => Promise<string>,
): Promise<void> {
  if (!interactive) {
    throw new RefusedError(
      `--yes required when not running interactively (${what})`,
      'add --yes to confirm, after checking the profile and the target',
    );
  }
  const answer = await promptLine(`${what}\n  profile: ${where}\nProceed? [y/N] `);
  if (!/^y(es)?$/i.test(answer.trim())) throw new RefusedError('cancelled: nothing was changed');
}

/** Reads a plain line from a terminal prompt (the caller checked that one may prompt). */
export async function readLine(io: IO, label: string, signal: AbortSignal): Promise<string> {
  // node:readline is loaded for a prompt, not by every command.
  const { createInterface } = builtin('node:readline');
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(new InterruptedError());
      signal.addEventListener('abort', onAbort, { once: true });
      // Ctrl-C at the prompt: the terminal is raw, so readline sees it, not the process; with
      // no listener here readline only pauses, and the command would hang until a second Ctrl-C.
      rl.once('SIGINT', () => {
        signal.removeEventListener('abort', onAbort);
        io.stderr.write('\n');
        reject(new InterruptedError());
      });
      rl.question(label, (a) => {
        signal.removeEventListener('abort', onAbort);
        resolve(a);
      });
    });
  } finally {
    rl.close();
  }
}

/** Refuses a prompt off a terminal, naming the stdin flag that gives the secret instead. */
export function noSecretPrompt(label: string, stdinFlag: string): UsageError {
  return new UsageError(`${label} must come from a terminal prompt or standard input`, { hint: `pipe it in with ${stdinFlag}` });
}

/** A masked prompt: echoes '*' per character, Enter ends, Ctrl-C aborts. */
export async function readMasked(io: IO, label: string, signal: AbortSignal): Promise<string> {
  const stdin = io.stdin as NodeJS.ReadStream;
  io.stderr.write(label);
  const wasRaw = stdin.isRaw;
  stdin.setRawMode?.(true);
  stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onAbort = () => finish(new InterruptedError());
      const onData = (buf: Buffer) => {
        for (const ch of buf.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return finish();
          if (ch === '\u0003') return finish(new InterruptedError());
          if (ch === '\u007f' || ch === '\b') {
            if (value.length) {
              value = value.slice(0, -1);
              io.stderr.write('\b \b');
            }
          } else {
            value += ch;
            io.stderr.write('*');
          }
        }
      };
      function finish(err?: Error) {
        stdin.off('data', onData);
        signal.removeEventListener('abort', onAbort);
        io.stderr.write('\n');
        if (err) reject(err);
        else resolve(value);
      }
      stdin.on('data', onData);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    stdin.setRawMode?.(wasRaw ?? false);
    stdin.pause();
  }
}
