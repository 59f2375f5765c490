/**
 * An action's form: opened on the marked rows (when the action takes several) or the selected
 * row, filled from the whole record for an edit; its keys; on submit, checked with the contract
 * and handed to the confirmation (src/ui/modes/confirm.ts).
 */
import { describeObject } from '../../api/contract/common.js';
import type { ActionDef } from '../actions.js';
import { formFields, formKey as editForm, formValues, missingRequired, newForm, typedProblems } from '../form-model.js';
import type { KeyPress } from '../keys.js';
import type { CurrentList } from '../list-pages.js';
import type { ResourceDef, Row } from '../resources.js';
import { detailSpec } from '../specs.js';
import type { Overlay } from '../state/console-state.js';
import { inputsFor, openConfirm } from './confirm.js';
import type { ModeHost } from './host.js';

/** Starts an action on the marked rows (when the action takes several), else the selected row. */
export function startAction(h: ModeHost, def: ActionDef): void {
  void openAction(h, def);
}

/** The rows an action applies to: none for a create; undefined (said why) when there is no row. */
function rowsFor(h: ModeHost, def: ActionDef, c: CurrentList): Row[] | undefined {
  if (def.mode === 'create') return [];
  const marked = Object.values(c.ls.marked);
  if (def.multi && marked.length) return marked;
  const row = h.pages.selectedRow();
  if (row) return [row];
  h.say('info', h.pages.failed(c) ? 'no row: this page could not be loaded (r tries again)' : 'no row selected');
  return undefined;
}

async function openAction(h: ModeHost, def: ActionDef): Promise<void> {
  const c = h.pages.current();
  if (!c || h.state.readOnly) return;
  let rows = rowsFor(h, def, c);
  if (!rows) return;
  // A new action: what the status line said about the last one is not about this one.
  h.dispatch({ type: 'status', status: undefined });
  const described = describeObject(def.endpoint.body);
  let fields = formFields(described, { only: def.fields, require: def.require });
  if (fields.length === 0) return openConfirm(h, def, rows, {});
  if (def.mode === 'update' && rows[0]) {
    const at = h.state;
    const record = await fullRecord(h, c.r, rows[0]);
    // Loading took a while: the user may have gone elsewhere meanwhile.
    if (!record || h.state.overlay || h.state.view !== at.view || h.state.resource !== at.resource) return;
    rows = [record];
    // Fields the record still lacks start empty, and an empty field that stays empty is not
    // sent (only changed fields are): say so, rather than look like the value is blank.
    fields = fields.map((f) => (f.name in record ? f : { ...f, note: 'not in the list: kept as it is unless typed' }));
  }
  const initial = def.mode === 'update' && rows[0] ? rows[0] : {};
  const title = `${def.label} ${rows.length > 1 ? `${rows.length} ${c.r.name}` : def.target(rows[0])}`;
  h.overlay({ kind: 'form', form: newForm(title, fields, initial, def.mode === 'update'), action: def, rows });
}

/**
 * The whole record for an edit form: a list row lacks fields (a service's base_service_url,
 * description…), which the form would show empty. Fetched with the resource's detail (the one
 * Enter shows, so often cached); undefined when it could not be (then said in the status line).
 */
async function fullRecord(h: ModeHost, r: ResourceDef, row: Row): Promise<Row | undefined> {
  const spec = detailSpec(r, row);
  if (!spec || !r.detail?.record) return row;
  h.say('busy', 'loading the record…');
  await h.cache.load(spec);
  const q = h.cache.peek(spec, { expired: true });
  if (q.data === undefined) {
    h.say('error', `edit: could not load the record: ${h.describe(q.error)}; nothing was changed`);
    return undefined;
  }
  h.dispatch({ type: 'status', status: undefined });
  return { ...row, ...r.detail.record(q.data) };
}

export function formKey(h: ModeHost, o: Extract<Overlay, { kind: 'form' }>, k: KeyPress): void {
  const r = editForm(o.form, k);
  if (r.cancel) {
    h.overlay(undefined);
    return h.say('info', `${o.action.label}: cancelled, nothing was sent`);
  }
  if (r.submit) return submitForm(h, o);
  if (r.form !== o.form) h.overlay({ ...o, form: r.form });
}

function submitForm(h: ModeHost, o: Extract<Overlay, { kind: 'form' }>): void {
  const f = o.form;
  const values = formValues(f);
  const missing = missingRequired(f);
  const checked = inputsFor(o.action, o.rows, values);
  const errors = { ...('errors' in checked ? checked.errors : {}), ...typedProblems(f), ...missing };
  if (!Object.keys(errors).length && f.onlyChanged && Object.keys(values).length === 0) errors[''] = 'nothing changed';
  if (Object.keys(errors).length) {
    const first = f.fields.findIndex((x) => errors[x.name]);
    h.overlay({ ...o, form: { ...f, errors, focus: first >= 0 ? first : f.focus } });
    return;
  }
  if ('inputs' in checked) openConfirm(h, o.action, o.rows, values, checked.inputs);
}
