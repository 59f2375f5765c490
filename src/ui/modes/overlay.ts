/**
 * Keys while an overlay is open: each kind has its own (the help scrolls, the switcher and the
 * filter edit a line, the form its fields, the confirmation asks); a message closes on any key.
 */
import type { KeyPress } from '../keys.js';
import type { Overlay } from '../state/console-state.js';
import { confirmKey } from './confirm.js';
import { filterKey } from './filter.js';
import { formKey } from './form.js';
import type { ModeHost } from './host.js';
import { switcherKey } from './switcher.js';

export function overlayKey(h: ModeHost, o: Overlay, k: KeyPress): void {
  switch (o.kind) {
    case 'help':
      return helpKey(h, o, k);
    case 'switcher':
      return switcherKey(h, o, k);
    case 'filter':
      return filterKey(h, o, k);
    case 'form':
      return formKey(h, o, k);
    case 'confirm':
      return confirmKey(h, o, k);
    case 'progress':
      return; // runs to its end; Ctrl-C quits
    case 'message':
      return h.overlay(undefined);
  }
}

/** Whether the overlay edits a line of text (where pasted text goes): the prompts, a form, a typed confirmation. */
export function takesText(o: Overlay | undefined): boolean {
  return o?.kind === 'switcher' || o?.kind === 'filter' || o?.kind === 'form' || (o?.kind === 'confirm' && o.typed !== undefined);
}

/** The help scrolls, within its lines (↑ at once after ↓ past the end); any other key closes it. */
function helpKey(h: ModeHost, o: Extract<Overlay, { kind: 'help' }>, k: KeyPress): void {
  const to = (n: number) => h.overlay({ ...o, scroll: Math.max(0, Math.min(h.helpMaxScroll(), n)) });
  if (k.down || k.input === 'j') return to(o.scroll + 1);
  if (k.up || k.input === 'k') return to(o.scroll - 1);
  if (k.pageDown || k.input === ' ') return to(o.scroll + h.tableHeight());
  if (k.pageUp) return to(o.scroll - h.tableHeight());
  return h.overlay(undefined);
}
