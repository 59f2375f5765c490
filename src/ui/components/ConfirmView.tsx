/**
 * The confirmation before a request: the action and its target, the profile and base address,
 * what will change; y (or the typed code, for deletes) sends it.
 */
import { Box, Text } from 'ink';
import { drawable } from '../drawable.js';

export function ConfirmView({ lines, typed, text }: { lines: string[]; typed?: string; text: string }) {
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <Text key={i} bold={i === 0} wrap="truncate-end">
          {drawable(l)}
        </Text>
      ))}
      <Text> </Text>
      {typed !== undefined ? (
        <Text>
          type <Text bold>{typed}</Text> to confirm: {text}
          <Text inverse> </Text>
        </Text>
      ) : (
        <Text bold>Proceed? [y/N]</Text>
      )}
    </Box>
  );
}
