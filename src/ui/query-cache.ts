/**
 * The console's query cache (cached query results live 5 minutes).
 *
 * Results are kept per endpoint and input for `ttlMs` (5 minutes). Going back to a page seen
 * within that time shows it at once. A revisit refreshes it in the background only when the
 * entry is older than `staleMs` (30 s): a page seen moments ago costs no request at all, which
 * keeps paging back and forth free and lets the tests and the bench assert zero requests.
 * `r` (force) always asks the server. Entries older than `ttlMs` are never shown.
 *
 * `requests` counts every request the cache made (tests and the bench read it).
 */
import type { AnyEndpoint } from '../api/contract/common.js';
import type { CallSpec } from './resources.js';

export interface QuerySpec {
  endpoint: AnyEndpoint;
  input: CallSpec;
}

export interface QueryState {
  data?: unknown;
  error?: unknown;
  /** A request is in flight (first load or refresh). */
  loading: boolean;
  fetchedAt?: number;
}

interface Entry {
  spec: QuerySpec;
  data?: unknown;
  error?: unknown;
  fetchedAt?: number;
  inflight?: Promise<void>;
  /** How many mounted views show this entry: they are refetched when it is invalidated. */
  watchers: number;
}

export interface QueryCacheOptions {
  /** How long a result may be shown; default 5 minutes. */
  ttlMs?: number;
  /** A revisit older than this refreshes in the background; default 30 s. Infinity: never. */
  staleMs?: number;
  now?: () => number;
  /** Entries kept at most (oldest dropped first); default 200. */
  maxEntries?: number;
}

export const CACHE_TTL_MS = 5 * 60_000;
export const CACHE_STALE_MS = 30_000;

/** Object keys sorted, so `{a:1,b:2}` and `{b:2,a:1}` are one key. */
function stableJson(v: unknown): string {
  if (v === undefined) return '';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(',')}}`;
}

export function queryKey(spec: QuerySpec): string {
  return `${spec.endpoint.name} ${stableJson(spec.input)}`;
}

export class QueryCache {
  /** Requests made so far. */
  requests = 0;
  readonly ttlMs: number;
  readonly staleMs: number;
  readonly #fetch: (spec: QuerySpec) => Promise<unknown>;
  readonly #now: () => number;
  readonly #max: number;
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<() => void>();
  #version = 0;

  constructor(fetch: (spec: QuerySpec) => Promise<unknown>, opts: QueryCacheOptions = {}) {
    this.#fetch = fetch;
    this.ttlMs = opts.ttlMs ?? CACHE_TTL_MS;
    this.staleMs = opts.staleMs ?? CACHE_STALE_MS;
    this.#now = opts.now ?? Date.now;
    this.#max = opts.maxEntries ?? 200;
  }

  /** Changes whenever any entry changes (for useSyncExternalStore). */
  get version(): number {
    return this.#version;
  }

  subscribe = (fn: () => void): (() => void) => {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  };

  #notify(): void {
    this.#version++;
    for (const fn of [...this.#listeners]) fn();
  }

  #fresh(e: Entry | undefined): e is Entry & { fetchedAt: number } {
    return !!e && e.fetchedAt !== undefined && this.#now() - e.fetchedAt < this.ttlMs;
  }

  /**
   * What is known of a query now, without asking the server. A result older than `ttlMs` is
   * left out unless `expired` (the page still on screen: keys keep working on what is shown).
   */
  peek(spec: QuerySpec, opts: { expired?: boolean } = {}): QueryState {
    const e = this.#entries.get(queryKey(spec));
    if (!e) return { loading: false };
    const fresh = opts.expired || this.#fresh(e);
    return { data: fresh ? e.data : undefined, error: e.error, loading: !!e.inflight, fetchedAt: fresh ? e.fetchedAt : undefined };
  }

  /**
   * Makes sure a query's result is there: nothing to do when it is fresh (a background refresh
   * when older than `staleMs`), a request otherwise. `force` always asks the server.
   */
  load(spec: QuerySpec, opts: { force?: boolean } = {}): Promise<void> {
    const key = queryKey(spec);
    let e = this.#entries.get(key);
    if (e?.inflight) return e.inflight;
    if (!opts.force && this.#fresh(e)) {
      if (this.#now() - e.fetchedAt >= this.staleMs) void this.#start(key, e);
      return Promise.resolve();
    }
    if (!e) {
      e = { spec, watchers: 0 };
      this.#entries.set(key, e);
      this.#evict();
    } else if (!this.#fresh(e)) {
      e.data = undefined;
      e.fetchedAt = undefined;
    }
    return this.#start(key, e);
  }

  #start(key: string, e: Entry): Promise<void> {
    this.requests++;
    const p = this.#fetch(e.spec).then(
      (data) => {
        e.data = data;
        e.error = undefined;
        e.fetchedAt = this.#now();
      },
      (error: unknown) => {
        e.error = error;
      },
    );
    e.inflight = p.finally(() => {
      e.inflight = undefined;
      // Touch: the entry becomes the newest (LRU order).
      if (this.#entries.get(key) === e) {
        this.#entries.delete(key);
        this.#entries.set(key, e);
      }
      this.#notify();
    });
    this.#notify();
    return e.inflight;
  }

  #evict(): void {
    for (const [k, e] of this.#entries) {
      if (this.#entries.size <= this.#max) break;
      if (!e.inflight && e.watchers === 0) this.#entries.delete(k);
    }
  }

  /** A mounted view shows this query: invalidating it refetches rather than forgets. */
  watch(spec: QuerySpec): () => void {
    const key = queryKey(spec);
    let e = this.#entries.get(key);
    if (!e) {
      e = { spec, watchers: 0 };
      this.#entries.set(key, e);
    }
    const entry = e;
    entry.watchers++;
    return () => {
      entry.watchers = Math.max(0, entry.watchers - 1);
    };
  }

  /**
   * Forgets every result of the endpoints `which` accepts (after a change on the server);
   * queries on screen are fetched again at once, their old rows shown meanwhile.
   */
  invalidate(which: (endpointName: string) => boolean): void {
    for (const [key, e] of [...this.#entries]) {
      if (!which(e.spec.endpoint.name)) continue;
      if (e.watchers > 0) void this.load(e.spec, { force: true });
      else if (!e.inflight) this.#entries.delete(key);
      else e.fetchedAt = undefined;
    }
    this.#notify();
  }
}
