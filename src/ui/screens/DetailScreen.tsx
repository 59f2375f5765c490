/**
 * One record: services and service-plans fetch their detail endpoint (five and three parts);
 * every other resource shows the row itself as key/values. Esc goes back.
 */
import { Box, Text } from 'ink';
import { useEffect, useMemo } from 'react';
import { detailSpec } from '../specs.js';
import { detailLines } from '../detail-lines.js';
import { drawableLine } from '../drawable.js';
import { useQueryCache } from '../hooks/useQueryCache.js';
import type { QueryCache } from '../query-cache.js';
import type { DetailSection, ResourceDef } from '../resources.js';
import type { DetailState } from '../state/console-state.js';

export interface DetailScreenProps {
  cache: QueryCache;
  resource: ResourceDef;
  detail: DetailState;
  width: number;
  /** Lines available under the title. */
  height: number;
  onMaxScroll: (n: number) => void;
}

export function DetailScreen({ cache, resource: r, detail, width, height, onMaxScroll }: DetailScreenProps) {
  const spec = useMemo(() => detailSpec(r, detail.row), [r, detail.row]);
  const q = useQueryCache(cache, spec);
  const sections: DetailSection[] | undefined = useMemo(() => {
    if (!spec) return [{ kind: 'kv', value: detail.row }];
    return q.data !== undefined ? r.detail!.sections(q.data) : undefined;
  }, [spec, q.data, r, detail.row]);
  const lines = useMemo(() => (sections ? detailLines(sections, width) : []), [sections, width]);
  const max = Math.max(0, lines.length - height);
  useEffect(() => onMaxScroll(max), [max, onMaxScroll]);
  const top = Math.min(detail.scroll, max);
  const id = r.idField ? detail.row[r.idField] : undefined;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>
          {r.name}
          {id !== undefined ? ` › ${drawableLine(String(id))}` : ''}
        </Text>
        <Text dimColor>
          {'  '}
          {spec ? `${spec.endpoint.method} ${spec.endpoint.path}` : 'the row as listed'}
          {lines.length > height ? `  ·  lines ${top + 1}-${Math.min(lines.length, top + height)} of ${lines.length}` : ''}
          {q.loading ? '  ·  loading…' : ''}
        </Text>
      </Text>
      {sections === undefined ? (
        <Text dimColor>{q.error ? 'could not load the detail (see below); r tries again' : 'loading…'}</Text>
      ) : null}
      {lines.slice(top, top + height).map((l, i) => (
        <Text key={top + i} bold={l.title} wrap="truncate-end">
          {l.text || ' '}
        </Text>
      ))}
    </Box>
  );
}
