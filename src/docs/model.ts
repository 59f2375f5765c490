/**
 * The command reference as data, read from the command tree itself (src/cli/tree.ts, every group
 * built): what markdown.ts and man.ts write. Nothing here is copied by hand, so the reference
 * says what the commands do for as long as it is regenerated (`npm run docs`).
 */
import { Help, type Command, type Option } from 'commander';
import { endpoints } from '../api/contract/index.js';
import { GLOBAL_HEADING } from '../cli/globals.js';
import { examplesOf, listFieldsOf } from '../cli/help.js';
import { buildTree } from '../cli/tree.js';
import { commandOfEndpoint } from '../cli/verbs.js';
import { version } from '../../package.json';

export interface FlagDoc {
  flags: string;
  description: string;
}

export interface CommandDoc {
  /** The words below `subctl`: `services list`. */
  path: string;
  aliases: string[];
  usage: string;
  description: string;
  examples: string[];
  args: FlagDoc[];
  flags: FlagDoc[];
  /** `GET /admin/services`, with the flag that picks it where one does (`--cms`). */
  endpoints: string[];
  fields?: string[];
}

export interface GroupDoc {
  name: string;
  aliases: string[];
  summary: string;
  commands: CommandDoc[];
}

export interface Reference {
  version: string;
  summary: string;
  globals: FlagDoc[];
  groups: GroupDoc[];
}

const help = new Help();

function flagDoc(o: Option): FlagDoc {
  return { flags: o.flags, description: help.optionDescription(o) };
}

/** The endpoints each command calls, from what the verbs recorded as they were built. */
function endpointsByCommand(): Map<string, string[]> {
  const byName = new Map(endpoints.map((e) => [e.name, `${e.method} ${e.path}`]));
  const out = new Map<string, string[]>();
  for (const [name, words] of commandOfEndpoint) {
    const [path, flag] = splitFlag(words);
    const line = `${byName.get(name) ?? name}${flag ? ` (with ${flag})` : ''}`;
    out.set(path, [...(out.get(path) ?? []), line]);
  }
  for (const lines of out.values()) lines.sort();
  return out;
}

/** `auth login --cms` -> [`auth login`, `--cms`]. */
function splitFlag(words: string): [string, string | undefined] {
  const at = words.indexOf(' --');
  return at < 0 ? [words, undefined] : [words.slice(0, at), words.slice(at + 1)];
}

function commandDoc(cmd: Command, path: string, calls: Map<string, string[]>): CommandDoc {
  const visible = help.visibleOptions(cmd);
  return {
    path,
    aliases: cmd.aliases(),
    usage: help.commandUsage(cmd),
    description: cmd.description(),
    examples: examplesOf(cmd),
    args: help.visibleArguments(cmd).map((a) => ({ flags: help.argumentTerm(a), description: help.argumentDescription(a) })),
    flags: visible.filter((o) => o.helpGroupHeading !== GLOBAL_HEADING).map(flagDoc),
    endpoints: calls.get(path) ?? [],
    fields: listFieldsOf(cmd),
  };
}

/** The whole reference: every visible group, each verb (a group that is its own verb: itself). */
export async function readReference(): Promise<Reference> {
  const program = await buildTree('*');
  const calls = endpointsByCommand();
  const groups: GroupDoc[] = [];
  for (const g of program.commands) {
    if ((g as unknown as { _hidden?: boolean })._hidden || g.name() === 'help') continue;
    const verbs = g.commands.filter((c) => c.name() !== 'help' && !(c as unknown as { _hidden?: boolean })._hidden);
    const commands = verbs.length ? verbs.map((v) => commandDoc(v, `${g.name()} ${v.name()}`, calls)) : [commandDoc(g, g.name(), calls)];
    groups.push({ name: g.name(), aliases: g.aliases(), summary: g.description(), commands });
  }
  return {
    version,
    summary: program.description(),
    globals: help
      .visibleOptions(program)
      .filter((o) => o.helpGroupHeading === GLOBAL_HEADING)
      .map(flagDoc),
    groups,
  };
}
