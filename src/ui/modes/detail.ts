/** Keys on a row's detail: back, the jumps to what the row names, and scrolling. */
import type { KeyPress } from '../keys.js';
import type { ModeHost } from './host.js';
import { jumpKey } from './jump.js';

export function detailKey(h: ModeHost, k: KeyPress): void {
  const d = h.state.detail;
  if (!d) return;
  const page = h.tableHeight();
  const max = h.detailMaxScroll();
  const to = (n: number) => h.dispatch({ type: 'detail-scroll', scroll: Math.max(0, Math.min(max, n)) });
  if (k.escape || k.backspace || k.left) return h.dispatch({ type: 'back' });
  if (jumpKey(h, k, d.row)) return;
  if (k.up || k.input === 'k') return to(d.scroll - 1);
  if (k.down || k.input === 'j') return to(d.scroll + 1);
  if (k.pageDown || k.input === ' ') return to(d.scroll + page);
  if (k.pageUp) return to(d.scroll - page);
  if (k.input === 'g' || k.home) return to(0);
  if (k.input === 'G' || k.end) return to(max);
}
