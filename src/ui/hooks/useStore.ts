/**
 * Reads a store made by `createStore`; the component re-renders when the state changes.
 */
import { useSyncExternalStore } from 'react';
import type { Store } from '../state/store.js';

export function useStore<S, A>(store: Store<S, A>): S {
  return useSyncExternalStore(store.subscribe, store.getState, store.getState);
}
