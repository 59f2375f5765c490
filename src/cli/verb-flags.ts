/**
 * A verb's flags, from its endpoint's fields: one flag a field (`foo_bar` -> `--foo-bar`), the
 * positional arguments, paging, bulk input and `--dry-run`.
 */
import { Option, type Command } from 'commander';
import type { AnyEndpoint, FieldInfo } from '../api/contract/common.js';
import { flagName } from '../api/contract/common.js';
import { fieldsOfEndpoint } from '../api/contract/parts.js';
import { describeInfo } from './describe-field.js';
import { GLOBAL_FLAGS } from './globals.js';
import type { VerbSpec } from './verbs.js';

export interface FieldPlace {
  field: string;
  place: 'params' | 'query' | 'body';
  info: FieldInfo;
}

const fieldsCache = new WeakMap<AnyEndpoint, FieldPlace[]>();

export function fieldsOf(ep: AnyEndpoint): FieldPlace[] {
  const cached = fieldsCache.get(ep);
  if (cached) return cached;
  const out: FieldPlace[] = fieldsOfEndpoint(ep).map(([field, place, info]) => ({ field, place, info }));
  fieldsCache.set(ep, out);
  return out;
}

export interface Positional {
  field: string;
  alt?: string;
  optional: boolean;
}

export type VerbKind = 'list' | 'get' | 'action';

/** What the action needs of the flags: the positionals, and the field each flag fills. */
export interface VerbFlags {
  positional: Positional[];
  byAttr: Map<string, FieldPlace>;
  bulkCapable: boolean;
}

/** Adds the verb's arguments and flags to `cmd` (global options excepted). */
export function addVerbFlags(cmd: Command, spec: VerbSpec, kind: VerbKind): VerbFlags {
  const ep = spec.endpoint;
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
  addVerbOptions(cmd, spec, kind, bulkCapable);
  return { positional, byAttr, bulkCapable };
}

/** The options beside the fields: paging, the verb's own, bulk input, --dry-run. */
function addVerbOptions(cmd: Command, spec: VerbSpec, kind: VerbKind, bulkCapable: boolean): void {
  const ep = spec.endpoint;
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
}

export /**
 * Whether a verb takes `--dry-run`: every write, unless its endpoint has a `dry_run` field of its
 * own (which the flag then sets) or it is a one-off written by hand (an `override` that sends
 * another request than its endpoint's, as `forgot-password --cms` does, outside bulk runs: the
 * request shown would not be the one sent).
 */
function takesDryRun(spec: VerbSpec, kind: string): boolean {
  if (kind !== 'action' || fieldsOf(spec.endpoint).some((f) => f.field === 'dry_run')) return false;
  return spec.bulk !== false || spec.override === undefined;
}
