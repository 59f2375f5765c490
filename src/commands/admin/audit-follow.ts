/**
 * `audit list --follow` / `audit user <id> --follow`: polls the newest page and prints only
 * entries not seen before, oldest first, until Ctrl-C. One line per entry, so it reads well
 * over SSH on an 80-column terminal and with TERM=dumb.
 */
import type { AnyEndpoint } from '../../api/contract/common.js';
import { UsageError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';
import type { VerbInput } from '../../cli/verbs.js';
import { itemsOf } from '../../cli/paging.js';
import { printList } from '../../output/index.js';

type Entry = Record<string, unknown>;

/** One readable line: time, user, module.action, details; cut to the terminal width. */
export function auditLine(e: Entry, width?: number): string {
  const details = typeof e.details === 'string' ? e.details : e.details === undefined || e.details === null ? '' : JSON.stringify(e.details);
  const line = `${String(e.created_at ?? '').replace('T', ' ').slice(0, 19)}  ${String(e.username ?? e.user_id ?? '-')}  ${String(e.module ?? '')}.${String(e.action ?? '')}  ${details.replace(/\s+/g, ' ')}`;
  return width && line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

export function auditFollow(ep: AnyEndpoint, columns?: string[]) {
  return async (input: VerbInput, ctx: Ctx, opts: Record<string, unknown>): Promise<number | undefined> => {
    if (!opts.follow) return undefined;
    const interval = Number(opts.interval ?? 2);
    if (!Number.isFinite(interval) || interval < 0.2) throw new UsageError(`--interval expects seconds (at least 0.2), got '${String(opts.interval)}'`);
    const api = await ctx.api();
    const seen = new Set<unknown>();
    let maxId = -Infinity;
    let first = true;
    const g = ctx.globals;
    const print = async (entries: Entry[]) => {
      if (!entries.length) return;
      if (g.output === 'table') {
        const width = ctx.io.stdoutIsTTY ? ctx.io.columns : undefined;
        for (const e of entries) ctx.io.stdout.write(`${auditLine(e, width)}\n`);
      } else {
        // A follow never ends, so json becomes one object per line, like ndjson.
        await printList(entries, { format: g.output === 'json' ? 'ndjson' : g.output, fields: g.fields, columns, io: ctx.io, noColor: g.noColor });
      }
    };
    ctx.note(`following ${ep.path}${Object.keys(input.query).length ? ` (${new URLSearchParams(input.query as Record<string, string>).toString()})` : ''}; Ctrl-C to stop`);
    while (!ctx.signal.aborted) {
      try {
        const data = await api.call(ep, { params: ep.params ? input.params : undefined, query: { ...input.query, page: 1 } } as never, { signal: ctx.signal });
        const items = itemsOf(ep, data);
        const fresh = items.filter((e) => {
          const id = e.id;
          if (seen.has(id)) return false;
          if (typeof id === 'number' && id <= maxId && !first) return false;
          return true;
        });
        for (const e of fresh) {
          seen.add(e.id);
          if (typeof e.id === 'number') maxId = Math.max(maxId, e.id);
        }
        fresh.sort((a, b) => Number(a.id) - Number(b.id));
        await print(fresh);
        first = false;
      } catch (e) {
        if (ctx.signal.aborted) break;
        throw e;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, interval * 1000);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        }, { once: true });
      });
    }
    return 130;
  };
}
