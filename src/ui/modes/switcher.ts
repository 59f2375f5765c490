/** Keys of the switcher (`:`): a resource's name typed, completed with Tab, chosen with the arrows. */
import { editLine, type KeyPress } from '../keys.js';
import { completeResource, HOME, resourceByName } from '../resources.js';
import type { Overlay } from '../state/console-state.js';
import type { ModeHost } from './host.js';

export function switcherKey(h: ModeHost, o: Extract<Overlay, { kind: 'switcher' }>, k: KeyPress): void {
  const matches = completeResource(o.text);
  if (k.escape) return h.overlay(undefined);
  if (k.up) return h.overlay({ ...o, choice: Math.max(0, o.choice - 1) });
  if (k.down) return h.overlay({ ...o, choice: Math.min(Math.max(0, matches.length - 1), o.choice + 1) });
  if (k.tab) {
    const m = matches[Math.min(o.choice, matches.length - 1)];
    if (m) h.overlay({ ...o, text: m, choice: 0 });
    return;
  }
  if (k.ret) {
    const exact = resourceByName(o.text) ? resourceByName(o.text)!.name : o.text.trim() === HOME ? HOME : undefined;
    const target = exact ?? matches[Math.min(o.choice, matches.length - 1)];
    if (!target || !h.openResource(target)) {
      h.overlay(undefined);
      h.say('error', `no resource named '${o.text}'; : then Tab lists them`);
    }
    return;
  }
  const text = editLine(o.text, k);
  if (text !== o.text) h.overlay({ ...o, text, choice: 0 });
}
