/**
 * Global options (CLI.md "Global options"): declared on the root program and on every leaf
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
  noColor?: boolean;
  tokenFile?: string;
  /** `-o wide`: a table with every column, nothing cut (cells wrap on a terminal); `output` is then 'table'. */
  wide?: boolean;
  /** `--utc` or SUBCTL_TZ=UTC: terminal times in UTC rather than the local zone. */
  utc?: boolean;
}

/** Names of global options, for conflict checks against contract fields. */
export const GLOBAL_FLAGS = ['profile', 'base-url', 'sandbox', 'output', 'fields', 'all', 'limit', 'timeout', 'retries', 'yes', 'input', 'quiet', 'verbose', 'color', 'token-file', 'utc', 'help', 'version'];

export function addGlobalOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--profile <name>', 'saved profile to use (env SUBCTL_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'API base address (env SUBCTL_BASE_URL)'))
    .addOption(new Option('--sandbox', 'use the embedded local sandbox platform'))
    .addOption(new Option('-o, --output <format>', 'table|wide|json|ndjson|csv (env SUBCTL_OUTPUT)'))
    .addOption(new Option('--fields <list>', 'fields to print, comma-separated, in order'))
    .addOption(new Option('--all', 'lists: stream every page'))
    .addOption(new Option('--limit <n>', 'lists: stop after N rows'))
    .addOption(new Option('--timeout <ms>', 'per-attempt time-out in ms (default 10000)'))
    .addOption(new Option('--retries <n>', 'retries of a failed query (default 3)'))
    .addOption(new Option('-y, --yes', 'skip confirmations'))
    .addOption(new Option('--no-input', 'never prompt'))
    .addOption(new Option('-q, --quiet', 'no progress or notes'))
    .addOption(new Option('--verbose', 'log each request on stderr (secrets masked)'))
    .addOption(new Option('--no-color', 'no colour (also NO_COLOR)'))
    .addOption(new Option('--token-file <file>', 'read the bearer token from FILE'))
    .addOption(new Option('--utc', 'times on a terminal in UTC, not the local zone (env SUBCTL_TZ=UTC)'));
}

function positiveInt(name: string, v: unknown, min = 0): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < min) throw new UsageError(`${name} expects a whole number${min ? ` of at least ${min}` : ''}, got '${s}'`);
  return Number(s);
}

/** --retries: 0-10, as `config set retries` allows (11 was taken here and refused there). */
function retriesOf(v: unknown): number | undefined {
  const n = positiveInt('--retries', v, 0);
  if (n !== undefined && n > 10) throw new UsageError(`--retries expects a whole number from 0 to 10, got '${String(v)}'`);
  return n;
}

/** Reads the merged raw Commander options into typed globals, checking each (exit 2 on a bad one). */
export function readGlobals(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  const outRaw = (raw.output as string | undefined) ?? env.SUBCTL_OUTPUT;
  const chosen = outRaw ?? 'table';
  if (!['table', 'wide', 'json', 'ndjson', 'csv'].includes(chosen)) {
    // Named as it was given: SUBCTL_OUTPUT is not a flag the user typed.
    throw new UsageError(`${raw.output === undefined ? 'SUBCTL_OUTPUT' : '--output'} must be one of table, wide, json, ndjson, csv; got '${outRaw}'`);
  }
  // `wide` is a table with every column whole: the commands that print a table print it.
  const wide = chosen === 'wide';
  const output = (wide ? 'table' : chosen) as OutputFormat;
  const tz = utcFromEnv(env.SUBCTL_TZ);
  if (tz === undefined) throw new UsageError(`SUBCTL_TZ must be UTC or local, got '${String(env.SUBCTL_TZ)}'`, { hint: 'unset SUBCTL_TZ for the local zone (TZ decides it), or set SUBCTL_TZ=UTC' });
  const fields = raw.fields === undefined ? undefined : String(raw.fields).split(',').map((s) => s.trim()).filter(Boolean);
  if (fields && fields.length === 0) throw new UsageError('--fields needs at least one field name');
  return {
    profile: (raw.profile as string | undefined) ?? (env.SUBCTL_PROFILE || undefined),
    baseUrl: (raw.baseUrl as string | undefined) ?? (env.SUBCTL_BASE_URL || undefined),
    sandbox: raw.sandbox === true,
    output,
    outputExplicit: outRaw !== undefined,
    fields,
    all: raw.all === true,
    limit: positiveInt('--limit', raw.limit, 1),
    timeout: positiveInt('--timeout', raw.timeout, 1),
    retries: retriesOf(raw.retries),
    yes: raw.yes === true,
    noInput: raw.input === false,
    quiet: raw.quiet === true,
    verbose: raw.verbose === true,
    noColor: raw.color === false,
    tokenFile: raw.tokenFile as string | undefined,
    wide,
    utc: raw.utc === true || tz,
  };
}
