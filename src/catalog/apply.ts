/**
 * Applying a plan, one change at a time in the plan's order, each recorded in the run's journal
 * before it is sent and after its answer. Exactly once: the plan is the diff against the
 * platform as read at the start, so a change that landed before a kill is no longer in it
 * (settled `verified`), and one that did not is still in it (settled `absent`, then sent).
 * After the plan, the platform is read again and what is still different is applied (a role
 * created inactive needs its create, then an update), never a change already tried in this run.
 * That read also settles the changes whose answer was lost (the network, a 5xx): applied when
 * the platform no longer needs them, else failed; never by sending them again in this run.
 */
import type { ApiClient, CallInput } from '../api/client.js';
import { servicesCreate, servicesDelete, servicesUpdate } from '../api/contract/admin-services.js';
import { plansCreate, plansDelete, plansUpdate } from '../api/contract/admin-plans.js';
import { servicePlansCreate, servicePlansDelete, servicePlansManage } from '../api/contract/admin-service-plans.js';
import { rolesCreate, rolesDelete, rolesUpdate } from '../api/contract/user-accounts.js';
import { CliError, InterruptedError, mayHaveApplied } from '../api/errors.js';
import { diffCatalog, type Change, type Plan } from './diff.js';
import type { CatalogJournal, StepEvent } from './journal.js';
import { safe } from './plan-text.js';
import { canonical } from './step.js';
import type { Catalog, Kind } from './model.js';
import { readPlatform } from './read.js';

/** `confirmed`: sent in this run, its answer lost, and the platform read after it shows it applied. */
type Outcome = 'applied' | 'confirmed' | 'applied-earlier' | 'verified' | 'failed' | 'skipped';

export interface ReportRow {
  kind: Kind;
  op: Change['op'];
  key: string;
  outcome: Outcome;
  status?: number;
  message?: string;
}

export interface ApplyOptions {
  prune: boolean;
  forceDelete: boolean;
  kinds: ReadonlySet<Kind>;
  journal: CatalogJournal;
  signal: AbortSignal;
  /** Progress lines (stderr). */
  note: (line: string) => void;
}

export interface ApplyResult {
  rows: ReportRow[];
  firstError?: unknown;
}

/** The step's name in the journal: the change and the values it sets. */
function stepName(c: Change): string {
  return `${c.kind} ${c.op} ${c.key}${c.op === 'delete' ? '' : ` ${canonical(c.entry)}`}`;
}

/** Sends one change. */
async function send(api: ApiClient, c: Change, forceDelete: boolean, signal: AbortSignal): Promise<void> {
  const o = { signal };
  const force = forceDelete ? { force_delete: true } : {};
  const e = c.entry as Record<string, unknown>;
  switch (`${c.kind}:${c.op}`) {
    case 'services:create':
      return void (await api.call(servicesCreate, { body: e as CallInput<typeof servicesCreate>['body'] }, o));
    case 'services:update':
      return void (await api.call(servicesUpdate, { params: { id: c.id! }, body: e }, o));
    case 'services:delete':
      return void (await api.call(servicesDelete, { body: { service_code: String(c.names.service_code), ...force } }, o));
    case 'plans:create':
      return void (await api.call(plansCreate, { body: e as CallInput<typeof plansCreate>['body'] }, o));
    case 'plans:update':
      return void (await api.call(plansUpdate, { params: { id: c.id! }, body: { plan_id: c.id!, ...e } }, o));
    case 'plans:delete':
      return void (await api.call(plansDelete, { body: { plan_code: String(c.names.plan_code), ...force } }, o));
    case 'links:create':
      return void (await api.call(servicePlansCreate, { body: e as CallInput<typeof servicePlansCreate>['body'] }, o));
    case 'links:update': {
      const body = {
        action: e.is_available === false ? 'deactivate' : 'activate',
        service_code: String(c.names.service_code),
        plan_code: String(c.names.plan_code),
      } as const;
      return void (await api.call(servicePlansManage, { body }, o));
    }
    case 'links:delete':
      return void (await api.call(servicePlansDelete, { body: { service_plan_id: c.id!, ...force } }, o));
    case 'roles:create': {
      const { is_active: _active, ...body } = e;
      return void (await api.call(rolesCreate, { body: body as CallInput<typeof rolesCreate>['body'] }, o));
    }
    case 'roles:update':
      return void (await api.call(rolesUpdate, { params: { role_id: c.id! }, body: e }, o));
    case 'roles:delete':
      return void (await api.call(rolesDelete, { params: { role_id: c.id! } }, o));
  }
  throw new Error(`no request for ${c.kind} ${c.op}`);
}

/** A link whose service or plan this run failed to create cannot be made: skipped. */
function blockedBy(c: Change, failed: Set<string>): string | undefined {
  if (c.kind !== 'links' || c.op === 'delete') return undefined;
  const s = String(c.names.service_code).toLowerCase();
  const p = String(c.names.plan_code).toLowerCase();
  if (failed.has(`services ${s}`)) return `service ${String(c.names.service_code)} was not created`;
  if (failed.has(`plans ${p}`)) return `plan ${String(c.names.plan_code)} was not created`;
  return undefined;
}

export async function applyPlan(api: ApiClient, file: Catalog, first: Plan, opts: ApplyOptions): Promise<ApplyResult> {
  const earlier = opts.journal.load();
  const rows: ReportRow[] = [];
  const tried = new Set<string>();
  const failed = new Set<string>();
  const errors = new Map<ReportRow, unknown>();
  let plan = first;
  // What an earlier run of this name finished, or left in flight, that the platform now shows done.
  const pending = new Set(first.changes.map(stepName));
  const touched = new Set(first.changes.map((c) => `${c.kind} ${c.key}`));
  for (const [step, ev] of earlier) {
    if (pending.has(step)) continue;
    const [kind, op, key] = [ev.kind ?? '', ev.op ?? '', ev.label ?? step] as [Kind, Change['op'], string];
    if (ev.state === 'done') rows.push({ kind, op, key, outcome: 'applied-earlier' });
    else if (ev.state === 'sent' && touched.has(`${kind} ${key.toLowerCase()}`)) {
      // In flight, and the platform now wants another change of the same entry: not this one.
      opts.journal.append({ step, state: 'absent', kind, op, label: key });
    } else if (ev.state === 'sent' || ev.state === 'verified') {
      if (ev.state === 'sent') opts.journal.append({ step, state: 'verified', kind, op, label: key });
      rows.push({ kind, op, key, outcome: 'verified', message: 'in flight when the earlier run stopped; found applied on the platform' });
    }
  }
  /** Changes sent in this run whose answer did not say whether they were applied: the next read settles them. */
  let lost: Array<{ c: Change; step: string; row: ReportRow }> = [];
  /** Changes not sent for want of their service or plan, by step: sent by a later pass if that turns out to exist. */
  const skipped = new Map<string, ReportRow>();
  for (let pass = 0; pass < 3 && plan.changes.length; pass++) {
    let progressed = false;
    for (const c of plan.changes) {
      const step = stepName(c);
      if (tried.has(step)) continue;
      if (opts.signal.aborted) throw new InterruptedError('interrupted: run the same command again to resume');
      const blocked = blockedBy(c, failed);
      if (blocked) {
        skipped.set(step, { kind: c.kind, op: c.op, key: c.label, outcome: 'skipped', message: blocked });
        continue;
      }
      skipped.delete(step);
      tried.add(step);
      const before: StepEvent | undefined = earlier.get(step);
      const about = { kind: c.kind, op: c.op, label: c.label };
      // In flight when an earlier run stopped, and the platform read since shows it not done.
      if (before?.state === 'sent') opts.journal.append({ step, state: 'absent', ...about });
      opts.journal.append({ step, state: 'sent', ...about });
      try {
        await send(api, c, opts.forceDelete, opts.signal);
      } catch (e) {
        if (opts.signal.aborted) throw new InterruptedError('interrupted: run the same command again to resume');
        const status = e instanceof CliError ? e.status : undefined;
        const message = e instanceof Error ? e.message : String(e);
        opts.journal.append({ step, state: 'failed', status, message, ...about });
        const row: ReportRow = { kind: c.kind, op: c.op, key: c.label, outcome: 'failed', status, message };
        rows.push(row);
        errors.set(row, e);
        failed.add(`${c.kind} ${c.key}`);
        if (mayHaveApplied(e)) lost.push({ c, step, row });
        opts.note(`  failed: ${c.op} ${c.kind} ${safe(c.label)}: ${safe(message)}`);
        continue;
      }
      opts.journal.append({ step, state: 'done', ...about });
      rows.push({ kind: c.kind, op: c.op, key: c.label, outcome: 'applied' });
      opts.note(`  ${c.op === 'create' ? '+' : c.op === 'delete' ? '-' : '~'} ${c.kind} ${safe(c.label)}`);
      progressed = true;
    }
    if (!progressed && !lost.length) break;
    plan = diffCatalog(file, await readPlatform(api, opts.kinds, opts.signal), { prune: opts.prune, kinds: opts.kinds });
    lost = settleLost(lost, plan, failed, opts);
  }
  rows.push(...skipped.values());
  const firstFailed = rows.find((r) => r.outcome === 'failed');
  return { rows, firstError: firstFailed && errors.get(firstFailed) };
}

/**
 * The lost answers settled by the platform as read after them: a change the platform no longer
 * needs was applied (`confirmed`, and what waited for it may go); one it still needs was not,
 * and stays failed (the next run sends it, never this one). Returns none: each is settled once.
 */
function settleLost(lost: Array<{ c: Change; step: string; row: ReportRow }>, plan: Plan, failed: Set<string>, opts: ApplyOptions): [] {
  const needed = new Set(plan.changes.map((c) => `${c.kind} ${c.op} ${c.key}`));
  for (const { c, step, row } of lost) {
    if (needed.has(`${c.kind} ${c.op} ${c.key}`)) {
      row.message = `${row.message ?? 'no answer'}; the platform read after it does not show it applied: the next run sends it again`;
      continue;
    }
    opts.journal.append({ step, state: 'verified', kind: c.kind, op: c.op, label: c.label });
    row.outcome = 'confirmed';
    row.message = `the answer was lost (${row.message ?? 'no answer'}); the platform read after it shows the change applied`;
    failed.delete(`${c.kind} ${c.key}`);
    opts.note(`  confirmed: ${c.op} ${c.kind} ${safe(c.label)} is applied (read back after its answer was lost)`);
  }
  return [];
}

/** The report as CSV: one row a change. */
export function reportCsv(rows: ReportRow[]): string {
  const cell = (v: unknown) => {
    const s = v === undefined || v === null ? '' : String(v);
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return `kind,key,op,outcome,http_status,message\n${rows.map((r) => [r.kind, r.key, r.op, r.outcome, r.status, r.message].map(cell).join(',')).join('\n')}${rows.length ? '\n' : ''}`;
}
