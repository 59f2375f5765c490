/**
 * The administrator area's groups (spec/admin-area.md): service-plans, plans, subscriptions,
 * usage-codes, wallet, dashboard, audit, cleanup. Commands are declared from the contract;
 * the few with behaviour of their own live in files beside this one.
 */
import { Option } from 'commander';
import { auditList, auditUser, usageCodesGenerate, usageCodesList, walletList } from '../../api/contract/admin-misc.js';
import { plansCreate, plansDelete, plansList, plansReport, plansUpdate } from '../../api/contract/admin-plans.js';
import {
  servicePlansCreate,
  servicePlansDelete,
  servicePlansDetail,
  servicePlansList,
  servicePlansListAlt,
  servicePlansManage,
  servicePlansUpdate,
} from '../../api/contract/admin-service-plans.js';
import { subscriptionsDelete, subscriptionsList, subscriptionsManage } from '../../api/contract/admin-subscriptions.js';
import { UsageError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printList, printObject } from '../../output/index.js';
import { section } from '../services/index.js';
import type { Group } from '../types.js';
import { auditFollow } from './audit-follow.js';
import { cleanupGroup } from './cleanup.js';
import { dashboardGroup } from './dashboard.js';
import { manageSubscription } from './subscription-manage.js';

const out = (ctx: Ctx, columns?: string[]) => ({ format: ctx.globals.output, fields: ctx.globals.fields, columns, io: ctx.io, noColor: ctx.globals.noColor });

/** Prints a summary block: its own object with -o json, key/value lines on stderr under a table. */
export async function printSummary(ctx: Ctx, title: string, summary: unknown) {
  if (!summary || typeof summary !== 'object') return;
  const g = ctx.globals;
  if (g.output === 'table') {
    if (g.quiet) return;
    ctx.io.stderr.write(`\n${title}\n`);
    for (const [k, v] of Object.entries(summary as Record<string, unknown>)) {
      ctx.io.stderr.write(`  ${k.padEnd(28)} ${v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
    }
  } else if (g.output === 'json' || g.output === 'ndjson') {
    // The rows went to stdout as a list; the summary follows as its own object on stderr,
    // so that stdout stays one parseable document.
    ctx.io.stderr.write(`${JSON.stringify({ [title.toLowerCase().replace(/\s+/g, '_')]: summary })}\n`);
  }
}

export const SERVICE_PLAN_COLUMNS = ['service_plan_id', 'service_code', 'plan_code', 'is_available', 'unused_codes_count', 'active_subscriptions_count'];
export const PLAN_COLUMNS = ['plan_id', 'plan_code', 'plan_name', 'price', 'currency', 'duration', 'duration_unit', 'is_active'];
export const SUBSCRIPTION_COLUMNS = ['subscription_id', 'username', 'service_code', 'plan_code', 'status', 'end_date', 'remaining_credits'];
export const CODE_COLUMNS = ['code_id', 'code_value', 'batch_id', 'plan_code', 'is_used', 'is_expired', 'expiry_date'];
export const WALLET_COLUMNS = ['transaction_id', 'username', 'transaction_type', 'amount', 'currency', 'status', 'transaction_date'];
export const AUDIT_COLUMNS = ['id', 'created_at', 'username', 'module', 'action', 'details'];

export const servicePlansGroup: Group = {
  name: 'service-plans',
  summary: 'links between services and plans (/admin/service-plans)',
  build: verbsBuilder(() => [
    {
      name: 'list',
      endpoint: servicePlansList,
      columns: SERVICE_PLAN_COLUMNS,
      aliases: ['ls'],
    },
    { name: 'list-alt', endpoint: servicePlansListAlt, columns: SERVICE_PLAN_COLUMNS, summary: 'the same list from /admin/service-plans/list' },
    {
      name: 'get',
      endpoint: servicePlansDetail,
      args: ['id'],
      summary: "one link: its info, its subscriptions and its usage codes",
      render: async (data: Record<string, unknown>, ctx) => {
        if (ctx.globals.output !== 'table') return printObject(data, out(ctx));
        await printObject(data.service_plan_info ?? {}, out(ctx));
        await section(ctx, 'Subscriptions', data.subscriptions, ['subscription_id', 'username', 'status', 'start_date', 'end_date', 'auto_renewal', 'total_usage_count']);
        await section(ctx, 'Usage codes', data.usage_codes, ['code_id', 'code_value', 'batch_id', 'is_used', 'used_by_username', 'expiry_date']);
      },
    },
    { name: 'create', endpoint: servicePlansCreate },
    { name: 'update', endpoint: servicePlansUpdate, args: ['service_plan_id?'] },
    { name: 'manage', endpoint: servicePlansManage },
    {
      name: 'delete',
      endpoint: servicePlansDelete,
      args: ['service_plan_id?'],
      destructive: true,
      describe: (i: VerbInput) => `delete service-plan link ${JSON.stringify(i.body)}`,
    },
  ]),
};

export const plansGroup: Group = {
  name: 'plans',
  summary: 'subscription plans: price, duration, credits (/admin/subscription-plans)',
  build: verbsBuilder(() => [
    { name: 'list', endpoint: plansList, columns: PLAN_COLUMNS, aliases: ['ls'] },
    {
      name: 'report',
      endpoint: plansReport,
      render: async (data, ctx) => {
        await printList(Array.isArray(data) ? data : [], out(ctx, [...PLAN_COLUMNS, 'auto_renewal', 'max_usage_per_day']));
      },
    },
    { name: 'create', endpoint: plansCreate },
    {
      name: 'update',
      endpoint: plansUpdate,
      args: ['id'],
      hide: ['plan_id'],
      // The contract keeps plan_id in the body too; it is the path id.
      prepare: (i) => {
        i.body.plan_id = i.params.id;
      },
    },
    {
      name: 'delete',
      endpoint: plansDelete,
      args: ['plan_code?'],
      destructive: true,
      prepare: (i) => {
        if (i.body.plan_code === undefined && i.body.plan_id === undefined) throw new UsageError('plans delete needs --plan-code or --plan-id');
      },
      describe: (i: VerbInput) => `delete plan ${String(i.body.plan_code ?? `#${i.body.plan_id}`)}`,
    },
  ]),
};

export const subscriptionsGroup: Group = {
  name: 'subscriptions',
  summary: "users' subscriptions: list, manage (extend, pause, resume, cancel, add credits), delete",
  aliases: ['subs'],
  build: (cmd, bind) => {
    verbsBuilder(() => [
      { name: 'list', endpoint: subscriptionsList, columns: SUBSCRIPTION_COLUMNS, aliases: ['ls'] },
      {
        name: 'delete',
        endpoint: subscriptionsDelete,
        args: ['subscription_id?'],
        destructive: true,
        describe: (i: VerbInput) => `delete subscription(s) ${JSON.stringify(i.body)}`,
      },
    ])(cmd, bind);
    manageSubscription(cmd, bind, subscriptionsManage);
  },
};

export const usageCodesGroup: Group = {
  name: 'usage-codes',
  summary: 'usage codes: list with summary, generate batches',
  aliases: ['codes'],
  build: verbsBuilder(() => [
    {
      name: 'list',
      endpoint: usageCodesList,
      columns: CODE_COLUMNS,
      aliases: ['ls'],
      extras: (data, ctx) => printSummary(ctx, 'Summary', data.summary),
    },
    {
      name: 'generate',
      endpoint: usageCodesGenerate,
      summary: 'generate a batch of codes; prints the codes to stdout (`> codes.csv` works)',
      render: async (data: Record<string, unknown>, ctx) => {
        const codes = Array.isArray(data?.codes) ? (data.codes as Record<string, unknown>[]) : [];
        const rows = codes.map((c) => ({ batch_id: data.batch_id, ...c }));
        await printList(rows, out(ctx, ['code_value', 'batch_id', 'expiry_date', 'code_id']));
        ctx.note(`generated ${String(data?.generated_count ?? rows.length)} codes in batch ${String(data?.batch_id ?? '')}`);
      },
    },
  ]),
};

export const walletGroup: Group = {
  name: 'wallet',
  summary: 'wallet transactions with their summary (/admin/wallet-transactions/list)',
  build: verbsBuilder(() => [
    {
      name: 'list',
      endpoint: walletList,
      columns: WALLET_COLUMNS,
      aliases: ['ls'],
      extras: (data, ctx) => printSummary(ctx, 'Summary', data.summary),
    },
  ]),
};

export const auditGroup: Group = {
  name: 'audit',
  summary: 'audit log: every mutation, who and when; --follow for new entries',
  build: (cmd, bind) => {
    verbsBuilder(() => [
      {
        name: 'list',
        endpoint: auditList,
        columns: AUDIT_COLUMNS,
        aliases: ['ls'],
        extraOptions: [new Option('--follow', 'poll for new entries and print only those, until Ctrl-C'), new Option('--interval <s>', 'seconds between polls with --follow').default('2')],
      },
      {
        name: 'user',
        endpoint: auditUser,
        args: ['id'],
        columns: AUDIT_COLUMNS,
        extraOptions: [new Option('--follow', 'poll for new entries and print only those, until Ctrl-C'), new Option('--interval <s>', 'seconds between polls with --follow').default('2')],
      },
    ].map((s) => ({ ...s, override: auditFollow(s.endpoint, s.columns) })))(cmd, bind);
  },
};

export { cleanupGroup, dashboardGroup };
