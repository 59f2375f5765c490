/**
 * Entry of the bundle. Kept tiny: `--version` answers from here, everything else loads the
 * command tree on demand. `main()` is the only place errors become exit codes (in cli/run.ts).
 */
import { version } from '../package.json';
import type { IO } from './io.js';

export interface MainDeps {
  io: IO;
  /** Aborted on Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  /** Injected HTTP dispatcher (tests). */
  dispatcher?: import('undici').Dispatcher;
  /** Clock for time-sensitive code (tests). */
  now?: () => Date;
}

/** Runs one invocation and resolves to its exit code; never calls process.exit. */
export async function main(argv: string[], deps: MainDeps): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    deps.io.stdout.write(`${version}\n`);
    return 0;
  }
  const { runCli } = await import('./cli/run.js');
  return runCli(argv, deps);
}

/** The launcher's call: real process streams, signals, exit code. */
export async function runProcess(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${version}\n`);
    return;
  }
  const { processIO } = await import('./io.js');
  const io = processIO();
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) {
      // A second Ctrl-C: leave now, whatever is still being cleaned up.
      process.exit(130);
    }
    controller.abort(new Error(sig));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed pipe on stdout (`subctl ... | head -1`) ends the run quietly. One on stderr (`2>&1 |
  // head -1` reading only the error's first line) changes nothing: the run ends with its own
  // code (exit 0 there would report a failure as success).
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  process.stderr.on('error', () => {
    // Nothing more can be said on stderr; the exit code still says how the run ended.
  });
  const code = await main(argv, { io, signal: controller.signal });
  process.exitCode = code;
  // Interactive screens and keep-alive sockets are closed by now; exit promptly in any case so
  // that a stray timer never holds a cron job open.
  if (code === 130 || controller.signal.aborted) process.exit(code);
  await new Promise<void>((resolve) => {
    if (process.stdout.writableLength === 0) resolve();
    else process.stdout.once('drain', () => resolve());
  });
  process.exit(code);
}
