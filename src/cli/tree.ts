/**
 * The command tree, built in one place for every reader of it: a command line (run.ts), the
 * completion engine (src/completion/engine.ts), `api endpoints` and the generated reference
 * (src/docs/). Each group's summary comes from its registry entry (src/commands/index.ts) only.
 */
import { Command } from 'commander';
import { groups, type GroupEntry } from '../commands/index.js';
import { addGlobalOptions } from './globals.js';
import { helpLayout } from './help.js';
import type { Action } from './run.js';

const PROGRAM_SUMMARY = 'Administration CLI and console for the subscription and usage-metering platform';

/** The root command: its description, the global options and the help layout (src/cli/help.ts). */
export function createProgram(): Command {
  const program = new Command('subctl');
  program.description(PROGRAM_SUMMARY).configureHelp(helpLayout);
  addGlobalOptions(program);
  return program;
}

export type Bind = (a: Action) => (raw: Record<string, unknown>) => void;

export interface GroupsOptions {
  /** Which groups are listed at all (by default every one, the hidden `__complete` included). */
  include?: (g: GroupEntry) => boolean;
  /** Which listed groups are loaded and built in full; the others are listed by name. */
  load: (g: GroupEntry) => boolean;
  bind?: Bind;
  /** The verb named on the command line (a group may build only that one in full). */
  verb?: string;
  /** What becomes of a group listed but not built (run.ts makes it a placeholder). */
  unbuilt?: (cmd: Command) => void;
}

/** Adds the groups of the registry to `program`, in its order; resolves to the commands added. */
export async function addGroups(program: Command, o: GroupsOptions): Promise<Map<GroupEntry, Command>> {
  const added = new Map<GroupEntry, Command>();
  const bind: Bind = o.bind ?? (() => () => {});
  for (const g of groups) {
    if (o.include && !o.include(g)) continue;
    const cmd = program.command(g.name, { hidden: g.hidden === true }).description(g.summary);
    if (g.aliases) cmd.aliases(g.aliases);
    if (o.load(g)) (await g.load()).build(cmd, bind, o.verb);
    else o.unbuilt?.(cmd);
    added.set(g, cmd);
  }
  return added;
}

/**
 * The tree with `load` built in full (`'*'`: every group but the hidden ones), the others listed
 * by name, and nothing bound: what completion, `api endpoints` and the reference read.
 */
export async function buildTree(load?: string, bind?: Bind): Promise<Command> {
  const program = createProgram();
  await addGroups(program, {
    include: (g) => !g.hidden,
    load: (g) => load === '*' || g.name === load,
    bind,
  });
  return program;
}
