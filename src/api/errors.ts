/**
 * The error taxonomy. Every failure a user can meet is one of these; each knows its exit code
 * (the command-line specification, "Exit codes"), a stable `type` for `-o json` and a hint naming the next command.
 * `src/cli/run.ts` is the only place that turns them into exit codes.
 */

export const ExitCode = {
  ok: 0,
  bug: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  rejected: 5,
  server: 6,
  network: 7,
  partial: 8,
  /** `catalog diff`: the platform differs from the file. */
  differs: 9,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface FieldProblem {
  /** Contract field name, e.g. `service_code`; '' for the whole input. */
  field: string;
  message: string;
  /** How the value was given, when not by the field's flag: `argument` (a positional). */
  flag?: string;
}

export class CliError extends Error {
  readonly exitCode: number;
  readonly type: string;
  hint?: string;
  /** A line printed after the hint (`note: ...`): what was done before the failure. */
  done?: string;
  status?: number;
  code?: string;
  details?: unknown;

  constructor(
    type: string,
    exitCode: number,
    message: string,
    extra: { hint?: string; status?: number; code?: string; details?: unknown; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = new.target.name;
    this.type = type;
    this.exitCode = exitCode;
    this.hint = extra.hint;
    this.status = extra.status;
    this.code = extra.code;
    this.details = extra.details;
  }

  toJSON(): { error: { type: string; message: string; status: number | null; code: string | null; details: unknown } } {
    return {
      error: {
        type: this.type,
        message: this.message,
        status: this.status ?? null,
        code: this.code ?? null,
        details: this.details ?? null,
      },
    };
  }
}

/** Bad flags or bad input: nothing was sent. Exit 2. */
export class UsageError extends CliError {
  constructor(message: string, extra: { hint?: string; details?: unknown; code?: string } = {}) {
    super('usage', ExitCode.usage, message, extra);
  }
}

/** Input that breaks a rule of the contract, found before sending. Exit 2. */
export class ValidationError extends CliError {
  readonly problems: FieldProblem[];
  constructor(problems: FieldProblem[], describeField: (field: string) => string = (f) => f, hint?: string) {
    const lines = problems.map((p) => (p.field ? `${describeField(p.field)}: ${p.message}` : p.message));
    super('validation', ExitCode.usage, lines.length === 1 ? `invalid input: ${lines[0]}` : `invalid input:\n  ${lines.join('\n  ')}`, {
      hint,
      details: problems,
    });
    this.problems = problems;
  }
}

/** An HTTP answer that is an error, after retries where retries apply. */
export class HttpError extends CliError {
  constructor(status: number, message: string, extra: { hint?: string; code?: string; details?: unknown } = {}) {
    const [type, exit] = classifyStatus(status);
    super(type, exit, message, { ...extra, status });
  }
}

/**
 * An answer with a success status (HTTP 2xx) whose envelope says `status: false`: the server
 * refused the request in its words. Exit 5 like a 400, with the status as received.
 */
export class StatusFalseError extends HttpError {
  constructor(status: number, message: string, extra: { hint?: string; code?: string; details?: unknown } = {}, said = 'status false') {
    super(400, `${message} (HTTP ${status}, ${said})`, extra);
    this.status = status;
  }
}

function classifyStatus(status: number): [string, number] {
  if (status === 401) return ['unauthenticated', ExitCode.auth];
  if (status === 403) return ['forbidden', ExitCode.auth];
  if (status === 404) return ['not_found', ExitCode.notFound];
  if (status >= 500) return ['server', ExitCode.server];
  if (status === 408 || status === 429) return ['server', ExitCode.server];
  if (status >= 400) return ['rejected', ExitCode.rejected];
  return ['server', ExitCode.server];
}

/**
 * An answer that does not tell whether a write was applied: any 5xx, a 2xx whose body could not
 * be read, or a redirect (a web server answers a write it applied with 303 See Other; a gateway
 * answers 301 or 308 without passing it on).
 */
export const isAmbiguousStatus = (status: number) => status >= 500 || (status >= 200 && status < 400);

/**
 * Whether a write that failed may still have been applied: its answer was lost (the network, a
 * time-out) or does not say (isAmbiguousStatus). Only the target's state can settle it.
 */
export function mayHaveApplied(e: unknown): boolean {
  if (!(e instanceof CliError)) return false;
  return e.status === undefined ? e instanceof NetworkError : isAmbiguousStatus(e.status);
}

/** Connection refused/reset, DNS, TLS, time-out: after the retries. Exit 7. */
export class NetworkError extends CliError {
  constructor(message: string, extra: { hint?: string; code?: string; cause?: unknown } = {}) {
    super('network', ExitCode.network, message, extra);
  }
}

/** The server answered something that is not the contract's envelope or shape. Exit 6. */
export class BadResponseError extends CliError {
  constructor(message: string, extra: { status?: number; details?: unknown } = {}) {
    super('bad_response', ExitCode.server, message, {
      ...extra,
      hint: 'the server answered outside the API contract; run again with --verbose to see the exchange',
    });
  }
}

/** Ctrl-C or SIGTERM. Exit 130. */
export class InterruptedError extends CliError {
  constructor(message = 'interrupted') {
    super('interrupted', ExitCode.interrupted, message);
  }
}

/** A bulk run in which some rows failed. Exit 8. */
export class PartialFailureError extends CliError {
  constructor(message: string, details?: unknown) {
    super('partial', ExitCode.partial, message, { details });
  }
}

/** Refused locally for safety (http:// to a remote host, a destructive command without --yes ...). Exit 2. */
export class RefusedError extends CliError {
  constructor(message: string, hint?: string) {
    super('usage', ExitCode.usage, message, { hint });
  }
}

/**
 * The machine, not subctl, failed: a full disk, a read-only file system, an I/O error, no
 * permission. Exit 1 like any unexpected error, but named for what it is, without asking for a
 * bug report. `what` names the file or stream (`the sandbox data file /x/sandbox.db`).
 */
export class LocalError extends CliError {
  constructor(message: string, code: string, cause?: unknown, hint?: string) {
    super('local', ExitCode.bug, message, { code, cause, hint: hint ?? LOCAL_HINTS[code] ?? LOCAL_HINTS.default });
  }
}

const FULL = 'free some disk space (`df -h` shows where it is short), then run the command again';
const LOCAL_HINTS: Record<string, string> = {
  ENOSPC: FULL,
  EDQUOT: FULL,
  SQLITE_FULL: FULL,
  EFBIG: 'the file would be larger than this process may write (`ulimit -f`) or the file system allows; raise the limit or write elsewhere',
  EROFS: 'the file system is read-only; point SUBCTL_CONFIG_DIR (or --data) at a writable directory',
  SQLITE_READONLY: 'the file is read-only to subctl; check its permissions, or point --data elsewhere',
  EACCES: 'check the permissions, or point SUBCTL_CONFIG_DIR (or --data) at a directory you own',
  EPERM: 'check the permissions, or point SUBCTL_CONFIG_DIR (or --data) at a directory you own',
  default: 'the machine failed to write; check the disk (`df -h`, `dmesg`) and run the command again',
};

/** System error codes (Node's `code`) and SQLite result codes that say the machine failed. */
const LOCAL_CODES = /^(ENOSPC|EDQUOT|EFBIG|EROFS|EIO|EACCES|EPERM|EMFILE|ENFILE|SQLITE_(FULL|IOERR\w*|READONLY\w*|CANTOPEN\w*|PERM))$/;

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
};

/**
 * `e` as a LocalError when it is a failure of the machine (see LOCAL_CODES), else undefined:
 * `cannot write <what>: <reason> (<code>)`, or without `what`, the reason and the file Node
 * names. An error that is already a CliError is left as it is.
 */
export function localError(e: unknown, what?: string): LocalError | undefined {
  if (e instanceof CliError || e === null || typeof e !== 'object') return undefined;
  const { code, path } = e as { code?: unknown; path?: unknown };
  if (typeof code !== 'string' || !LOCAL_CODES.test(code)) return undefined;
  const reason = `${REASONS[code] ?? String((e as Error).message)} (${code})`;
  if (what !== undefined) return new LocalError(`cannot write ${what}: ${reason}`, code, e);
  return new LocalError(typeof path === 'string' ? `${reason}: ${path}` : reason, code, e);
}
