/**
 * Something moves during long work, on a terminal only: a spinner on stderr while a call has
 * taken longer than SPIN_AFTER_MS, and a progress line (rows, pages, rate) while `--all`
 * exports. Never off a terminal, with -q, with TERM=dumb or under CI. ora (the product's
 * spinner) is loaded the first time something is shown, so a command that finishes quickly
 * never loads it.
 *
 * Rows printed to a terminal are their own progress: while stdout is the same terminal, the
 * spinner stops at the first byte a command prints there and does not come back.
 */
import type { IO } from '../io.js';

/** A call answered sooner than this shows nothing. */
const SPIN_AFTER_MS = 300;

interface Spinner {
  text: string;
  start(): unknown;
  stop(): unknown;
  render(): unknown;
}

/** What the export loop (src/cli/paging.ts) tells: a row printed, the total when the first page says it. */
export interface ExportProgress {
  row(): void;
  total(n: number | undefined): void;
  done(): void;
}

const NONE: ExportProgress = { row() {}, total() {}, done() {} };

/** Whether the real stream is a terminal (an in-process test stream never is). */
function realTty(s: unknown): boolean {
  return (s as { isTTY?: boolean }).isTTY === true;
}

export class Activity {
  readonly #io: IO;
  #inflight = 0;
  #calls = 0;
  #timer: NodeJS.Timeout | undefined;
  #spinner: Spinner | undefined;
  #loading: Promise<Spinner | undefined> | undefined;
  #what = '';
  #export: { rows: number; total?: number; since: number; calls: number } | undefined;
  /** stdout is this terminal and something was printed there: nothing more is shown. */
  #printed = false;
  #closed = false;

  constructor(io: IO) {
    this.#io = io;
    if (realTty(io.stdout)) this.#watchStdout();
  }

  /** Spinner and progress line wanted: stderr a real terminal, no -q, not TERM=dumb, not CI. */
  static wanted(io: IO, quiet: boolean): boolean {
    const env = io.env;
    // A terminal that says it has no columns (some pseudo-terminals) would have ora count its
    // line as endless and clear the screen upwards on every frame.
    const columns = (io.stderr as { columns?: number }).columns ?? 0;
    return (
      !quiet &&
      io.stderrIsTTY &&
      realTty(io.stderr) &&
      columns > 0 &&
      env.TERM !== 'dumb' &&
      (env.CI === undefined || env.CI === '' || env.CI === 'false')
    );
  }

  /** The first write to a terminal stdout stops what is shown (the write itself is not delayed). */
  #watchStdout(): void {
    const out = this.#io.stdout as NodeJS.WritableStream & { write: (...a: unknown[]) => boolean };
    const write = out.write;
    out.write = (...args: unknown[]): boolean => {
      out.write = write;
      this.#printed = true;
      this.#hide();
      return write.apply(out, args as never);
    };
  }

  /** A call started (`what`: `GET /admin/services`). */
  begin(what: string): void {
    this.#calls++;
    this.#what = what;
    if (++this.#inflight === 1 && !this.#export) {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.#show(), SPIN_AFTER_MS);
      this.#timer.unref();
    }
  }

  end(): void {
    if (--this.#inflight > 0 || this.#export) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#hide();
  }

  /** The export loop's hooks: the line shows rows, pages and the rate, at most a few times a second. */
  exportProgress(): ExportProgress {
    if (this.#printed) return NONE;
    const state = { rows: 0, since: Date.now(), calls: this.#calls, total: undefined as number | undefined };
    this.#export = state;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#show(), SPIN_AFTER_MS);
    this.#timer.unref();
    let last = 0;
    return {
      row: () => {
        state.rows++;
        const now = Date.now();
        if (this.#spinner && now - last >= 100) {
          last = now;
          this.#spinner.text = this.#exportText();
        }
      },
      total: (n) => {
        state.total = n;
      },
      done: () => {
        this.#export = undefined;
        clearTimeout(this.#timer);
        this.#hide();
      },
    };
  }

  #exportText(): string {
    const e = this.#export!;
    const secs = Math.max((Date.now() - e.since) / 1000, 0.001);
    const pages = this.#calls - e.calls;
    const rows = e.total !== undefined ? `${e.rows} of ${e.total} rows` : `${e.rows} rows`;
    return `exporting: ${rows}, ${pages} page${pages === 1 ? '' : 's'}, ${Math.round(e.rows / secs)} rows/s`;
  }

  async #show(): Promise<void> {
    if (this.#closed || this.#printed) return;
    const text = this.#export ? this.#exportText() : `waiting for ${this.#what}`;
    this.#loading ??= (async () => {
      const { default: ora } = await import('ora');
      // The decision is taken above (Activity.wanted); stdin is left alone (prompts use it).
      return ora({
        stream: this.#io.stderr as NodeJS.WritableStream & { isTTY?: boolean },
        isEnabled: true,
        discardStdin: false,
        hideCursor: true,
      }) as unknown as Spinner;
    })().catch(() => undefined);
    const spinner = await this.#loading;
    if (!spinner || this.#closed || this.#printed || (!this.#export && this.#inflight === 0)) return;
    spinner.text = this.#export ? this.#exportText() : text;
    this.#spinner = spinner;
    spinner.start();
  }

  #hide(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#spinner) {
      this.#spinner.stop();
      this.#spinner = undefined;
    }
  }

  /** The command is over: whatever is shown goes. */
  close(): void {
    this.#closed = true;
    this.#hide();
  }
}

const byIO = new WeakMap<object, Activity>();

/** Registers the activity of a command's IO (src/cli/run.ts). */
export function trackActivity(io: IO, activity: Activity): void {
  byIO.set(io, activity);
}

/** The export loop's progress hooks for a command's IO; hooks that do nothing off a terminal. */
export function exportProgress(io: IO): ExportProgress {
  return byIO.get(io)?.exportProgress() ?? NONE;
}

/** Counts a client's calls in flight for the spinner; the client itself knows nothing of it. */
export function watchCalls<T extends object>(client: T, activity: Activity): T {
  const c = client as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  for (const name of ['callFull', 'request']) {
    const original = c[name];
    if (typeof original !== 'function') continue;
    c[name] = async (...args: unknown[]) => {
      const ep = args[0] as { method?: string; path?: string } | string;
      activity.begin(typeof ep === 'string' ? `${ep} ${String(args[1])}` : `${ep.method} ${ep.path}`);
      try {
        return await original.apply(client, args);
      } finally {
        activity.end();
      }
    };
  }
  return client;
}
