/**
 * Errors become exit codes and user-facing text here, once: a hint where the error came without
 * one, `-o json|ndjson` printing the error as one JSON object on stderr, a bug's stack under
 * --debug. src/cli/run.ts calls it for every error of a run.
 */
import type { Command, CommanderError } from 'commander';
import { CliError, localError, UsageError, ValidationError } from '../api/errors.js';
import { flagName } from '../api/contract/common.js';
import type { MainDeps } from '../main.js';
import type { GlobalOptions } from './globals.js';
import { commandWords, jqWord, outputWord } from './words.js';
import { cutMessage, terminalSafeJson, terminalSafeText } from '../output/terminal-safe.js';
import type { Ctx } from './context.js';

/**
 * After Commander's own error (it printed its message already, unless JSON errors were asked
 * for): the hint, and the usage exit code.
 */
export function usageAfterCommander(
  e: CommanderError,
  program: Command,
  first: string | undefined,
  verb: string | undefined,
  jsonParseErrors: boolean,
  io: MainDeps['io'],
): number {
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

/**
 * A 401 for a token given by SUBCTL_TOKEN or --token-file: the hint names that source, since
 * `subctl auth login` (the usual advice) stores a token those two go on overriding.
 */
export function refusedTokenHint(e: unknown, ctx: Ctx | undefined, globals: GlobalOptions | undefined, argv: string[]): unknown {
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

export async function reportError(
  e: unknown,
  io: MainDeps['io'],
  globals: GlobalOptions | undefined,
  argv: string[] = [],
): Promise<number> {
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
