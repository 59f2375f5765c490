/**
 * The status line: what just happened, or what went wrong (in red), without leaving the screen.
 * One line: a text wider than the terminal is cut, saying that `!` shows it whole.
 */
import { Text } from 'ink';
import { memo } from 'react';
import type { Status } from '../state/console-state.js';
import { statusText } from '../status-text.js';

const COLOR: Record<Status['tone'], string | undefined> = { info: undefined, ok: 'green', error: 'red', busy: 'yellow' };

export const StatusLine = memo(function StatusLine({ status, width }: { status?: Status; width: number }) {
  if (!status) return <Text> </Text>;
  return (
    <Text color={COLOR[status.tone]} wrap="truncate-end">
      {statusText(status, width).text}
    </Text>
  );
});
