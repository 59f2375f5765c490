/**
 * Builds the command tree and runs one invocation. The only place where errors become exit
 * codes and user-facing error text (CLI.md "Exit codes"; `-o json|ndjson` also print the error
 * as one JSON object on stderr).
 */
import { Command, CommanderError } from 'commander';
import { CliError, InterruptedError, UsageError, ValidationError } from '../api/errors.js';
import { flagName } from '../api/contract/common.js';
import type { MainDeps } from '../main.js';
import { createContext, type Ctx } from './context.js';
import { addGlobalOptions, readGlobals, type GlobalOptions } from './globals.js';
import { groups } from '../commands/index.js';
import { version } from '../../package.json';

/** Set by a leaf command's action: the work to do once parsing is over. */
export type Action = (ctx: Ctx) => Promise<number | void>;

export async function runCli(argv: string[], deps: MainDeps): Promise<number> {
  const { io } = deps;
  let pending: { action: Action; raw: Record<string, unknown> } | undefined;
  let globals: GlobalOptions | undefined;

  const program = new Command('subctl');
  program
    .description('Administration CLI and console for the subscription and usage-metering platform')
    .version(version, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s.replace(/^error: /, 'error: ')),
    })
    .showSuggestionAfterError(true)
    .helpCommand(true);
  addGlobalOptions(program);

  // Only the group named on the command line is loaded and built; the others are listed by name.
  const first = argv.find((a) => !a.startsWith('-'));
  for (const g of groups) {
    const cmd = program.command(g.name).description(g.summary);
    if (g.aliases) cmd.aliases(g.aliases);
    if (first === g.name || g.aliases?.includes(first ?? '')) {
      (await g.load()).build(cmd, (action) => (raw) => {
        pending = { action, raw };
      });
    } else {
      // A placeholder that keeps `subctl --help` complete without loading every verb.
      cmd.allowUnknownOption(true).allowExcessArguments(true).helpOption(false);
    }
  }
  if (first === 'help') {
    // `subctl help <group>`: build the group asked about so its help is complete.
    const asked = groups.find((g) => g.name === argv[argv.indexOf('help') + 1]);
    if (asked) {
      const cmd = program.commands.find((c) => c.name() === asked.name)!;
      (await asked.load()).build(cmd, () => () => {});
    }
  }

  // A bare `subctl`: the console on a terminal, help otherwise.
  program.action(() => {
    pending = {
      action: async (ctx) => {
        const consoleEntry = groups.find((g) => g.name === 'console');
        if (ctx.interactive() && consoleEntry) {
          const c = await consoleEntry.load();
          if (c.bare) return c.bare(ctx);
        }
        io.stdout.write(program.helpInformation());
        return 0;
      },
      raw: program.opts(),
    };
  });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      // Commander printed its message already; add the hint and map to the usage exit code.
      io.stderr.write(`run 'subctl ${first && first !== 'help' ? `${first} ` : ''}--help' for usage\n`);
      return 2;
    }
    return reportError(e, io, undefined);
  }
  if (!pending) return 0;

  let ctx: Ctx | undefined;
  try {
    globals = readGlobals(pending.raw, io.env);
    ctx = createContext({ io, globals, signal: deps.signal, dispatcher: deps.dispatcher, now: deps.now });
    const code = await pending.action(ctx);
    if (deps.signal.aborted) return 130;
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (deps.signal.aborted && !(e instanceof CliError && e.exitCode !== 130)) {
      return reportError(new InterruptedError(), io, globals);
    }
    return reportError(e, io, globals);
  } finally {
    await ctx?.close().catch(() => {});
  }
}

function reportError(e: unknown, io: MainDeps['io'], globals: GlobalOptions | undefined): number {
  const jsonErrors = globals?.output === 'json' || globals?.output === 'ndjson';
  if (e instanceof CliError) {
    if (e.exitCode === 130) {
      io.stderr.write('interrupted\n');
    } else {
      let message = e.message;
      if (e instanceof ValidationError) {
        const lines = e.problems.map((p) => (p.field ? `${p.field} (${flagName(p.field.split('.')[0])}): ${p.message}` : p.message));
        message = lines.length === 1 ? `invalid input: ${lines[0]}` : `invalid input:\n  ${lines.join('\n  ')}`;
      }
      const status = e.status ? ` (HTTP ${e.status})` : '';
      io.stderr.write(`error: ${message}${status}\n`);
      const fields = fieldErrors(e.details);
      for (const f of fields) io.stderr.write(`  ${f}\n`);
      if (e.hint) io.stderr.write(`hint: ${e.hint}\n`);
    }
    if (jsonErrors) io.stderr.write(`${JSON.stringify(e.toJSON())}\n`);
    return e.exitCode;
  }
  const err = e as Error;
  io.stderr.write(`error: ${err?.message ?? String(e)}\n`);
  if (io.env.SUBCTL_DEBUG) io.stderr.write(`${err?.stack}\n`);
  io.stderr.write('this is a bug in subctl; please report it with the command you ran (set SUBCTL_DEBUG=1 for a stack trace)\n');
  if (jsonErrors) io.stderr.write(`${JSON.stringify({ error: { type: 'bug', message: err?.message ?? String(e), status: null, code: null, details: null } })}\n`);
  return 1;
}

/** Server field errors: `error.fields: [{field, message}]` -> readable lines. */
function fieldErrors(details: unknown): string[] {
  const fields = (details as { fields?: unknown } | undefined)?.fields;
  if (!Array.isArray(fields)) return [];
  return fields
    .filter((f): f is { field: string; message: string } => typeof f === 'object' && f !== null && 'message' in f)
    .map((f) => (f.field ? `${f.field}: ${f.message}` : f.message));
}

export { UsageError };
