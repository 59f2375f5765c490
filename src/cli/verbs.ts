/**
 * Commands from the contract. A verb names its endpoint; its flags come from the endpoint's
 * schemas (`foo_bar` -> `--foo-bar`), its input is checked by the client against the same
 * schemas before anything is sent, and its output goes through the shared printers.
 *
 * Example: `defineVerb({ name: 'update', endpoint: servicesUpdate, args: ['id'] })` gives
 * `subctl services update <id> [--service-name ...] ...`.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { AnyEndpoint, FieldInfo } from '../api/contract/common.js';
import { flagName, itemFieldsOf } from '../api/contract/common.js';
import { badNumberText, convertValue } from '../api/contract/convert.js';
import { fieldsOfEndpoint, hasPart } from '../api/contract/parts.js';
import { RefusedError, UsageError, ValidationError } from '../api/errors.js';
import { printObject } from '../output/index.js';
import type { Ctx } from './context.js';
import { addGlobalOptions, GLOBAL_FLAGS } from './globals.js';
import { describeInfo } from './describe-field.js';
import { withExamples, withListFields } from './help.js';
import { runList, type ListExtras } from './paging.js';
import { placeholder, type Action } from './run.js';
import type { BulkVerb } from '../bulk/run.js';

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

interface FieldPlace {
  field: string;
  place: 'params' | 'query' | 'body';
  info: FieldInfo;
}

const fieldsCache = new WeakMap<AnyEndpoint, FieldPlace[]>();

function fieldsOf(ep: AnyEndpoint): FieldPlace[] {
  const cached = fieldsCache.get(ep);
  if (cached) return cached;
  const out: FieldPlace[] = fieldsOfEndpoint(ep).map(([field, place, info]) => ({ field, place, info }));
  fieldsCache.set(ep, out);
  return out;
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
  const positional = (spec.args ?? []).map((a) => {
    const [field, alt] = a.replace(/\?$/, '').split('|') as [string, string | undefined];
    return { field, alt, optional: a.endsWith('?') };
  });
  const bulkCapable = kind === 'action' && spec.bulk !== false;
  // With bulk input the ids come from the rows, so even a required id is optional to Commander.
  for (const p of positional) {
    const name = p.alt ? `${p.field}|${p.alt}` : p.field;
    cmd.argument(p.optional || bulkCapable ? `[${name}]` : `<${name}>`);
  }

  const hidden = new Set([...(spec.hide ?? []), ...Object.keys(spec.fixed?.body ?? {}), ...Object.keys(spec.fixed?.query ?? {})]);
  const pagingFields = new Set(ep.paging ? [ep.paging.page, ep.paging.size] : []);
  const fields = fieldsOf(ep).filter((f) => !hidden.has(f.field) && !pagingFields.has(f.field));
  const byAttr = new Map<string, FieldPlace>();
  const seen = new Set<string>();
  for (const f of fields) {
    const flag = flagName(f.field);
    const bare = flag.slice(2);
    if (seen.has(bare)) continue; // a field named in two places (path and body) is one flag
    seen.add(bare);
    if (GLOBAL_FLAGS.includes(bare)) throw new Error(`contract field ${f.field} of ${ep.name} clashes with a global option`);
    const desc = describeInfo(f.info);
    // A required positional is only positional; an optional one also keeps its flag
    // (`services get GPT4` and `services get --service-code GPT4` both work).
    if (positional.some((p) => p.field === f.field && !p.optional)) continue;
    let opt: Option;
    if (f.info.kind === 'boolean') {
      opt = new Option(`${flag} [bool]`, `${desc}; alone means true, --no-${bare} means false`);
      cmd.addOption(opt);
      cmd.addOption(new Option(`--no-${bare}`).hideHelp());
    } else {
      opt = new Option(`${flag} <value>`, desc);
      cmd.addOption(opt);
    }
    byAttr.set(opt.attributeName(), f);
  }
  if (ep.paging) {
    cmd.addOption(new Option('--page-number <n>', `integer, at least 1, default 1: the page to show (sent as ${ep.paging.page})`));
    cmd.addOption(new Option('--page <n>', 'same as --page-number').hideHelp());
    cmd.addOption(
      new Option(
        '--page-size <n>',
        `integer, 1 to ${ep.paging.maxSize}, default ${ep.paging.defaultSize}: rows per page (sent as ${ep.paging.size})`,
      ),
    );
  }
  for (const o of spec.extraOptions ?? []) cmd.addOption(o);
  if (bulkCapable) {
    cmd.addOption(
      new Option('--from-csv <file>', 'bulk: one request per CSV row (columns = field or flag names; flags are defaults); - for stdin'),
    );
    cmd.addOption(new Option('--from-ndjson <file>', 'bulk: one request per JSON line; - for stdin'));
    cmd.addOption(new Option('--concurrency <n>', 'bulk: requests in flight (integer, 1 to 32)').default('4'));
    cmd.addOption(new Option('--report <file>', 'bulk: write a CSV report of every row (line, key, outcome, status, message, created id)'));
    cmd.addOption(new Option('--restart', "bulk: send every row, whatever this run or earlier runs applied (discards this run's journal)"));
    cmd.addOption(
      new Option(
        '--skip-applied',
        'bulk: skip the rows an earlier run of another input already sent (the file with its failed rows fixed)',
      ),
    );
  }
  if (takesDryRun(spec, kind))
    cmd.addOption(
      new Option(
        '--dry-run',
        `check the input and print what would be sent${bulkCapable ? ' (every row of a bulk input)' : ''}; send nothing`,
      ),
    );
  addGlobalOptions(cmd);

  cmd.action((...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const opts = command.optsWithGlobals() as Record<string, unknown>;
    const posValues = args.slice(0, positional.length) as Array<string | undefined>;
    bind(async (ctx) => {
      const input: VerbInput = { params: {}, query: {}, body: {} };
      const placeOf = (field: string): FieldPlace | undefined => fieldsOf(ep).find((f) => f.field === field);
      /** Where each field's value came from, as typed: for the messages of values refused. */
      const typed = new Map<string, { text: unknown; from: string; info: FieldInfo }>();
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
      for (const [attr, f] of byAttr) {
        const given = opts[attr] === true && f.info.kind !== 'boolean' ? '' : opts[attr];
        const bad = badNumberText(given, f.info);
        if (bad) throw new ValidationError([{ field: f.field, flag: flagName(f.field), message: bad }]);
        const v = convertValue(given, f.info);
        if (v !== undefined) {
          // The argument and a flag naming the same field: which one was meant is not ours to
          // guess (the flag used to win: `services delete A --service-code B` deleted B).
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
      Object.assign(input.body, spec.fixed?.body);
      Object.assign(input.query, spec.fixed?.query);
      if (bulkCapable && (opts.fromCsv !== undefined || opts.fromNdjson !== undefined)) {
        return runBulkVerb(ctx, spec, input, opts, placeOf);
      }
      if (bulkCapable) {
        // Options of a bulk run, given without its input: refused (--report would name a file
        // never written), before anything is sent. --dry-run checks the one request instead.
        const given = ['report', 'restart', 'skipApplied', 'concurrency'].filter((k) => command.getOptionValueSource(k) === 'cli');
        if (ctx.globals.runId !== undefined) given.push('runId');
        if (given.length)
          throw new UsageError(
            `${given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} ${given.length > 1 ? 'are' : 'is'} for bulk runs: give --from-csv FILE or --from-ndjson FILE`,
          );
      }
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

async function runBulkVerb(
  ctx: Ctx,
  spec: VerbSpec,
  defaults: VerbInput,
  opts: Record<string, unknown>,
  placeOf: (field: string) => FieldPlace | undefined,
): Promise<number> {
  if (opts.fromCsv !== undefined && opts.fromNdjson !== undefined) throw new UsageError('give --from-csv or --from-ndjson, not both');
  const concurrency = Number(opts.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    throw new UsageError(`--concurrency expects 1-32, got '${String(opts.concurrency)}'`);
  const inputFile = String(opts.fromCsv ?? opts.fromNdjson);
  if (opts.report !== undefined && opts.report !== '-' && inputFile !== '-' && sameFile(String(opts.report), inputFile)) {
    // The report is written as rows finish: it would overwrite the rows being read.
    throw new UsageError(`--report ${String(opts.report)} is the input file: name another file for the report`);
  }
  const { readCsvRows, readNdjsonRows } = await import('../bulk/input.js');
  const { runBulk } = await import('../bulk/run.js');
  const rows =
    opts.fromCsv !== undefined
      ? await readCsvRows(String(opts.fromCsv), ctx.io.stdin)
      : await readNdjsonRows(String(opts.fromNdjson), ctx.io.stdin);
  const cmdName = `${spec.endpoint.name.split('.')[0]} ${spec.name}`;
  const extra = spec.bulk === false ? {} : (spec.bulk ?? {});
  return runBulk(
    ctx,
    {
      command: cmdName,
      endpoint: spec.endpoint,
      // A bulk run is many writes at once: it always asks on a terminal and needs --yes off one.
      destructive: true,
      aliases: extra.aliases,
      preview: extra.preview,
      readState: extra.readState,
      after: extra.after,
      settle: extra.settle,
      created: extra.created,
      convert: (field, raw) => {
        const fp = placeOf(field);
        if (!fp) return raw;
        const bad = badNumberText(raw, fp.info);
        if (bad) throw new ValidationError([{ field, message: bad }]);
        return convertValue(raw, fp.info);
      },
      prepare: spec.prepare ? (input) => spec.prepare!(input, ctx, opts) : undefined,
    },
    rows,
    defaults,
    {
      concurrency,
      reportFile: opts.report as string | undefined,
      restart: opts.restart === true,
      skipApplied: opts.skipApplied === true,
      dryRun: opts.dryRun === true,
      timeoutMs: ctx.globals.timeout ?? ctx.profile()?.timeout ?? 10_000,
      runId: ctx.globals.runId,
    },
  );
}

/** Do `a` and `b` name the same file (through links, `./`, another spelling of the path)? */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    if (realpathSync(a) === realpathSync(b)) return true;
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

async function executeVerb(
  ctx: Ctx,
  spec: VerbSpec,
  kind: 'list' | 'get' | 'action',
  input: VerbInput,
  opts: Record<string, unknown>,
): Promise<number> {
  const ep = spec.endpoint;
  const call = {
    params: hasPart(ep, 'params') ? input.params : undefined,
    query: hasPart(ep, 'query') ? input.query : undefined,
    body: hasPart(ep, 'body') ? input.body : undefined,
  };
  // Validate before anything else (even before a confirmation prompt or the sandbox start).
  const { validateInput } = await import('../api/client.js');
  try {
    validateInput(ep, call);
  } catch (e) {
    // On a terminal, a create/update run without its required flags opens a form (CLI.md).
    if (kind !== 'action' || !ctx.interactive() || !onlyMissingBody(e, ep, input.body)) throw e;
    const { openVerbForm } = await (await import('../ui/load.js')).loadUi();
    const { screenIO } = await import('../output/stdout.js');
    const body = await openVerbForm(screenIO(ctx.io), ep, input.body, {
      hide: [...(spec.hide ?? []), ...Object.keys(spec.fixed?.body ?? {})],
    });
    if (!body) throw new RefusedError('cancelled: nothing was sent');
    input.body = call.body = body;
    validateInput(ep, call);
  }
  // --dry-run without bulk input: the one request, checked and shown, not sent (where the
  // endpoint has no dry_run field of its own, which the flag then sets).
  if (opts.dryRun === true && takesDryRun(spec, kind)) {
    return dryRunOne(ctx, spec, input);
  }
  if (spec.override) {
    const code = await spec.override(input, ctx, opts);
    if (code !== undefined) return code;
  }
  if (kind === 'list') {
    return runList(ctx, ep, call, { columns: spec.columns, extras: spec.extras, view: spec.view });
  }
  const api = await ctx.api();
  if (spec.destructive) {
    await ctx.confirm(spec.describe ? spec.describe(input) : `${ep.method} ${ep.path}`);
  }
  const res = await api.callFull(ep, call as never, { signal: ctx.signal });
  // A renderer is written for the answer's shape; an answer without data (the contract lets a
  // server omit it) has nothing to render and prints like any other: its message.
  if (spec.render && res.data !== null && res.data !== undefined) {
    await spec.render(res.data as Record<string, unknown>, ctx, input);
    return 0;
  }
  const data = res.data === null || res.data === undefined ? { message: res.message ?? 'done' } : res.data;
  if (kind === 'action' && res.message && ctx.globals.output === 'table' && ctx.io.stdoutIsTTY) ctx.note(res.message);
  // A list the server answers whole (not paged): --limit takes its first rows here.
  await printObject(data, {
    format: ctx.globals.output,
    fields: ctx.globals.fields,
    io: ctx.io,
    noColor: ctx.globals.noColor,
    limit: ctx.globals.limit,
    wide: ctx.globals.wide,
  });
  return 0;
}

/**
 * Whether a verb takes `--dry-run`: every write, unless its endpoint has a `dry_run` field of its
 * own (which the flag then sets) or it is a one-off written by hand (an `override` that sends
 * another request than its endpoint's, as `forgot-password --cms` does, outside bulk runs: the
 * request shown would not be the one sent).
 */
function takesDryRun(spec: VerbSpec, kind: string): boolean {
  if (kind !== 'action' || fieldsOf(spec.endpoint).some((f) => f.field === 'dry_run')) return false;
  return spec.bulk !== false || spec.override === undefined;
}

/** `--dry-run` of one write: the request it would send (secrets masked) and, where the verb can tell, the change. */
async function dryRunOne(ctx: Ctx, spec: VerbSpec, input: VerbInput): Promise<number> {
  const ep = spec.endpoint;
  const [{ fillPath }, { redactBody }] = await Promise.all([import('../api/client.js'), import('../api/redact.js')]);
  const plan: Record<string, unknown> = { request: `${ep.method} ${fillPath(ep.path, input.params)}` };
  if (hasPart(ep, 'query') && Object.keys(input.query).length) plan.query = redactBody(input.query);
  if (hasPart(ep, 'body')) plan.body = redactBody(input.body);
  const preview = spec.bulk === false ? undefined : spec.bulk?.preview;
  if (preview) {
    const changes = await preview(
      await ctx.api(),
      [{ line: 1, key: '', identity: '', target: '', input, validated: input as never }],
      ctx.signal,
    );
    plan.change = changes.get(1) ?? 'current state not found';
  }
  await printObject(plan, { format: ctx.globals.output, fields: ctx.globals.fields, io: ctx.io, noColor: ctx.globals.noColor });
  ctx.note('dry run: checked, nothing sent');
  return 0;
}

/** Every problem is a body field the command line did not give: a form can ask for them. */
export function onlyMissingBody(e: unknown, ep: AnyEndpoint, body: Record<string, unknown>): boolean {
  const shape = ep.body?.shape ?? {};
  return e instanceof ValidationError && e.problems.length > 0 && e.problems.every((p) => p.field in shape && body[p.field] === undefined);
}

/** A command group made of verbs. */
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
