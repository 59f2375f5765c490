/**
 * `?` — every key, scrolled with ↑↓ when taller than the screen; then its last line says which
 * lines are shown.
 */
import { Box, Text } from 'ink';

export function HelpView({ lines, height, scroll }: { lines: string[]; height: number; scroll: number }) {
  const scrolls = lines.length > height;
  const room = scrolls ? Math.max(1, height - 1) : height;
  const top = Math.max(0, Math.min(scroll, lines.length - room));
  const shown = lines.slice(top, top + room);
  return (
    <Box flexDirection="column">
      {shown.map((l, i) => (
        <Text key={top + i} bold={!!l && !l.startsWith(' ')} wrap="truncate-end">
          {l || ' '}
        </Text>
      ))}
      {scrolls ? (
        <Text dimColor wrap="truncate-end">
          {`lines ${top + 1}-${top + shown.length} of ${lines.length}`}
        </Text>
      ) : null}
    </Box>
  );
}
