/**
 * `subctl console --catalog FILE`: the plan for a catalog file, read-only, scrollable. The lines
 * are the plan as `catalog diff` prints it (src/catalog/plan-text.ts); this screen only draws
 * them: `+` green, `-` red, `~` yellow. ↑/↓ or j/k scroll a line, PgUp/PgDn or space a page,
 * g/G the top and the end, q or Esc closes.
 */
import { Box, Text, useApp, useInput } from 'ink';
import { createElement, useState } from 'react';
import type { IO } from '../../io.js';
import { drawable } from '../drawable.js';
import { ALT_SCREEN_OFF, ALT_SCREEN_ON } from '../suspend.js';

export interface CatalogScreenProps {
  title: string;
  lines: string[];
  /** Terminal rows: the lines shown are what fits below the title and above the key help. */
  rows: number;
  onClose?: () => void;
}

function colorOf(line: string): string | undefined {
  if (line.startsWith('  +')) return 'green';
  if (line.startsWith('  -')) return 'red';
  if (line.startsWith('  ~')) return 'yellow';
  return undefined;
}

export function CatalogScreen({ title, lines, rows, onClose }: CatalogScreenProps) {
  const { exit } = useApp();
  const height = Math.max(3, rows - 3);
  const last = Math.max(0, lines.length - height);
  const [top, setTop] = useState(0);
  useInput((input, key) => {
    if (input === 'q' || key.escape || (key.ctrl && input === 'c')) {
      onClose?.();
      exit();
    } else if (key.downArrow || input === 'j') setTop((t) => Math.min(last, t + 1));
    else if (key.upArrow || input === 'k') setTop((t) => Math.max(0, t - 1));
    else if (key.pageDown || input === ' ') setTop((t) => Math.min(last, t + height));
    else if (key.pageUp) setTop((t) => Math.max(0, t - height));
    else if (input === 'g') setTop(0);
    else if (input === 'G') setTop(last);
  });
  const shown = lines.slice(top, top + height);
  const where = lines.length > height ? ` lines ${top + 1}-${top + shown.length} of ${lines.length}` : '';
  return (
    <Box flexDirection="column">
      <Text bold>{drawable(title)}</Text>
      {shown.map((l, i) => (
        <Text key={top + i} color={colorOf(l)} wrap="truncate">
          {drawable(l) || ' '}
        </Text>
      ))}
      <Text dimColor>{`read-only: apply with \`subctl catalog apply\`.${where}  ↑↓ PgUp PgDn g G scroll · q closes`}</Text>
    </Box>
  );
}

/** Shows the plan on the terminal until q or Esc. */
export async function openCatalogView(io: Pick<IO, 'stdin' | 'stdout' | 'stderr'>, o: { title: string; text: string }): Promise<void> {
  const { render } = await import('ink');
  const stdout = io.stdout as NodeJS.WriteStream;
  stdout.write(ALT_SCREEN_ON);
  try {
    const instance = render(
      createElement(CatalogScreen, { title: o.title, lines: o.text.replace(/\n$/, '').split('\n'), rows: stdout.rows || 24 }),
      {
        stdin: io.stdin as NodeJS.ReadStream,
        stdout,
        stderr: io.stderr as NodeJS.WriteStream,
        exitOnCtrlC: false,
        patchConsole: false,
      },
    );
    await instance.waitUntilExit();
  } finally {
    stdout.write(ALT_SCREEN_OFF);
  }
}
