/**
 * `:` — the resource switcher, completing over every list the console knows. A list longer than
 * the screen scrolls to keep the choice in view.
 */
import { Box, Text } from 'ink';
import { useRef } from 'react';
import { drawableLine } from '../drawable.js';
import { completeResource, resourceByName } from '../resources.js';

export function Switcher({ text, choice, height }: { text: string; choice: number; height: number }) {
  const matches = completeResource(text);
  // The prompt line, and a line saying which part of a longer list is in view.
  const room = Math.max(1, height - (matches.length > height - 1 ? 2 : 1));
  const offset = useRef(0);
  let off = offset.current;
  if (choice < off) off = choice;
  if (choice >= off + room) off = choice - room + 1;
  off = Math.max(0, Math.min(off, Math.max(0, matches.length - room)));
  offset.current = off;
  const shown = matches.slice(off, off + room);
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>:</Text>
        {drawableLine(text)}
        <Text inverse> </Text>
      </Text>
      {shown.length === 0 ? <Text color="red">no resource matches '{drawableLine(text)}'</Text> : null}
      {shown.map((m, j) => {
        const i = off + j;
        const r = resourceByName(m);
        return (
          <Text key={m} inverse={i === choice} wrap="truncate-end">
            {i === choice ? '> ' : '  '}
            {m.padEnd(18)}
            <Text dimColor>{r ? `${r.endpoint.method} ${r.endpoint.path}` : 'the dashboard'}</Text>
          </Text>
        );
      })}
      {matches.length > room ? (
        <Text dimColor>
          {'  '}
          {off + 1}-{off + shown.length} of {matches.length} (↑↓)
        </Text>
      ) : null}
    </Box>
  );
}
