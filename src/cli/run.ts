/**
 * Builds the command tree and runs one invocation. The only place where errors become exit
 * codes and user-facing error text (CLI.md "Exit codes"; `-o json|ndjson` also print the error
 * as one JSON object on stderr).
 */
import { Command, CommanderError, type Option } from 'commander';
import { CliError, InterruptedError, localError, UsageError, ValidationError } from '../api/errors.js';
import { flagName } from '../api/contract/common.js';
import type { MainDeps } from '../main.js';
import { resolvePaths } from '../config/paths.js';
import { ConfigStore } from '../config/store.js';
import { createContext, type Ctx } from './context.js';
import { addGlobalOptions, readGlobals, type GlobalOptions } from './globals.js';
import { setUtcTimes } from '../output/time.js';
import { groups } from '../commands/index.js';
import { addGroups, createProgram } from './tree.js';
import { TOPIC_NAMES } from './topic-names.js';
import type { StdoutSink } from '../output/stdout.js';
import type { Activity } from '../output/progress.js';
import { version } from '../../package.json';
import { cutMessage, terminalSafeJson, terminalSafeText } from '../output/terminal-safe.js';

/**
 * The group and verb words of a command line as Commander will read them: the first two words
 * that are neither options nor the values of global options (`subctl -o json services list`).
 * `verb` is left out when an option Commander may read differently comes between the two;
 * `at` is the group word's index in `argv`.
 */
export function groupAndVerb(argv: string[], globalOptions: readonly Option[]): { group?: string; verb?: string; at?: number } {
  const takesValue = new Set<string>();
  const known = new Set<string>();
  for (const o of globalOptions) {
    for (const f of [o.long, o.short]) {
      if (!f) continue;
      known.add(f);
      if (o.required || o.optional) takesValue.add(f);
    }
  }
  let group: string | undefined;
  let at: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return { group, at };
    if (a.startsWith('-')) {
      if (group !== undefined && !known.has(a.split('=')[0])) return { group, at };
      if (takesValue.has(a)) i++;
      continue;
    }
    if (group === undefined) {
      group = a;
      at = i;
    } else return { group, verb: a, at };
  }
  return { group, at };
}

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

export async function runCli(argv: string[], deps: MainDeps): Promise<number> {
  const { io } = deps;
  let pending: { action: Action; raw: Record<string, unknown> } | undefined;
  let globals: GlobalOptions | undefined;

  // Options are read only once the line parses: for Commander's own errors, -o json|ndjson is
  // looked for in the words, then SUBCTL_OUTPUT, then the profile's output setting.
  const parseFormat = (): string | undefined =>
    jqWord(argv) ? 'json' : (outputWord(argv) ?? io.env.SUBCTL_OUTPUT ?? profileOutputOf(argv, io.env))?.toLowerCase();
  let jsonParseErrors = false;
  const program = createProgram();
  program
    .version(version, '-V, --version', 'print the version (`subctl version` says more)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // With JSON errors the message goes out once, as the object (in the catch below).
      outputError: (s, write) => {
        const f = parseFormat();
        jsonParseErrors = f === 'json' || f === 'ndjson';
        if (!jsonParseErrors) write(s);
      },
    })
    .showSuggestionAfterError(true)
    .helpCommand('help [command]', `help for a command (\`help services list\`) or a topic: ${TOPIC_NAMES.join(', ')}`)
    .addHelpText('after', `\nHelp topics: ${TOPIC_NAMES.map((t) => `subctl help ${t}`).join(', ')}\n`);

  // Only the group named on the command line is loaded and built; the others are listed by name.
  const { group: first, verb, at } = groupAndVerb(argv, program.options);
  if (first === 'help') return helpOf(argv, at!, deps);
  const named = first !== undefined ? groups.find((g) => g.name === first || g.aliases?.includes(first)) : undefined;
  // A first word that names no group is an unknown command, whatever follows it: Commander would
  // otherwise read the rest as the root's options and complain of one of those instead
  // (`subctl maintenance cleanup --dry-run`: "unknown option '--dry-run'").
  const parsed = first !== undefined && !named ? argv.slice(0, at! + 1) : argv;
  // A command line that names its group needs no other group, not even by name: only the root's
  // help lists them, and it is asked for with `-h`/`--help` before the group word (22 commands
  // made for nothing cost about 0.4 ms of every command).
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
    // Commander's own unknown-command error (its message and "Did you mean"), not in its typings.
    if (program.args.length > 0) (program as unknown as { unknownCommand(): never }).unknownCommand();
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
    await program.parseAsync(parsed, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      // Commander printed its message already, unless JSON errors were asked for (then
      // outputError kept it back); add the hint and map to the usage exit code.
      const group = program.commands.find((c) => c.name() === first || c.aliases().includes(first ?? ''));
      let has: string | undefined;
      if (e.code === 'commander.unknownCommand' && group && group.commands.length > 0) {
        // `subctl referrals list`: say what the group has rather than only where help is.
        const verbs = group.commands.filter((c) => c.name() !== 'help').map((c) => c.name());
        has = `subctl ${group.name()} has: ${verbs.join(', ')}`;
      }
      // Help for the verb when one was named and built, else for the group, else the root.
      const leaf = group?.commands.find((c) => c.name() === verb || c.aliases().includes(verb ?? ''));
      const usage = `run 'subctl ${group ? `${group.name()} ` : ''}${leaf ? `${leaf.name()} ` : ''}--help' for usage`;
      if (jsonParseErrors) {
        const err = new UsageError(e.message.replace(/^error: /, '').trim(), { hint: has ? `${has}; ${usage}` : usage });
        io.stderr.write(`${JSON.stringify(errorObject(err))}\n`);
      } else io.stderr.write(`${has ? `${has}\n` : ''}${usage}\n`);
      return 2;
    }
    return reportError(e, io, undefined, argv);
  }
  if (!pending) return 0;

  let ctx: Ctx | undefined;
  let sink: StdoutSink | undefined;
  let activity: Activity | undefined;
  try {
    globals = readGlobals(pending.raw, io.env);
    setUtcTimes(globals.utc === true);
    // The console draws on the terminal itself, and --follow never ends: neither is paged.
    const screen = first === undefined || first === 'console' || first === 'help';
    const follows = pending.raw.follow === true;
    if (globals.jq !== undefined) {
      if (screen || follows)
        throw new UsageError(
          `--jq filters a command's JSON output; ${follows ? 'with --follow, pipe -o ndjson into jq instead' : 'the console has none'}`,
        );
      await (await import('../output/jq.js')).checkJq(globals.jq);
    }
    const pager = !globals.noPager && !screen && !follows && io.stdoutIsTTY;
    if (globals.jq !== undefined || pager) {
      sink = await (await import('../output/stdout.js')).stdoutSink(io, { jq: globals.jq, compact: globals.output === 'ndjson', pager });
    }
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
 * says: it was stored, shown by `config get`, and never used. A config file that cannot be read
 * is left to the command, which says so where it reads it.
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
 * A 401 for a token given by SUBCTL_TOKEN or --token-file: the hint names that source, since
 * `subctl auth login` (the usual advice) stores a token those two go on overriding.
 */
function refusedTokenHint(e: unknown, ctx: Ctx | undefined, globals: GlobalOptions | undefined, argv: string[]): unknown {
  if (!(e instanceof CliError) || (e.status !== 401 && e.status !== 403)) return e;
  // `auth login` itself refused: the username or password (401), or the account (403: banned
  // or inactive), not a token to sign in again for or a right of a signed-in account.
  if (commandWords(argv) === 'auth login') {
    e.hint =
      e.status === 401
        ? 'check the username and password (passwords are case-sensitive), then sign in again'
        : 'this account may not sign in (banned or inactive): an administrator can change its status (`subctl users update ID --status Active`)';
    return e;
  }
  if (e.status !== 401) return e;
  const t = ctx?.target();
  const source = t?.tokenSource;
  if (source === 'none' && t?.withheldFrom !== undefined) {
    e.hint = `profile '${t.profile}' is signed in to ${t.withheldFrom}, and its token is not sent to ${t.baseUrl}: sign in there with its own profile (\`subctl auth login --base-url ${t.baseUrl} --profile NAME\`), or pass SUBCTL_TOKEN or --token-file`;
  } else if (source === 'none' && t)
    e.hint = `profile '${t.profile}' is not signed in: \`subctl auth login${t.sandbox ? ' --sandbox' : ''} --profile ${t.profile}\``;
  else if (source === 'env')
    e.hint =
      "the token in SUBCTL_TOKEN was refused: set a valid one, or unset SUBCTL_TOKEN to use the profile's sign-in (`subctl auth login`)";
  else if (source === 'token-file')
    e.hint = `the token in ${globals?.tokenFile ?? 'the --token-file'} was refused: put a valid one in it, or leave out --token-file to use the profile's sign-in`;
  return e;
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

/** The value of -o/--output on a command line Commander could not parse (the last one given). */
export function outputWord(argv: string[]): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '-o' || a === '--output') out = argv[++i];
    else if (a.startsWith('--output=')) out = a.slice('--output='.length);
    else if (/^-o[^-]/.test(a)) out = a.slice(2);
  }
  return out;
}

/** --jq among the words of a command line (its errors are JSON, as with -o json). */
function jqWord(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--jq' || a.startsWith('--jq='));
}

/** The command as typed, without flags: `services get`. */
function commandWords(argv: string[]): string {
  const { group, verb } = groupAndVerb(argv, addGlobalOptions(new Command()).options);
  return [group, verb].filter((w) => w !== undefined).join(' ');
}

/** A hint naming the next command, for errors that came without one. */
function defaultHint(e: CliError, argv: string[]): string | undefined {
  const cmd = commandWords(argv);
  const group = cmd.split(' ')[0];
  switch (e.type) {
    case 'validation':
    case 'usage':
      // Declined at the prompt: nothing to mend.
      if (e.message.startsWith('cancelled')) return undefined;
      return cmd ? `\`subctl ${cmd} --help\` lists every flag with its type and bounds` : '`subctl --help` lists the commands';
    case 'not_found':
      // `audit user 7` and `roles of 7` look up a user: the users are what to list.
      if (
        cmd === 'audit user' ||
        cmd === 'roles of' ||
        cmd === 'referrals info' ||
        cmd === 'referrals user-referred' ||
        cmd === 'referrals user-stats'
      )
        return 'check the user id; `subctl users list` shows what exists';
      // Groups without a `list` verb point at the one that lists (there is no `me list`).
      if (cmd === 'me activate') return 'check the code (codes are matched exactly)';
      if (cmd === 'me auto-renewal') return 'check the subscription id; `subctl me subscriptions` shows yours';
      if (cmd === 'me buy')
        return 'check the plan (--service-plan-id, or --plan-code with --service-code); `subctl me plans` shows what exists';
      if (group === 'me') return 'check the service code; `subctl me services` shows what exists';
      if (cmd === 'auth register') return 'check the referral code (`subctl referrals validate CODE`), or leave out --referral-code';
      if (group === 'referrals')
        return 'check the id or code; `subctl referrals mine` (yours) or `subctl referrals admin-list` shows what exists';
      return group && !['api', 'auth', 'config', 'profile', 'dashboard', 'cleanup', 'sandbox'].includes(group)
        ? `check the id or code; \`subctl ${group} list\` shows what exists`
        : 'check the id or path';
    case 'rejected':
      // The server names its API field; the command's flag for it is what to type.
      if (e.status === 409 && /^\S+ delete$/.test(cmd) && e.message.includes('force_delete')) {
        return `add --force-delete to delete it anyway (with --delete-related-data what depends on it goes too); \`subctl ${cmd} --help\` says more`;
      }
      return cmd ? `the server refused the request as sent; \`subctl ${cmd} --help\` lists the fields and their rules` : undefined;
    case 'server':
    case 'bad_response':
      return 'the server failed; run the command again later, or with --verbose to see the exchange';
    case 'network':
      return '`subctl doctor` checks the profile, the address, TLS and reachability';
    default:
      return undefined;
  }
}

async function reportError(e: unknown, io: MainDeps['io'], globals: GlobalOptions | undefined, argv: string[] = []): Promise<number> {
  // Without globals (a global option's value was refused), -o is looked for in the words typed.
  const format = globals?.output ?? (jqWord(argv) ? 'json' : (outputWord(argv)?.toLowerCase() ?? io.env.SUBCTL_OUTPUT?.toLowerCase()));
  const jsonErrors = format === 'json' || format === 'ndjson';
  if (e instanceof CliError && !e.hint && e.exitCode !== 130) e.hint = defaultHint(e, argv);
  // Messages may carry a server's text: never raw to a terminal (or a log read on one), and cut
  // to a sane length unless --verbose (terminal-safe.ts).
  const safe = (t: string) => terminalSafeText(t);
  if (e instanceof CliError && jsonErrors) {
    // Scripts asked for JSON: the error is that one object, said once (its hint and note inside).
    io.stderr.write(`${terminalSafeJson(JSON.stringify(errorObject(e)))}\n`);
    return e.exitCode;
  }
  if (e instanceof CliError) {
    if (e.exitCode === 130) {
      io.stderr.write(`interrupted\n${e.done ? `note: ${safe(e.done)}\n` : ''}`);
    } else {
      let message = e.message;
      if (e instanceof ValidationError) {
        const lines = e.problems.map((p) =>
          p.field ? `${p.field} (${p.flag ?? flagName(p.field.split('.')[0])}): ${p.message}` : p.message,
        );
        message = lines.length === 1 ? `invalid input: ${lines[0]}` : `invalid input:\n  ${lines.join('\n  ')}`;
      }
      // The status, unless the message already says it (a redirect's names its own).
      const status = e.status && !message.includes(`HTTP ${e.status}`) ? ` (HTTP ${e.status})` : '';
      // Each line cut on its own: a message of many lines (a file's errors) is not one server text.
      const shown = globals?.verbose
        ? message
        : message
            .split('\n')
            .map((l) => cutMessage(l))
            .join('\n');
      io.stderr.write(`error: ${safe(shown)}${status}\n`);
      const fields = fieldErrors(e.details);
      for (const f of fields) io.stderr.write(`  ${safe(globals?.verbose ? f : cutMessage(f))}\n`);
      if (e.hint) io.stderr.write(`hint: ${safe(e.hint)}\n`);
      if (e.done) io.stderr.write(`note: ${safe(e.done)}\n`);
    }
    return e.exitCode;
  }
  // A failure of the machine (full disk, read-only file system) is not a bug: named, with a hint.
  const local = localError(e);
  if (local) return reportError(local, io, globals, argv);
  const err = e as Error;
  if (jsonErrors) {
    const hint = 'this is a bug in subctl; please report it with the command you ran (set SUBCTL_DEBUG=1 for a stack trace)';
    io.stderr.write(
      `${terminalSafeJson(JSON.stringify({ error: { type: 'bug', message: err?.message ?? String(e), status: null, code: null, details: null, hint } }))}\n`,
    );
    if (io.env.SUBCTL_DEBUG) io.stderr.write(`${await debugStack(err)}\n`);
    return 1;
  }
  io.stderr.write(`error: ${safe(err?.message ?? String(e))}\n`);
  if (io.env.SUBCTL_DEBUG) io.stderr.write(`${await debugStack(err)}\n`);
  io.stderr.write('this is a bug in subctl; please report it with the command you ran (set SUBCTL_DEBUG=1 for a stack trace)\n');
  return 1;
}

/**
 * An error as the one JSON object of `-o json|ndjson`: the contract's fields (CliError.toJSON),
 * with the hint and the note that text output prints on their own lines, when there are any.
 */
function errorObject(e: CliError): Record<string, unknown> {
  const { error } = e.toJSON();
  return { error: { ...error, ...(e.hint ? { hint: e.hint } : {}), ...(e.done ? { note: e.done } : {}) } };
}

/** A bug's stack trace, with positions in the bundle replaced by source positions (cli/stack.ts). */
async function debugStack(err: Error | undefined): Promise<string> {
  const stack = String(err?.stack);
  const bundle = /([^\s()]*[\\/]dist[\\/]subctl\.cjs):\d+:\d+/.exec(stack)?.[1];
  if (!bundle) return stack;
  const { sourceStack } = await import('./stack.js');
  return sourceStack(stack, bundle);
}

/** Server field errors: `error.fields: [{field, message}]` -> readable lines. */
function fieldErrors(details: unknown): string[] {
  const fields = (details as { fields?: unknown } | undefined)?.fields;
  if (!Array.isArray(fields)) return [];
  return fields
    .filter((f): f is { field: string; message: string } => typeof f === 'object' && f !== null && 'message' in f)
    .map((f) => (f.field ? `${f.field}: ${f.message}` : f.message));
}
