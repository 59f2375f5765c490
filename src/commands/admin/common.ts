/**
 * What the administrator groups share: output options, summary blocks, sections, and each list's
 * default columns. No contract here: each group's file loads only its own endpoints, so a
 * command builds only the schemas it needs.
 */
import type { Ctx } from '../../cli/context.js';
import { printList } from '../../output/index.js';

export const out = (ctx: Ctx, columns?: string[]) => ({ format: ctx.globals.output, fields: ctx.globals.fields, columns, io: ctx.io, noColor: ctx.globals.noColor });

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

/** Prints an array under a heading on a terminal table, or as-is for machine formats. */
export async function section(ctx: Ctx, title: string, rows: unknown, columns?: string[]) {
  const list = Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
  ctx.io.stdout.write(`\n${ctx.color('stdout') ? `\u001b[1m${title}\u001b[22m` : title} (${list.length})\n`);
  if (list.length) await printList(list, { format: 'table', columns, io: ctx.io, noColor: ctx.globals.noColor });
}

export const SERVICE_PLAN_COLUMNS = ['service_plan_id', 'service_code', 'plan_code', 'is_available', 'unused_codes_count', 'active_subscriptions_count'];
export const PLAN_COLUMNS = ['plan_id', 'plan_code', 'plan_name', 'price', 'currency', 'duration', 'duration_unit', 'is_active'];
export const SUBSCRIPTION_COLUMNS = ['subscription_id', 'username', 'service_code', 'plan_code', 'status', 'end_date', 'remaining_credits'];
export const CODE_COLUMNS = ['code_id', 'code_value', 'batch_id', 'plan_code', 'is_used', 'is_expired', 'expiry_date'];
export const WALLET_COLUMNS = ['transaction_id', 'username', 'transaction_type', 'amount', 'currency', 'status', 'transaction_date'];
export const AUDIT_COLUMNS = ['id', 'created_at', 'username', 'module', 'action', 'details'];
