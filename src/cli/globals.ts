/**
 * Global options (the command-line specification, "Global options"): declared on the root program and on every leaf
 * command, so they work before or after the verb (`subctl -o json services list` and
 * `subctl services list -o json`).
 */
import { Command, Option } from 'commander';
import { UsageError } from '../api/errors.js';
import type { OutputFormat } from '../output/index.js';
import { utcFromEnv } from '../output/time.js';

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  sandbox?: boolean;
  output: OutputFormat;
  /** true when -o/--output or SUBCTL_OUTPUT chose the format (the `api` command defaults to json otherwise). */
  outputExplicit: boolean;
  fields?: string[];
  all?: boolean;
  limit?: number;
  timeout?: number;
  retries?: number;
  yes?: boolean;
  noInput?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** --strict or SUBCTL_STRICT=1: an answer that departs from the contract is exit 6. */
  strict?: boolean;
  noColor?: boolean;
  tokenFile?: string;
  /** `--run-id`: the name of a bulk run (bulk/platform.ts). */
  runId?: string;
  /** `--jq EXPR`: jq's language over the JSON output (src/output/jq.ts). */
  jq?: string;
  /** `--no-pager`. */
  noPager?: boolean;
  /** `-o wide`: a table with every column, nothing cut (cells wrap on a terminal); `output` is then 'table'. */
  wide?: boolean;
  /** `--utc` or SUBCTL_TZ=UTC: terminal times in UTC rather than the local zone. */
  utc?: boolean;
}

/** The help heading the global options are listed under (cli/help.ts). */
export const GLOBAL_HEADING = 'Global options:';

/** Names of global options, for conflict checks against contract fields. */
export const GLOBAL_FLAGS = [
  'profile',
  'base-url',
  'sandbox',
  'output',
  'fields',
  'all',
  'limit',
  'timeout',
  'retries',
  'yes',
  'input',
  'quiet',
  'verbose',
  'strict',
  'color',
  'token-file',
  'run-id',
  'utc',
  'help',
  'version',
  'jq',
  'pager',
];

export function addGlobalOptions(cmd: Command): Command {
  const options = [
    new Option('--profile <name>', 'saved profile to use (env SUBCTL_PROFILE)'),
    new Option('--base-url <url>', 'API base address, an http(s) URL (env SUBCTL_BASE_URL)'),
    new Option('--sandbox', 'use the embedded local sandbox platform'),
    new Option('-o, --output <format>', 'one of table|wide|json|ndjson|csv (env SUBCTL_OUTPUT; default table)'),
    new Option('--fields <list>', 'fields to print, comma-separated, in order'),
    new Option('--jq <expr>', "filter JSON output with jq's language (e.g. '.[].service_code')"),
    new Option('--all', 'lists: stream every page'),
    new Option('--limit <n>', 'lists: stop after N rows (integer, at least 1)'),
    new Option('--timeout <ms>', 'per-attempt time-out in milliseconds (integer, at least 1; default 10000)'),
    new Option('--retries <n>', 'retries of a failed query, or of a write answered 429 (integer, 0 to 10; default 3)'),
    new Option('-y, --yes', 'skip confirmations'),
    new Option('--no-input', 'never prompt'),
    new Option('-q, --quiet', 'no progress or notes'),
    new Option('--verbose', 'log each request on stderr (secrets masked)'),
    new Option('--strict', 'exit 6 when an answer departs from the API contract (env SUBCTL_STRICT=1)'),
    new Option('--no-color', 'no colour (also NO_COLOR)'),
    new Option('--no-pager', 'long output on a terminal is not sent through a pager (env SUBCTL_PAGER, PAGER)'),
    new Option('--token-file <file>', 'read the bearer token from FILE'),
    new Option('--utc', 'times on a terminal in UTC, not the local zone (env SUBCTL_TZ=UTC)'),
    new Option('--run-id <name>', 'bulk: name the run (the same name resumes it; a new name applies the file again)'),
  ];
  // Listed once, under their own heading after the command's own flags (cli/help.ts).
  for (const o of options) cmd.addOption(o.helpGroup(GLOBAL_HEADING));
  return cmd.addHelpOption(new Option('-h, --help', 'show help for the command').helpGroup(GLOBAL_HEADING));
}

function positiveInt(name: string, v: unknown, min = 0): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < min)
    throw new UsageError(`${name} expects a whole number${min ? ` of at least ${min}` : ''}, got '${s}'`);
  return Number(s);
}

/** --retries: 0-10, as `config set retries` allows. */
function retriesOf(v: unknown): number | undefined {
  const n = positiveInt('--retries', v, 0);
  if (n !== undefined && n > 10) throw new UsageError(`--retries expects a whole number from 0 to 10, got '${String(v)}'`);
  return n;
}

/** SUBCTL_STRICT: 1/true/yes turn it on; 0/false/no or empty leave it off; anything else is refused. */
function strictFromEnv(v: string | undefined): boolean {
  if (v === undefined) return false;
  const t = v.trim().toLowerCase();
  if (t === '1' || t === 'true' || t === 'yes') return true;
  if (t === '' || t === '0' || t === 'false' || t === 'no') return false;
  throw new UsageError(`SUBCTL_STRICT must be 1 or 0, got '${v}'`);
}

/** --run-id: a name that can be typed again (letters, digits, `.`, `_`, `:`, `-`; at most 100). */
function runIdOf(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(s))
    throw new UsageError(`--run-id expects 1-100 letters, digits, '.', '_', ':' or '-' (starting with a letter or digit), got '${s}'`);
  return s;
}

/** Reads the merged raw Commander options into typed globals, checking each (exit 2 on a bad one). */
export function readGlobals(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  const outRaw = (raw.output as string | undefined) ?? env.SUBCTL_OUTPUT;
  const chosen = outRaw ?? 'table';
  if (!['table', 'wide', 'json', 'ndjson', 'csv'].includes(chosen)) {
    // Named as it was given: SUBCTL_OUTPUT is not a flag the user typed.
    throw new UsageError(
      `${raw.output === undefined ? 'SUBCTL_OUTPUT' : '--output'} must be one of table, wide, json, ndjson, csv; got '${outRaw}'`,
    );
  }
  // `wide` is a table with every column whole: the commands that print a table print it.
  const wide = chosen === 'wide';
  const output = (wide ? 'table' : chosen) as OutputFormat;
  const tz = utcFromEnv(env.SUBCTL_TZ);
  if (tz === undefined)
    throw new UsageError(`SUBCTL_TZ must be UTC or local, got '${String(env.SUBCTL_TZ)}'`, {
      hint: 'unset SUBCTL_TZ for the local zone (TZ decides it), or set SUBCTL_TZ=UTC',
    });
  const fields =
    raw.fields === undefined
      ? undefined
      : String(raw.fields)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  if (fields && fields.length === 0) throw new UsageError('--fields needs at least one field name');
  const jq = raw.jq === undefined ? undefined : String(raw.jq);
  if (jq !== undefined && (raw.output === 'table' || raw.output === 'csv')) {
    throw new UsageError(
      `--jq filters JSON output: leave out -o ${String(raw.output)}, or use -o json (one document) or -o ndjson (one a line)`,
    );
  }
  return {
    profile: (raw.profile as string | undefined) ?? (env.SUBCTL_PROFILE || undefined),
    baseUrl: (raw.baseUrl as string | undefined) ?? (env.SUBCTL_BASE_URL || undefined),
    sandbox: raw.sandbox === true,
    // --jq reads JSON: -o ndjson runs it on each line, anything else is one JSON document.
    output: jq === undefined ? output : output === 'ndjson' ? 'ndjson' : 'json',
    outputExplicit: outRaw !== undefined || jq !== undefined,
    fields,
    all: raw.all === true,
    limit: positiveInt('--limit', raw.limit, 1),
    timeout: positiveInt('--timeout', raw.timeout, 1),
    retries: retriesOf(raw.retries),
    yes: raw.yes === true,
    noInput: raw.input === false,
    quiet: raw.quiet === true,
    verbose: raw.verbose === true,
    strict: raw.strict === true || strictFromEnv(env.SUBCTL_STRICT),
    noColor: raw.color === false,
    tokenFile: raw.tokenFile as string | undefined,
    runId: runIdOf(raw.runId),
    jq,
    noPager: raw.pager === false,
    wide,
    utc: raw.utc === true || tz,
  };
}
