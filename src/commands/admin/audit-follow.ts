/**
 * `audit list --follow` / `audit user <id> --follow`: polls the newest page and prints only
 * entries not seen before, oldest first, until Ctrl-C. One line per entry, so it reads well
 * over SSH on an 80-column terminal and with TERM=dumb.
 */
import type { AnyEndpoint } from '../../api/contract/common.js';
import { hasPart } from '../../api/contract/fast.js';
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
    const g = ctx.globals;
    ctx.note(`following ${ep.path}${Object.keys(input.query).length ? ` (${new URLSearchParams(input.query as Record<string, string>).toString()})` : ''}; Ctrl-C to stop`);

    /** New entries, oldest first, poll after poll, until Ctrl-C. */
    async function* entries(): AsyncGenerator<Entry> {
      const seen = new Set<unknown>();
      let maxId = -Infinity;
      let first = true;
      while (!ctx.signal.aborted) {
        let data: unknown;
        try {
          data = await api.call(ep, { params: hasPart(ep, 'params') ? input.params : undefined, query: { ...input.query, page: 1 } } as never, { signal: ctx.signal });
        } catch (e) {
          if (ctx.signal.aborted) return;
          throw e;
        }
        const fresh = itemsOf(ep, data).filter((e) => !seen.has(e.id) && (first || typeof e.id !== 'number' || e.id > maxId));
        for (const e of fresh) {
          seen.add(e.id);
          if (typeof e.id === 'number') maxId = Math.max(maxId, e.id);
        }
        // Only the ids still on the newest page can come back; forget the rest.
        if (seen.size > 10_000) for (const id of [...seen].slice(0, seen.size - 5_000)) seen.delete(id);
        first = false;
        fresh.sort((a, b) => Number(a.id) - Number(b.id));
        yield* fresh;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, interval * 1000);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            resolve();
          }, { once: true });
        });
      }
    }

    if (g.output === 'table') {
      const width = ctx.io.stdoutIsTTY ? ctx.io.columns : undefined;
      for await (const e of entries()) ctx.io.stdout.write(`${auditLine(e, width)}\n`);
    } else {
      // One printer for the whole follow: csv writes its header once; json becomes one object a
      // line (ndjson), since the list never ends.
      await printList(entries(), { format: g.output === 'json' ? 'ndjson' : g.output, fields: g.fields, columns, io: ctx.io, noColor: g.noColor });
    }
    return 130;
  };
}
