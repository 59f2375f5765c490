/**
 * A page of rows fitted to the width. Only the rows in view are drawn; each row is a memoized
 * line, so moving the selection redraws two rows' elements, not the page.
 */
import { Box, Text } from 'ink';
import { memo, useRef } from 'react';
import { padEndWidth } from '../../output/width.js';
import type { TableLayout } from '../table-layout.js';

const Row = memo(function Row({ text, selected, marked, width }: { text: string; selected: boolean; marked: boolean; width: number }) {
  const line = `${selected ? '>' : ' '}${marked ? '*' : ' '}${text}`;
  return (
    <Text inverse={selected} color={marked ? 'cyan' : undefined} wrap="truncate-end">
      {selected ? padEndWidth(line, width) : line}
    </Text>
  );
});

export interface DataTableProps {
  layout: TableLayout;
  selected: number;
  /** Indexes of marked rows in this page. */
  marked: ReadonlySet<number>;
  height: number;
  width: number;
}

export function DataTable({ layout, selected, marked, height, width }: DataTableProps) {
  const offset = useRef(0);
  const n = layout.lines.length;
  let off = offset.current;
  if (selected < off) off = selected;
  if (selected >= off + height) off = selected - height + 1;
  off = Math.max(0, Math.min(off, Math.max(0, n - height)));
  offset.current = off;
  const visible = layout.lines.slice(off, off + height);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {'  '}
        {layout.header}
      </Text>
      {visible.map((text, i) => (
        <Row key={off + i} text={text} selected={off + i === selected} marked={marked.has(off + i)} width={width} />
      ))}
    </Box>
  );
}
