/**
 * An action's confirmation and its sending: what will change for each row (or why the server
 * is likely to refuse it), the answer asked (`y`, or a typed name or count), then the
 * request(s), and every cached screen asked again.
 */
import { validateInput } from '../../api/client.js';
import { runActionOnRows, type ActionDef } from '../actions.js';
import { confirmWindow } from '../confirm-window.js';
import { drawable } from '../drawable.js';
import { problemsByField } from '../form-model.js';
import { editLine, printable, type KeyPress } from '../keys.js';
import { rowKey, type CallSpec, type Row } from '../resources.js';
import type { Overlay } from '../state/console-state.js';
import type { ModeHost } from './host.js';

type Confirm = Extract<Overlay, { kind: 'confirm' }>;

/** The inputs of an action for its rows, validated with the contract: problems by field, or the inputs. */
export function inputsFor(
  def: ActionDef,
  rows: Row[],
  values: Record<string, unknown>,
): { inputs: CallSpec[] } | { errors: Record<string, string> } {
  const targets: Array<Row | undefined> = def.mode === 'create' ? [undefined] : rows;
  const inputs = targets.map((row) => def.input(row, values));
  for (const input of inputs) {
    try {
      validateInput(def.endpoint, input);
    } catch (e) {
      const errors = problemsByField(e);
      if (errors) return { errors };
      throw e;
    }
  }
  return { inputs };
}

/** Opens the confirmation of `def` on `rows`; `inputs` when the form checked them already. */
export function openConfirm(h: ModeHost, def: ActionDef, rows: Row[], values: Record<string, unknown>, inputs?: CallSpec[]): void {
  if (!inputs) {
    const checked = inputsFor(def, rows, values);
    if ('errors' in checked) {
      return h.say(
        'error',
        `${def.label}: ${Object.entries(checked.errors)
          .map(([k, v]) => (k ? `${k}: ${v}` : v))
          .join('; ')}`,
      );
    }
    inputs = checked.inputs;
  }
  const text = rows.length > 1 ? manyRowsText(h, def, rows, inputs) : oneRowText(h, def, rows[0], inputs);
  // The text to type is the code as drawn (`EVIL\x1b[31mX`): a code holding a control character
  // could not be typed otherwise, and the raw code would reach the terminal.
  const typed = def.typed ? (rows.length > 1 ? String(rows.length) : drawable(def.typed(rows[0]))) : undefined;
  h.overlay({ kind: 'confirm', action: def, rows, inputs, ...text, scroll: 0, typed, text: '' });
}

/**
 * Each row's change, or why the server is likely to refuse it (its status does not allow the
 * action, by the rules the sandbox has: a platform's may differ, so every row is still sent).
 */
const refusalOf = (def: ActionDef, r: Row | undefined) => (r ? def.refusal?.(r) : undefined);

function oneRowText(h: ModeHost, def: ActionDef, row: Row | undefined, inputs: CallSpec[]): Pick<Confirm, 'lines' | 'items' | 'tail'> {
  const body = inputs[0]?.body ?? {};
  const lines = [`${def.label} ${def.target(row)}`, `profile: ${h.session.profile} (${h.session.target})`];
  const why = refusalOf(def, row);
  if (why) lines.push(`✗ likely refused by the server: ${why}`);
  else if (def.preview) lines.push(...def.preview(row, body));
  if (body.reason !== undefined) lines.push(`reason: ${String(body.reason)}`);
  return { lines, items: [], tail: [] };
}

function manyRowsText(h: ModeHost, def: ActionDef, rows: Row[], inputs: CallSpec[]): Pick<Confirm, 'lines' | 'items' | 'tail'> {
  const body = inputs[0]?.body ?? {};
  const c = h.pages.current();
  const resource = c?.r.name ?? '';
  // Marks are kept across pages (a filter or sort change clears them): say how many of the
  // rows are not on the page in view, so that nothing is acted on unseen.
  const onPage = new Set((c?.rows ?? []).map((r) => rowKey(c!.r, r)));
  const elsewhere = c ? rows.filter((r) => !onPage.has(rowKey(c.r, r))).length : 0;
  const lines = [
    `${def.label} ${rows.length} ${resource}:${elsewhere ? ` ${elsewhere} of them marked on other pages, all listed here` : ''}`,
  ];
  // Every row, not the first few: the list scrolls when the screen cannot hold it.
  const items = rows.map((r, i) => {
    const why = refusalOf(def, r);
    const change = def.preview ? def.preview(r, inputs[i]?.body ?? body).join('; ') : '';
    return why ? `✗ ${def.target(r)}: likely refused (${why})` : `  ${def.target(r)}${change ? ` — ${change}` : ''}`;
  });
  const tail: string[] = [];
  const refused = rows.filter((r) => refusalOf(def, r)).length;
  if (refused)
    tail.push(
      `${refused} of ${rows.length} likely refused (their status does not allow ${def.label}); every row is sent, and the server decides`,
    );
  tail.push(`profile: ${h.session.profile} (${h.session.target})`);
  if (body.reason !== undefined) tail.push(`reason: ${String(body.reason)}`);
  return { lines, items, tail };
}

export function confirmKey(h: ModeHost, o: Confirm, k: KeyPress): void {
  const cancel = () => {
    h.overlay(undefined);
    h.say('info', `${o.action.label}: cancelled, nothing was sent`);
  };
  if (k.escape) return cancel();
  // The list of rows scrolls (arrows and pages; j and k too where nothing is typed).
  const win = confirmWindow(o, h.tableHeight() + 2);
  const scroll = (n: number) => h.overlay({ ...o, scroll: Math.max(0, Math.min(win.maxScroll, n)) });
  const typing = o.typed !== undefined;
  if (k.down || (!typing && k.input === 'j' && !k.ctrl)) return scroll(win.first + 1);
  if (k.up || (!typing && k.input === 'k' && !k.ctrl)) return scroll(win.first - 1);
  if (k.pageDown) return scroll(win.first + Math.max(1, win.count - 1));
  if (k.pageUp) return scroll(win.first - Math.max(1, win.count - 1));
  if (o.typed !== undefined) {
    if (k.ret) {
      if (o.text === o.typed) return void send(h, o);
      h.overlay({ ...o, text: '' });
      h.say(
        'error',
        `'${o.text}' does not match ${o.typed} (exactly, case included); nothing ${o.action.label === 'delete' ? 'deleted' : 'sent'}`,
      );
      return;
    }
    const text = editLine(o.text, k);
    if (text !== o.text) h.overlay({ ...o, text });
    return;
  }
  const ch = printable(k).toLowerCase();
  if (ch === 'y') void send(h, o);
  // [y/N]: Enter takes the default, no (it did nothing), as the command line's prompt does.
  else if (ch === 'n' || k.ret) cancel();
}

/** Sends the confirmed action: one request said on the status line, several with a progress bar. */
async function send(h: ModeHost, o: Confirm): Promise<void> {
  const { action, inputs } = o;
  if (inputs.length === 1) {
    h.overlay(undefined);
    h.say('busy', `${action.label}: sending…`);
    try {
      const res = await h.api.callFull(action.endpoint, inputs[0], { signal: h.signal });
      const data = res.data as Record<string, unknown> | undefined;
      const message = res.message ?? (typeof data?.message === 'string' ? data.message : undefined) ?? 'done';
      h.say('ok', `${action.label}: ${message}`);
    } catch (e) {
      h.say('error', `${action.label} failed: ${h.describe(e)}`);
    }
  } else await sendMany(h, o);
  // Lists, details and the dashboard may all show what changed: ask again.
  h.cache.invalidate(() => true);
}

async function sendMany(h: ModeHost, o: Confirm): Promise<void> {
  const { action, inputs } = o;
  const signal = h.signal;
  const title = `${action.label} ${inputs.length} rows`;
  h.overlay({ kind: 'progress', title, progress: { done: 0, total: inputs.length, failed: 0 } });
  const outcomes = await runActionOnRows(
    inputs,
    (input) => h.api.callFull(action.endpoint, input, { signal }),
    (progress) => h.overlay({ kind: 'progress', title, progress }),
    { concurrency: 4, signal },
  );
  const failed = outcomes.filter((x) => !x.ok);
  h.overlay(undefined);
  h.dispatch({ type: 'update-list', patch: { marked: {} } });
  if (failed.length) {
    const i = inputs.indexOf(failed[0].row);
    h.say(
      'error',
      `${action.label}: ${outcomes.length - failed.length} done, ${failed.length} failed (first: ${action.target(o.rows[i])}: ${h.describe(failed[0].error)})`,
    );
  } else h.say('ok', `${action.label}: ${outcomes.length} done`);
}
