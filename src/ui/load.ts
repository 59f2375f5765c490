/**
 * How the rest of subctl loads the interactive screens: `const ui = await loadUi()`.
 *
 * Ink decides once, as it is first imported, whether it runs in CI (is-in-ci: `CI` or any
 * `CI_*` variable set), and then draws nothing until it exits. The screens are only opened on
 * a terminal someone is typing in, so Ink is imported with those variables hidden for that
 * moment (and put back at once); React's production build is chosen the same way unless
 * NODE_ENV says otherwise. This module itself imports nothing heavy.
 */
export async function loadUi(): Promise<typeof import('./index.js')> {
  const saved: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) {
    if (k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k.startsWith('CI_')) {
      saved[k] = process.env[k];
      delete process.env[k];
    }
  }
  // React and its reconciler pick their build as they load: the production one loads faster
  // and drops development checks a user never sees.
  const env = process.env.NODE_ENV;
  if (env === undefined) process.env.NODE_ENV = 'production';
  try {
    // The CommonJS bundle's screens read Ink from here (tsup.config.ts: ink-from-load-ui). Ink
    // has a top-level await, so only a real import() loads it: the launcher's (bin/subctl.js),
    // as a script run from a code cache has none of its own.
    const g = globalThis as Record<symbol, unknown>;
    const esm = (g[Symbol.for('subctl.esm')] ??= {}) as Record<string, unknown>;
    const importer = g[Symbol.for('subctl.import')] as ((specifier: string) => Promise<unknown>) | undefined;
    esm.ink ??= importer ? await importer('ink') : await import('ink');
    return await import('./index.js');
  } finally {
    Object.assign(process.env, saved);
    if (env === undefined) delete process.env.NODE_ENV;
  }
}

/**
 * Starts the request of the console's first screen (the dashboard, or page 1 of `resource`)
 * in a new query cache, before Ink is loaded; the console then finds it in the cache.
 */
export async function prefetchFirstScreen(
  api: import('./session.js').ApiLike,
  opts: { resource?: string; pageSize?: number; viewport: { columns: number; rows: number }; signal?: AbortSignal },
): Promise<import('./query-cache.js').QueryCache> {
  const { QueryCache } = await import('./query-cache.js');
  const { firstScreenSpec } = await import('./specs.js');
  const cache = new QueryCache((spec) => api.call(spec.endpoint, spec.input, { signal: opts.signal }));
  const spec = firstScreenSpec(opts.resource, opts.viewport, opts.pageSize);
  if (spec) void cache.load(spec);
  return cache;
}
