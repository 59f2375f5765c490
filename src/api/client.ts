/**
 * The shared API client: every request of every command goes through it. This file is the call
 * path (validate, send, retry, read); the policies it follows live beside it:
 * input.ts (input checked against the contract, the request target), address.ts (which base
 * URLs, plain http:// and proxies), retry.ts (what is tried again and when), answer.ts (reading
 * answers tolerantly, deviations, errors in the server's words), network-errors.ts (transport
 * failures in words), redact.ts (secrets masked), transport.ts (the two transports).
 *
 * - JSON in and out; the base address may carry a path prefix (`https://h/api`).
 * - Each attempt is abandoned `timeoutMs` after it started, headers and body together: undici's
 *   `headersTimeout`/`bodyTimeout` measure inactivity, so a trickling server would never trip them.
 * - Ctrl-C (the signal) ends an attempt or a wait at once.
 * - Redirects are refused, not followed: the session header would travel to another host.
 * - `log` (`--verbose`) gets each attempt with secrets masked, and each deviation of an answer
 *   from the contract once.
 */
import { version } from '../../package.json';
import { checkBaseUrl, proxyFor, proxyPeer } from './address.js';
import { typedData } from './typed.js';
import { classifyAnswer, deviationsOf, RedirectError, strictError, type Attempt, type Exchange, type ResponseHeaders } from './answer.js';
import type { AnyEndpoint, DataOf, InputOf } from './contract/common.js';
import { BadResponseError, CliError, HttpError, InterruptedError, NetworkError, UsageError } from './errors.js';
import { appendQuery, requestTarget, validateInput } from './input.js';
import { describeNetworkError, errCode, INVALID_REQUEST, tunnelRefusal } from './network-errors.js';
import { mapStrings, maskerOf, redactBody, redactBodyText, redactHeaders, redactUrl } from './redact.js';
import { backoffDelay, DEFAULT_RETRIES, defaultSleep, linkSignals, NEVER, raceAbort, SLOT } from './retry.js';
import { createTransport, proxySettings, readBody, type Transport, type TransportResponse } from './transport.js';

import type { CallInput, CallOptions, ClientOptions, FullResponse, RawRequestInit } from './client-types.js';

export type { CallInput, CallOptions, ClientOptions, FullResponse, RawRequestInit } from './client-types.js';
export { isLoopbackHost, proxyPeer } from './address.js';
export { RedirectError, type ResponseHeaders } from './answer.js';
export { fillPath, requestTarget, validateInput } from './input.js';
export { backoffDelay, parseRetryAfter } from './retry.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const MAY_HAVE_APPLIED =
  'the platform may have applied the request before the failure (a gateway answers 502 or 504 after passing it on): check what it changed before running the command again';
const REDIRECTED_WRITE =
  'a server may answer a write it applied with a redirect (303 See Other): check what it changed before running the command again; if the platform has moved, point the base URL at the new address (--base-url or `subctl config set base_url ...`)';
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

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
    /** A read of the contract: its answer carries JSON, so an empty one is no answer (see #classify). */
    readonly expectsBody = false,
  ) {
    this.#url = url;
  }

  /** The whole address. */
  get url(): URL {
    return (this.#url ??= new URL(`${this.origin}${this.target}`));
  }
}

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
  /** Deviations already logged: each once per command. */
  readonly #deviations = new Set<string>();

  constructor(opts: ClientOptions) {
    const u = checkBaseUrl(opts.baseUrl, opts.env ?? process.env, !opts.direct && !opts.dispatcher);
    this.#origin = u.origin;
    this.#basePath = u.pathname.replace(/\/+$/, '');
    this.baseUrl = `${this.#origin}${this.#basePath}`;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
      throw new UsageError(`invalid time-out ${timeoutMs}: give milliseconds, e.g. --timeout 10000`);
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
    const out = new Outgoing(ep.method, this.#origin, target, headers, v.body, undefined, ep.method === 'GET');
    const res = await this.#exchange(out, opts?.signal, opts?.detached);
    const data = this.#readData(ep, res);
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
        throw new UsageError(`${redactUrl(rel)} is not under the base URL ${this.baseUrl}`, {
          hint: 'give a path such as /admin/services',
        });
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

  /**
   * `data` as received (or, with `typed`, read as the contract's types: typed.ts). Its departures
   * from the contract are looked for only when someone will see them (`--verbose`) or they decide
   * the exit (`--strict`): reading tolerantly costs a plain run nothing.
   */
  #readData<E extends AnyEndpoint>(ep: E, res: Exchange): DataOf<E> {
    if (this.#opts.strict) {
      const e = strictError(ep, res.status, res.data, res.envelope);
      if (e) throw e;
    } else if (this.#opts.log) {
      for (const d of deviationsOf(ep, res.data, res.envelope)) {
        const key = `${ep.method} ${ep.path} ${d.field}`;
        if (this.#deviations.has(key)) continue;
        this.#deviations.add(key);
        this.#log(`deviation: ${ep.method} ${ep.path}: ${d.field}: expected ${d.expected}, received ${d.received}`);
      }
    }
    return (this.#opts.typed ? typedData(ep, res.data) : res.data) as DataOf<E>;
  }

  #log(line: string): void {
    this.#opts.log?.(line);
  }

  /** The attempt loop: send, classify, wait, send again (GET only), then answer or throw. */
  async #exchange(req: Outgoing, callSignal?: AbortSignal, detached = false): Promise<Exchange> {
    const { signal, dispose } = linkSignals([detached ? undefined : this.#opts.signal, callSignal]);
    // A detached call's attempt is not cut by Ctrl-C, but no new attempt starts after it.
    const noMore = detached ? this.#opts.signal : undefined;
    try {
      let max = req.method === 'GET' ? this.#retries + 1 : 1;
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
        // A write is sent again only after 429, which says it was not processed (a 5xx or a
        // time-out may follow a write that was applied).
        if (err.status === 429) max = this.#retries + 1;
        if (!a.retryable || attempt >= max || noMore?.aborted) {
          if (attempt > 1 && err instanceof NetworkError) err.message = `${err.message} (after ${attempt} attempts)`;
          // A write answered 5xx may have been applied: a gateway's 502 or 504 comes after it
          // passed the request on. "Run it again" would apply it twice.
          if (req.method !== 'GET' && err instanceof HttpError && (err.status ?? 0) >= 500) err.hint = MAY_HAVE_APPLIED;
          if (req.method !== 'GET' && err instanceof RedirectError) err.hint = REDIRECTED_WRITE;
          throw this.#withoutSecrets(err, req, headers);
        }
        const delay = a.retryAfterMs ?? backoffDelay(attempt);
        this.#log(`! ${a.why}; retry ${attempt + 1}/${max} in ${delay} ms${a.retryAfterMs !== undefined ? ' (Retry-After)' : ''}`);
        const wait = linkSignals([signal, noMore]);
        const interrupted = await raceAbort(this.#sleep(delay, wait.signal), wait.signal).finally(wait.dispose);
        if (noMore?.aborted) throw this.#withoutSecrets(err, req, headers);
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
    err.message = mask(err.message);
    if (err.hint) err.hint = mask(err.hint);
    if (err.code) err.code = mask(err.code);
    if (err.details !== undefined && err.details !== null) err.details = mapStrings(redactBody(err.details), mask);
    return err;
  }

  #masker(req: Outgoing, headers: Record<string, string>): (t: string) => string {
    return maskerOf({ values: [this.#opts.token, this.#opts.sessionId], headers, query: req.url.searchParams, body: req.body });
  }

  async #attempt(
    req: Outgoing,
    headers: Record<string, string>,
    payload: string | undefined,
    attempt: number,
    max: number,
    signal: AbortSignal,
  ): Promise<Attempt> {
    let shown: string | undefined;
    const shownUrl = () => (shown ??= redactUrl(req.url));
    // process.hrtime: `performance` loads perf_hooks on first use.
    const started = process.hrtime.bigint();
    const ms = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
    if (this.#opts.log) this.#log(`> ${req.method} ${shownUrl()} (attempt ${attempt}/${max})`);
    // Redaction costs real time on bulk runs: only when someone reads the log.
    if (this.#opts.log) {
      for (const [k, v] of Object.entries(redactHeaders(headers))) this.#log(`>   ${k}: ${v}`);
      if (payload !== undefined) this.#log(`>   ${redactBodyText(payload)}`);
    }

    const ac = new AbortController();
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
        signal: ac.signal,
      });
      text = await this.#readBody(res, req);
    } catch (e) {
      res?.body.destroy();
      if (signal.aborted && !timedOut) {
        this.#log(`< interrupted ${req.method} ${shownUrl()} ${ms()} ms`);
        throw new InterruptedError();
      }
      return this.#failed(e, req, res?.statusCode, timedOut ? this.#timeoutMs : undefined, `${shownUrl()}`, ms());
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

  /** A failed attempt classified: the client's own error, a time-out, a refused request or a network failure. */
  #failed(e: unknown, req: Outgoing, status: number | undefined, timeoutMs: number | undefined, shown: string, took: number): Attempt {
    if (e instanceof CliError) {
      this.#log(`< ${status ?? 'error'} ${req.method} ${shown} ${took} ms: ${e.message}`);
      return { error: e, retryable: false };
    }
    if (timeoutMs !== undefined) {
      const msg = `${req.method} ${shown} timed out after ${timeoutMs} ms`;
      this.#log(`< timeout ${req.method} ${shown} ${took} ms`);
      return {
        error: new NetworkError(msg, { code: 'ETIMEDOUT', hint: 'the server is slow or unreachable; --timeout MS allows more time' }),
        retryable: true,
        why: `timed out after ${timeoutMs} ms`,
      };
    }
    if (INVALID_REQUEST.has(errCode(e) ?? '')) {
      // A header value the transport refuses (a token pasted with a newline ...): nothing was sent.
      this.#log(`< refused ${req.method} ${shown}: ${(e as Error).message}`);
      return { error: new UsageError(`cannot send ${req.method} ${shown}: ${(e as Error).message}`), retryable: false };
    }
    const env = this.#opts.env ?? process.env;
    const proxies = this.#opts.direct ? undefined : proxySettings(env);
    // A refused tunnel names no peer: the proxy is the one the address's scheme goes through.
    const proxy = proxyPeer(e, proxies) ?? (tunnelRefusal(e) !== undefined ? proxyFor(req.url, proxies) : undefined);
    const d = describeNetworkError(e, req.url.host, proxy);
    this.#log(`< error ${req.method} ${shown} ${took} ms: ${d.message}`);
    return {
      error: new NetworkError(`${req.method} ${shown}: ${d.message}`, { code: d.code, hint: d.hint, cause: e }),
      retryable: d.retryable,
      why: d.message,
    };
  }

  /** Reads the whole body, decoded, refusing more than the cap. */
  #readBody(res: TransportResponse, req: Outgoing): Promise<string> {
    return readBody(
      res,
      this.#maxBytes,
      () =>
        new BadResponseError(
          `the answer to ${req.method} ${redactUrl(req.url)} (HTTP ${res.statusCode}) is larger than ${Math.round(this.#maxBytes / 1024 / 1024)} MiB; refusing to read it`,
          { status: res.statusCode },
        ),
      (why) =>
        new BadResponseError(`cannot read the answer to ${req.method} ${redactUrl(req.url)} (HTTP ${res.statusCode}): ${why}`, {
          status: res.statusCode,
        }),
    );
  }

  #classify(req: Outgoing, status: number, headers: ResponseHeaders, text: string): Attempt {
    if (req.expectsBody && status >= 200 && status < 300 && text.trim() === '') {
      // A gateway that dropped the answer: read as "no rows" it would make an export of nothing
      // succeed. Sent again as any GET.
      const error = new BadResponseError(
        `HTTP ${status} from ${req.method} ${redactUrl(req.url)} is empty; the platform answers every read with JSON`,
        {
          status,
        },
      );
      error.hint =
        'a gateway or proxy in front of the platform may have dropped the answer; run the command again (--verbose shows the exchange)';
      return { error, retryable: true, why: `HTTP ${status} with an empty body` };
    }
    // Words for an error only: redacting the URL costs a parse, which a good answer never needs.
    return classifyAnswer(
      status,
      headers,
      text,
      () => `${req.method} ${redactUrl(req.url)}`,
      () => req.url,
    );
  }
}
