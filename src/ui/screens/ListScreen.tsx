/**
 * A resource's table: one server page, fitted to the width, only the visible rows drawn. While
 * the next page loads the last one stays on screen; a page seen within 5 minutes shows at once.
 * Which page's rows are drawn is the controller's `tableView()`, the same rows its keys act on.
 */
import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { DataTable } from '../components/DataTable.js';
import { listSpec, pageOf } from '../specs.js';
import { drawableLine } from '../drawable.js';
import { filtersText } from '../filters.js';
import { useQueryCache } from '../hooks/useQueryCache.js';
import type { QueryCache } from '../query-cache.js';
import { rowKey, sortInfo, type ResourceDef } from '../resources.js';
import type { ListState } from '../state/console-state.js';
import { columnsFor, layoutTable } from '../table-layout.js';

export interface ListScreenProps {
  cache: QueryCache;
  resource: ResourceDef;
  list: ListState;
  width: number;
  /** Rows of the table area. */
  height: number;
  /** The answer drawn (ConsoleController.tableView): this page's, or while it loads the page last shown. */
  shown?: { data: unknown; list: ListState; own: boolean };
}

export function ListScreen({ cache, resource: r, list: ls, width, height, shown }: ListScreenProps) {
  const spec = useMemo(() => listSpec(r, ls), [r, ls.page, ls.size, ls.filters, ls.sortBy, ls.sortOrder]);
  const q = useQueryCache(cache, spec);
  const page = useMemo(() => (shown ? pageOf(r, shown.list, shown.data) : undefined), [r, shown?.data]);
  const rows = page?.rows;
  // Drawn as the resource reads its rows (the audit log's target and change); keys act on `rows`.
  const drawn = useMemo(() => (rows && r.view ? rows.map(r.view) : rows), [rows, r]);
  const columns = useMemo(() => columnsFor(drawn ?? [], r.columns), [drawn, r.columns]);
  const layout = useMemo(() => layoutTable(drawn ?? [], columns, width - 2, r.labels), [drawn, columns, width, r.labels]);
  const markedIdx = useMemo(() => {
    const set = new Set<number>();
    rows?.forEach((row, i) => {
      if (ls.marked[rowKey(r, row)]) set.add(i);
    });
    return set;
  }, [rows, ls.marked, r]);

  const sort = sortInfo(r);
  const nMarked = Object.keys(ls.marked).length;
  // What must stay in view at 80 columns comes first (marks and loading: what an action key will
  // act on, and whether the rows are current); the rest is cut at the end of the line if need be.
  const facts = [
    nMarked ? `${nMarked} marked` : undefined,
    q.loading ? 'loading…' : undefined,
    !page
      ? `page ${ls.page}`
      : page.totalRecords === 0 || page.totalPages === 0
        ? 'no rows'
        : `page ${ls.page} of ${page.totalPages ?? '?'}${page.totalRecords !== undefined ? `, total ${page.totalRecords}` : ''}`,
    layout.hidden.length ? `${layout.hidden.length} column${layout.hidden.length > 1 ? 's' : ''} hidden` : undefined,
    sort ? `sort ${ls.sortBy ?? sort.defaultBy} ${ls.sortOrder ?? sort.defaultOrder}` : undefined,
    Object.keys(ls.filters).length ? `filter ${filtersText(ls.filters)}` : undefined,
    layout.zone ? `times ${layout.zone}` : undefined,
  ].filter(Boolean);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>{r.name}</Text>
        <Text dimColor>{drawableLine(`  ${facts.join('  ·  ')}`)}</Text>
      </Text>
      {rows === undefined ? (
        <Text dimColor>{q.error && !q.loading ? `could not load page ${ls.page} (! says why); r tries again` : `loading ${r.name}…`}</Text>
      ) : rows.length === 0 ? (
        <Text dimColor>no rows{Object.keys(ls.filters).length ? ' match the filter (/ to change it)' : ''}</Text>
      ) : (
        <DataTable layout={layout} selected={Math.min(ls.selected, rows.length - 1)} marked={markedIdx} height={height} width={width} />
      )}
    </Box>
  );
}
