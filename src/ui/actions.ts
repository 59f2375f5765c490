/**
 * The console's actions on rows: which key does what on which resource, the form each needs
 * (fields of the endpoint's body), the values taken from the row, the confirmation text, and
 * the runner that applies an action to several marked rows with progress.
 *
 * Non-UI code: the runner reports through a callback, so the bulk engine or a plain printer can
 * drive the same code.
 */
import { plansCreate, plansDelete, plansUpdate } from '../api/contract/admin-plans.js';
import { servicePlansManage } from '../api/contract/admin-service-plans.js';
import { servicesCreate, servicesDelete, servicesUpdate } from '../api/contract/admin-services.js';
import { subscriptionsManage } from '../api/contract/admin-subscriptions.js';
import { usageCodesGenerate } from '../api/contract/admin-misc.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import { describeChange, likelyRefusal } from '../resources/subscriptions.js';
import type { CallSpec, Row } from './resources.js';

export interface ActionDef {
  key: string;
  /** Shown in the footer and help: `extend`. */
  label: string;
  endpoint: AnyEndpoint;
  /** create: no row needed; update: the form starts from the row and sends what changed. */
  mode: 'row' | 'create' | 'update';
  /** Runs for every marked row when rows are marked. */
  multi: boolean;
  /** Body fields the form asks for (default: every body field); none = no form. */
  fields?: string[];
  /** Fields the form requires beyond the contract's required ones. */
  require?: string[];
  /** The request for a row (undefined for create) and the form's values. */
  input: (row: Row | undefined, values: Record<string, unknown>) => CallSpec;
  /** What the confirmation names: `subscription 42 (alice, GPT4/PRO-M, active)`. */
  target: (row: Row | undefined) => string;
  /** Lines that say what will change (describeChange for subscriptions). */
  preview?: (row: Row | undefined, body: Record<string, unknown>) => string[];
  /** Text to type to confirm (delete: the code). */
  typed?: (row: Row | undefined) => string;
  /** Why the server is likely to refuse the action on this row (its status does not allow it). */
  refusal?: (row: Row) => string | undefined;
}

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

const subscriptionTarget = (row: Row | undefined) =>
  row
    ? `subscription ${str(row.subscription_id)} (${str(row.username)}, ${str(row.service_code)}/${str(row.plan_code)}, ${str(row.status)})`
    : 'subscription';

function manage(key: string, label: string, action: string, fields: string[], require: string[] = []): ActionDef {
  return {
    key,
    label,
    endpoint: subscriptionsManage,
    mode: 'row',
    multi: true,
    fields,
    require,
    input: (row, values) => ({ params: { id: Number(row?.subscription_id) }, body: { ...values, action } }),
    target: subscriptionTarget,
    preview: (row, body) => describeChange(row, body),
    refusal: (row) => likelyRefusal(action, row.status),
  };
}

const servicePlanTarget = (row: Row | undefined) =>
  `service plan ${str(row?.service_plan_id)} (${str(row?.service_code)}/${str(row?.plan_code)})`;

function servicePlanManage(key: string, action: 'activate' | 'deactivate'): ActionDef {
  return {
    key,
    label: action,
    endpoint: servicePlansManage,
    mode: 'row',
    multi: true,
    fields: [],
    input: (row) => ({
      body: {
        action,
        service_code: str(row?.service_code),
        plan_code: str(row?.plan_code),
        ...(row?.service_plan_id !== undefined && row?.service_plan_id !== null ? { service_plan_id: Number(row.service_plan_id) } : {}),
      },
    }),
    target: servicePlanTarget,
    preview: (row) => [`is_available: ${str(row?.is_available)} -> ${action === 'activate' ? 'true' : 'false'}`],
  };
}

/** Actions by resource name, in footer order. */
const ACTIONS: Record<string, ActionDef[]> = {
  subscriptions: [
    manage('e', 'extend', 'extend', ['reason', 'extend_days'], ['extend_days']),
    manage('p', 'pause', 'pause', ['reason']),
    manage('u', 'resume', 'resume', ['reason']),
    manage('c', 'cancel', 'cancel', ['reason']),
    manage('+', 'add credits', 'add_credits', ['reason', 'extend_credits'], ['extend_credits']),
  ],
  'service-plans': [
    servicePlanManage('a', 'activate'),
    servicePlanManage('d', 'deactivate'),
    {
      key: 'n',
      label: 'generate codes',
      endpoint: usageCodesGenerate,
      mode: 'row',
      multi: false,
      fields: ['batch_id', 'code_count', 'expiration_days', 'code_prefix'],
      input: (row, values) => ({ body: { ...values, service_plan_id: Number(row?.service_plan_id) } }),
      target: servicePlanTarget,
      preview: (_row, body) => [`${str(body.code_count)} codes in batch ${str(body.batch_id)}, valid ${str(body.expiration_days)} days`],
    },
  ],
  services: [
    {
      key: 'n',
      label: 'new',
      endpoint: servicesCreate,
      mode: 'create',
      multi: false,
      input: (_row, values) => ({ body: values }),
      target: () => 'service',
      preview: (_row, body) => [`service_code: ${str(body.service_code)}`, `service_name: ${str(body.service_name)}`],
    },
    {
      key: 'e',
      label: 'edit',
      endpoint: servicesUpdate,
      mode: 'update',
      multi: false,
      input: (row, values) => ({ params: { id: Number(row?.service_id) }, body: values }),
      target: (row) => `service ${str(row?.service_code)} (#${str(row?.service_id)})`,
      preview: (row, body) => Object.entries(body).map(([k, v]) => `${k}: ${str(row?.[k])} -> ${str(v)}`),
    },
    {
      key: 'd',
      label: 'delete',
      endpoint: servicesDelete,
      mode: 'row',
      multi: true,
      fields: [],
      input: (row) => ({ body: { service_code: str(row?.service_code) } }),
      target: (row) => `service ${str(row?.service_code)} (#${str(row?.service_id)})`,
      typed: (row) => str(row?.service_code),
    },
  ],
  plans: [
    {
      key: 'n',
      label: 'new',
      endpoint: plansCreate,
      mode: 'create',
      multi: false,
      input: (_row, values) => ({ body: values }),
      target: () => 'plan',
      preview: (_row, body) => [`plan_code: ${str(body.plan_code)}`, `plan_name: ${str(body.plan_name)}`],
    },
    {
      key: 'e',
      label: 'edit',
      endpoint: plansUpdate,
      mode: 'update',
      multi: false,
      fields: [
        'plan_code',
        'plan_name',
        'price',
        'currency',
        'duration',
        'duration_unit',
        'credit_amount',
        'credit_unit',
        'auto_renewal',
        'is_active',
        'max_usage_per_day',
      ],
      input: (row, values) => ({ params: { id: Number(row?.plan_id) }, body: { ...values, plan_id: Number(row?.plan_id) } }),
      target: (row) => `plan ${str(row?.plan_code)} (#${str(row?.plan_id)})`,
      preview: (row, body) =>
        Object.entries(body)
          .filter(([k]) => k !== 'plan_id')
          .map(([k, v]) => `${k}: ${str(row?.[k])} -> ${str(v)}`),
    },
    {
      key: 'd',
      label: 'delete',
      endpoint: plansDelete,
      mode: 'row',
      multi: true,
      fields: [],
      input: (row) => ({ body: { plan_code: str(row?.plan_code) } }),
      target: (row) => `plan ${str(row?.plan_code)} (#${str(row?.plan_id)})`,
      typed: (row) => str(row?.plan_code),
    },
  ],
};

export function actionsFor(resource: string | undefined): ActionDef[] {
  return resource ? (ACTIONS[resource] ?? []) : [];
}

export interface Progress {
  done: number;
  total: number;
  failed: number;
}

export interface RowOutcome<R> {
  row: R;
  ok: boolean;
  result?: unknown;
  error?: unknown;
}

/**
 * Runs `fn` for every row, `concurrency` at a time (default 4), in row order of starting;
 * one failure does not stop the others. `onProgress` is told after each row.
 * Stops starting new rows once `signal` aborts.
 *
 * `await runActionOnRows([a, b], (r) => api.call(ep, input(r)), (p) => draw(p))`
 *   -> [{ row: a, ok: true, result }, { row: b, ok: false, error }]
 */
export async function runActionOnRows<R>(
  rows: readonly R[],
  fn: (row: R, index: number) => Promise<unknown>,
  onProgress: (p: Progress) => void,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<Array<RowOutcome<R>>> {
  const outcomes = new Array<RowOutcome<R>>(rows.length);
  const progress: Progress = { done: 0, total: rows.length, failed: 0 };
  let next = 0;
  const worker = async () => {
    while (next < rows.length && !opts.signal?.aborted) {
      const i = next++;
      try {
        outcomes[i] = { row: rows[i], ok: true, result: await fn(rows[i], i) };
      } catch (error) {
        outcomes[i] = { row: rows[i], ok: false, error };
        progress.failed++;
      }
      progress.done++;
      onProgress({ ...progress });
    }
  };
  const n = Math.max(1, Math.min(opts.concurrency ?? 4, rows.length));
  await Promise.all(Array.from({ length: n }, worker));
  return outcomes.filter(Boolean);
}
