/**
 * The error taxonomy. Every failure a user can meet is one of these; each knows its exit code
 * (CLI.md, "Exit codes"), a stable `type` for `-o json` and a hint naming the next command.
 * `src/main.ts` is the only place that turns them into exit codes.
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
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface FieldProblem {
  /** Contract field name, e.g. `service_code`; '' for the whole input. */
  field: string;
  message: string;
}

export class CliError extends Error {
  readonly exitCode: number;
  readonly type: string;
  hint?: string;
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

export function classifyStatus(status: number): [string, number] {
  if (status === 401) return ['unauthenticated', ExitCode.auth];
  if (status === 403) return ['forbidden', ExitCode.auth];
  if (status === 404) return ['not_found', ExitCode.notFound];
  if (status >= 500) return ['server', ExitCode.server];
  if (status === 408 || status === 429) return ['server', ExitCode.server];
  if (status >= 400) return ['rejected', ExitCode.rejected];
  return ['server', ExitCode.server];
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

export function isCliError(e: unknown): e is CliError {
  return e instanceof CliError;
}
