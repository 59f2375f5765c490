/**
 * The status line's text at a width: one line, a text wider than the terminal cut and saying
 * that `!` shows it whole (src/ui/components/StatusLine.tsx draws it; the controller's `!`
 * shows whole what was cut, an error or not).
 */
import { displayWidth, truncateWidth } from '../output/width.js';
import { drawable } from './drawable.js';
import type { Status } from './state/console-state.js';

const MARK: Record<Status['tone'], string> = { info: '', ok: '✓ ', error: '✗ ', busy: '… ' };
/** After a cut text: where the rest is. */
const CUT_HINT = ' (! shows all)';

export function statusText(status: Status, width: number): { text: string; cut: boolean } {
  const text = MARK[status.tone] + drawable(status.text);
  if (displayWidth(text) <= width || width <= CUT_HINT.length + 10) return { text, cut: false };
  return { text: truncateWidth(text, width - CUT_HINT.length) + CUT_HINT, cut: true };
}
