/**
 * The status line: what just happened, or what went wrong (in red), without leaving the screen.
 */
import { Text } from 'ink';
import { memo } from 'react';
import { drawable } from '../drawable.js';
import type { Status } from '../state/console-state.js';

const MARK: Record<Status['tone'], string> = { info: '', ok: '✓ ', error: '✗ ', busy: '… ' };
const COLOR: Record<Status['tone'], string | undefined> = { info: undefined, ok: 'green', error: 'red', busy: 'yellow' };

export const StatusLine = memo(function StatusLine({ status }: { status?: Status }) {
  if (!status) return <Text> </Text>;
  return (
    <Text color={COLOR[status.tone]} wrap="truncate-end">
      {MARK[status.tone]}
      {drawable(status.text)}
    </Text>
  );
});
