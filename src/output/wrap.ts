/**
 * Wrapping text to a terminal's columns by display width (src/output/width.ts), for `-o wide`
 * and `audit --follow`. No library: light enough for any path.
 */
import { displayWidth } from './width.js';

let segmenter: Intl.Segmenter | undefined;

/**
 * `text` as lines of at most `width` columns, broken after a space or comma where one falls in the last
 * third of the line, else anywhere (between graphemes). `wrapWidth('extend 30 days', 8)` is
 * `['extend ', '30 days']`.
 */
export function wrapWidth(text: string, width: number): string[] {
  if (width <= 0 || displayWidth(text) <= width) return [text];
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const lines: string[] = [];
  let line = '';
  let w = 0;
  let lastSpace = -1;
  for (const { segment: g } of segmenter.segment(text)) {
    const gw = displayWidth(g);
    if (w + gw > width && line !== '') {
      if (lastSpace > 0 && lastSpace >= (line.length * 2) / 3) {
        lines.push(line.slice(0, lastSpace + 1));
        line = line.slice(lastSpace + 1);
      } else {
        lines.push(line);
        line = '';
      }
      w = displayWidth(line);
      lastSpace = Math.max(line.lastIndexOf(' '), line.lastIndexOf(','));
    }
    line += g;
    w += gw;
    if (g === ' ' || g === ',') lastSpace = line.length - 1;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}
