/**
 * Tiny terminal charts for the dashboard and service details: a sparkline of a series and
 * horizontal bars. Plain text (no colour), so they work in any terminal font with block glyphs.
 */
import { displayWidth, padEndWidth, padStartWidth, truncateWidth } from './width.js';

const TICKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/**
 * One character a value, scaled from the lowest to the highest (so changes show, like `spark`):
 * `sparkline([0, 1, 2, 3, 4, 5, 6, 7]) === '▁▂▃▄▅▆▇█'`, `sparkline([10, 30, 20]) === '▁█▅'`.
 * A flat series draws a flat line (`▁` for zeros, `▄` otherwise); a missing value (NaN,
 * Infinity) is a space.
 */
export function sparkline(values: number[]): string {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return values.map(() => ' ').join('');
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  return values
    .map((v) => {
      if (!Number.isFinite(v)) return ' ';
      if (hi === lo) return v === 0 ? TICKS[0] : TICKS[3];
      const i = Math.round(((v - lo) / (hi - lo)) * (TICKS.length - 1));
      return TICKS[Math.min(TICKS.length - 1, Math.max(0, i))];
    })
    .join('');
}

/**
 * Horizontal bars, one line an item, `width` columns wide: the label (cut to a third of the
 * width), the bar in eighths of a cell, the exact value right-aligned.
 * `bars([{ label: 'GPT4', value: 30 }, { label: 'DALL-E', value: 15 }], 24)` ->
 * `['GPT4    █████████████ 30', 'DALL-E  ██████▌       15']`.
 * Negative values draw no bar.
 */
export function bars(items: Array<{ label: string; value: number }>, width: number): string[] {
  if (items.length === 0) return [];
  const labelWidth = Math.min(Math.max(...items.map((i) => displayWidth(i.label))), Math.max(4, Math.floor(width / 3)));
  const values = items.map((i) => (Number.isFinite(i.value) ? String(i.value) : ''));
  const valueWidth = Math.max(...values.map((v) => v.length));
  const barWidth = Math.max(1, width - labelWidth - 2 - 1 - valueWidth);
  const max = Math.max(0, ...items.map((i) => (Number.isFinite(i.value) ? i.value : 0)));
  return items.map((item, n) => {
    const label = padEndWidth(truncateWidth(item.label, labelWidth), labelWidth);
    const v = Number.isFinite(item.value) && item.value > 0 && max > 0 ? item.value : 0;
    const eighths = Math.round((v / (max || 1)) * barWidth * 8);
    const bar = '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
    return `${label}  ${padEndWidth(bar, barWidth)} ${padStartWidth(values[n], valueWidth)}`;
  });
}
