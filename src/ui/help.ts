/**
 * Every key of the console, for `?` and for the footer's short form.
 */
import { displayWidth } from '../output/width.js';
import { wrapWidth } from '../output/wrap.js';
import { actionsFor } from './actions.js';
import { jumpHints } from './jumps.js';
import { resourceByName, sortInfo } from './resources.js';
import type { ConsoleState } from './state/console-state.js';

const GLOBAL_KEYS: Array<[string, string]> = [
  [':', 'switch to a resource (Tab completes, ↑↓ choose, Enter opens; `home` for the dashboard)'],
  ['r', 'refresh what is on screen'],
  ['!', 'the last error in full (the status line cuts it to the width of the terminal)'],
  ['?', 'this help (↑↓ scroll, any other key closes it)'],
  ['q, Ctrl-C', 'quit'],
  ['Ctrl-Z', 'suspend to the shell (`fg` brings the console back as it was)'],
];

const HOME_KEYS: Array<[string, string]> = [
  ['a', 'auto-refresh of the dashboard on/off (every 30 s)'],
  ['↑ ↓, PgUp PgDn', 'scroll'],
];

const LIST_KEYS: Array<[string, string]> = [
  ['↑ ↓, j k', 'move the selection'],
  ['PgDn PgUp, → ←, ] [', 'next / previous page (asked of the server)'],
  ['g G', 'first / last page'],
  ['Home End', 'first / last row of the page'],
  ['/', 'filter: field=value pairs (server-side; empty clears)'],
  ['s', 'cycle the sort field; the order flips when it wraps'],
  ['Enter', 'open the selected row'],
  ['Space', 'mark / unmark the row (actions run on every marked row; a filter or sort change clears the marks)'],
  ['S W A', 'on a user: their subscriptions, wallet transactions, audit entries (Esc comes back)'],
  ['U', 'on a subscription, transaction, audit entry or code: the user it names'],
  ['Ctrl-S', 'export the rows of this page to a CSV file in the current directory (-2, -3 … added when the name is taken)'],
  ['Esc', 'clear the marks, else back to where a jump came from, else to the dashboard'],
];

const DETAIL_KEYS: Array<[string, string]> = [
  ['↑ ↓, PgUp PgDn', 'scroll'],
  ['S W A', 'on a user: their subscriptions, wallet transactions, audit entries'],
  ['U', 'on a row naming a user: that user'],
  ['Esc', 'back to the table (or where a jump came from)'],
];

const FORM_KEYS: Array<[string, string]> = [
  ['Tab ↓ / Shift-Tab ↑', 'next / previous field'],
  ['← →, Space', 'choose a value (lists of values, true/false)'],
  ['Enter', 'check and continue to the confirmation'],
  ['Esc', 'cancel: nothing is sent'],
];

/** Width of the keys' column; narrower terminals give each key's text the lines under it. */
const KEY_COLUMN = 22;
const BESIDE_FROM = 60;

/**
 * A key and what it does, fitted to `width`: the text wrapped beside the key (under it, indented,
 * below BESIDE_FROM columns), so that nothing of it is cut.
 */
function keyLines(key: string, text: string, width: number): string[] {
  if (width >= BESIDE_FROM) {
    const pad = ' '.repeat(KEY_COLUMN + 3);
    const [first, ...rest] = wrapWidth(text, width - pad.length).map((l) => l.trimEnd());
    return [`  ${key.padEnd(KEY_COLUMN)} ${first}`, ...rest.map((l) => pad + l)];
  }
  return [`  ${key}`, ...wrapWidth(text, width - 6).map((l) => `      ${l.trimEnd()}`)];
}

/** The help page's lines for the state on screen, `width` columns wide. */
export function helpLines(s: ConsoleState, width = 100): string[] {
  const rows = (title: string, keys: Array<[string, string]>) => [title, ...keys.flatMap(([k, d]) => keyLines(k, d, width)), ''];
  // On a table the server cannot sort (audit), `s` is not offered here either.
  const r = s.resource ? resourceByName(s.resource) : undefined;
  const listKeys = r && !sortInfo(r) ? LIST_KEYS.filter(([k]) => k !== 's') : LIST_KEYS;
  const lines = [
    ...rows('Everywhere', GLOBAL_KEYS),
    ...rows('Dashboard', HOME_KEYS),
    ...rows('Tables', listKeys),
    ...rows('Details', DETAIL_KEYS),
  ];
  const actions = actionsFor(s.resource);
  if (s.readOnly) lines.push('Actions are hidden: the console runs with --read-only.', '');
  else if (s.resource && actions.length)
    lines.push(
      ...rows(
        `Actions on ${s.resource}`,
        actions.map((a) => [a.key, `${a.label}${a.multi ? ' (every marked row)' : ''}`]),
      ),
    );
  lines.push(...rows('Forms', FORM_KEYS));
  return lines;
}

/** A key's hint in the footer and how much it matters: 0 is always shown, higher ones give way first. */
type Hint = [text: string, rank: number];

/** Between hints. */
const SEP = '  ';

/**
 * The hints that fit `width` columns, in their order: while the line is too wide, the least
 * important hint goes (the last of the highest rank). `? help` lists them all.
 */
function fitHints(hints: Hint[], width: number): string {
  let kept = hints;
  const text = () => kept.map(([t]) => t).join(SEP);
  while (kept.length > 1 && displayWidth(text()) > width) {
    let worst = -1;
    kept.forEach(([, rank], i) => {
      if (rank > 0 && (worst < 0 || rank >= kept[worst][1])) worst = i;
    });
    if (worst < 0) break;
    kept = kept.filter((_, i) => i !== worst);
  }
  return text();
}

/**
 * The footer: the keys that matter on this screen, short, fitted to `width` (two lines; `?`
 * lists them all). `? help` and `q quit` are always there; `! error` when an error is shown.
 */
export function footerKeys(s: ConsoleState, width = Infinity, opts: { error?: boolean } = {}): [string, string] {
  const o = s.overlay;
  const fit = (a: Hint[], b: Hint[]): [string, string] => [fitHints(a, width), fitHints(b, width)];
  if (o?.kind === 'form')
    return fit(
      [
        ['Tab/↓ next field', 1],
        ['Shift-Tab/↑ previous', 2],
        ['←→ choose a value', 3],
      ],
      [
        ['Enter continue', 0],
        ['Esc cancel (nothing is sent)', 0],
      ],
    );
  if (o?.kind === 'confirm') {
    const answer: Hint = [o.typed !== undefined ? 'type the text shown, then Enter' : 'y confirm', 0];
    return fit(o.items.length > 1 ? [answer, ['↑↓ PgUp/PgDn scroll the rows', 1]] : [answer], [['Esc cancel (nothing is sent)', 0]]);
  }
  if (o?.kind === 'switcher')
    return fit(
      [
        ['type a name', 3],
        ['Tab complete', 2],
        ['↑↓ choose', 2],
        ['Enter open', 1],
      ],
      [['Esc cancel', 0]],
    );
  if (o?.kind === 'filter')
    return fit(
      [
        ['field=value …', 2],
        ['Enter apply (empty clears)', 1],
      ],
      [['Esc cancel', 0]],
    );
  if (o?.kind === 'help') return fit([['↑↓ PgUp/PgDn scroll', 1]], [['any other key closes the help', 0]]);
  if (o?.kind === 'message') return fit([['any key closes it', 0]], []);
  if (o?.kind === 'progress') return fit([['working…', 1]], [['Ctrl-C quits', 0]]);
  const err: Hint[] = opts.error ? [['! error', 1]] : [];
  const nav: Hint[] = [...err, [': switch', 2], ['? help', 0], ['q quit', 0]];
  if (s.view === 'home')
    return fit(
      [
        ['↑↓ PgUp/PgDn scroll', 2],
        [`a auto-refresh ${s.autoRefresh ? 'off' : 'on'}`, 2],
        ['r refresh', 1],
      ],
      nav,
    );
  const jumps = (resource: string | undefined): Hint[] => jumpHints(resource).map((h) => [h, 2]);
  if (s.view === 'detail') return fit([['↑↓ PgUp/PgDn scroll', 2], ['Esc back', 1], ['r refresh', 1], ...jumps(s.detail?.resource)], nav);
  const acts: Hint[] = s.readOnly ? [['(read-only)', 1]] : actionsFor(s.resource).map((a) => [`${a.key} ${a.label}`, 3]);
  const r = s.resource ? resourceByName(s.resource) : undefined;
  return fit(
    // `r refresh` first: at 80 columns the last actions give way, not it.
    [['r refresh', 1], ['Enter open', 2], ['Space mark', 2], ...acts, ...jumps(s.resource)],
    // `s` only where the server sorts (audit does not).
    // Moving with the arrows goes without saying: it gives way first.
    [
      ['↑↓ move', 4],
      ['PgUp/PgDn page', 2],
      ['g/G first/last', 4],
      ['/ filter', 3],
      ...(r && sortInfo(r) ? ([['s sort', 3]] as Hint[]) : []),
      ['^S csv', 3],
      ...nav,
    ],
  );
}
