/**
 * The console: header, the screen (dashboard, a table, a record) or an overlay (switcher,
 * filter, form, confirmation, progress, help), the status line and the keys. Keys go to the
 * controller; this component only draws.
 */
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { ConfirmView } from '../components/ConfirmView.js';
import { FilterPrompt } from '../components/FilterPrompt.js';
import { FormView } from '../components/FormView.js';
import { Header } from '../components/Header.js';
import { HelpView } from '../components/HelpView.js';
import { MessageView } from '../components/MessageView.js';
import { ProgressBar } from '../components/ProgressBar.js';
import { StatusLine } from '../components/StatusLine.js';
import { Switcher } from '../components/Switcher.js';
import type { ConsoleController } from '../controller.js';
import type { Session } from '../session.js';
import { footerKeys, helpLines } from '../help.js';
import { useStore } from '../hooks/useStore.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { KeyReader } from '../keys.js';
import { resourceByName } from '../resources.js';
import { CHROME_LINES } from '../specs.js';
import { currentList, type ConsoleState } from '../state/console-state.js';
import { DetailScreen } from './DetailScreen.js';
import { HomeScreen } from './HomeScreen.js';
import { ListScreen } from './ListScreen.js';

export interface ConsoleAppProps {
  controller: ConsoleController;
  session: Session;
  /** Dashboard auto-refresh period (tests shorten it). */
  refreshMs?: number;
}

interface BodyProps {
  controller: ConsoleController;
  state: ConsoleState;
  width: number;
  tableHeight: number;
  bodyHeight: number;
  refreshMs?: number;
  onMaxScroll: (n: number) => void;
  onHomeMaxScroll: (n: number) => void;
}

/** What fills the body: the overlay open, else the screen (a table, a record, the dashboard). */
function screenBody({ controller, state, width, tableHeight, bodyHeight, refreshMs, onMaxScroll, onHomeMaxScroll }: BodyProps): ReactNode {
  const resource = state.resource ? resourceByName(state.resource) : undefined;
  const list = currentList(state);
  const o = state.overlay;

  if (o?.kind === 'help') return <HelpView lines={helpLines(state, width)} height={bodyHeight} scroll={o.scroll} />;
  if (o?.kind === 'message') return <MessageView title={o.title} text={o.text} />;
  if (o?.kind === 'switcher') return <Switcher text={o.text} choice={o.choice} height={bodyHeight} />;
  if (o?.kind === 'filter' && resource) return <FilterPrompt resource={resource} text={o.text} errors={o.errors} height={bodyHeight} />;
  if (o?.kind === 'form') return <FormView form={o.form} height={bodyHeight} width={width} />;
  if (o?.kind === 'confirm') return <ConfirmView parts={o} typed={o.typed} text={o.text} height={bodyHeight} />;
  if (o?.kind === 'progress')
    return (
      <Box flexDirection="column">
        <Text bold>{o.title}</Text>
        <ProgressBar progress={o.progress} width={width} />
      </Box>
    );
  if (state.view === 'list' && resource && list)
    return (
      <ListScreen
        cache={controller.cache}
        resource={resource}
        list={list}
        width={width}
        height={tableHeight}
        shown={controller.tableView()}
      />
    );
  if (state.view === 'detail' && resource && state.detail)
    return (
      <DetailScreen
        cache={controller.cache}
        resource={resource}
        detail={state.detail}
        width={width}
        height={bodyHeight - 1}
        onMaxScroll={onMaxScroll}
      />
    );
  return (
    <HomeScreen
      cache={controller.cache}
      width={width}
      height={bodyHeight - 1}
      autoRefresh={state.autoRefresh}
      intervalMs={refreshMs}
      scroll={state.homeScroll}
      onMaxScroll={onHomeMaxScroll}
    />
  );
}

/** The least height the frame fits in: the lines around the table and three of its rows. */
const MIN_ROWS = CHROME_LINES + 3;

export function ConsoleApp({ controller, session, refreshMs }: ConsoleAppProps) {
  const state = useStore(controller.store);
  useSyncExternalStore(
    controller.cache.subscribe,
    () => controller.cache.version,
    () => controller.cache.version,
  );
  const size = useTerminalSize();
  controller.setViewport(size);
  const { exit } = useApp();
  useEffect(() => controller.setExit(() => exit()), [controller, exit]);
  // Ink's write of nothing: it erases its frame, writes '' and draws the frame again, whole
  // (a render of an unchanged frame writes nothing, which after a suspend leaves a blank screen).
  const { write } = useStdout();
  useEffect(() => controller.setRepaint(() => write('')), [controller, write]);
  const reader = useRef(new KeyReader()).current;
  useInput((input, key) => {
    for (const k of reader.read(input, key)) controller.handleKey(k);
  });
  const onMaxScroll = useCallback(
    (n: number) => {
      controller.detailMaxScroll = n;
    },
    [controller],
  );
  const onHomeMaxScroll = useCallback(
    (n: number) => {
      controller.homeMaxScroll = n;
    },
    [controller],
  );

  // Shorter than the frame at its least (three rows of a table and the lines around them), the
  // frame would scroll the terminal and Ink, erasing the lines it drew, would leave pieces of
  // each frame behind: one line says so instead, and the keys still work (q quits).
  if (size.rows < MIN_ROWS)
    return <Text wrap="wrap">{`terminal too small: ${size.rows} lines, the console needs ${MIN_ROWS} (q quits)`}</Text>;
  const width = size.columns;
  const tableHeight = controller.tableHeight();
  // Title + table header + rows.
  const bodyHeight = tableHeight + 2;
  const body = screenBody({ controller, state, width, tableHeight, bodyHeight, refreshMs, onMaxScroll, onHomeMaxScroll });

  const status = controller.statusShown();
  const [keys1, keys2] = footerKeys(state, width, { error: status?.tone === 'error' });
  return (
    <Box flexDirection="column" width={width}>
      <Header session={session} readOnly={state.readOnly} width={width} />
      <Box flexDirection="column" height={bodyHeight} overflow="hidden">
        {body}
      </Box>
      <StatusLine status={status} width={width} />
      <Text wrap="truncate-end">{keys1}</Text>
      <Text dimColor wrap="truncate-end">
        {keys2}
      </Text>
    </Box>
  );
}
