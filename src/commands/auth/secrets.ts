/**
 * Secrets on the command line of auth and users verbs: passwords from --password-stdin or a
 * masked prompt, never argv (a secret given as a flag is refused before anything is sent), and
 * checked against the contract before the prompt.
 */
import { Option } from 'commander';
import type { AnyEndpoint } from '../../api/contract/common.js';
import { flagName } from '../../api/contract/common.js';
import { UsageError, ValidationError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';

/** Reads lines from stdin (for --password-stdin): the first `n` lines, without their newlines. */
export async function readStdinLines(ctx: Ctx, n: number, flag: string): Promise<string[]> {
  if (ctx.io.stdinIsTTY) throw new UsageError(`${flag} reads from a pipe: printf '%s\\n' "$PASSWORD" | subctl ... ${flag}`);
  const chunks: Buffer[] = [];
  for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
  const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  const got = lines.slice(0, n);
  if (got.length < n || got.some((l) => l === '')) {
    throw new UsageError(
      `${flag} expects ${n === 1 ? 'the password on the first line' : `${n} lines (old and new password)`} of standard input`,
    );
  }
  return got;
}

/** A password from --password-stdin or a masked prompt. */
export async function readPassword(ctx: Ctx, opts: Record<string, unknown>, label = 'Password'): Promise<string> {
  if (opts.passwordStdin) return (await readStdinLines(ctx, 1, '--password-stdin'))[0];
  return ctx.promptSecret(label, '--password-stdin');
}

/** The option that reads secrets from standard input. */
export function passwordStdinOption(what = 'the password'): Option {
  return new Option('--password-stdin', `read ${what} from standard input (one a line)`);
}

/**
 * Hidden flags that would put a secret in argv (`--password x`): declared only so that they are
 * refused with a clear message instead of Commander's "unknown option".
 */
export function argvSecretTraps(...names: string[]): Option[] {
  return names.map(secretTrap);
}
export function secretTrap(name: string): Option {
  return new Option(`--${name} <value>`).hideHelp();
}

/** Refuses a secret given on the command line (see argvSecretTraps); nothing is sent. */
export function refuseArgvSecrets(opts: Record<string, unknown>, ...names: string[]): void {
  for (const n of names) {
    const attr = n.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (opts[attr] !== undefined) {
      throw new UsageError(`--${n} is not accepted: passwords never travel in argv (they would show in the shell history and in ps)`, {
        hint: `pipe it in: printf '%s\\n' "$PASSWORD" | subctl ... --password-stdin, or run on a terminal to be prompted`,
      });
    }
  }
}

/** A password being set: one line of stdin with --password-stdin, else a masked prompt asked twice. */
export async function readNewPassword(ctx: Ctx, opts: Record<string, unknown>, label = 'New password'): Promise<string> {
  if (opts.passwordStdin) return (await readStdinLines(ctx, 1, '--password-stdin'))[0];
  const first = await ctx.promptSecret(label, '--password-stdin');
  if (first === '') throw new UsageError('empty password: nothing was sent');
  const again = await ctx.promptSecret(`Repeat ${label.charAt(0).toLowerCase()}${label.slice(1)}`, '--password-stdin');
  if (again !== first) throw new UsageError('the two passwords differ: nothing was sent');
  return first;
}

/** A value that satisfies any password rule of the contract: lets the other fields be checked before prompting. */
const PLACEHOLDER_SECRET = 'placeholder-secret';

/**
 * Checks a call against the contract before a secret is asked for, the secret fields
 * (`secrets`: field -> how to name it) standing in with a placeholder.
 */
export async function precheck(
  ep: AnyEndpoint,
  call: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> },
  secrets: Record<string, string>,
) {
  const body = { ...call.body };
  for (const f of Object.keys(secrets)) body[f] = PLACEHOLDER_SECRET;
  await checkSecrets(ep, { ...call, body }, secrets);
}

/**
 * Validates a call whose body holds secrets. A rule broken by a secret is reported by its name
 * (`new password: Too small ...`), never as a flag, since secrets have no flag.
 */
export async function checkSecrets(
  ep: AnyEndpoint,
  call: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> },
  secrets: Record<string, string>,
) {
  const { validateInput } = await import('../../api/client.js');
  try {
    validateInput(ep, call);
  } catch (e) {
    if (!(e instanceof ValidationError) || !e.problems.some((p) => p.field.split('.')[0] in secrets)) throw e;
    const lines = e.problems.map((p) => {
      const root = p.field.split('.')[0];
      return root in secrets ? `${secrets[root]}: ${p.message}` : p.field ? `${p.field} (${flagName(root)}): ${p.message}` : p.message;
    });
    throw new UsageError(lines.length === 1 ? `invalid input: ${lines[0]}` : `invalid input:\n  ${lines.join('\n  ')}`);
  }
}
