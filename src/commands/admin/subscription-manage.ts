/**
 * `subscriptions manage <id> --action extend|pause|resume|cancel|add_credits --reason ...`.
 * On a terminal it first shows the subscription's current state and what the action will
 * change, and asks. The contract has no "get subscription by id", so the current state is
 * looked up in the list (narrowed by --username or --user-id when given, else a bounded scan).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import type { ApiClient } from '../../api/client.js';
import type { AnyEndpoint } from '../../api/contract/common.js';
import { subscriptionsList } from '../../api/contract/admin-subscriptions.js';
import type { BulkVerb, PlannedRow } from '../../bulk/types.js';
import { manageAfter, readManageState, settleManage } from '../../bulk/manage-state.js';
import { readId, sameId } from '../../api/read-values.js';
import { describeChange, type Subscription } from '../../resources/subscriptions.js';
import { out } from '../common.js';
import type { Ctx } from '../../cli/context.js';
import type { Action } from '../../cli/run.js';
import { configureVerb } from '../../cli/verbs.js';
import { walkPages } from '../../api/page-walk.js';

/** Finds one subscription by id through the list endpoint; undefined when not found within `maxRows`. */
async function findSubscription(
  api: ApiClient,
  id: number,
  opts: { username?: string; userId?: number; signal: AbortSignal; maxRows?: number },
): Promise<Subscription | undefined> {
  const query: Record<string, unknown> = {};
  if (opts.username) query.username = opts.username;
  if (opts.userId !== undefined) query.user_id = opts.userId;
  let n = 0;
  for await (const row of walkPages(api, subscriptionsList, { query }, { startPage: 1, size: 100, ahead: 4, signal: opts.signal })) {
    if (sameId(row.subscription_id, id)) return row;
    if (++n >= (opts.maxRows ?? 5000)) break;
  }
  return undefined;
}

/** `--dry-run` of a bulk manage: every target's current state and the change, from one walk of the list. */
async function previewManage(api: ApiClient, rows: PlannedRow[], signal: AbortSignal): Promise<Map<number, string>> {
  const wanted = new Set(rows.map((r) => Number(r.input.params.id)));
  const found = new Map<number, Subscription>();
  for await (const row of walkPages(api, subscriptionsList, { query: {} }, { startPage: 1, size: 100, ahead: 4, signal })) {
    const id = readId(row.subscription_id);
    if (typeof id === 'number' && wanted.has(id)) found.set(id, row);
    if (found.size === wanted.size) break;
  }
  return new Map(
    rows.map((r) => {
      const sub = found.get(Number(r.input.params.id));
      const head = sub ? `${String(sub.status)}, ends ${String(sub.end_date ?? '').slice(0, 10)}: ` : 'not found in the list: ';
      return [r.line, head + describeChange(sub, r.input.body).join('; ')];
    }),
  );
}

/** Bulk manage: rows settled by the subscription's state recorded before each was sent (bulk/manage-state.ts). */
const manageBulk: Pick<BulkVerb, 'aliases' | 'preview' | 'readState' | 'after' | 'settle'> = {
  aliases: { subscription_id: 'id' },
  preview: previewManage,
  readState: readManageState,
  after: manageAfter,
  settle: settleManage,
};

export function manageSubscription(parent: Command, bind: (a: Action) => (raw: Record<string, unknown>) => void, ep: AnyEndpoint) {
  configureVerb(
    parent.command('manage'),
    {
      name: 'manage',
      examples: [
        'subctl subscriptions manage 42 --action extend --reason "support ticket 981" --extend-days 30',
        'subctl subscriptions manage --from-csv actions.csv --concurrency 8 --yes',
        'subctl subscriptions manage 42 --action pause --reason "card expired" --dry-run',
      ],
      endpoint: ep,
      args: ['id?'],
      bulk: manageBulk,
      summary: 'extend, pause, resume, cancel or add credits to a subscription (reason required)',
      extraOptions: [
        new Option('--username <name>', "the subscriber's username: narrows the lookup of the current state on a terminal"),
        new Option('--user-id <id>', "the subscriber's id: narrows the lookup of the current state on a terminal"),
      ],
      override: async (input, ctx: Ctx, opts) => {
        if (input.params.id === undefined) {
          const { UsageError } = await import('../../api/errors.js');
          throw new UsageError('subscriptions manage needs a subscription id (or --from-csv FILE for a bulk run)');
        }
        const api = await ctx.api();
        const id = Number(input.params.id);
        const action = String(input.body.action);
        if (ctx.interactive() && !ctx.globals.yes) {
          const sub = await findSubscription(api, id, {
            username: opts.username as string | undefined,
            userId: opts.userId !== undefined ? Number(opts.userId) : undefined,
            signal: ctx.signal,
          });
          const head = sub
            ? `subscription ${id}: ${String(sub.username ?? '')} ${String(sub.service_code ?? '')}/${String(sub.plan_code ?? '')}, ${String(sub.status)}, ends ${String(sub.end_date ?? '').slice(0, 10)}, credits ${String(sub.remaining_credits ?? '?')}/${String(sub.total_credits ?? '?')}`
            : `subscription ${id}: current state not found in the list (pass --username to narrow the lookup)`;
          await ctx.confirm(`${head}\n${action}: ${describeChange(sub, input.body).join('; ')}\nreason: ${String(input.body.reason)}`);
        } else if (action === 'cancel') {
          await ctx.confirm(`cancel subscription ${id}`);
        }
        const res = await api.callFull(ep, { params: input.params, body: input.body } as never, { signal: ctx.signal });
        const data = (res.data ?? { subscription_id: id, action, message: res.message }) as Record<string, unknown>;
        const { printObject } = await import('../../output/index.js');
        await printObject(data, out(ctx));
        return 0;
      },
    },
    bind,
  );
}
