/**
 * The retry policy of the client: which answers are tried again, how long to wait between
 * attempts, and waits that Ctrl-C ends at once. Only GET is retried (src/api/client.ts decides
 * that); the loop is the client's own, not undici's retry interceptor, which ignores an abort
 * during its backoff wait and turns a POST's 503 into a `RequestRetryError`.
 */
export const DEFAULT_RETRIES = 3;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

/** Backoff before retry number `retry` (1-based): 1000, 2000, 4000 ... capped at 30000 ms. */
export function backoffDelay(retry: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1));
}

/**
 * `Retry-After` in ms (seconds or an HTTP date), capped at 30 s; undefined when absent or unreadable.
 * @example parseRetryAfter('2') // 2000
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  return Math.min(BACKOFF_CAP_MS, Math.round(ms));
}

/** Statuses worth another attempt of a GET: time-out, rate limit, server errors. */
export const isRetryableStatus = (s: number): boolean => s === 408 || s === 429 || s >= 500;

/** A wait that rejects with the signal's reason when it aborts. */
export const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Waits `ms`, or less when `signal` aborts; resolves either way. Its abort listener goes with it:
 * one left behind per wait would pile up in a loop that waits often (Node warns past ten).
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A signal that never aborts: what a detached call without its own signal listens to. */
export const NEVER = new AbortController().signal;

/** One signal that aborts when any of `signals` does; `dispose` removes the listeners. */
export function linkSignals(signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose: () => void } {
  const live = signals.filter((s): s is AbortSignal => !!s);
  // One signal or none (every bulk row): nothing to link, no controller to make per request.
  if (live.length <= 1) return { signal: live[0] ?? NEVER, dispose: () => {} };
  const ac = new AbortController();
  const onAbort = (e: Event) => ac.abort((e.target as AbortSignal).reason);
  for (const s of live) {
    if (s.aborted) {
      ac.abort(s.reason);
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: ac.signal, dispose: () => live.forEach((s) => s.removeEventListener('abort', onAbort)) };
}

export const SLOT = Symbol('interrupted');

/** Resolves with `SLOT` as soon as `signal` aborts, whether or not `p` honours the signal. */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T | typeof SLOT> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.resolve(SLOT);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(SLOT);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve(SLOT);
        else reject(e);
      },
    );
  });
}
