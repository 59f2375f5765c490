/**
 * Output helpers the command groups share: the printer options of a command, summary blocks
 * and titled sections.
 */
import type { Ctx } from '../cli/context.js';
import type { DetailTable } from '../resources/details.js';
import { terminalSafe, terminalSafeJson } from '../output/terminal-safe.js';
import { printList } from '../output/index.js';

/**
 * The printer options of a command's output (format, fields, colour), with default columns: the
 * table's; csv, like json, carries every field unless --fields, these first (as lists do): with
 * the columns alone, `services report -o csv` would drop 7 of its 14 fields.
 */
export const out = (ctx: Ctx, columns?: string[], itemFields?: () => string[] | undefined) => {
  const csv = ctx.globals.output === 'csv';
  return {
    format: ctx.globals.output,
    fields: ctx.globals.fields,
    columns: csv ? undefined : columns,
    lead: csv ? columns : undefined,
    // An empty list's csv header: the contract's item fields where the command names them, else
    // its columns.
    emptyHeader: csv ? () => itemFields?.() ?? columns : undefined,
    // Lists the server answers whole (`me plans`, `devices list`): --limit is applied here.
    limit: ctx.globals.limit,
    io: ctx.io,
    noColor: ctx.globals.noColor,
    wide: ctx.globals.wide,
  };
};

/** Prints a summary block: its own object with -o json, key/value lines on stderr under a table. */
export async function printSummary(ctx: Ctx, title: string, summary: unknown) {
  if (!summary || typeof summary !== 'object') return;
  const g = ctx.globals;
  if (g.output === 'table') {
    if (g.quiet) return;
    ctx.io.stderr.write(`\n${title}\n`);
    for (const [k, v] of Object.entries(summary as Record<string, unknown>)) {
      ctx.io.stderr.write(
        `  ${terminalSafe(k.padEnd(28))} ${terminalSafe(v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v))}\n`,
      );
    }
  } else if (g.output === 'json' || g.output === 'ndjson') {
    // The rows went to stdout as a list; the summary follows as its own object on stderr,
    // so that stdout stays one parseable document.
    ctx.io.stderr.write(`${terminalSafeJson(JSON.stringify({ [title.toLowerCase().replace(/\s+/g, '_')]: summary }))}\n`);
  }
}

/** Prints an array under a heading on a terminal table, or as-is for machine formats. */
export async function section(ctx: Ctx, title: string, rows: unknown, columns?: string[]) {
  const list = Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
  ctx.io.stdout.write(`\n${ctx.color('stdout') ? `\u001b[1m${title}\u001b[22m` : title} (${list.length})\n`);
  if (list.length) await printList(list, { format: 'table', columns, io: ctx.io, noColor: ctx.globals.noColor });
}

/** The lists of a detail answer, each under its title with its columns (src/resources/details.ts). */
export async function detailTables(ctx: Ctx, data: Record<string, unknown>, tables: readonly DetailTable[]) {
  for (const t of tables) await section(ctx, t.title, data[t.key], t.columns);
}
