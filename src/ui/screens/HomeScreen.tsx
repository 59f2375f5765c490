/**
 * Home: the dashboard (GET /admin/dashboard) drawn with sparklines and bars, refreshed in place
 * every 30 s while auto-refresh is on (`a`).
 */
import { Box, Text } from 'ink';
import { useEffect, useMemo } from 'react';
import { renderDashboard } from '../../commands/admin/dashboard.js';
import { dashboardSpec } from '../controller.js';
import { useQueryCache } from '../hooks/useQueryCache.js';
import type { QueryCache } from '../query-cache.js';

export const AUTO_REFRESH_MS = 30_000;

const clock = (ms: number) => new Date(ms).toLocaleTimeString();

export function HomeScreen({ cache, width, height, autoRefresh, intervalMs = AUTO_REFRESH_MS }: { cache: QueryCache; width: number; height: number; autoRefresh: boolean; intervalMs?: number }) {
  const q = useQueryCache(cache, dashboardSpec);
  useEffect(() => {
    if (!autoRefresh) return;
    const t = setInterval(() => void cache.load(dashboardSpec, { force: true }), intervalMs);
    return () => clearInterval(t);
  }, [autoRefresh, cache, intervalMs]);
  const lines = useMemo(() => (q.data !== undefined ? renderDashboard(q.data, { tty: true, width, color: false }).trimEnd().split('\n') : []), [q.data, width]);
  const facts = [q.fetchedAt ? `updated ${clock(q.fetchedAt)}` : undefined, `auto-refresh ${autoRefresh ? `on (${Math.round(intervalMs / 1000)} s)` : 'off'}`, q.loading ? 'loading…' : undefined];
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>dashboard</Text>
        <Text dimColor>  {facts.filter(Boolean).join('  ·  ')}</Text>
      </Text>
      {q.data === undefined && !q.loading && !q.error ? <Text dimColor>no dashboard yet</Text> : null}
      {q.data === undefined && q.loading ? <Text dimColor>loading the dashboard…</Text> : null}
      {lines.slice(0, height + 1).map((l, i) => (
        <Text key={i} bold={!!l && !l.startsWith(' ')} wrap="truncate-end">
          {l || ' '}
        </Text>
      ))}
    </Box>
  );
}
