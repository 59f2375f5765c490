/**
 * The dashboard as a terminal shows it (`subctl dashboard`, the console's home screen): whatever
 * the server returns, since the specification does not fix its fields; numbers formatted, dates
 * in local time on a terminal, series of numbers over dates drawn as sparklines and bars on a
 * terminal, plain values off one.
 */
import { escapeControls } from '../output/format.js';
import { terminalTime } from '../output/time.js';
import { readDate } from '../api/read-values.js';
import { bars, sparkline } from '../output/index.js';

const isDateKey = (k: string) => /(^|_)(date|day|month|week|period|time)$/.test(k);

/** A series: an array of objects each with one date-like field and at least one number. */
function asSeries(v: unknown): { dateKey: string; valueKeys: string[]; rows: Record<string, unknown>[] } | undefined {
  if (!Array.isArray(v) || v.length < 2 || !v.every((r) => r && typeof r === 'object' && !Array.isArray(r))) return undefined;
  const rows = v as Record<string, unknown>[];
  const keys = Object.keys(rows[0]);
  const dateKey = keys.find((k) => isDateKey(k) && typeof rows[0][k] === 'string');
  if (!dateKey) return undefined;
  const valueKeys = keys.filter((k) => k !== dateKey && rows.every((r) => typeof r[k] === 'number'));
  return valueKeys.length ? { dateKey, valueKeys, rows } : undefined;
}

function fmtNumber(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** Ids are copied and pasted: never grouped (`id: 1013`, not `id: 1,013`). */
const isIdKey = (k: string | undefined) => k !== undefined && /(^|_)id$/.test(k);

function fmtScalar(v: unknown, tty: boolean, key?: string): string {
  if (typeof v === 'number') return tty && !isIdKey(key) ? fmtNumber(v) : String(v);
  if (typeof v === 'string' && tty && /^\d{4}-\d{2}-\d{2}[T ]\d/.test(v)) {
    // As every time on a terminal: `YYYY-MM-DD HH:mm:ss +09:00` (src/output/time.ts); one
    // without a zone is UTC, as the platform writes its times (readDate).
    const ms = readDate(v);
    if (ms !== undefined) return terminalTime(new Date(ms));
  }
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/**
 * The answer with every key and text of it escaped (`escapeControls`): server data must not drive
 * the terminal. A username registered as `eve\x1b]0;PWNED\x07\x1b[2J` in the recent activity
 * cleared the admin's screen and retitled the window.
 */
function inert(v: unknown): unknown {
  if (typeof v === 'string') return escapeControls(v);
  if (Array.isArray(v)) return v.map(inert);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [escapeControls(k), inert(x)]));
  return v;
}

/**
 * The terminal rendering: one section per top-level key. `rest` says where a list cut to 20
 * items is read whole (the command's `-o json`; the console names the command).
 */
export function renderDashboard(answer: unknown, opts: { tty: boolean; width: number; color: boolean; rest?: string }): string {
  const data = inert(answer);
  const lines: string[] = [];
  const bold = (s: string) => (opts.color ? `\u001b[1m${s}\u001b[22m` : s);
  const walk = (value: unknown, title: string, depth: number) => {
    const pad = '  '.repeat(depth);
    const series = asSeries(value);
    if (series && opts.tty) {
      lines.push(
        `${pad}${bold(title)} (${String(series.rows[0][series.dateKey]).slice(0, 10)} .. ${String(series.rows[series.rows.length - 1][series.dateKey]).slice(0, 10)})`,
      );
      for (const k of series.valueKeys) {
        const vals = series.rows.map((r) => r[k] as number);
        lines.push(
          `${pad}  ${k.padEnd(22)} ${sparkline(vals)}  total ${fmtNumber(vals.reduce((a, b) => a + b, 0))}, last ${fmtNumber(vals[vals.length - 1])}`,
        );
      }
      return;
    }
    if (Array.isArray(value)) {
      lines.push(`${pad}${bold(title)} (${value.length})`);
      const objs = value.filter((r) => r && typeof r === 'object') as Record<string, unknown>[];
      const labelKey = objs.length ? Object.keys(objs[0]).find((k) => typeof objs[0][k] === 'string') : undefined;
      const numKey = objs.length ? Object.keys(objs[0]).find((k) => typeof objs[0][k] === 'number' && !/_id$|^id$/.test(k)) : undefined;
      if (opts.tty && labelKey && numKey && objs.length === value.length && objs.length <= 20) {
        for (const l of bars(
          objs.map((o) => ({ label: String(o[labelKey]), value: Number(o[numKey]) })),
          Math.max(20, opts.width - 2 * depth - 4),
        ))
          lines.push(`${pad}  ${l}`);
        return;
      }
      // Cut to 20 on a terminal only: piped, every item is data.
      const shown = opts.tty ? value.slice(0, 20) : value;
      for (const item of shown) {
        if (item && typeof item === 'object')
          lines.push(
            `${pad}  - ${Object.entries(item)
              .map(([k, v]) => `${k}: ${fmtScalar(v, opts.tty, k)}`)
              .join(', ')}`,
          );
        else lines.push(`${pad}  - ${fmtScalar(item, opts.tty)}`);
      }
      if (value.length > shown.length)
        lines.push(`${pad}  … ${value.length - shown.length} more (${opts.rest ?? '-o json shows them all'})`);
      return;
    }
    if (value && typeof value === 'object') {
      lines.push(`${pad}${bold(title)}`);
      const entries = Object.entries(value as Record<string, unknown>);
      const keyWidth = Math.min(32, Math.max(...entries.map(([k]) => k.length)));
      for (const [k, v] of entries) {
        if (v && typeof v === 'object') walk(v, k, depth + 1);
        else lines.push(`${pad}  ${k.padEnd(keyWidth)}  ${fmtScalar(v, opts.tty, k)}`);
      }
      return;
    }
    lines.push(`${pad}${title}: ${fmtScalar(value, opts.tty, title)}`);
  };
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
      walk(v, k, 0);
      lines.push('');
    }
  } else walk(data, 'dashboard', 0);
  return `${lines.join('\n').trimEnd()}\n`;
}
