/**
 * The confirmation before a request: the action and its target, the profile and base address,
 * what will change; y (or the typed code, for deletes) sends it. For several rows, each row's
 * change: as many as the screen holds, the rest scrolled to with ↑↓ PgUp/PgDn ("rows i-j of N").
 */
import { Box, Text } from 'ink';
import { confirmWindow, windowLine, type ConfirmParts } from '../confirm-window.js';
import { drawable, drawableLine } from '../drawable.js';

export function ConfirmView({ parts, typed, text, height }: { parts: ConfirmParts; typed?: string; text: string; height: number }) {
  const win = confirmWindow(parts, height);
  const shown = parts.items.slice(win.first, win.first + win.count);
  return (
    <Box flexDirection="column">
      {parts.lines.map((l, i) => (
        // The change wraps, never cut: `end_date: 2026-12-0…` hid what would be sent.
        <Text key={`l${i}`} bold={i === 0} wrap="wrap">
          {drawable(l)}
        </Text>
      ))}
      {shown.map((l, i) => (
        <Text key={`i${win.first + i}`} wrap="truncate-end">
          {drawable(l)}
        </Text>
      ))}
      {win.scrolls ? (
        <Text dimColor wrap="truncate-end">
          {windowLine(win.first, win.count, parts.items.length)}
        </Text>
      ) : null}
      {parts.tail.map((l, i) => (
        <Text key={`t${i}`} wrap="truncate-end">
          {drawable(l)}
        </Text>
      ))}
      <Text> </Text>
      {typed !== undefined ? (
        <Text>
          type <Text bold>{drawableLine(typed)}</Text> to confirm: {drawableLine(text)}
          <Text inverse> </Text>
        </Text>
      ) : (
        <Text bold>Proceed? [y/N]</Text>
      )}
    </Box>
  );
}
