/**
 * A reducer in a store: `getState()` is always the latest state, even between two keys of one
 * input chunk (React's own `useReducer` state would be stale there), and components read it
 * with `useStore` (useSyncExternalStore).
 */
export interface Store<S, A> {
  getState(): S;
  dispatch(action: A): void;
  subscribe(fn: () => void): () => void;
}

export function createStore<S, A>(reducer: (state: S, action: A) => S, initial: S): Store<S, A> {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    dispatch(action) {
      const next = reducer(state, action);
      if (next === state) return;
      state = next;
      for (const fn of [...listeners]) fn();
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
