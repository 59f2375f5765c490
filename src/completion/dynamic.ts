/**
 * Service codes, plan codes and batch ids for completion: fetched from the platform (the list
 * endpoints at their largest page size, a few pages at most, 2 s per attempt, no retries) and
 * cached in `<cacheDir>/completion/<profile>-<kind>.json` for 5 minutes. Any failure gives the
 * stale cache or nothing: completion never prints an error and never keeps the shell waiting.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AnyEndpoint } from '../api/contract/common.js';
import { findRows, totalsOf } from '../api/rows.js';
import { createContext, type Ctx } from '../cli/context.js';
import { readGlobals } from '../cli/globals.js';
import { writeFileAtomic } from '../config/paths.js';
import type { Candidate, DynamicKind, TargetOptions } from './engine.js';

const CACHE_TTL_MS = 5 * 60_000;
/** Per attempt. */
const FETCH_TIMEOUT_MS = 2_000;
/** For the whole fetch (every page). */
const FETCH_DEADLINE_MS = 3_500;
const MAX_PAGES = 3;

interface CacheFile {
  fetched_at: string;
  /** Where the values came from: the base address, or `sandbox`. */
  target: string;
  values: Candidate[];
}

interface Source {
  endpoint: () => Promise<AnyEndpoint>;
  query?: Record<string, unknown>;
  values: (item: Record<string, unknown>) => Candidate | undefined;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

const SOURCES: Record<DynamicKind, Source> = {
  services: {
    endpoint: async () => (await import('../api/contract/admin-services.js')).servicesList,
    values: (s) => (str(s.service_code) ? { value: str(s.service_code)!, description: str(s.service_name) } : undefined),
  },
  plans: {
    endpoint: async () => (await import('../api/contract/admin-plans.js')).plansList,
    values: (p) => (str(p.plan_code) ? { value: str(p.plan_code)!, description: str(p.plan_name) } : undefined),
  },
  batches: {
    endpoint: async () => (await import('../api/contract/admin-misc.js')).usageCodesList,
    query: { include_summary: false },
    values: (c) => {
      const id = str(c.batch_id);
      if (!id) return undefined;
      const what = [str(c.service_code), str(c.plan_code)].filter(Boolean).join(' / ');
      return { value: id, description: what || undefined };
    },
  },
};

const nullSink = () =>
  new Writable({
    write(_chunk, _enc, cb) {
      cb();
    },
  });

/** A context for the command line being completed: its --profile/--base-url/--sandbox, short time-outs, silent. */
export function completionContext(parent: Ctx, opts: TargetOptions): Ctx {
  const globals = readGlobals({ ...opts, output: 'table', timeout: String(FETCH_TIMEOUT_MS), retries: '0', quiet: true }, parent.io.env);
  return createContext({ io: { ...parent.io, stderr: nullSink(), stderrIsTTY: false }, globals, signal: parent.signal, now: parent.now });
}

/** `sandbox`, the base address, or undefined when the command line goes nowhere. Mirrors Ctx.api(). */
function targetOf(ctx: Ctx): string | undefined {
  return ctx.plannedTarget();
}

function cacheFile(ctx: Ctx, kind: DynamicKind): string {
  const safe = ctx.profileName().replace(/[^A-Za-z0-9._-]/g, '_');
  return join(ctx.paths().cacheDir, 'completion', `${safe}-${kind}.json`);
}

function readCache(file: string): CacheFile | undefined {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (typeof c.fetched_at !== 'string' || !Array.isArray(c.values)) return undefined;
    c.values = c.values.filter((v) => v && typeof v.value === 'string');
    return c;
  } catch {
    return undefined;
  }
}

async function fetchValues(ctx: Ctx, kind: DynamicKind): Promise<Candidate[]> {
  const source = SOURCES[kind];
  const ep = await source.endpoint();
  const api = await ctx.api();
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(FETCH_DEADLINE_MS)]);
  const paging = ep.paging!;
  const out: Candidate[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const query = { ...source.query, [paging.page]: page, [paging.size]: paging.maxSize };
    const data = await api.call(ep, { query } as never, { signal });
    // The rows and page facts wherever and however the platform gives them (src/api/rows.ts).
    const items = findRows(ep, data).rows;
    if (!items) break;
    for (const item of items) {
      const c = item && typeof item === 'object' ? source.values(item) : undefined;
      if (c) out.push(c);
    }
    const info = totalsOf(ep, data);
    const served = info.served !== undefined && info.served < paging.maxSize ? info.served : paging.maxSize;
    const more = items.length > 0 && (items.length >= served || info.hasNext === true);
    if (!more || (info.totalPages !== undefined && page >= info.totalPages)) break;
  }
  const seen = new Set<string>();
  return out.filter((c) => (seen.has(c.value) ? false : (seen.add(c.value), true))).sort((a, b) => a.value.localeCompare(b.value));
}

/**
 * The values of `kind` for the profile and address `ctx` points at: from a cache younger than
 * 5 minutes, else fetched (and cached), else the stale cache, else nothing. Never throws.
 */
export async function dynamicValues(ctx: Ctx, kind: DynamicKind): Promise<Candidate[]> {
  let file: string;
  let target: string | undefined;
  try {
    target = targetOf(ctx);
    file = cacheFile(ctx, kind);
  } catch {
    return [];
  }
  if (!target) return [];
  const cached = readCache(file);
  const usable = cached && cached.target === target ? cached : undefined;
  const age = usable ? ctx.now().getTime() - Date.parse(usable.fetched_at) : NaN;
  if (usable && age >= 0 && age < CACHE_TTL_MS) return usable.values;
  // Starting the embedded sandbox on a Tab is fine; seeding a new data file is not.
  if (target === 'sandbox' && !existsSync(join(ctx.paths().dataDir, 'sandbox.db'))) return usable?.values ?? [];
  try {
    const values = await fetchValues(ctx, kind);
    try {
      const body: CacheFile = { fetched_at: ctx.now().toISOString(), target, values };
      writeFileAtomic(file, `${JSON.stringify(body)}\n`);
    } catch {
      /* a read-only cache directory: no cache, same answer */
    }
    return values;
  } catch {
    return usable?.values ?? [];
  }
}
