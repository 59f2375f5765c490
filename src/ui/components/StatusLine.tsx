/**
 * The status line: what just happened, or what went wrong (in red), without leaving the screen.
 * One line: a text wider than the terminal is cut, saying that `!` shows it whole.
 */
import { Text } from 'ink';
import { memo } from 'react';
import { displayWidth, truncateWidth } from '../../output/width.js';
import { drawable } from '../drawable.js';
import type { Status } from '../state/console-state.js';

const MARK: Record<Status['tone'], string> = { info: '', ok: '✓ ', error: '✗ ', busy: '… ' };
const COLOR: Record<Status['tone'], string | undefined> = { info: undefined, ok: 'green', error: 'red', busy: 'yellow' };
/** After a cut text: where the rest is. */
const CUT_HINT = ' (! shows all)';

export const StatusLine = memo(function StatusLine({ status, width }: { status?: Status; width: number }) {
  if (!status) return <Text> </Text>;
  const text = MARK[status.tone] + drawable(status.text);
  const shown =
    displayWidth(text) <= width || width <= CUT_HINT.length + 10 ? text : truncateWidth(text, width - CUT_HINT.length) + CUT_HINT;
  return (
    <Text color={COLOR[status.tone]} wrap="truncate-end">
      {shown}
    </Text>
  );
});
