/**
 * `audit list --follow` / `audit user <id> --follow`: polls the newest page and prints only
 * entries not seen before, oldest first, until Ctrl-C. One entry a line (wrapped, not cut, on a
 * narrow terminal), so it reads well over SSH on an 80-column terminal and with TERM=dumb.
 */
import type { AnyEndpoint } from '../../api/contract/common.js';
import { hasPart } from '../../api/contract/parts.js';
import { CliError, ExitCode, UsageError } from '../../api/errors.js';
import { pause as pauseFor } from '../../api/retry.js';
import type { Ctx } from '../../cli/context.js';
import type { VerbInput } from '../../cli/verbs.js';
import { itemsOf, pageInfoOf } from '../../api/pages.js';
import { printList } from '../../output/index.js';
import { auditLine } from '../../resources/audit.js';

type Entry = Record<string, unknown>;

/** Pages one poll reads at most while catching up (100 entries each). */
const MAX_CATCH_UP_PAGES = 100;

/** A failure the next poll may not meet: the network, a time-out, a 5xx or 429 after the retries. */
function mayPass(e: unknown): boolean {
  return e instanceof CliError && (e.exitCode === ExitCode.network || (e.exitCode === ExitCode.server && e.type === 'server'));
}

export { auditLine };

// The follow loop (poll, print what is new, wait) stays whole: its state lives across the polls.
export function auditFollow(
  ep: AnyEndpoint,
  columns?: string[],
  keep?: (opts: Record<string, unknown>) => ((e: Entry) => boolean) | undefined,
) {
  return async (input: VerbInput, ctx: Ctx, opts: Record<string, unknown>): Promise<number | undefined> => {
    if (!opts.follow) return undefined;
    const kept = keep?.(opts);
    const interval = Number(opts.interval ?? 2);
    if (!Number.isFinite(interval) || interval < 0.2)
      throw new UsageError(`--interval expects seconds (at least 0.2), got '${String(opts.interval)}'`);
    const api = await ctx.api();
    const g = ctx.globals;
    ctx.note(
      `following ${ep.path}${Object.keys(input.query).length ? ` (${new URLSearchParams(input.query as Record<string, string>).toString()})` : ''}; Ctrl-C to stop`,
    );

    const size = ep.paging?.maxSize ?? 100;
    const context = g.limit ?? Number(input.query[ep.paging?.size ?? 'page_size'] ?? ep.paging?.defaultSize ?? 20);
    /** A page's entries, and whether a page follows: a short page, unless the platform says so (it may serve fewer than asked). */
    const fetchPage = async (page: number): Promise<{ items: Entry[]; more: boolean }> => {
      const data = await api.call(
        ep,
        { params: hasPart(ep, 'params') ? input.params : undefined, query: { ...input.query, page, page_size: size } } as never,
        { signal: ctx.signal },
      );
      const items = itemsOf(ep, data);
      const info = pageInfoOf(ep, data, page, size);
      const served = info.served !== undefined && info.served < size ? info.served : size;
      return { items, more: items.length > 0 && (items.length >= served || info.hasNext === true) };
    };
    const pause = (ms: number) => pauseFor(ms, ctx.signal);

    /**
     * New entries, oldest first, poll after poll, until Ctrl-C. A poll reads the newest page
     * and, while every entry on it is new, the pages after it, until it reaches one already
     * printed: a burst of entries between two polls (a bulk run writes thousands) is printed
     * whole, not just its newest page. Entries that moved to a later page while it read (newer
     * ones arrived) are told by their id and printed once. A failure that may pass (the
     * network, a 5xx, a 429, after the client's retries) is said on stderr and the poll tried
     * again, less often, until it answers; the entries of the outage are then caught up.
     */
    async function* entries(): AsyncGenerator<Entry> {
      const seen = new Set<unknown>();
      let maxId = -Infinity;
      let first = true;
      let down: { since: number; message: string; tries: number } | undefined;
      while (!ctx.signal.aborted) {
        let fresh: Entry[] = [];
        const freshIds = new Set<unknown>();
        try {
          for (let page = 1; ; page++) {
            const { items, more } = await fetchPage(page);
            let reached = first;
            for (const e of items) {
              if (seen.has(e.id) || (typeof e.id === 'number' && e.id <= maxId)) reached = true;
              else if (!freshIds.has(e.id)) {
                freshIds.add(e.id);
                fresh.push(e);
              }
            }
            if (reached || !more) break;
            if (page >= MAX_CATCH_UP_PAGES) {
              ctx.warn(
                `warning: more than ${MAX_CATCH_UP_PAGES * size} new entries since the last poll; older ones not printed (read them with \`subctl audit list --start-date ...\`)`,
              );
              break;
            }
          }
        } catch (e) {
          if (ctx.signal.aborted) return;
          if (!mayPass(e)) throw e;
          const message = e instanceof Error ? e.message : String(e);
          if (!down) ctx.warn(`warning: the audit log cannot be read (${message}); trying again until it answers`);
          down ??= { since: Date.now(), message, tries: 0 };
          // Every interval at first, then less often: at most every 30 s.
          await pause(Math.min(30_000, interval * 1000 * 2 ** Math.min(down.tries++, 10)));
          continue;
        }
        if (down) {
          ctx.note(`the audit log answers again, after ${Math.round((Date.now() - down.since) / 1000)} s; entries since then follow`);
          down = undefined;
        }
        for (const e of fresh) {
          seen.add(e.id);
          if (typeof e.id === 'number') maxId = Math.max(maxId, e.id);
        }
        // Only the ids still near the newest page can come back; forget the rest.
        if (seen.size > 20_000) for (const id of [...seen].slice(0, seen.size - 10_000)) seen.delete(id);
        // The first poll shows the newest few as context (--limit, else --page-size, 20 by
        // default), as `tail -n N -f` does; the rest of its page is taken as seen.
        if (first) fresh = fresh.slice(0, context);
        first = false;
        fresh.sort((a, b) => Number(a.id) - Number(b.id));
        yield* kept ? fresh.filter(kept) : fresh;
        await pause(interval * 1000);
      }
    }

    if (g.output === 'table') {
      const width = ctx.io.stdoutIsTTY ? ctx.io.columns : undefined;
      for await (const e of entries()) ctx.io.stdout.write(`${auditLine(e, width, ctx.io.stdoutIsTTY)}\n`);
    } else {
      // One printer for the whole follow: csv writes its header once; json becomes one object a
      // line (ndjson), since the list never ends.
      await printList(entries(), {
        format: g.output === 'json' ? 'ndjson' : g.output,
        fields: g.fields,
        columns,
        io: ctx.io,
        noColor: g.noColor,
      });
    }
    return 130;
  };
}
