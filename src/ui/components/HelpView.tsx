/**
 * `?` — every key, scrolled with ↑↓ when taller than the screen.
 */
import { Box, Text } from 'ink';

export function HelpView({ lines, height, scroll }: { lines: string[]; height: number; scroll: number }) {
  const top = Math.max(0, Math.min(scroll, lines.length - height));
  return (
    <Box flexDirection="column">
      {lines.slice(top, top + height).map((l, i) => (
        <Text key={top + i} bold={!!l && !l.startsWith(' ')} wrap="truncate-end">
          {l || ' '}
        </Text>
      ))}
    </Box>
  );
}
