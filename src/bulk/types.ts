/**
 * The shapes the bulk engine's stages share (plan.ts, claim.ts, settle.ts, send.ts, report.ts),
 * and what a verb tells the engine about itself.
 */
import type { ApiClient, validateInput } from '../api/client.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import type { Paths } from '../config/paths.js';
import type { IO } from '../io.js';
import type { OutputFormat } from '../output/index.js';

/**
 * What a bulk run uses of the run's context: the command line's context (src/cli/context.ts)
 * fits it as it is, and the engine knows nothing else of the command line.
 */
export interface BulkCtx {
  io: IO;
  /** The global options the engine reads: the format of what it prints, and --quiet. */
  globals: { output: OutputFormat; fields?: string[]; noColor?: boolean; quiet?: boolean };
  signal: AbortSignal;
  api(): Promise<ApiClient>;
  /** Where the journal lives (`stateDir`). */
  paths(): Paths;
  /** The profile and the platform a run's journal is named for (the target once api() has run). */
  profileName(): string;
  target(): { baseUrl: string; sandbox: boolean } | undefined;
  /** A note on stderr (suppressed by --quiet). */
  note(text: string): void;
  /** A warning on stderr (shown even with --quiet). */
  warn(text: string): void;
  /** Asks before a run on a terminal; refuses off one unless --yes. */
  confirm(what: string): Promise<void>;
}

export interface BulkInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** What a check of an unanswered row found: applied, not applied, or undecidable. */
type VerifyResult = 'applied' | 'absent' | 'unknown';

/** A settled row, with the id the platform gave what it created, where it says. */
export interface Settled {
  result: VerifyResult;
  createdId?: unknown;
}

/**
 * What a row will change, as the platform shows it before the row is sent: read for many rows
 * at once, in pages ahead of the rows (`wait` resolves as soon as the row's target was seen,
 * with undefined when it was not found).
 */
export interface StateReader {
  wait(row: PlannedRow): Promise<unknown>;
  /** Stops reading (the run ends early). */
  stop(): void;
  /** Why reading stopped before it saw every target, once it has (the network, the platform). */
  failure(): unknown;
}

/** What a verb tells the engine (a subset of VerbSpec, kept apart so the engine stays generic). */
export interface BulkVerb {
  /** `subscriptions manage`, for the journal name and messages. */
  command: string;
  endpoint: AnyEndpoint;
  destructive?: boolean;
  /** Column aliases -> contract field (`subscription_id` -> `id` for a path id). */
  aliases?: Record<string, string>;
  /** Converts a raw value to the field's type (the CLI's flag conversion). */
  convert: (field: string, raw: unknown) => unknown;
  /** Cross-field checks and derived values, per row (may throw UsageError). */
  prepare?: (input: BulkInput) => void | Promise<void>;
  /** For `--dry-run`: each row's current state and the change, when the verb can tell. */
  preview?: (api: ApiClient, rows: PlannedRow[], signal: AbortSignal) => Promise<Map<number, string>>;
  /** Reads, ahead of sending, what each row will change (recorded with the row's `sent`). */
  readState?: (api: ApiClient, rows: PlannedRow[], signal: AbortSignal) => StateReader;
  /**
   * What a create's answer made, printed to stdout after the run (`usage-codes generate`: the
   * codes), and how to read it back from the platform for a row whose answer was lost or whose
   * attempt ended before printing it.
   */
  created?: {
    columns: string[];
    rows: (data: unknown) => Array<Record<string, unknown>>;
    readBack: (api: ApiClient, body: Record<string, unknown>, signal: AbortSignal) => Promise<Array<Record<string, unknown>>>;
  };
  /** The state a row leaves when applied to `before` (for the next row of the same target in the run). */
  after?: (before: unknown, row: PlannedRow) => unknown;
  /**
   * Was each row applied? Called for rows whose answer never came, with the state recorded
   * before each was sent (undefined where none was). Never by time or by logs: by the target's
   * state now against that record, or by looking a created code up.
   */
  settle?: (api: ApiClient, rows: Array<{ row: PlannedRow; before: unknown }>, signal: AbortSignal) => Promise<Map<number, Settled>>;
}

export interface PlannedRow {
  line: number;
  /** What the report calls the row (`id=101`, `service_code=GPT4`). */
  key: string;
  /** The row within its run: endpoint, target, action and occurrence (plan.ts). */
  identity: string;
  /** The target and action without the occurrence: rows sharing it never fly together. */
  target: string;
  input: BulkInput;
  /** The input as checked by the contract, sent as is. */
  validated: ReturnType<typeof validateInput>;
}

export interface BulkOptions {
  concurrency: number;
  reportFile?: string;
  /** Send every row, whatever this run's journal or earlier runs say. */
  restart: boolean;
  /** Rows an earlier run of another input applied are skipped (else the run is refused, exit 2). */
  skipApplied?: boolean;
  dryRun: boolean;
  /** Per-attempt time-out, also how long an unanswered row may still be in flight on the server. */
  timeoutMs: number;
  /** `--run-id`: the run's name; without it, the command, the platform and the rows name it. */
  runId?: string;
}

/**
 * Answers that say the row was not applied and may be sent again as it is (401: the credential,
 * not the row, was refused; 431: the headers, which carry the credential, not the row's body or
 * address, were too large for the server or a gateway). A 503 is not among them: gateways
 * answer it after the platform applied the write, when the upstream connection is reset.
 */
export const RETRY_ON_RESUME = new Set([401, 408, 429, 431]);
