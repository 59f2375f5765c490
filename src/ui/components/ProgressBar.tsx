/**
 * `████████░░░░  6/10  (1 failed)` for actions run on marked rows.
 */
import { Text } from 'ink';
import type { Progress } from '../actions.js';

function progressText(p: Progress, width: number): string {
  const barWidth = Math.max(10, Math.min(40, width - 30));
  const filled = p.total ? Math.round((p.done / p.total) * barWidth) : barWidth;
  return `${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}  ${p.done}/${p.total}${p.failed ? `  (${p.failed} failed)` : ''}`;
}

export function ProgressBar({ progress, width }: { progress: Progress; width: number }) {
  return <Text>{progressText(progress, width)}</Text>;
}
