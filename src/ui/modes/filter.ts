/** Keys of the filter line (`/`): `field=value` words, checked against the list's query fields on Enter. */
import { filtersText, parseFilters } from '../filters.js';
import { editLine, type KeyPress } from '../keys.js';
import type { Overlay } from '../state/console-state.js';
import type { ModeHost } from './host.js';

export function filterKey(h: ModeHost, o: Extract<Overlay, { kind: 'filter' }>, k: KeyPress): void {
  if (k.escape) return h.overlay(undefined);
  if (k.ret) {
    const c = h.pages.current();
    if (!c) return h.overlay(undefined);
    const res = parseFilters(c.r, o.text);
    if (!res.ok) return h.overlay({ ...o, errors: res.errors });
    h.dispatch({ type: 'update-list', patch: { filters: res.filters, page: 1, selected: 0 } });
    h.overlay(undefined);
    const t = filtersText(res.filters);
    h.say('info', t ? `filter: ${t}` : 'filter cleared');
    return;
  }
  const text = editLine(o.text, k);
  if (text !== o.text) h.overlay({ ...o, text, errors: [] });
}
