/**
 * `:` — the resource switcher, completing over every list the console knows.
 */
import { Box, Text } from 'ink';
import { completeResource, resourceByName } from '../resources.js';

export function Switcher({ text, choice, height }: { text: string; choice: number; height: number }) {
  const matches = completeResource(text);
  const shown = matches.slice(0, Math.max(1, height - 2));
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>:</Text>
        {text}
        <Text inverse> </Text>
      </Text>
      {shown.length === 0 ? <Text color="red">no resource matches '{text}'</Text> : null}
      {shown.map((m, i) => {
        const r = resourceByName(m);
        return (
          <Text key={m} inverse={i === choice} wrap="truncate-end">
            {i === choice ? '> ' : '  '}
            {m.padEnd(18)}
            <Text dimColor>{r ? `${r.endpoint.method} ${r.endpoint.path}` : 'the dashboard'}</Text>
          </Text>
        );
      })}
    </Box>
  );
}
