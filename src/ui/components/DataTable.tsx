/**
 * A page of rows fitted to the width. Only the rows in view are drawn, as one text block (one
 * Ink node, not one per row: Ink's layout and measuring cost grows with the nodes), with the
 * selected row inverted and marked rows coloured as nested spans.
 */
import { Box, Text } from 'ink';
import { memo, useMemo, useRef } from 'react';
import { padEndWidth } from '../../output/width.js';
import type { TableLayout } from '../table-layout.js';

export interface DataTableProps {
  layout: TableLayout;
  selected: number;
  /** Indexes of marked rows in this page. */
  marked: ReadonlySet<number>;
  height: number;
  width: number;
}

type Span = { text: string; selected?: boolean; marked?: boolean };

/** The visible lines as runs of plain text and the styled rows between them. */
function spansOf(lines: string[], off: number, selected: number, marked: ReadonlySet<number>, width: number): Span[] {
  const spans: Span[] = [];
  let plain: string[] = [];
  const flush = () => {
    if (plain.length) spans.push({ text: plain.join('\n') });
    plain = [];
  };
  lines.forEach((text, i) => {
    const n = off + i;
    const isSel = n === selected;
    const isMarked = marked.has(n);
    const line = `${isSel ? '>' : ' '}${isMarked ? '*' : ' '}${text}`;
    const nl = i < lines.length - 1 ? '\n' : '';
    if (!isSel && !isMarked) {
      plain.push(line);
      return;
    }
    // The newline that ends the styled row goes with the next plain run.
    if (plain.length) {
      spans.push({ text: `${plain.join('\n')}\n` });
      plain = [];
    }
    spans.push({ text: isSel ? padEndWidth(line, width) : line, selected: isSel, marked: isMarked });
    if (nl) spans.push({ text: nl });
  });
  flush();
  return spans;
}

export const DataTable = memo(function DataTable({ layout, selected, marked, height, width }: DataTableProps) {
  const offset = useRef(0);
  const n = layout.lines.length;
  let off = offset.current;
  if (selected < off) off = selected;
  if (selected >= off + height) off = selected - height + 1;
  off = Math.max(0, Math.min(off, Math.max(0, n - height)));
  offset.current = off;
  const spans = useMemo(
    () => spansOf(layout.lines.slice(off, off + height), off, selected, marked, width),
    [layout, off, height, selected, marked, width],
  );
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {'  '}
        {layout.header}
      </Text>
      <Text>
        {spans.map((s, i) =>
          s.selected || s.marked ? (
            <Text key={i} inverse={s.selected} color={s.marked ? 'cyan' : undefined}>
              {s.text}
            </Text>
          ) : (
            s.text
          ),
        )}
      </Text>
    </Box>
  );
});
