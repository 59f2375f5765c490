/**
 * Every key of the console, for `?` and for the footer's short form.
 */
import { actionsFor } from './actions.js';
import { resourceByName, sortInfo } from './resources.js';
import type { ConsoleState } from './state/console-state.js';

export const GLOBAL_KEYS: Array<[string, string]> = [
  [':', 'switch to a resource (Tab completes, ↑↓ choose, Enter opens; `home` for the dashboard)'],
  ['r', 'refresh what is on screen'],
  ['?', 'this help (↑↓ scroll, any other key closes it)'],
  ['q, Ctrl-C', 'quit'],
  ['Ctrl-Z', 'suspend to the shell (`fg` brings the console back as it was)'],
];

export const HOME_KEYS: Array<[string, string]> = [
  ['a', 'auto-refresh of the dashboard on/off (every 30 s)'],
  ['↑ ↓, PgUp PgDn', 'scroll'],
];

export const LIST_KEYS: Array<[string, string]> = [
  ['↑ ↓, j k', 'move the selection'],
  ['PgDn PgUp, → ←, ] [', 'next / previous page (asked of the server)'],
  ['g G', 'first / last page'],
  ['Home End', 'first / last row of the page'],
  ['/', 'filter: field=value pairs (server-side; empty clears)'],
  ['s', 'cycle the sort field; the order flips when it wraps'],
  ['Enter', 'open the selected row'],
  ['Space', 'mark / unmark the row (actions run on every marked row)'],
  ['Ctrl-S', 'export the rows of this page to a CSV file in the current directory'],
  ['Esc', 'clear the marks, else back to the dashboard'],
];

export const DETAIL_KEYS: Array<[string, string]> = [
  ['↑ ↓, PgUp PgDn', 'scroll'],
  ['Esc', 'back to the table'],
];

export const FORM_KEYS: Array<[string, string]> = [
  ['Tab ↓ / Shift-Tab ↑', 'next / previous field'],
  ['← →, Space', 'choose a value (lists of values, true/false)'],
  ['Enter', 'check and continue to the confirmation'],
  ['Esc', 'cancel: nothing is sent'],
];

/** The help page's lines for the state on screen. */
export function helpLines(s: ConsoleState): string[] {
  const rows = (title: string, keys: Array<[string, string]>) => [title, ...keys.map(([k, d]) => `  ${k.padEnd(22)} ${d}`), ''];
  // On a table the server cannot sort (audit), `s` is not offered here either.
  const r = s.resource ? resourceByName(s.resource) : undefined;
  const listKeys = r && !sortInfo(r) ? LIST_KEYS.filter(([k]) => k !== 's') : LIST_KEYS;
  const lines = [...rows('Everywhere', GLOBAL_KEYS), ...rows('Dashboard', HOME_KEYS), ...rows('Tables', listKeys), ...rows('Details', DETAIL_KEYS)];
  const actions = actionsFor(s.resource);
  if (s.readOnly) lines.push('Actions are hidden: the console runs with --read-only.', '');
  else if (s.resource && actions.length) lines.push(...rows(`Actions on ${s.resource}`, actions.map((a) => [a.key, `${a.label}${a.multi ? ' (every marked row)' : ''}`])));
  lines.push(...rows('Forms', FORM_KEYS));
  return lines;
}

/** The footer: the keys that matter on this screen, short (two lines; `?` lists them all). */
export function footerKeys(s: ConsoleState): [string, string] {
  const o = s.overlay;
  if (o?.kind === 'form') return ['Tab/↓ next field  Shift-Tab/↑ previous  ←→ choose a value', 'Enter continue  Esc cancel (nothing is sent)'];
  if (o?.kind === 'confirm') return [o.typed !== undefined ? 'type the text shown, then Enter' : 'y confirm', 'Esc cancel (nothing is sent)'];
  if (o?.kind === 'switcher') return ['type a name  Tab complete  ↑↓ choose  Enter open', 'Esc cancel'];
  if (o?.kind === 'filter') return ['field=value …  Enter apply (empty clears)', 'Esc cancel'];
  if (o?.kind === 'help') return ['↑↓ PgUp/PgDn scroll', 'any other key closes the help'];
  if (o?.kind === 'progress') return ['working…', 'Ctrl-C quits'];
  const nav = ': switch  ? help  q quit';
  if (s.view === 'home') return [`↑↓ PgUp/PgDn scroll  a auto-refresh ${s.autoRefresh ? 'off' : 'on'}  r refresh`, nav];
  if (s.view === 'detail') return ['↑↓ PgUp/PgDn scroll  Esc back  r refresh', nav];
  const acts = s.readOnly ? ['(read-only)'] : actionsFor(s.resource).map((a) => `${a.key} ${a.label}`);
  const r = s.resource ? resourceByName(s.resource) : undefined;
  return [
    ['Enter open', 'Space mark', ...acts, 'r refresh'].join('  '),
    // `s` only where the server sorts (audit does not).
    ['↑↓ move', 'PgUp/PgDn page', 'g/G first/last', '/ filter', ...(r && sortInfo(r) ? ['s sort'] : []), '^S csv', nav].join('  '),
  ];
}
