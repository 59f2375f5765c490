/** Keys on the home screen (the dashboard): auto-refresh on and off, and scrolling. */
import type { KeyPress } from '../keys.js';
import type { ModeHost } from './host.js';

export function homeKey(h: ModeHost, k: KeyPress): void {
  if (k.input === 'a') {
    h.dispatch({ type: 'toggle-auto' });
    h.say('info', `auto-refresh ${h.state.autoRefresh ? 'on (every 30 s)' : 'off'}`);
    return;
  }
  // The dashboard scrolls as a record does.
  const at = h.state.homeScroll;
  const page = h.tableHeight();
  const max = h.homeMaxScroll();
  const to = (n: number) => h.dispatch({ type: 'home-scroll', scroll: Math.max(0, Math.min(max, n)) });
  if (k.up || k.input === 'k') return to(at - 1);
  if (k.down || k.input === 'j') return to(at + 1);
  if (k.pageDown || k.input === ' ') return to(at + page);
  if (k.pageUp) return to(at - page);
  if (k.input === 'g' || k.home) return to(0);
  if (k.input === 'G' || k.end) return to(max);
}
