/**
 * `/` — the filter prompt: field=value pairs over the resource's server-side filters. A bad
 * value is shown here, in red, and nothing is sent.
 */
import { Box, Text } from 'ink';
import { drawableLine } from '../drawable.js';
import { fieldHint } from '../form-model.js';
import { filterFields, type ResourceDef } from '../resources.js';

export function FilterPrompt({
  resource,
  text,
  errors,
  height,
}: {
  resource: ResourceDef;
  text: string;
  errors: string[];
  height: number;
}) {
  const fields = filterFields(resource);
  const room = Math.max(0, height - 3 - errors.length);
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>/</Text> {drawableLine(text)}
        <Text inverse> </Text>
      </Text>
      {errors.map((e, i) => (
        <Text key={i} color="red" wrap="truncate-end">
          ✗ {drawableLine(e)}
        </Text>
      ))}
      <Text dimColor>filters of {resource.name} (field=value, several separated by spaces):</Text>
      {fields.slice(0, room).map(([name, info]) => (
        <Text key={name} dimColor wrap="truncate-end">
          {'  '}
          {name.padEnd(22)} {fieldHint({ name, info, required: false })}
        </Text>
      ))}
    </Box>
  );
}
