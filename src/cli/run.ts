/**
 * Builds the command tree and runs one invocation: only the group named is loaded, the line is
 * parsed, the action runs with its context, and every error goes to src/cli/report.ts, which
 * turns it into an exit code and its text.
 */
import { Command, CommanderError } from 'commander';
import { CliError, InterruptedError, LocalError, localError, UsageError } from '../api/errors.js';
import type { MainDeps } from '../main.js';
import { resolvePaths } from '../config/paths.js';
import { ConfigStore } from '../config/store.js';
import { createContext, type Ctx } from './context.js';
import { readGlobals, type GlobalOptions } from './globals.js';
import { setUtcTimes } from '../output/time.js';
import { guardPipe } from '../output/pipe.js';
import { groups } from '../commands/index.js';
import { addGroups, createProgram } from './tree.js';
import { TOPIC_NAMES } from './topic-names.js';
import type { StdoutSink } from '../output/stdout.js';
import type { Activity } from '../output/progress.js';
import { version } from '../../package.json';
import { refusedTokenHint, reportError, usageAfterCommander } from './report.js';
import { groupAndVerb, jqWord, outputWord } from './words.js';

/**
 * A command listed by name only, so that help stays complete without loading or building it.
 * Commander never dispatches to one, because the command line names another; should it ever,
 * this fails loudly instead of doing nothing and exiting 0.
 */
export function placeholder(cmd: Command): Command {
  return cmd
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .helpOption(false)
    .action(() => {
      throw new Error(`internal: \`${cmd.name()}\` was listed but not built for this command line`);
    });
}

/** Set by a leaf command's action: the work to do once parsing is over. */
export type Action = (ctx: Ctx) => Promise<number | void>;

/** A bare `subctl`: the console on a terminal, help otherwise; words that name no group are an unknown command. */
function bareAction(program: Command, io: MainDeps['io']): { action: Action; raw: Record<string, unknown> } {
  // Commander's own unknown-command error (its message and "Did you mean"), not in its typings.
  if (program.args.length > 0) (program as unknown as { unknownCommand(): never }).unknownCommand();
  return {
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
}

/** The root command: version, help topics, Commander's output through `io` (its errors through `outputError`). */
function rootProgram(io: MainDeps['io'], outputError: (s: string, write: (s: string) => void) => void): Command {
  return createProgram()
    .version(version, '-V, --version', 'print the version (`subctl version` says more)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // With JSON errors the message goes out once, as the object (runCli's catch).
      outputError,
    })
    .showSuggestionAfterError(true)
    .helpCommand('help [command]', `help for a command (\`help services list\`) or a topic: ${TOPIC_NAMES.join(', ')}`)
    .addHelpText('after', `\nHelp topics: ${TOPIC_NAMES.map((t) => `subctl help ${t}`).join(', ')}\n`);
}

/** Where stdout goes through: --jq's filter, or the pager on a terminal; undefined when straight out. */
async function outputSink(io: MainDeps['io'], globals: GlobalOptions, screen: boolean, follows: boolean): Promise<StdoutSink | undefined> {
  if (globals.jq !== undefined) {
    if (screen || follows)
      throw new UsageError(
        `--jq filters a command's JSON output; ${follows ? 'with --follow, pipe -o ndjson into jq instead' : 'the console has none'}`,
      );
    await (await import('../output/jq.js')).checkJq(globals.jq);
  }
  const pager = !globals.noPager && !screen && !follows && io.stdoutIsTTY;
  if (globals.jq === undefined && !pager) return undefined;
  return (await import('../output/stdout.js')).stdoutSink(io, { jq: globals.jq, compact: globals.output === 'ndjson', pager });
}

/**
 * Runs one invocation and holds it to what reached stdout: a write that failed there (a full
 * disk, /dev/full), which a command printing a few lines never looks at, ends the run with exit 1
 * and says so, rather than exit 0 with the output lost. A reader that went away (`| head -1`,
 * EPIPE) stays a quiet end (src/output/pipe.ts).
 */
export async function runCli(argv: string[], deps: MainDeps): Promise<number> {
  // Listening from the first byte: a write that fails before anyone looks would crash the process.
  const guard = guardPipe(deps.io.stdout);
  const code = await runCommand(argv, deps);
  const failure = guard.error();
  if (code !== 0 || !failure) return code;
  // The command wrote without looking (help, a summary, a dashboard): its output is lost, say so.
  const why =
    localError(failure, 'to standard output') ?? new LocalError(`cannot write to standard output: ${failure.message}`, 'EIO', failure);
  return reportError(why, deps.io, undefined, argv);
}

/** One invocation, from the command line to its exit code (runCli holds it to what reached stdout). */
async function runCommand(argv: string[], deps: MainDeps): Promise<number> {
  const { io } = deps;
  let pending: { action: Action; raw: Record<string, unknown> } | undefined;

  // Options are read only once the line parses: for Commander's own errors, -o json|ndjson is
  // looked for in the words, then SUBCTL_OUTPUT, then the profile's output setting.
  const parseFormat = (): string | undefined =>
    jqWord(argv) ? 'json' : (outputWord(argv) ?? io.env.SUBCTL_OUTPUT ?? profileOutputOf(argv, io.env))?.toLowerCase();
  let jsonParseErrors = false;
  const program = rootProgram(io, (s, write) => {
    const f = parseFormat();
    jsonParseErrors = f === 'json' || f === 'ndjson';
    if (!jsonParseErrors) write(s);
  });

  // Only the group named on the command line is loaded and built; the others are listed by name.
  const { group: first, verb, at } = groupAndVerb(argv, program.options);
  if (first === 'help') return helpOf(argv, at!, deps);
  const named = first !== undefined ? groups.find((g) => g.name === first || g.aliases?.includes(first)) : undefined;
  // A first word that names no group is an unknown command, whatever follows it: Commander would
  // otherwise read the rest as the root's options and complain of one of those instead
  // (`subctl maintenance cleanup --dry-run`: "unknown option '--dry-run'").
  const parsed = first !== undefined && !named ? argv.slice(0, at! + 1) : argv;
  // A command line that names its group needs no other group, not even by name: only the root's
  // help lists them, and it is asked for with `-h`/`--help` before the group word (the other
  // groups' commands, made for nothing, would slow every command).
  const rootHelp = argv.slice(0, at ?? argv.length).some((a) => a === '-h' || a === '--help');
  await addGroups(program, {
    include: (g) => !named || g === named || rootHelp,
    load: (g) => g === named,
    bind: (action) => (raw) => {
      pending = { action, raw };
    },
    verb,
    // A placeholder keeps `subctl --help` complete without loading every verb.
    unbuilt: placeholder,
  });

  // A bare `subctl`: the console on a terminal, help otherwise. Words that name no group reach
  // this action too (it takes the excess arguments, so that Commander does not call them "too
  // many arguments"): those are an unknown command, with Commander's suggestion.
  program.allowExcessArguments(true);
  program.action(() => {
    pending = bareAction(program, io);
  });

  try {
    await program.parseAsync(parsed, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return usageAfterCommander(e, program, first, verb, jsonParseErrors, io);
    }
    return reportError(e, io, undefined, argv);
  }
  if (!pending) return 0;
  return runAction(pending, first, argv, deps);
}

/** Runs the parsed command's action in its context, and says how it ended (the exit code). */
async function runAction(
  pending: { action: Action; raw: Record<string, unknown> },
  first: string | undefined,
  argv: string[],
  deps: MainDeps,
): Promise<number> {
  const { io } = deps;
  let globals: GlobalOptions | undefined;
  let ctx: Ctx | undefined;
  let sink: StdoutSink | undefined;
  let activity: Activity | undefined;
  try {
    globals = readGlobals(pending.raw, io.env);
    setUtcTimes(globals.utc === true);
    // The console draws on the terminal itself, and --follow never ends: neither is paged.
    const screen = first === undefined || first === 'console' || first === 'help';
    const follows = pending.raw.follow === true;
    sink = await outputSink(io, globals, screen, follows);
    ctx = createContext({ io: sink?.io ?? io, globals, signal: deps.signal, dispatcher: deps.dispatcher, now: deps.now });
    if (!globals.outputExplicit) profileOutput(ctx, globals);
    if (!screen && !follows) activity = await spinnerFor(ctx, globals);
    const code = await pending.action(ctx);
    if (deps.signal.aborted) return 130;
    await sink?.finish();
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    activity?.close();
    await sink?.close().catch(() => {});
    if (deps.signal.aborted && !(e instanceof CliError && e.exitCode !== 130)) {
      // Where an interrupted export can be taken up again, if it knows.
      const interrupted = new InterruptedError();
      if (e instanceof CliError && e.done) interrupted.done = e.done;
      return reportError(interrupted, io, globals, argv);
    }
    return reportError(refusedTokenHint(e, ctx, globals, argv), io, globals, argv);
  } finally {
    activity?.close();
    await sink?.close().catch(() => {});
    await ctx?.close().catch(() => {});
  }
}

/**
 * `subctl help`: a topic (`help environment`), else the help of the command its words name
 * (`help subscriptions manage` is `subscriptions manage --help`), else the root's.
 */
async function helpOf(argv: string[], at: number, deps: MainDeps): Promise<number> {
  const words = argv.slice(at + 1);
  if (words.length === 1 && (TOPIC_NAMES as readonly string[]).includes(words[0]!)) {
    const { topicText } = await import('./topics.js');
    deps.io.stdout.write(topicText(words[0] as (typeof TOPIC_NAMES)[number]));
    return 0;
  }
  return runCli([...argv.slice(0, at), ...words, '--help'], deps);
}

/**
 * On a terminal (stderr), the spinner of slow calls and the progress of exports
 * (src/output/progress.ts): the client's calls are counted as ctx.api() hands it out.
 */
async function spinnerFor(ctx: Ctx, globals: GlobalOptions): Promise<Activity | undefined> {
  if (globals.quiet || !ctx.io.stderrIsTTY) return undefined;
  const { Activity, trackActivity, watchCalls } = await import('../output/progress.js');
  if (!Activity.wanted(ctx.io, false)) return undefined;
  const activity = new Activity(ctx.io);
  trackActivity(ctx.io, activity);
  const api = ctx.api.bind(ctx);
  const watched = new WeakSet<object>();
  ctx.api = async (opts) => {
    const client = await api(opts);
    if (!watched.has(client)) watched.add(watchCalls(client, activity));
    return client;
  };
  return activity;
}

/**
 * The profile's `output` setting (`config set output json`), where neither -o nor SUBCTL_OUTPUT
 * says. A config file that cannot be read is left to the command, which says so where it
 * reads it.
 */
function profileOutput(ctx: Ctx, globals: GlobalOptions): void {
  let set: string | undefined;
  try {
    set = ctx.profile()?.output;
  } catch {
    return;
  }
  if (set === 'table' || set === 'json' || set === 'ndjson' || set === 'csv') {
    globals.output = set;
    // Asked for, as -o asks: `auth refresh` prints its answer, `api` prints in it (not its json).
    globals.outputExplicit = true;
  }
}

/**
 * The output setting of the profile a command line that did not parse would have used (`--profile`
 * in its words, SUBCTL_PROFILE, the active one); undefined when there is none or the config
 * cannot be read.
 */
function profileOutputOf(argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  let named: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--profile') named = argv[++i];
    else if (a.startsWith('--profile=')) named = a.slice('--profile='.length);
  }
  try {
    const store = new ConfigStore(resolvePaths(env));
    return store.getProfile(store.activeProfileName(named, env))?.output;
  } catch {
    return undefined;
  }
}
