/**
 * How a command's help reads: what it does, examples, its arguments and own flags, then the
 * global options once under their own heading (globals.ts puts them in GLOBAL_HEADING), its
 * subcommands, and for a list the fields `--fields` can name.
 *
 * Examples, one mechanism for every command: `withExamples(cmd, lines)` records them. A verb
 * declared by a VerbSpec gives `examples` in its spec (verbs.ts passes them here); a command
 * written by hand (auth, config, sandbox, doctor ...) has its lines in the table of
 * src/commands/examples.ts, keyed by its words (`auth login`), which `examplesOf` reads.
 */
import type { Command, Help } from 'commander';
import { HAND_WRITTEN_EXAMPLES } from '../commands/examples.js';
import { GLOBAL_HEADING } from './globals.js';

const examplesByCommand = new WeakMap<Command, string[]>();
const fieldsByCommand = new WeakMap<Command, () => string[] | undefined>();

/** Records a command's examples: whole command lines, starting with `subctl `. */
export function withExamples<C extends Command>(cmd: C, lines: readonly string[] | undefined): C {
  if (lines?.length) examplesByCommand.set(cmd, [...lines]);
  return cmd;
}

/** The words of a command below the program: `services list`. */
function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** A command's examples: its own (a VerbSpec's), else the hand-written table's. */
export function examplesOf(cmd: Command): string[] {
  return examplesByCommand.get(cmd) ?? [...(HAND_WRITTEN_EXAMPLES[commandPath(cmd)] ?? [])];
}

/** Records the fields a list's items carry (what `--fields` can name), read only when help is shown. */
export function withListFields<C extends Command>(cmd: C, fields: () => string[] | undefined): C {
  fieldsByCommand.set(cmd, fields);
  return cmd;
}

export function listFieldsOf(cmd: Command): string[] | undefined {
  return fieldsByCommand.get(cmd)?.();
}

/** Words joined by ', ' and wrapped at `width`, each line indented by two spaces. */
function wrapWords(words: string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [i, w] of words.entries()) {
    const piece = i < words.length - 1 ? `${w},` : w;
    if (line && line.length + 1 + piece.length > width - 2) {
      lines.push(`  ${line}`);
      line = piece;
    } else line = line ? `${line} ${piece}` : piece;
  }
  if (line) lines.push(`  ${line}`);
  return lines;
}

/** Commander's help configuration (`configureHelp`): the layout above. */
export const helpLayout: Partial<Help> = {
  formatHelp(cmd: Command, helper: Help): string {
    const termWidth = helper.padWidth(cmd, helper);
    const width = helper.helpWidth ?? 80;
    const item = (term: string, description: string) => helper.formatItem(term, termWidth, description, helper);
    const block = (title: string, lines: string[]) => (lines.length ? [helper.styleTitle(title), ...lines, ''] : []);
    let out = [`${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(cmd))}`, ''];
    const description = helper.commandDescription(cmd);
    if (description) out.push(helper.boxWrap(helper.styleCommandDescription(description), width), '');
    // Examples are not wrapped: each is a line to copy.
    out = out.concat(
      block(
        'Examples:',
        examplesOf(cmd).map((e) => `  ${e}`),
      ),
    );
    const args = helper
      .visibleArguments(cmd)
      .map((a) => item(helper.styleArgumentTerm(helper.argumentTerm(a)), helper.styleArgumentDescription(helper.argumentDescription(a))));
    out = out.concat(block('Arguments:', args));
    const groups = new Map<string, string[]>();
    for (const o of helper.visibleOptions(cmd)) {
      const heading = o.helpGroupHeading ?? 'Options:';
      if (!groups.has(heading)) groups.set(heading, []);
      groups
        .get(heading)!
        .push(item(helper.styleOptionTerm(helper.optionTerm(o)), helper.styleOptionDescription(helper.optionDescription(o))));
    }
    // The command's own flags first, the global options after them.
    const headings = [...groups.keys()].sort((a, b) => Number(a === GLOBAL_HEADING) - Number(b === GLOBAL_HEADING));
    for (const h of headings) out = out.concat(block(h, groups.get(h)!));
    const subs = helper
      .visibleCommands(cmd)
      .map((c) =>
        item(helper.styleSubcommandTerm(helper.subcommandTerm(c)), helper.styleSubcommandDescription(helper.subcommandDescription(c))),
      );
    out = out.concat(block('Commands:', subs));
    if (fieldsByCommand.has(cmd)) {
      // Where the contract does not name a list's item fields, how to see them.
      const fields = listFieldsOf(cmd);
      const lines = fields?.length
        ? wrapWords(fields, width)
        : [`  those of the answer's items: \`subctl ${commandPath(cmd)} -o json --limit 1\` shows them`];
      out = out.concat(block('Fields (for --fields):', lines));
    }
    return out.join('\n');
  },
};
