/**
 * `subctl console [resource] [--read-only]`: the interactive console (dashboard, every list,
 * details and actions). Also what a bare `subctl` opens on a terminal (run.ts calls `bare`).
 *
 * Ink and React load only here, with `await import()`, once we know the console can run:
 * stdin and stdout are terminals, TERM is not dumb and --no-input is not set. Anywhere else
 * it is a usage error (exit 2) that says why and what to run instead.
 */
import { Option } from 'commander';
import { UsageError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';
import { addGlobalOptions } from '../../cli/globals.js';
import type { Group } from '../types.js';

interface ConsoleOpts {
  resource?: string;
  readOnly?: boolean;
  pageSize?: number;
  /** `--catalog FILE`: the read-only plan for a catalog file instead of the lists. */
  catalog?: string;
}

/** Why the console cannot run here, or undefined when it can. */
export function whyNoConsole(ctx: Ctx): string | undefined {
  const io = ctx.io;
  if (ctx.globals.noInput) return '--no-input was given';
  if (!io.stdinIsTTY && !io.stdoutIsTTY) return 'standard input and output are not terminals';
  if (!io.stdinIsTTY) return 'standard input is not a terminal';
  if (!io.stdoutIsTTY) return 'standard output is not a terminal';
  if (io.env.TERM === 'dumb') return 'TERM is dumb';
  return undefined;
}

async function runConsole(ctx: Ctx, opts: ConsoleOpts): Promise<number> {
  if (opts.resource !== undefined) {
    const { resourceByName, RESOURCES, HOME } = await import('../../ui/resources.js');
    if (opts.resource !== HOME && !resourceByName(opts.resource)) {
      throw new UsageError(`unknown resource '${opts.resource}'`, { hint: `one of: ${RESOURCES.map((r) => r.name).join(', ')}` });
    }
    if (opts.resource === HOME) opts.resource = undefined;
  }
  const why = whyNoConsole(ctx);
  if (why) {
    throw new UsageError(`the console needs a terminal: ${why}`, {
      hint: `run it in a terminal, or use the commands, e.g. \`subctl ${opts.resource ?? 'subscriptions'} list -o json\``,
    });
  }
  // The request log would draw over the screen; the console keeps --verbose for the commands.
  if (ctx.globals.verbose) {
    ctx.warn('note: --verbose is ignored by the console (its log would draw over the screen)');
    ctx.globals.verbose = false;
  }
  if (opts.catalog !== undefined) return (await import('../catalog/console-view.js')).runCatalogView(ctx, opts.catalog);
  // The first screen's request goes out now, while Ink loads (which takes a while): the answer is
  // usually there by the first frame.
  const api = await ctx.api();
  const { loadUi, prefetchFirstScreen } = await import('../../ui/load.js');
  const stdout = ctx.io.stdout as NodeJS.WriteStream;
  const viewport = { columns: stdout.columns || 80, rows: stdout.rows || 24 };
  const cache = await prefetchFirstScreen(api, { ...opts, viewport, signal: ctx.signal });
  const { openConsole } = await loadUi();
  return openConsole(ctx, { ...opts, cache, viewport });
}

export const consoleGroup: Group = {
  name: 'console',
  build(cmd, bind) {
    cmd
      .argument('[resource]', 'the list to open first (services, subscriptions, ...; default the dashboard)')
      .addOption(new Option('--read-only', 'browse only: no action keys'))
      .addOption(new Option('--page-size <n>', 'rows per server page (default: what fits the terminal)'))
      .addOption(new Option('--catalog <file>', 'a read-only view of what `catalog apply` would change for this file'));
    addGlobalOptions(cmd);
    cmd.action((resource: string | undefined, _o: unknown, c: import('commander').Command) => {
      const opts = c.optsWithGlobals() as Record<string, unknown>;
      bind(async (ctx) => {
        let pageSize: number | undefined;
        if (opts.pageSize !== undefined) {
          const s = String(opts.pageSize);
          if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > 100)
            throw new UsageError(`--page-size expects a whole number from 1 to 100, got '${s}'`);
          pageSize = Number(s);
        }
        return runConsole(ctx, { resource, readOnly: opts.readOnly === true, pageSize, catalog: opts.catalog as string | undefined });
      })(opts);
    });
  },
  bare: (ctx) => runConsole(ctx, {}),
};
