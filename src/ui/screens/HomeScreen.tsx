/**
 * Home: the dashboard (GET /admin/dashboard) drawn with sparklines and bars, refreshed in place
 * every 30 s while auto-refresh is on (`a`). Taller than the screen, it scrolls (↑↓ PgUp/PgDn),
 * the title saying which lines are in view.
 */
import { Box, Text } from 'ink';
import { useEffect, useMemo } from 'react';
import { renderDashboard } from '../../resources/dashboard.js';
import { terminalClock } from '../../output/time.js';
import { dashboardSpec } from '../specs.js';
import { drawable } from '../drawable.js';
import { useQueryCache } from '../hooks/useQueryCache.js';
import type { QueryCache } from '../query-cache.js';

const AUTO_REFRESH_MS = 30_000;

/** `HH:mm:ss` in the zone of the console's other times. */
const clock = (ms: number) => terminalClock(new Date(ms));

export interface HomeScreenProps {
  cache: QueryCache;
  width: number;
  /** Lines available under the title. */
  height: number;
  autoRefresh: boolean;
  intervalMs?: number;
  scroll: number;
  onMaxScroll: (n: number) => void;
}

export function HomeScreen({ cache, width, height, autoRefresh, intervalMs = AUTO_REFRESH_MS, scroll, onMaxScroll }: HomeScreenProps) {
  const q = useQueryCache(cache, dashboardSpec);
  useEffect(() => {
    if (!autoRefresh) return;
    const t = setInterval(() => void cache.load(dashboardSpec, { force: true }), intervalMs);
    return () => clearInterval(t);
  }, [autoRefresh, cache, intervalMs]);
  const lines = useMemo(
    () =>
      q.data !== undefined
        ? drawable(renderDashboard(q.data, { tty: true, width, color: false, rest: '`subctl dashboard -o json` shows them all' }))
            .trimEnd()
            .split('\n')
        : [],
    [q.data, width],
  );
  const max = Math.max(0, lines.length - height);
  useEffect(() => onMaxScroll(max), [max, onMaxScroll]);
  const top = Math.min(scroll, max);
  const facts = [
    q.fetchedAt ? `updated ${clock(q.fetchedAt)}` : undefined,
    `auto-refresh ${autoRefresh ? `on (${Math.round(intervalMs / 1000)} s)` : 'off'}`,
    lines.length > height ? `lines ${top + 1}-${top + height} of ${lines.length} (↑↓ PgUp/PgDn)` : undefined,
    q.loading ? 'loading…' : undefined,
  ];
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>dashboard</Text>
        <Text dimColor>{`  ${facts.filter(Boolean).join('  ·  ')}`}</Text>
      </Text>
      {q.data === undefined && !q.loading && !q.error ? <Text dimColor>no dashboard yet</Text> : null}
      {q.data === undefined && q.loading ? <Text dimColor>loading the dashboard…</Text> : null}
      {lines.slice(top, top + height).map((l, i) => (
        <Text key={top + i} bold={!!l && !l.startsWith(' ')} wrap="truncate-end">
          {l || ' '}
        </Text>
      ))}
    </Box>
  );
}
