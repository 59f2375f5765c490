/**
 * `useQueryCache(cache, spec)`: what the 5-minute query cache holds for a request, loading it when
 * it is missing (a page seen within 5 minutes shows at once; see query-cache.ts for when it is
 * refreshed in the background). The view re-renders when the entry changes.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { queryKey, type QueryCache, type QuerySpec, type QueryState } from '../query-cache.js';

export function useQueryCache(cache: QueryCache, spec: QuerySpec | undefined): QueryState {
  const key = spec ? queryKey(spec) : '';
  useSyncExternalStore(
    cache.subscribe,
    () => cache.version,
    () => cache.version,
  );
  useEffect(() => {
    if (!spec) return;
    const unwatch = cache.watch(spec);
    void cache.load(spec);
    return unwatch;
    // The key stands for the spec: a new object with the same request is the same query.
  }, [cache, key]);
  return spec ? cache.peek(spec) : { loading: false };
}
