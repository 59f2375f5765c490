/**
 * Fault injection for the sandbox: latency, 5xx, 429 with Retry-After, connection resets and
 * hangs, each at a chosen rate, decided per request before the handler runs.
 *
 *   subctl sandbox serve --chaos latency=0-50,5xx=0.2,reset=0.05,hang=0.02,429=0.05
 *
 * One fault is of order, not of answers: `audit=oldest` serves the audit log (`GET /audit`,
 * `GET /audit/users/{id}`, the dashboard's recent activity) oldest first, as some platforms do.
 */

export interface ChaosOptions {
  /** Delay every request by a uniform random time in [min, max] ms. */
  latencyMs?: [number, number];
  /** Share of requests answered 503 (0..1). */
  error5xx?: number;
  /** Share of requests whose connection is destroyed without an answer. */
  reset?: number;
  /** Share of requests never answered (until the sandbox closes). */
  hang?: number;
  /** Share of requests answered 429 with Retry-After. */
  rate429?: number;
  /** Retry-After of the 429 answers, in seconds (default 1). */
  retryAfterSeconds?: number;
  /** Share of writes applied, then answered 503 (a gateway whose upstream connection was reset). */
  appliedError?: number;
  /** Share of writes applied, then their connection destroyed without an answer. */
  appliedReset?: number;
  /** Audit entries served oldest first instead of newest first. */
  auditOldestFirst?: boolean;
}

const KEYS = 'latency, 5xx, reset, hang, 429, retry-after, applied-503, applied-reset, audit';

/** What happens to a write's answer once the write was applied. */
export type AfterWriteFault = 'applied-503' | 'applied-reset' | null;

/** Draws the fault of one applied write's answer: exclusive slices of one draw, as decideChaos. */
export function decideAfterWrite(opts: ChaosOptions, rng: () => number = Math.random): AfterWriteFault {
  const x = rng();
  if (x < (opts.appliedError ?? 0)) return 'applied-503';
  if (x < (opts.appliedError ?? 0) + (opts.appliedReset ?? 0)) return 'applied-reset';
  return null;
}

type ChaosFault = 'reset' | 'hang' | '5xx' | '429' | null;

/** What happens to one request: a delay, then at most one fault. */
export interface ChaosDecision {
  delayMs: number;
  fault: ChaosFault;
}

/**
 * Draws the faults of one request. The rates are exclusive slices of one draw (reset, then
 * hang, then 5xx, then 429), so `5xx=0.2,429=0.05` gives 20 % and 5 % of requests.
 */
export function decideChaos(opts: ChaosOptions, rng: () => number = Math.random): ChaosDecision {
  let delayMs = 0;
  if (opts.latencyMs) {
    const [lo, hi] = opts.latencyMs;
    delayMs = lo + rng() * Math.max(0, hi - lo);
  }
  const x = rng();
  let edge = 0;
  for (const [fault, rate] of [
    ['reset', opts.reset],
    ['hang', opts.hang],
    ['5xx', opts.error5xx],
    ['429', opts.rate429],
  ] as Array<[ChaosFault, number | undefined]>) {
    edge += rate ?? 0;
    if (x < edge) return { delayMs, fault };
  }
  return { delayMs, fault: null };
}

/** True when the options would change anything. */
export function chaosActive(opts: ChaosOptions | undefined): opts is ChaosOptions {
  if (!opts) return false;
  return (
    Boolean(opts.latencyMs && opts.latencyMs[1] > 0) ||
    opts.auditOldestFirst === true ||
    [opts.error5xx, opts.reset, opts.hang, opts.rate429, opts.appliedError, opts.appliedReset].some((r) => (r ?? 0) > 0)
  );
}

/**
 * Parses the command-line form: `latency=0-50,5xx=0.2,reset=0.05,hang=0.02,429=0.05`
 * (also `latency=20` for a fixed delay, `retry-after=3`; `applied-503=0.1` and `applied-reset=0.1`
 * apply a write and then answer 503 or reset its connection; `audit=oldest` serves the audit log
 * oldest first, `audit=newest` as usual). Rates are 0..1, or percentages
 * written `20%`. Throws with a message naming the bad part.
 */
export function parseChaos(s: string): ChaosOptions {
  const out: ChaosOptions = {};
  const rate = (key: string, v: string): number => {
    const pct = v.endsWith('%');
    const n = Number(pct ? v.slice(0, -1) : v);
    const r = pct ? n / 100 : n;
    if (v === '' || !Number.isFinite(r) || r < 0 || r > 1)
      throw new Error(`chaos: ${key}=${v}: expected a rate between 0 and 1 (or a percentage)`);
    return r;
  };
  for (const part of s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`chaos: '${part}': expected key=value (keys: ${KEYS})`);
    const key = part.slice(0, eq).trim().toLowerCase();
    const v = part.slice(eq + 1).trim();
    switch (key) {
      case 'latency': {
        const m = /^(\d+(?:\.\d+)?)(?:ms)?(?:-(\d+(?:\.\d+)?)(?:ms)?)?$/.exec(v);
        if (!m) throw new Error(`chaos: latency=${v}: expected MIN-MAX in milliseconds, e.g. latency=0-50`);
        const lo = Number(m[1]);
        const hi = m[2] === undefined ? lo : Number(m[2]);
        if (hi < lo) throw new Error(`chaos: latency=${v}: the maximum is below the minimum`);
        out.latencyMs = [lo, hi];
        break;
      }
      case '5xx':
      case '500':
      case '503':
      case 'error':
        out.error5xx = rate(key, v);
        break;
      case 'reset':
        out.reset = rate(key, v);
        break;
      case 'hang':
        out.hang = rate(key, v);
        break;
      case '429':
      case 'ratelimit':
        out.rate429 = rate(key, v);
        break;
      case 'applied-503':
        out.appliedError = rate(key, v);
        break;
      case 'applied-reset':
        out.appliedReset = rate(key, v);
        break;
      case 'retry-after':
      case 'retryafter': {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new Error(`chaos: retry-after=${v}: expected whole seconds`);
        out.retryAfterSeconds = n;
        break;
      }
      case 'audit':
        if (v !== 'oldest' && v !== 'newest') throw new Error(`chaos: audit=${v}: expected oldest or newest`);
        out.auditOldestFirst = v === 'oldest';
        break;
      default:
        throw new Error(`chaos: unknown key '${key}' (keys: ${KEYS})`);
    }
  }
  const total = (out.reset ?? 0) + (out.hang ?? 0) + (out.error5xx ?? 0) + (out.rate429 ?? 0);
  if (total > 1) throw new Error(`chaos: the fault rates add up to ${total.toFixed(2)}, more than 1`);
  const after = (out.appliedError ?? 0) + (out.appliedReset ?? 0);
  if (after > 1) throw new Error(`chaos: applied-503 and applied-reset add up to ${after.toFixed(2)}, more than 1`);
  return out;
}
