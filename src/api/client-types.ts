/** What the API client (src/api/client.ts) takes and gives. */
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { ResponseHeaders } from './answer.js';
import type { AnyEndpoint } from './contract/common.js';

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8080`; a path prefix (`https://h/api`) is kept. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Sent as `X-Session-ID`. */
  sessionId?: string;
  /** Sent as `X-Device-ID` on endpoints declaring `deviceId: true`. */
  deviceId?: string;
  /** Per attempt, headers and body together; default 10000. 0 disables the time-out. */
  timeoutMs?: number;
  /** Retries of a failed GET; default 3 (so at most 4 attempts). */
  retries?: number;
  /** Injected undici dispatcher (tests); default: `createTransport(env)`, created on first use. */
  dispatcher?: Dispatcher;
  /** A CA file trusted next to the public roots (tests; NODE_EXTRA_CA_CERTS is the user's way). */
  caFile?: string;
  /** For proxy and CA decisions; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Connect directly, ignoring the proxy variables: the embedded sandbox, served by this process. */
  direct?: boolean;
  /** Ctrl-C: aborts the attempt in flight and any backoff wait -> InterruptedError. */
  signal?: AbortSignal;
  /** `--verbose` sink: one line per call. */
  log?: (line: string) => void;
  /** Injectable for tests; must reject (or be raced) when `signal` aborts. Default: abortable timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Default `subctl/<version>`. */
  userAgent?: string;
  /** Largest response body read; default 64 MiB. */
  maxResponseBytes?: number;
  /** `--strict`: an answer that departs from the contract is exit 6 instead of a deviation in the log. */
  strict?: boolean;
  /**
   * Answers read as the contract's types where they read as them (typed.ts): for tables, CSV
   * and text, which people and text-comparing scripts read; JSON gets `data` as received.
   */
  typed?: boolean;
}

/**
 * What `call` takes: `InputOf<E>` of the contract, written so that it also sees through the
 * optional members of `Endpoint` (`params?: P` reads as `P | undefined`, which makes
 * `E['params'] extends z.ZodObject` false and the contract's `InputOf` collapse to `undefined`).
 */
type SchemaInput<S> = [NonNullable<S>] extends [z.ZodObject] ? z.input<NonNullable<S>> : undefined;
export type CallInput<E extends AnyEndpoint> = {
  params?: SchemaInput<E['params']>;
  query?: SchemaInput<E['query']>;
  body?: SchemaInput<E['body']>;
};

export interface FullResponse<D> {
  status: number;
  headers: ResponseHeaders;
  /** The parsed JSON body as received (undefined for an empty body). */
  envelope: unknown;
  data: D;
  /** The envelope's `message`, when it has one. */
  message?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Not ended by the client's own signal (Ctrl-C): a bulk run lets a row already sent finish,
   * up to the time-out, so that its answer can be recorded. The per-call `signal` still applies.
   */
  detached?: boolean;
  /**
   * The input is the output of `validateInput` for this endpoint (a bulk run checks every row
   * before sending any): it is sent as is, without being validated a second time.
   */
  prevalidated?: boolean;
}

export interface RawRequestInit {
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
}
