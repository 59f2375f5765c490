/**
 * The shared API client (DESIGN.md section 3): every request of every command goes through it.
 *
 * - JSON in and out; the base address may carry a path prefix (`https://h/api`).
 * - Input is validated against the contract before anything is sent (exit 2, names the field).
 * - Each attempt is abandoned `timeoutMs` after it started, headers and body together: undici's
 *   `headersTimeout`/`bodyTimeout` measure inactivity, so a trickling server would never trip them.
 * - Only GET is retried (network error, time-out, 408, 429, 5xx), after 1 s, 2 s, 4 s ... capped
 *   at 30 s, or after `Retry-After` within that cap. The loop is ours, not undici's retry
 *   interceptor: that one ignores an abort during its backoff wait and turns a POST's 503 into a
 *   `RequestRetryError`. Ctrl-C (the signal) ends an attempt or a wait at once.
 * - Redirects are refused, not followed: the session header would travel to another host.
 * - `http://` only to loopback.
 * - `log` (`--verbose`) gets each attempt with secrets masked.
 */
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { version } from '../../package.json';
import type { AnyEndpoint, DataOf, InputOf } from './contract/common.js';
import { hasPart, safeParsePart } from './contract/fast.js';
import {
  BadResponseError,
  CliError,
  ExitCode,
  HttpError,
  InterruptedError,
  NetworkError,
  RefusedError,
  UsageError,
  ValidationError,
  type FieldProblem,
} from './errors.js';
import { isSecretKey, MASK, oneLine, redactBody, redactBodyText, redactHeaders, redactUrl } from './redact.js';
import { Cancel, createTransport, proxyBypassed, proxySettings, type Transport, type TransportResponse } from './transport.js';

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

export type ResponseHeaders = Record<string, string | string[] | undefined>;

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

/** A 3xx answer: refused, because following it would send the credentials elsewhere. Exit 6. */
export class RedirectError extends CliError {
  readonly location?: string;
  constructor(status: number, message: string, location?: string) {
    super('redirect', ExitCode.server, message, {
      status,
      hint: location
        ? `if the platform has moved, point the base URL at the new address (--base-url or \`subctl config set base_url ...\`)`
        : undefined,
    });
    this.location = location;
  }
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRIES = 3;
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

/** Backoff before retry number `retry` (1-based): 1000, 2000, 4000 ... capped at 30000 ms. */
export function backoffDelay(retry: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1));
}

/**
 * `Retry-After` in ms (seconds or an HTTP date), capped at 30 s; undefined when absent or unreadable.
 * @example parseRetryAfter('2') // 2000
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  return Math.min(BACKOFF_CAP_MS, Math.round(ms));
}

/** True for 127.0.0.0/8, ::1 (also IPv4-mapped loopback) and `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (/^127(\.\d{1,3}){3}$/.test(h)) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^::ffff:(.+)$/.exec(h);
  if (mapped) {
    const rest = mapped[1];
    if (/^127(\.\d{1,3}){3}$/.test(rest)) return true;
    // URL normalises ::ffff:127.0.0.1 to ::ffff:7f00:1
    if (/^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(rest)) return true;
  }
  return false;
}

/** `input` is the value parsed, when known: it tells a missing field from a wrong one. */
function issueProblems(issues: readonly z.core.$ZodIssue[], prefix = '', input?: unknown): FieldProblem[] {
  return issues.map((i) => {
    const path = i.path.map((p) => String(p)).join('.');
    return { field: prefix && path ? `${prefix}.${path}` : prefix || path, message: issueMessage(i, input) };
  });
}

/**
 * zod's message, except for a field that is missing altogether: "required: expected string"
 * rather than zod's "Invalid input: expected string, received undefined", and "required:
 * expected one of ..." rather than "Invalid option: ...", which reads as if a wrong value had
 * been given. (Read from the input rather than asked of zod: zod's `reportInput` makes every
 * later parse slower, about 3 us a row of a bulk run.)
 */
function issueMessage(i: z.core.$ZodIssue, input: unknown): string {
  if ((i.code !== 'invalid_type' && i.code !== 'invalid_value' && i.code !== 'invalid_union') || i.path.length === 0 || input === undefined) return i.message;
  let v: unknown = input;
  for (const k of i.path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k as PropertyKey] : undefined;
  if (v !== undefined) return typedMessage(i, v) ?? i.message;
  return `required: ${i.message.replace(/^Invalid (input|option): /, '').replace(/, received undefined$/, '')}`;
}

/**
 * A number or a boolean given as text that is neither (a flag, a query value), said with the
 * text as typed: `expected a whole number, got 'abc'` rather than zod's "expected number,
 * received string", `expected true or false, got 'maybe'` rather than
 * "Invalid input".
 */
function typedMessage(i: z.core.$ZodIssue, v: unknown): string | undefined {
  const shown = typeof v === 'string' ? `'${v}'` : typeof v === 'number' ? String(v) : undefined;
  if (shown === undefined) return undefined;
  if (i.code === 'invalid_type' && (i.expected === 'number' || i.expected === 'int')) {
    return `expected a ${i.expected === 'int' ? 'whole ' : ''}number, got ${shown}`;
  }
  // q.bool(): true/false, or their text.
  if (i.code === 'invalid_union' && typeof v === 'string' && i.errors.some((e) => e.some((x) => x.code === 'invalid_type' && x.expected === 'boolean'))) {
    return `expected true or false, got ${shown}`;
  }
  return undefined;
}

/** Keys of `given` that the caller actually set (not undefined), taken from the validated `parsed`. */
function onlyGiven(parsed: Record<string, unknown>, given: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!given || typeof given !== 'object') return out;
  for (const k in given as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(given, k) || (given as Record<string, unknown>)[k] === undefined) continue;
    if (k in parsed) out[k] = parsed[k];
  }
  return out;
}

const pathPieces = new Map<string, string[]>();
/**
 * A path template split once (literal, name, literal, ...): a bulk run validates and fills the
 * same one for every row.
 */
function piecesOf(template: string): string[] {
  let pieces = pathPieces.get(template);
  if (!pieces) pathPieces.set(template, (pieces = template.split(/\{([^}]+)\}/)));
  return pieces;
}

const pathNames = new Map<string, string[]>();
/** The `{name}`s of a path template (worked out once per template: every bulk row asks). */
function pathParams(template: string): string[] {
  let names = pathNames.get(template);
  if (!names) pathNames.set(template, (names = piecesOf(template).filter((_, i) => i % 2 === 1)));
  return names;
}

/**
 * Validates input against an endpoint's schemas; throws ValidationError listing every bad
 * field (nothing is sent). Query and body keep only the keys the caller gave: defaults
 * declared in the contract are the server's business (and a PUT must not reset fields).
 * @example validateInput(servicesGet, { query: {} }) // ValidationError: invalid input: service_code: Invalid input: expected string, received undefined
 */
export function validateInput(
  ep: AnyEndpoint,
  input: { params?: unknown; query?: unknown; body?: unknown },
): { params: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> | undefined } {
  const problems: FieldProblem[] = [];
  const params = checkPart(ep, 'params', input.params, problems);
  const query = checkPart(ep, 'query', input.query, problems);
  const body = hasPart(ep, 'body') ? checkPart(ep, 'body', input.body, problems) : undefined;
  const given = input.params as Record<string, unknown> | undefined;
  for (const name of pathParams(ep.path)) {
    const v = params[name] ?? given?.[name];
    if (v === undefined) {
      if (!problems.some((p) => p.field === name)) problems.push({ field: name, message: 'Invalid input: expected a value for the path parameter' });
    } else if (v === '.' || v === '..') {
      // A URL resolves `.` and `..` segments even percent-encoded (/cms/roles/./users is
      // /cms/roles/users): the request would go to another endpoint.
      problems.push({ field: name, message: "Invalid input: '.' and '..' cannot be sent as a path segment" });
    }
  }
  if (problems.length) throw new ValidationError(problems);
  return {
    params: given ? { ...given, ...params } : params,
    query: onlyGiven(query, input.query),
    body: body === undefined ? undefined : onlyGiven(body, input.body),
  };
}

/** One part (params, query or body) checked against its schema; problems are added to `problems`. */
function checkPart(ep: AnyEndpoint, part: 'params' | 'query' | 'body', value: unknown, problems: FieldProblem[]): Record<string, unknown> {
  if (!hasPart(ep, part)) return {};
  const given = value ?? {};
  const r = safeParsePart(ep, part, given);
  if (!r.success) {
    problems.push(...issueProblems(r.error.issues, '', given));
    return {};
  }
  return r.data as Record<string, unknown>;
}

function queryValue(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function appendQuery(params: URLSearchParams, query: Record<string, unknown> | undefined): void {
  if (!query) return;
  for (const [k, v] of Object.entries(query)) {
    const values = Array.isArray(v) ? v : [v];
    for (const item of values) {
      const s = queryValue(item);
      if (s !== undefined) params.append(k, s);
    }
  }
}

/**
 * The request target (path and query) of an endpoint call under a base path: the same text as
 * `new URL(base + path)` with the query appended to its `searchParams` gives, without parsing a
 * URL per request (a bulk row paid about 2 us for it). `fillPath` percent-encodes every value,
 * and a path template is plain ASCII, so there is nothing for the URL parser to change.
 * @example requestTarget('/api', '/admin/subscriptions/{id}/manage', { id: 7 }, {}) // '/api/admin/subscriptions/7/manage'
 */
export function requestTarget(basePath: string, template: string, params: Record<string, unknown>, query: Record<string, unknown> | undefined): string {
  const path = `${basePath}${fillPath(template, params)}`;
  if (!query) return path;
  let any = false;
  for (const k in query) {
    if (query[k] !== undefined) {
      any = true;
      break;
    }
  }
  if (!any) return path;
  const sp = new URLSearchParams();
  appendQuery(sp, query);
  const qs = sp.toString();
  return qs ? `${path}?${qs}` : path;
}

/** One outgoing request; `url` (for messages and the log) is parsed only when read. */
class Outgoing {
  #url: URL | undefined;
  constructor(
    readonly method: string,
    /** `https://host:port` */
    readonly origin: string,
    /** The path and query, as sent. */
    readonly target: string,
    readonly headers: Record<string, string>,
    readonly body: unknown,
    url?: URL,
  ) {
    this.#url = url;
  }

  /** The whole address. */
  get url(): URL {
    return (this.#url ??= new URL(`${this.origin}${this.target}`));
  }
}

/**
 * `template` with its `{name}`s filled from `params`, percent-encoded.
 * @example fillPath('/admin/subscriptions/{id}/manage', { id: 7 }) // '/admin/subscriptions/7/manage'
 */
export function fillPath(template: string, params: Record<string, unknown>): string {
  const pieces = piecesOf(template);
  let out = pieces[0];
  for (let i = 1; i < pieces.length; i += 2) out += encodeURIComponent(String(params[pieces[i]])) + pieces[i + 1];
  return out;
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A signal that never aborts: what a detached call without its own signal listens to. */
const NEVER = new AbortController().signal;

/** One signal that aborts when any of `signals` does; `dispose` removes the listeners. */
function linkSignals(signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose: () => void } {
  const live = signals.filter((s): s is AbortSignal => !!s);
  // One signal or none (every bulk row): nothing to link, no controller to make per request.
  if (live.length <= 1) return { signal: live[0] ?? NEVER, dispose: () => {} };
  const ac = new AbortController();
  const onAbort = (e: Event) => ac.abort((e.target as AbortSignal).reason);
  for (const s of live) {
    if (s.aborted) {
      ac.abort(s.reason);
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: ac.signal, dispose: () => live.forEach((s) => s.removeEventListener('abort', onAbort)) };
}

function errCode(e: unknown): string | undefined {
  let cur = e as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 4 && cur; i++) {
    if (typeof cur.code === 'string' && cur.code !== 'UND_ERR_SOCKET' && !/^UND_ERR_(ABORTED|REQ_CONTENT)/.test(cur.code)) return cur.code;
    cur = cur.cause as typeof cur;
  }
  return (e as { code?: string } | undefined)?.code;
}

/** Codes of a request refused by the transport before sending (undici, then node:http). */
const INVALID_REQUEST = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_CHAR', 'ERR_HTTP_INVALID_HEADER_VALUE', 'ERR_INVALID_HTTP_TOKEN']);

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/i;

/**
 * The configured proxy (`http://proxy:3128`) when the connection that failed was to it: the peer
 * the error names (address and port, or the host it could not resolve) is the proxy's.
 */
export function proxyPeer(e: unknown, proxy: { httpProxy?: string; httpsProxy?: string } | undefined): string | undefined {
  if (!proxy) return undefined;
  const peers: Array<{ address?: unknown; port?: unknown; hostname?: unknown }> = [];
  let cur = e as { cause?: unknown } | undefined;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    peers.push(cur as never);
    cur = cur.cause as typeof cur;
  }
  for (const p of [proxy.httpsProxy, proxy.httpProxy]) {
    let u: URL;
    try {
      u = new URL(p ?? '');
    } catch {
      continue;
    }
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    if (peers.some((x) => (x.address === host || x.hostname === host) && (x.port === undefined || String(x.port) === port))) return `${u.protocol}//${u.host}`;
  }
  return undefined;
}

/**
 * A transport failure in words; TLS failures are final (retrying does not fix a certificate).
 * `proxy`: the failure was connecting to that proxy, which the message names instead of the server.
 */
function describeNetworkError(e: unknown, host: string, proxy?: string): { message: string; retryable: boolean; code?: string; hint?: string } {
  const code = errCode(e);
  const base = (e as Error)?.message ?? String(e);
  if (proxy && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ECONNRESET')) {
    const what = code === 'ECONNREFUSED' ? 'connection refused by' : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'cannot resolve' : code === 'ECONNRESET' ? 'connection closed by' : 'connecting timed out to';
    return {
      message: `${what} the proxy ${proxy} on the way to ${host} (${code})`,
      retryable: true,
      code,
      hint: 'check https_proxy, http_proxy and no_proxy (`subctl doctor` shows them); a server this machine reaches directly belongs in no_proxy',
    };
  }
  switch (code) {
    case 'ECONNREFUSED':
      return { message: `connection refused by ${host} (ECONNREFUSED)`, retryable: true, code };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { message: `connection to ${host} closed before the answer was complete (${code})`, retryable: true, code };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { message: `cannot resolve host ${host.replace(/:\d+$/, '')} (${code})`, retryable: true, code, hint: 'check the base URL (--base-url) and your network' };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { message: `connecting to ${host} timed out (${code})`, retryable: true, code };
    default:
      if (code && TLS_CODE.test(code)) {
        return {
          message: `TLS connection to ${host} failed: ${base} (${code})`,
          retryable: false,
          code,
          hint: 'if the platform uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate file',
        };
      }
      return { message: `request to ${host} failed: ${base}${code ? ` (${code})` : ''}`, retryable: true, code };
  }
}

function snippet(text: string, n = 80): string {
  const s = oneLine(text);
  return s.length > n ? `${s.slice(0, n)}...` : s;
}

/** A copy of a JSON value whose strings are `oneLine`d (server error details, printed as field errors). */
function oneLineDeep(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return oneLine(v);
  if (depth > 20 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => oneLineDeep(x, depth + 1));
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, oneLineDeep(x, depth + 1)]));
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Is this JSON object the platform's envelope (`{status, message, data, error, meta}`, status optional)? */
function isEnvelope(v: unknown): v is Record<string, unknown> {
  const o = asRecord(v);
  return !!o && ('data' in o || typeof o.status === 'boolean');
}

/** The server's words for an error answer: envelope message, else error.message, else the error string. */
function errorFromBody(status: number, body: unknown): HttpError {
  const o = asRecord(body);
  const error = o?.error;
  const errObj = asRecord(error);
  const pickStr = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);
  const said = pickStr(o?.message) ?? pickStr(errObj?.message) ?? pickStr(error) ?? pickStr(o?.detail) ?? pickStr(o?.title);
  const message = (said !== undefined ? oneLine(said) : '') || `HTTP ${status}`;
  const rawCode = errObj?.code ?? (typeof o?.code === 'string' ? o.code : undefined);
  const code = rawCode === undefined || rawCode === null ? undefined : String(rawCode);
  const details = oneLineDeep(errObj ?? (typeof error === 'string' && oneLine(error) !== message ? error : undefined));
  return new HttpError(status, message, { code: code === undefined ? undefined : oneLine(code), details, hint: hintFor(status) });
}

function hintFor(status: number): string | undefined {
  if (status === 401) return 'sign in with `subctl auth login` (or set SUBCTL_TOKEN), then run the command again';
  if (status === 403) return 'the signed-in account may not do this; `subctl auth status` shows who you are';
  if (status === 429) return 'the server is rate-limiting; wait a moment and run the command again';
  return undefined;
}

const isRetryableStatus = (s: number) => s === 408 || s === 429 || s >= 500;

interface Exchange {
  status: number;
  headers: ResponseHeaders;
  envelope: unknown;
  data: unknown;
  message?: string;
}

interface Attempt {
  ok?: Exchange;
  error?: CliError;
  retryable?: boolean;
  retryAfterMs?: number;
  why?: string;
}

const SLOT = Symbol('interrupted');

export class ApiClient {
  readonly baseUrl: string;
  readonly #origin: string;
  /** The base URL's path without a trailing slash ('' for none). */
  readonly #basePath: string;
  #opts: ClientOptions;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #maxBytes: number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #transport: Promise<Transport> | undefined;
  #throughput = false;
  #connections: number | undefined;
  /** Transports replaced by a faster one; closed with the client. */
  readonly #retired: Array<Promise<Transport>> = [];

  constructor(opts: ClientOptions) {
    let u: URL;
    try {
      u = new URL(opts.baseUrl);
    } catch {
      throw new UsageError(`invalid base URL: ${JSON.stringify(opts.baseUrl)}`, { hint: 'give an address like https://api.example.com (--base-url)' });
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') {
      throw new UsageError(`unsupported base URL scheme ${u.protocol} (use https://)`);
    }
    if (u.username || u.password) {
      throw new UsageError('the base URL must not carry credentials', { hint: 'use SUBCTL_TOKEN or `subctl auth login`' });
    }
    if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
      throw new RefusedError(
        `refusing plain http:// to ${u.host}: credentials would travel unencrypted`,
        `use https://${u.host}${u.pathname === '/' ? '' : u.pathname}; plain http:// is allowed only to loopback (127.0.0.1, ::1, localhost)`,
      );
    }
    // Plain http:// is for loopback, where nothing leaves the machine; through a proxy elsewhere
    // it would (the bearer token and a login's password, in clear, to the proxy): refused, unless
    // the proxy is on loopback or spoken to over TLS, or NO_PROXY names the address.
    if (u.protocol === 'http:' && !opts.direct && !opts.dispatcher) {
      const p = proxySettings(opts.env ?? process.env);
      if (p?.httpProxy && !proxyBypassed(p.noProxy, u)) {
        let via: URL | undefined;
        try {
          via = new URL(p.httpProxy);
        } catch {
          via = undefined; // the transport names a proxy it cannot read
        }
        if (via && via.protocol === 'http:' && !isLoopbackHost(via.hostname)) {
          throw new RefusedError(
            `refusing plain http:// to ${u.host} through the proxy ${via.host} (http_proxy): credentials would travel unencrypted beyond this machine`,
            `add ${u.hostname} to NO_PROXY (NO_PROXY=${u.hostname}) to reach it directly, or use an https:// address`,
          );
        }
      }
    }
    this.#origin = u.origin;
    this.#basePath = u.pathname.replace(/\/+$/, '');
    this.baseUrl = `${this.#origin}${this.#basePath}`;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new UsageError(`invalid time-out ${timeoutMs}: give milliseconds, e.g. --timeout 10000`);
    const retries = opts.retries ?? DEFAULT_RETRIES;
    if (!Number.isInteger(retries) || retries < 0) throw new UsageError(`invalid retries ${retries}: give a whole number >= 0`);
    this.#opts = opts;
    // setTimeout fires at once beyond 2^31-1 ms; that far is "no time-out" in practice anyway.
    this.#timeoutMs = Math.min(timeoutMs, 2_147_483_647);
    this.#retries = retries;
    this.#maxBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.#sleep = opts.sleep ?? defaultSleep;
  }

  #getTransport(): Promise<Transport> {
    this.#transport ??= createTransport(this.#opts.env ?? process.env, {
      dispatcher: this.#opts.dispatcher,
      throughput: this.#throughput,
      connections: this.#connections,
      caFile: this.#opts.caFile,
      direct: this.#opts.direct,
    });
    return this.#transport;
  }

  /** Sends this token and session id from now on (a session that signed in again meanwhile). */
  useSignIn(token: string | undefined, sessionId: string | undefined): void {
    this.#opts = { ...this.#opts, token, sessionId };
  }

  /**
   * Many requests will follow (bulk runs, `--all`, the console): use the transport that is
   * slower to load and faster per request (undici). `connections` caps the connections to the
   * server (a bulk run's `--concurrency`): without a cap, a request sent the moment another's
   * answer ends finds that connection not yet released and opens one more (a 16-row-wide bulk
   * run held 31). A no-op for an injected dispatcher.
   */
  preferThroughput(connections?: number): void {
    if (this.#throughput) return;
    this.#throughput = true;
    this.#connections = connections;
    if (this.#transport && !this.#opts.dispatcher) {
      this.#retired.push(this.#transport);
      this.#transport = undefined;
    }
  }

  /**
   * Validates, sends (with the retry rules), unwraps the envelope and returns `data` parsed with
   * the endpoint's response schema.
   * @example await client.call(adminServicesList, { query: { page_size: 5 } }) // { pagination, services }
   */
  async call<E extends AnyEndpoint>(ep: E, input?: CallInput<E> | InputOf<E>, opts?: CallOptions): Promise<DataOf<E>> {
    return (await this.callFull(ep, input, opts)).data;
  }

  /** Like `call`, with status, headers, the raw envelope and its message. */
  async callFull<E extends AnyEndpoint>(ep: E, input?: CallInput<E> | InputOf<E>, opts?: CallOptions): Promise<FullResponse<DataOf<E>>> {
    const v = opts?.prevalidated ? (input as ReturnType<typeof validateInput>) : validateInput(ep, input ?? {});
    const target = requestTarget(this.#basePath, ep.path, v.params, v.query);
    const headers: Record<string, string> = {};
    if (ep.deviceId && this.#opts.deviceId) headers['x-device-id'] = this.#opts.deviceId;
    const res = await this.#exchange(new Outgoing(ep.method, this.#origin, target, headers, v.body), opts?.signal, opts?.detached);
    const data = this.#parseData(ep, res);
    return { ...res, data };
  }

  /**
   * A raw call (`subctl api METHOD PATH`): the same headers, time-out, retries (GET), redirect
   * refusal and envelope errors, without validation.
   * @example await client.request('GET', '/admin/services', { query: { page_size: '5' } })
   */
  async request(method: string, path: string, init: RawRequestInit = {}, opts?: CallOptions): Promise<FullResponse<unknown>> {
    const m = method.toUpperCase();
    if (!/^[A-Z]+$/.test(m)) throw new UsageError(`invalid HTTP method ${JSON.stringify(method)}`);
    let rel = path;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rel)) {
      if (!rel.startsWith(`${this.baseUrl}/`) && rel !== this.baseUrl) {
        throw new UsageError(`${redactUrl(rel)} is not under the base URL ${this.baseUrl}`, { hint: 'give a path such as /admin/services' });
      }
      rel = rel.slice(this.baseUrl.length) || '/';
    }
    const url = this.#url(rel);
    appendQuery(url.searchParams, init.query);
    const headers: Record<string, string> = {};
    for (const [k, val] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = val;
    return this.#exchange(new Outgoing(m, url.origin, `${url.pathname}${url.search}`, headers, init.body, url), opts?.signal);
  }

  /** Closes the connections the client opened (an injected dispatcher belongs to the caller). */
  async close(): Promise<void> {
    const all = [...this.#retired.splice(0), ...(this.#transport ? [this.#transport] : [])];
    this.#transport = undefined;
    await Promise.all(all.map(async (t) => (await t.catch(() => undefined))?.close()));
  }

  #url(path: string): URL {
    const at = path.indexOf('?');
    const p = at < 0 ? path : path.slice(0, at);
    const q = at < 0 ? '' : path.slice(at + 1);
    const url = new URL(`${this.baseUrl}${p.startsWith('/') ? p : `/${p}`}`);
    if (q) url.search = q;
    return url;
  }

  #parseData<E extends AnyEndpoint>(ep: E, res: Exchange): DataOf<E> {
    const r = safeParsePart(ep, 'response', res.data);
    if (r.success) return r.data as DataOf<E>;
    // Lenient: an answer without `data` at all (empty body, 204) is not a contract breach.
    if (res.data === undefined || res.data === null) return res.data as DataOf<E>;
    const problems = issueProblems(r.error.issues, 'data');
    const first = problems[0];
    throw new BadResponseError(
      `unexpected answer from ${ep.method} ${ep.path} (HTTP ${res.status}): ${first.field}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
      { status: res.status, details: problems },
    );
  }

  #log(line: string): void {
    this.#opts.log?.(line);
  }

  /** The attempt loop: send, classify, wait, send again (GET only), then answer or throw. */
  async #exchange(req: Outgoing, callSignal?: AbortSignal, detached = false): Promise<Exchange> {
    const { signal, dispose } = linkSignals([detached ? undefined : this.#opts.signal, callSignal]);
    try {
      const max = req.method === 'GET' ? this.#retries + 1 : 1;
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': this.#opts.userAgent ?? `subctl/${version}`,
      };
      if (this.#opts.token) headers.authorization = `Bearer ${this.#opts.token}`;
      if (this.#opts.sessionId) headers['x-session-id'] = this.#opts.sessionId;
      Object.assign(headers, req.headers);
      let payload: string | undefined;
      if (req.body !== undefined) {
        payload = JSON.stringify(req.body);
        headers['content-type'] ??= 'application/json';
      }
      for (let attempt = 1; ; attempt++) {
        if (signal.aborted) throw new InterruptedError();
        const a = await this.#attempt(req, headers, payload, attempt, max, signal);
        if (a.ok) return a.ok;
        const err = a.error!;
        if (!a.retryable || attempt >= max) {
          if (attempt > 1 && err instanceof NetworkError) err.message = `${err.message} (after ${attempt} attempts)`;
          throw this.#withoutSecrets(err, req, headers);
        }
        const delay = a.retryAfterMs ?? backoffDelay(attempt);
        this.#log(`! ${a.why}; retry ${attempt + 1}/${max} in ${delay} ms${a.retryAfterMs !== undefined ? ' (Retry-After)' : ''}`);
        const interrupted = await raceAbort(this.#sleep(delay, signal), signal);
        if (interrupted === SLOT || signal.aborted) throw new InterruptedError();
      }
    } finally {
      dispose();
    }
  }

  /**
   * The error with every secret of this request masked: the token, the session id, secret
   * headers, and the values of secret fields (password, token ...) of the query and body. A
   * server may echo them ("invalid token abc", details `{password: ...}`); subctl never prints
   * them, whatever the output format.
   */
  #withoutSecrets(err: CliError, req: Outgoing, headers: Record<string, string>): CliError {
    const mask = this.#masker(req, headers);
    const deep = (v: unknown, depth = 0): unknown => {
      if (typeof v === 'string') return mask(v);
      if (depth > 20 || v === null || typeof v !== 'object') return v;
      if (Array.isArray(v)) return v.map((x) => deep(x, depth + 1));
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, deep(x, depth + 1)]));
    };
    err.message = mask(err.message);
    if (err.hint) err.hint = mask(err.hint);
    if (err.code) err.code = mask(err.code);
    if (err.details !== undefined && err.details !== null) err.details = deep(redactBody(err.details));
    return err;
  }

  /**
   * Text with the request's secrets (the token, the session id, credential headers, secret
   * query and body fields) replaced by the mask: for what the server says back, in errors and in
   * --verbose's log of an answer (a server echoing the Authorization header had it logged).
   */
  #masker(req: Outgoing, headers: Record<string, string>): (t: string) => string {
    const secrets = new Set<string>();
    const add = (v: unknown) => {
      if (typeof v === 'string' && v.length >= 3) secrets.add(v);
      else if (typeof v === 'number' && String(v).length >= 3) secrets.add(String(v));
    };
    add(this.#opts.token);
    add(this.#opts.sessionId);
    for (const [k, v] of Object.entries(headers)) {
      if (!/^(authorization|proxy-authorization|x-session-id|cookie|x-api-key)$/i.test(k)) continue;
      add(v);
      add(/^\S+\s+(.+)$/.exec(v)?.[1]);
    }
    for (const [k, v] of req.url.searchParams) if (isSecretKey(k)) add(v);
    const walk = (v: unknown, depth: number): void => {
      if (depth > 20 || v === null || typeof v !== 'object') return;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (isSecretKey(k)) add(x);
        walk(x, depth + 1);
      }
    };
    walk(req.body, 0);
    const list = [...secrets].sort((a, b) => b.length - a.length);
    return (t: string) => list.reduce((acc, s) => (acc.includes(s) ? acc.split(s).join(MASK) : acc), t);
  }

  async #attempt(req: Outgoing, headers: Record<string, string>, payload: string | undefined, attempt: number, max: number, signal: AbortSignal): Promise<Attempt> {
    let shown: string | undefined;
    const shownUrl = () => (shown ??= redactUrl(req.url));
    // process.hrtime: `performance` loads perf_hooks (about 1 ms) on first use.
    const started = process.hrtime.bigint();
    const ms = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
    if (this.#opts.log) this.#log(`> ${req.method} ${shownUrl()} (attempt ${attempt}/${max})`);
    // Redaction costs real time on bulk runs: only when someone reads the log.
    if (this.#opts.log) {
      for (const [k, v] of Object.entries(redactHeaders(headers))) this.#log(`>   ${k}: ${v}`);
      if (payload !== undefined) this.#log(`>   ${redactBodyText(payload)}`);
    }

    const ac = new Cancel();
    let timedOut = false;
    const timer =
      this.#timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            ac.abort(new Error(`timed out after ${this.#timeoutMs} ms`));
          }, this.#timeoutMs)
        : undefined;
    const onAbort = () => ac.abort(signal.reason);
    if (signal !== NEVER) signal.addEventListener('abort', onAbort, { once: true });

    let res: TransportResponse | undefined;
    let text: string;
    try {
      const transport = await this.#getTransport();
      res = await transport.send({
        origin: req.origin,
        path: req.target,
        method: req.method,
        headers,
        body: payload,
        signal: ac,
      });
      text = await this.#readBody(res, req);
    } catch (e) {
      res?.body.destroy();
      if (signal.aborted && !timedOut) {
        this.#log(`< interrupted ${req.method} ${shownUrl()} ${ms()} ms`);
        throw new InterruptedError();
      }
      if (e instanceof CliError) {
        this.#log(`< ${res?.statusCode ?? 'error'} ${req.method} ${shownUrl()} ${ms()} ms: ${e.message}`);
        return { error: e, retryable: false };
      }
      if (timedOut) {
        const msg = `${req.method} ${shownUrl()} timed out after ${this.#timeoutMs} ms`;
        this.#log(`< timeout ${req.method} ${shownUrl()} ${ms()} ms`);
        return {
          error: new NetworkError(msg, { code: 'ETIMEDOUT', hint: 'the server is slow or unreachable; --timeout MS allows more time' }),
          retryable: true,
          why: `timed out after ${this.#timeoutMs} ms`,
        };
      }
      if (INVALID_REQUEST.has(errCode(e) ?? '')) {
        // A header value the transport refuses (a token pasted with a newline ...): nothing was sent.
        this.#log(`< refused ${req.method} ${shownUrl()}: ${(e as Error).message}`);
        return { error: new UsageError(`cannot send ${req.method} ${shownUrl()}: ${(e as Error).message}`), retryable: false };
      }
      const env = this.#opts.env ?? process.env;
      const d = describeNetworkError(e, req.url.host, this.#opts.direct ? undefined : proxyPeer(e, proxySettings(env)));
      this.#log(`< error ${req.method} ${shownUrl()} ${ms()} ms: ${d.message}`);
      return {
        error: new NetworkError(`${req.method} ${shownUrl()}: ${d.message}`, { code: d.code, hint: d.hint, cause: e }),
        retryable: d.retryable,
        why: d.message,
      };
    } finally {
      clearTimeout(timer);
      if (signal !== NEVER) signal.removeEventListener('abort', onAbort);
    }

    const status = res.statusCode;
    const resHeaders = res.headers as ResponseHeaders;
    if (this.#opts.log) this.#log(`< ${status} ${req.method} ${shownUrl()} ${ms()} ms`);
    if (this.#opts.log) {
      for (const [k, v] of Object.entries(redactHeaders(resHeaders))) this.#log(`<   ${k}: ${v}`);
      if (text) this.#log(`<   ${this.#masker(req, headers)(redactBodyText(text))}`);
    }
    return this.#classify(req, status, resHeaders, text);
  }

  /** Reads the whole body under the per-attempt signal, refusing more than the cap. */
  async #readBody(res: TransportResponse, req: Outgoing): Promise<string> {
    const tooBig = () =>
      new BadResponseError(
        `the answer to ${req.method} ${redactUrl(req.url)} (HTTP ${res.statusCode}) is larger than ${Math.round(this.#maxBytes / 1024 / 1024)} MiB; refusing to read it`,
        { status: res.statusCode },
      );
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.#maxBytes) throw tooBig();
    // A declared length within the cap: the parser reads no further, so read it whole.
    if (res.headers['content-length'] !== undefined && Number.isFinite(declared)) return res.text();
    // Events rather than `for await`: a stream's async iterator is cold code that costs a
    // single command about 2 ms.
    const body = res.body;
    const max = this.#maxBytes;
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      let ended = false;
      body.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > max) {
          body.destroy();
          reject(tooBig());
          return;
        }
        chunks.push(chunk);
      });
      body.once('end', () => {
        ended = true;
        resolve(Buffer.concat(chunks, total).toString('utf8'));
      });
      body.once('error', reject);
      // Closed before the end of the body arrived: the answer is incomplete.
      body.once('close', () => {
        if (!ended) reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      });
    });
  }

  #classify(req: Outgoing, status: number, headers: ResponseHeaders, text: string): Attempt {
    // Words for an error only: redacting the URL costs a parse, which a good answer never needs.
    let shownWhere: string | undefined;
    const where = () => (shownWhere ??= `${req.method} ${redactUrl(req.url)}`);
    if (status >= 300 && status < 400) {
      const loc = Array.isArray(headers.location) ? headers.location[0] : headers.location;
      let target: string | undefined;
      if (loc) {
        try {
          target = redactUrl(new URL(loc, req.url));
        } catch {
          target = loc;
        }
      }
      const msg = target
        ? `the server redirected ${where()} to ${target} (HTTP ${status}); subctl does not follow redirects`
        : `the server answered ${where()} with HTTP ${status} (a redirect without a Location); subctl does not follow redirects`;
      return { error: new RedirectError(status, msg, target) };
    }

    let body: unknown;
    let parsed = true;
    if (text.trim() === '') body = undefined;
    else {
      try {
        body = JSON.parse(text);
      } catch {
        parsed = false;
      }
    }
    const retryable = isRetryableStatus(status);
    const retryAfterMs = retryable ? parseRetryAfter(headers['retry-after']) : undefined;

    if (!parsed) {
      const shown = snippet(text);
      const ctype = String(headers['content-type'] ?? 'no content type');
      if (status >= 400 && retryable) {
        return {
          error: new HttpError(status, `HTTP ${status} from ${where()} (not JSON, ${ctype}): ${shown}`, { hint: hintFor(status) }),
          retryable,
          retryAfterMs,
          why: `HTTP ${status}`,
        };
      }
      return {
        error: new BadResponseError(`HTTP ${status} from ${where()} is not JSON (${ctype}): ${shown}`, { status }),
      };
    }

    if (status >= 400 || status < 200) {
      return { error: errorFromBody(status, body), retryable, retryAfterMs, why: `HTTP ${status}` };
    }

    const env = isEnvelope(body) ? body : undefined;
    if (env && env.status === false) {
      // A 2xx that says it failed: the server rejected the request (exit 5), in its words.
      return { error: errorFromBody(400, env) };
    }
    const message = env && typeof env.message === 'string' ? env.message : undefined;
    return { ok: { status, headers, envelope: body, data: env ? env.data : body, message } };
  }
}

/** Resolves with `SLOT` as soon as `signal` aborts, whether or not `p` honours the signal. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T | typeof SLOT> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.resolve(SLOT);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(SLOT);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve(SLOT);
        else reject(e);
      },
    );
  });
}
