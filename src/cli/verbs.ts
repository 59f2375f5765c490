/**
 * Commands from the contract. A verb names its endpoint; its flags come from the endpoint's
 * schemas (`foo_bar` -> `--foo-bar`), its input is checked by the client against the same
 * schemas before anything is sent, and its output goes through the shared printers.
 *
 * Example: `defineVerb({ name: 'update', endpoint: servicesUpdate, args: ['id'] })` gives
 * `subctl services update <id> [--service-name ...] ...`.
 */
import { Command, Option } from 'commander';
import type { AnyEndpoint, FieldInfo } from '../api/contract/common.js';
import { flagName, itemFieldsOf } from '../api/contract/common.js';
import { badNumberText, convertValue } from '../api/contract/convert.js';
import { UsageError, ValidationError } from '../api/errors.js';
import type { Ctx } from './context.js';
import { addGlobalOptions } from './globals.js';
import { withExamples, withListFields } from './help.js';
import { type ListExtras } from './paging.js';
import { placeholder, type Action } from './run.js';
import type { BulkVerb } from '../bulk/run.js';
import { runBulkVerb } from './verb-bulk.js';
import { executeVerb } from './verb-exec.js';
import { addVerbFlags, fieldsOf, type FieldPlace, type Positional, type VerbFlags } from './verb-flags.js';

export interface VerbInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

export interface VerbSpec {
  name: string;
  endpoint: AnyEndpoint;
  summary?: string;
  /** Examples shown in help: whole command lines, starting with `subctl `. */
  examples?: string[];
  aliases?: string[];
  /**
   * Positional arguments, by contract field name (path param, query or body field); `?` suffix =
   * optional. `service_id|service_code?`: a whole number goes to the first field (the id, as
   * `services update 12` takes it), anything else to the second; the flags stay for the rest (a
   * code of digits only: `--service-code 2024`).
   */
  args?: string[];
  /** list: paged output; get: one object; action: a mutation. Default from the endpoint. */
  kind?: 'list' | 'get' | 'action';
  /** Asks for confirmation (or --yes off a terminal) before sending. */
  destructive?: boolean;
  /** What the confirmation names, e.g. `delete service GPT4`. */
  describe?: (input: VerbInput) => string;
  /** Default table/csv columns for lists. */
  columns?: string[];
  /** Values the verb sets itself (e.g. the action of a shortcut verb). */
  fixed?: Partial<VerbInput>;
  /** Contract fields not offered as flags. */
  hide?: string[];
  /** Extra flags the verb handles itself in `prepare`. */
  extraOptions?: Option[];
  /** Fills derived values and checks cross-field rules before validation. */
  prepare?: (input: VerbInput, ctx: Ctx, opts: Record<string, unknown>) => void | Promise<void>;
  /** Custom rendering of the answer's data (default: the shared object printer). */
  render?: (data: Record<string, unknown>, ctx: Ctx, input: VerbInput) => Promise<void> | void;
  /** Takes over the run after validation (e.g. `audit list --follow`); returning undefined falls through. */
  override?: (input: VerbInput, ctx: Ctx, opts: Record<string, unknown>) => Promise<number | undefined>;
  /** Bulk input (`--from-csv`, `--from-ndjson`) on write verbs: on unless false. */
  bulk?: false | Pick<BulkVerb, 'aliases' | 'preview' | 'readState' | 'after' | 'settle' | 'created'>;
  /** Lists: blocks printed besides the rows (summaries). */
  extras?: ListExtras;
  /** Positional ids that also take a name (`users show emma.zak`), which `prepare` resolves to the id. */ names?: string[];
  /** Lists: a row as a table shows it (json, ndjson and csv print rows as sent). */ view?: (
    row: Record<string, unknown>,
  ) => Record<string, unknown>;
}

/** Builds the Commander command for a verb and binds its action. */
export function buildVerb(parent: Command, spec: VerbSpec, bind: (a: Action) => (raw: Record<string, unknown>) => void): Command {
  return configureVerb(parent.command(spec.name), spec, bind);
}

/**
 * Endpoint name -> the command that calls it (`services list-alt`), filled as commands are built:
 * by every verb, and by `reaches` for the commands written by hand (`auth login`). With every
 * group built (`api endpoints`), it covers the contract (a test holds it to every endpoint).
 */
export const commandOfEndpoint = new Map<string, string>();

/**
 * Records that `cmd` calls these endpoints (the first command to claim one keeps it); a name may
 * carry the flag that picks it (`cms.auth.login --cms`).
 */
export function reaches(cmd: Command, ...names: string[]): void {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  for (const entry of names) {
    const [n, ...flags] = entry.split(' ');
    if (!commandOfEndpoint.has(n!)) commandOfEndpoint.set(n!, [...words, ...flags].join(' '));
  }
}

/** Gives an existing command (a group that is its own verb, like `cleanup`) the verb's flags and action. */
export function configureVerb(cmd: Command, spec: VerbSpec, bind: (a: Action) => (raw: Record<string, unknown>) => void): Command {
  const ep = spec.endpoint;
  reaches(cmd, ep.name);
  const kind = spec.kind ?? (ep.method === 'GET' ? (ep.paging ? 'list' : 'get') : 'action');
  cmd.description(spec.summary ?? ep.summary);
  withExamples(cmd, spec.examples);
  if (kind === 'list' && ep.paging) withListFields(cmd, () => itemFieldsOf(ep, ep.paging!.items) ?? spec.columns);
  if (spec.aliases) cmd.aliases(spec.aliases);
  const { positional, byAttr, bulkCapable } = addVerbFlags(cmd, spec, kind);
  addGlobalOptions(cmd);

  const flags = { positional, byAttr, bulkCapable };
  cmd.action((...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const opts = command.optsWithGlobals() as Record<string, unknown>;
    const posValues = args.slice(0, positional.length) as Array<string | undefined>;
    bind(async (ctx) => {
      const placeOf = (field: string): FieldPlace | undefined => fieldsOf(ep).find((f) => f.field === field);
      const { input, typed } = readInput(spec, flags, posValues, opts, placeOf);
      if (bulkCapable && (opts.fromCsv !== undefined || opts.fromNdjson !== undefined)) {
        return runBulkVerb(ctx, spec, input, opts, bulkConvert(placeOf));
      }
      if (bulkCapable) refuseBulkOptions(command, ctx);
      requireArguments(cmd, spec, positional, posValues, input, placeOf);
      try {
        await spec.prepare?.(input, ctx, opts);
        return await executeVerb(ctx, spec, kind, input, opts);
      } catch (e) {
        throw e instanceof ValidationError ? asTyped(e, typed) : e;
      }
    })(opts);
  });
  return cmd;
}

/** Where each field's value came from, as typed: for the messages of values refused. */
type Typed = Map<string, { text: unknown; from: string; info: FieldInfo }>;

/** The endpoint's input from the arguments and flags, converted to the fields' types, with the verb's fixed values. */
function readInput(
  spec: VerbSpec,
  flags: VerbFlags,
  posValues: Array<string | undefined>,
  opts: Record<string, unknown>,
  placeOf: (field: string) => FieldPlace | undefined,
): { input: VerbInput; typed: Typed } {
  const input: VerbInput = { params: {}, query: {}, body: {} };
  const typed: Typed = new Map();
  positionalInput(spec, flags.positional, posValues, placeOf, input, typed);
  flagInput(flags.byAttr, opts, input, typed);
  pagingInput(spec.endpoint, opts, input, typed);
  Object.assign(input.body, spec.fixed?.body);
  Object.assign(input.query, spec.fixed?.query);
  return { input, typed };
}

function positionalInput(
  spec: VerbSpec,
  positional: Positional[],
  posValues: Array<string | undefined>,
  placeOf: (field: string) => FieldPlace | undefined,
  input: VerbInput,
  typed: Typed,
): void {
  const ep = spec.endpoint;
  positional.forEach((p, i) => {
    const value = posValues[i];
    if (value === undefined) return;
    const field = p.alt !== undefined && !/^\d+$/.test(value) ? p.alt : p.field;
    const fp = placeOf(field);
    if (!fp) throw new Error(`verb ${spec.name}: positional ${field} is not a field of ${ep.name}`);
    const named = spec.names?.includes(field) && !/^\s*[-+]?\d/.test(value);
    const bad = named ? undefined : badNumberText(value, fp.info);
    if (bad) throw new ValidationError([{ field, flag: 'argument', message: bad }]);
    input[fp.place][field] = named ? value : convertValue(value, fp.info);
    typed.set(field, { text: value, from: 'argument', info: fp.info });
    // A path id that the body repeats (plans.update's plan_id) is filled from the path.
  });
}

function flagInput(byAttr: Map<string, FieldPlace>, opts: Record<string, unknown>, input: VerbInput, typed: Typed): void {
  for (const [attr, f] of byAttr) {
    const given = opts[attr] === true && f.info.kind !== 'boolean' ? '' : opts[attr];
    const bad = badNumberText(given, f.info);
    if (bad) throw new ValidationError([{ field: f.field, flag: flagName(f.field), message: bad }]);
    const v = convertValue(given, f.info);
    if (v !== undefined) {
      // The argument and a flag naming the same field: which one was meant is not ours to
      // guess (`services delete A --service-code B` names two services).
      const arg = typed.get(f.field);
      if (arg?.from === 'argument' && JSON.stringify(input[f.place][f.field]) !== JSON.stringify(v)) {
        throw new UsageError(
          `the argument says ${f.field} ${String(arg.text)} and ${flagName(f.field)} says ${String(opts[attr])}: give one of them`,
        );
      }
      input[f.place][f.field] = v;
      typed.set(f.field, { text: opts[attr], from: flagName(f.field), info: f.info });
    }
  }
}

function pagingInput(ep: AnyEndpoint, opts: Record<string, unknown>, input: VerbInput, typed: Typed): void {
  if (ep.paging) {
    const page = opts.pageNumber ?? opts.page;
    const whole: FieldInfo = { kind: 'integer', optional: true };
    for (const [text, flag, field] of [
      [page, '--page-number', ep.paging.page],
      [opts.pageSize, '--page-size', ep.paging.size],
    ] as const) {
      const bad = badNumberText(text, whole);
      if (bad) throw new ValidationError([{ field, flag, message: bad }]);
    }
    if (page !== undefined) {
      input.query[ep.paging.page] = convertValue(page, whole);
      typed.set(ep.paging.page, { text: page, from: '--page-number', info: whole });
    }
    if (opts.pageSize !== undefined) {
      input.query[ep.paging.size] = convertValue(opts.pageSize, whole);
      typed.set(ep.paging.size, { text: opts.pageSize, from: '--page-size', info: whole });
    }
  }
}

/** Each bulk row's text, converted as the flags' is: a bad number names its field. */
function bulkConvert(placeOf: (field: string) => FieldPlace | undefined): (field: string, raw: unknown) => unknown {
  return (field, raw) => {
    const fp = placeOf(field);
    if (!fp) return raw;
    const bad = badNumberText(raw, fp.info);
    if (bad) throw new ValidationError([{ field, message: bad }]);
    return convertValue(raw, fp.info);
  };
}

function refuseBulkOptions(command: Command, ctx: Ctx): void {
  // Options of a bulk run, given without its input: refused (--report would name a file
  // never written), before anything is sent. --dry-run checks the one request instead.
  const given = ['report', 'restart', 'skipApplied', 'concurrency'].filter((k) => command.getOptionValueSource(k) === 'cli');
  if (ctx.globals.runId !== undefined) given.push('runId');
  if (given.length)
    throw new UsageError(
      `${given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} ${given.length > 1 ? 'are' : 'is'} for bulk runs: give --from-csv FILE or --from-ndjson FILE`,
    );
}

function requireArguments(
  cmd: Command,
  spec: VerbSpec,
  positional: Positional[],
  posValues: Array<string | undefined>,
  input: VerbInput,
  placeOf: (field: string) => FieldPlace | undefined,
): void {
  for (const p of positional) {
    if (posValues[positional.indexOf(p)] !== undefined) continue;
    // A path id is always needed without bulk input (an optional argument only for the rows'
    // sake), unless its flag gave it: said as the missing argument, not as zod's NaN.
    const pathId =
      placeOf(p.field)?.place === 'params' &&
      input.params[p.field] === undefined &&
      (p.alt === undefined || input.params[p.alt] === undefined);
    if (!p.optional || pathId)
      throw new UsageError(`missing argument <${p.field}>`, { hint: `subctl ${parentName(cmd)} ${spec.name} --help` });
  }
}

/**
 * A refusal of values typed on the command line, said of what was typed: a positional is the
 * `argument` (not a `--id` flag that does not exist), and text that is not a whole number where
 * one is expected says so (`expected a whole number, got 'abc'`; the schema could only say "a
 * number").
 */
function asTyped(e: ValidationError, typed: Map<string, { text: unknown; from: string; info: FieldInfo }>): ValidationError {
  if (!e.problems.some((p) => typed.has(p.field))) return e;
  const problems = e.problems.map((p) => {
    const t = typed.get(p.field);
    if (!t) return p;
    const whole = t.info.kind === 'integer' && typeof t.text === 'string' && /^expected a number, got /.test(p.message);
    return { ...p, flag: t.from, message: whole ? `expected a whole number, got '${t.text}'` : p.message };
  });
  return new ValidationError(problems, undefined, e.hint);
}

function parentName(cmd: Command): string {
  return cmd.parent?.name() ?? '';
}

/**
 * A group's `build`: every verb in full, or, when the command line names one of them, that one
 * in full and the others by name and summary only (their flags cost start-up time and nobody
 * reads them: `subctl services --help` lists verbs, `subctl services list --help` shows one).
 */
export function verbsBuilder(specs: () => VerbSpec[]) {
  return (cmd: Command, bind: (a: Action) => (raw: Record<string, unknown>) => void, verb?: string) => {
    const all = specs();
    const named = verb === undefined ? undefined : all.find((s) => s.name === verb || s.aliases?.includes(verb));
    for (const s of all) {
      if (!named || s === named) buildVerb(cmd, s, bind);
      else {
        const stub = placeholder(cmd.command(s.name)).description(s.summary ?? s.endpoint.summary);
        if (s.aliases) stub.aliases(s.aliases);
      }
    }
  };
}
