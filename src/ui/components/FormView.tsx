/**
 * A form from the contract: one line per field (the focused one marked), its hint, and the
 * contract's complaint in red under it. Used by the console's actions and by `openForm`.
 */
import { Box, Text } from 'ink';
import { displayWidth } from '../../output/width.js';
import { drawable, drawableLine } from '../drawable.js';
import { fieldHint, type FormState } from '../form-model.js';

let segmenter: Intl.Segmenter | undefined;

/**
 * The end of `s` in at most `max` columns, '…' first when cut: the focused value longer than its
 * room shows what is being typed, by the cursor. `tailWidth('abcdef', 4) === '…def'`.
 */
function tailWidth(s: string, max: number): string {
  if (displayWidth(s) <= max) return s;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const graphemes = [...segmenter.segment(s)].map((g) => g.segment);
  let out = '';
  let w = 1;
  for (let i = graphemes.length - 1; i >= 0; i--) {
    const gw = displayWidth(graphemes[i]);
    if (w + gw > max) break;
    out = graphemes[i] + out;
    w += gw;
  }
  return `…${out}`;
}

export function FormView({ form, height, width = Infinity }: { form: FormState; height: number; width?: number }) {
  const labelWidth = Math.min(24, Math.max(...form.fields.map((f) => f.name.length + 1)));
  // The hints in one column: each value padded to the widest (at least 12, at most 40 cells, the
  // cursor's cell included), so that typing does not push its hint away from the others'.
  const valueWidth = Math.min(40, Math.max(12, ...form.fields.map((f) => displayWidth(drawableLine(form.values[f.name] ?? '')) + 1)));
  // Keep the focused field in view when the form is taller than the screen.
  const perField = 1;
  const room = Math.max(1, height - 2);
  const start = Math.max(0, Math.min(form.focus - Math.floor(room / 2), form.fields.length - room)) * perField;
  const general = form.errors[''];
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {drawable(form.title)}
      </Text>
      {general ? <Text color="red">✗ {general}</Text> : null}
      {form.fields.slice(start, start + room).map((f, j) => {
        const i = start + j;
        const focused = i === form.focus;
        const err = form.errors[f.name];
        // Marker, label and the space after it; after the value the cursor's cell, and the cell
        // Ink gives its '…' when it cuts the hint that follows.
        const room = Math.max(1, width - 2 - labelWidth - 1 - 2);
        const value = focused ? tailWidth(drawableLine(form.values[f.name] ?? ''), room) : drawableLine(form.values[f.name] ?? '');
        return (
          <Box key={f.name} flexDirection="column">
            <Text wrap="truncate-end">
              <Text color={focused ? 'cyan' : undefined} bold={focused}>
                {focused ? '> ' : '  '}
                {`${f.name}${f.required ? '*' : ''}`.padEnd(labelWidth)}
              </Text>{' '}
              <Text underline={!focused}>{value}</Text>
              {focused ? <Text inverse> </Text> : null}
              {' '.repeat(Math.max(0, valueWidth - displayWidth(value) - (focused ? 1 : 0)))}
              <Text dimColor>{`  ${fieldHint(f)}`}</Text>
            </Text>
            {err ? (
              <Text color="red" wrap="truncate-end">
                {'    ✗ '}
                {f.name}: {err}
              </Text>
            ) : null}
          </Box>
        );
      })}
    </Box>
  );
}
