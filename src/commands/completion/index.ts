/**
 * `subctl completion bash|zsh|fish` prints the completion script; the scripts call back into
 * the binary through the hidden `subctl __complete [--shell S] -- <cword> <words...>`, which
 * prints one candidate a line (`value<TAB>description` for zsh and fish) and always exits 0
 * with nothing on stderr.
 */
import { Option } from 'commander';
import { UsageError } from '../../api/errors.js';
import { addGlobalOptions } from '../../cli/globals.js';
import type { Ctx } from '../../cli/context.js';
import { completionScript, installHelp, SHELLS, type Shell } from '../../completion/scripts.js';
import type { Group } from '../types.js';

const isShell = (s: unknown): s is Shell => typeof s === 'string' && (SHELLS as readonly string[]).includes(s);

export const completionGroup: Group = {
  name: 'completion',
  build(cmd, bind) {
    cmd.usage('bash|zsh|fish').addHelpText('after', installHelp());
    for (const shell of SHELLS) {
      addGlobalOptions(
        cmd
          .command(shell)
          .description(`print the ${shell} completion script`)
          .addHelpText('after', installHelp(shell))
          .action((_o, c) => {
            bind(async (ctx) => {
              ctx.io.stdout.write(completionScript(shell));
              return 0;
            })(c.optsWithGlobals());
          }),
      );
    }
    // `subctl completion` alone, or with a shell it does not know.
    cmd.argument('[shell]').action((shell: string | undefined, _o, c) => {
      bind(async () => {
        throw new UsageError(
          shell === undefined ? 'name a shell: subctl completion bash|zsh|fish' : `unknown shell '${shell}': bash, zsh or fish`,
          {
            hint: '`subctl completion --help` shows how to install each script',
          },
        );
      })(c.optsWithGlobals());
    });
  },
};

export const completeGroup: Group = {
  name: '__complete',
  build(cmd, bind) {
    cmd
      .argument('[cword]')
      .argument('[words...]')
      .addOption(new Option('--shell <shell>').default('bash'))
      .helpOption(false)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .action((cword: string | undefined, words: string[], opts: { shell?: string }) => {
        // Globals come from the words being completed, not from this command line; `output`
        // is given so that a bad SUBCTL_OUTPUT cannot make the Tab key print an error.
        bind(async (ctx) => {
          try {
            ctx.io.stdout.write(await candidates(ctx, Number(cword), words ?? [], isShell(opts.shell) ? opts.shell : 'bash'));
          } catch {
            /* completion never fails out loud */
          }
          return 0;
        })({ output: 'table', quiet: true });
      });
  },
};

async function candidates(ctx: Ctx, cwordIn: number, wordsIn: string[], shell: Shell): Promise<string> {
  if (!Number.isInteger(cwordIn) || cwordIn < 1 || wordsIn.length === 0) return '';
  const { analyze, buildTree, filterCandidates, formatCandidates, joinBashWords } = await import('../../completion/engine.js');
  let words = wordsIn;
  let cword = cwordIn;
  let strip = 0;
  if (shell === 'bash') ({ words, cword, strip } = joinBashWords(wordsIn, cwordIn));
  // First with no group built (enough for the group names and the global options), then again
  // with the group the words name: one group loaded, as for any command.
  let a = analyze(await buildTree(), words, cword);
  if (a.group) a = analyze(await buildTree(a.group), words, cword);
  let list: Array<{ value: string; description?: string }>;
  if (a.need.kind === 'static') list = a.need.candidates;
  else {
    const { completionContext, dynamicValues } = await import('../../completion/dynamic.js');
    const sub = completionContext(ctx, a.target);
    try {
      if (a.need.kind === 'profiles') list = Object.keys(sub.config().load().profiles).map((p) => ({ value: p }));
      else list = await dynamicValues(sub, a.need.dynamic);
    } finally {
      await sub.close().catch(() => {});
    }
  }
  let out = filterCandidates(
    list.map((c) => ({ ...c, value: a.valuePrefix + c.value })),
    a.current,
  );
  if (strip > 0) out = out.map((c) => ({ ...c, value: c.value.slice(strip) }));
  return formatCandidates(out, shell);
}
