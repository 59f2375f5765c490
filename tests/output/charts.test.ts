import { describe, expect, test } from 'vitest';
import { bars, displayWidth, sparkline, truncateWidth } from '../../src/output/index.js';
import { fitColumns } from '../../src/output/table.js';

describe('sparkline', () => {
  test('scales from the lowest to the highest value', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([10, 30, 20])).toBe('▁█▅');
    expect(sparkline([-5, 5])).toBe('▁█');
  });

  test('flat, empty and missing values', () => {
    expect(sparkline([])).toBe('');
    expect(sparkline([0, 0, 0])).toBe('▁▁▁');
    expect(sparkline([4, 4])).toBe('▄▄');
    expect(sparkline([1, Number.NaN, 3])).toBe('▁ █');
    expect(sparkline([Number.NaN])).toBe(' ');
  });
});

describe('bars', () => {
  test('label, bar in eighths, exact value right-aligned, all lines one width', () => {
    const lines = bars(
      [
        { label: 'GPT4', value: 30 },
        { label: 'DALL-E', value: 15 },
        { label: 'Whisper', value: 1 },
        { label: 'none', value: 0 },
      ],
      30,
    );
    expect(lines).toEqual([
      'GPT4     ██████████████████ 30',
      'DALL-E   █████████          15',
      'Whisper  ▋                   1', // 1/30 of 18 cells = 5 eighths
      'none                         0',
    ]);
    for (const l of lines) expect(displayWidth(l)).toBe(30);
  });

  test('long labels are cut to a third of the width; every line fits the width', () => {
    const lines = bars(
      [
        { label: 'a very long service name indeed', value: 1234567 },
        { label: 'b', value: -3 },
      ],
      40,
    );
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    expect(lines[0].startsWith('a very long …  █')).toBe(true);
    expect(lines[0].endsWith(' 1234567')).toBe(true);
    expect(lines[1]).toMatch(/^b {14}\s+-3$/);
    expect(bars([], 40)).toEqual([]);
  });
});

describe('width helpers', () => {
  test('displayWidth: wide characters 2, combining marks 0, ANSI 0, emoji 2', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\u001b[1mbold\u001b[22m')).toBe(4);
    expect(displayWidth('🎉')).toBe(2);
    expect(displayWidth('👩‍💻')).toBe(2);
  });

  test('truncateWidth cuts with … and never splits a character', () => {
    expect(truncateWidth('subscription', 6)).toBe('subsc…');
    expect(truncateWidth('short', 6)).toBe('short');
    expect(truncateWidth('日本語テキスト', 6)).toBe('日本…');
    expect(truncateWidth('abc', 1)).toBe('…');
    expect(truncateWidth('abc', 0)).toBe('');
  });

  test('fitColumns: natural widths when they fit; the widest shrunk first; columns dropped as a last resort', () => {
    expect(fitColumns([2, 10, 5], 80)).toEqual({ widths: [2, 10, 5], shown: 3 });
    expect(fitColumns([2, 40, 30], 40)).toEqual({ widths: [2, 17, 17], shown: 3 });
    expect(fitColumns([2, 40, 10], 40)).toEqual({ widths: [2, 24, 10], shown: 3 });
    const fit = fitColumns([2, 40, 30], 40);
    expect(fit.widths.reduce((a, b) => a + b, 0) + 2 * 2).toBe(40);
    expect(fitColumns([20, 20, 20, 20], 20)).toEqual({ widths: [9, 9], shown: 2 });
    expect(fitColumns([50], 20)).toEqual({ widths: [20], shown: 1 });
    expect(fitColumns([], 20)).toEqual({ widths: [], shown: 0 });
  });

  test("fitColumns with the values' widths: a header wider than its values gives way before any value is cut", () => {
    // 'subscription_id' (15) over ids of 4 digits, next to a 30-wide column, in 30 columns.
    expect(fitColumns([15, 30], 30, [4, 30])).toEqual({ widths: [6, 22], shown: 2 });
    // Cutting headers alone is enough: the values stay whole, spare room goes back to the headers.
    expect(fitColumns([15, 16, 17], 40, [4, 16, 6])).toEqual({ widths: [14, 16, 6], shown: 3 });
    expect(fitColumns([15, 16, 17], 45, [4, 16, 6])).toEqual({ widths: [15, 16, 10], shown: 3 });
    // Without the values' widths, the old rule: the widest (the headers here) shrink together.
    expect(fitColumns([15, 30], 30)).toEqual({ widths: [14, 14], shown: 2 });
  });
});
