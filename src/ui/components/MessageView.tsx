/**
 * `!`: a text the status line had to cut (the last error), whole, wrapped to the width.
 */
import { Box, Text } from 'ink';
import { drawable } from '../drawable.js';

export function MessageView({ title, text }: { title: string; text: string }) {
  return (
    <Box flexDirection="column">
      <Text bold>{title}</Text>
      <Text wrap="wrap">{drawable(text)}</Text>
      <Text> </Text>
      <Text dimColor>any key closes this</Text>
    </Box>
  );
}
