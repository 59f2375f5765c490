/**
 * Keys on a resource's table: moving, paging, marking, filtering, sorting, opening a row, its
 * actions, and ctrl-s (the page as a CSV file).
 */
import { actionsFor } from '../actions.js';
import { exportCsv } from '../export-csv.js';
import { filtersText } from '../filters.js';
import type { KeyPress } from '../keys.js';
import { rowKey, sortInfo, type ResourceDef } from '../resources.js';
import type { ListState } from '../state/console-state.js';
import { columnsFor } from '../table-layout.js';
import { startAction } from './form.js';
import type { ModeHost } from './host.js';
import { jumpKey } from './jump.js';

export function listKey(h: ModeHost, k: KeyPress): void {
  const c = h.pages.current();
  if (!c) return;
  const { r, ls } = c;
  const n = c.rows?.length ?? 0;
  const select = (i: number) => h.dispatch({ type: 'update-list', patch: { selected: Math.max(0, Math.min(Math.max(0, n - 1), i)) } });
  if (k.up || k.input === 'k') return select(ls.selected - 1);
  if (k.down || k.input === 'j') return select(ls.selected + 1);
  if (k.home) return select(0);
  if (k.end) return select(n - 1);
  if (k.pageDown || k.right || k.input === ']') return h.pages.goPage(ls.page + 1);
  if (k.pageUp || k.left || k.input === '[') return h.pages.goPage(ls.page - 1);
  if (k.input === 'g') return h.pages.goPage(1);
  if (k.input === 'G') {
    if (c.totalPages === undefined) return h.say('info', c.rows ? 'the server does not say how many pages there are' : 'loading…');
    return h.pages.goPage(c.totalPages);
  }
  if (k.escape) return escapeList(h, ls);
  if (jumpKey(h, k, h.pages.selectedRow())) return;
  if (k.input === '/') return h.overlay({ kind: 'filter', text: filtersText(ls.filters), errors: [] });
  if (k.input === 's') return cycleSort(h, r, ls);
  if (k.ret) {
    const row = h.pages.selectedRow();
    if (row) h.dispatch({ type: 'detail', row });
    return;
  }
  if (k.input === ' ') return toggleMark(h, r, ls, n);
  const action = actionsFor(r.name).find((a) => a.key === k.input);
  // --read-only: the key is said to be off, not ignored without a word.
  if (action && h.state.readOnly) return h.say('info', `${action.label}: not available in a read-only console (--read-only)`);
  if (action) startAction(h, action);
}

/** Esc on a table: marks cleared first; then back to where a jump was made, else home. */
function escapeList(h: ModeHost, ls: ListState): void {
  if (Object.keys(ls.marked).length) {
    h.dispatch({ type: 'update-list', patch: { marked: {} } });
    return h.say('info', 'marks cleared');
  }
  // After a jump (a user's subscriptions), back to where it was made.
  if (h.state.trail?.length) return h.dispatch({ type: 'back' });
  return h.openHome();
}

/** Space: the selected row marked (or unmarked), and the selection one row down. */
function toggleMark(h: ModeHost, r: ResourceDef, ls: ListState, n: number): void {
  const row = h.pages.selectedRow();
  if (!row) return;
  const key = rowKey(r, row);
  const marked = { ...ls.marked };
  if (marked[key]) delete marked[key];
  else marked[key] = row;
  h.dispatch({ type: 'update-list', patch: { marked, selected: Math.min(ls.selected + 1, Math.max(0, n - 1)) } });
}

function cycleSort(h: ModeHost, r: ResourceDef, ls: ListState): void {
  const info = sortInfo(r);
  if (!info) return h.say('info', `${r.name} cannot be sorted on the server`);
  const by = ls.sortBy ?? info.defaultBy;
  let order = ls.sortOrder ?? info.defaultOrder;
  let i = info.values.indexOf(by) + 1;
  if (i >= info.values.length) {
    i = 0;
    order = order === 'ASC' ? 'DESC' : 'ASC';
  }
  h.dispatch({ type: 'update-list', patch: { sortBy: info.values[i], sortOrder: order, page: 1, selected: 0 } });
  h.say('info', `sorted by ${info.values[i]} ${order}`);
}

/** Ctrl-S: the page on screen, as a CSV file in the working directory. */
export async function exportView(h: ModeHost): Promise<void> {
  const c = h.pages.current();
  if (h.state.view !== 'list' || !c) return h.say('info', 'ctrl-s exports a table: open one with :');
  if (!c.rows)
    return h.say(
      'info',
      h.pages.failed(c) ? 'nothing to export: this page could not be loaded (r tries again)' : 'nothing to export yet (loading)',
    );
  try {
    const { path, count } = await exportCsv(c.rows, {
      resource: c.r.name,
      columns: columnsFor(c.rows, c.r.columns),
      dir: h.cwd,
      at: h.now(),
    });
    h.say('ok', `exported ${count} row${count === 1 ? '' : 's'} (page ${c.ls.page}) to ${path}`);
  } catch (e) {
    h.say('error', `export failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
