/**
 * The HTTP transports: what carries one request of the client (retries, time-outs and redirects
 * are the client's business, not the transport's).
 *
 * - `NodeTransport` (node:http / node:https, keep-alive) for an ordinary command: it loads
 *   faster than undici, whose WebAssembly parser's background compilation also holds a process
 *   open at exit.
 * - `UndiciTransport` where undici pays for itself or is needed: runs of many requests (bulk,
 *   `--all` exports, the console; the client is told by `preferThroughput()`), a proxy
 *   (`http_proxy`/`https_proxy`, either case, lower case wins, honouring `no_proxy`), and an
 *   injected dispatcher (tests).
 * - `NODE_EXTRA_CA_CERTS` (and `caFile`) merged with Node's bundled roots: undici's `connect.ca`
 *   replaces the whole trust store, so passing only the extra file would drop the public roots.
 *   When `env` holds the same NODE_EXTRA_CA_CERTS Node loaded at start-up, Node's default store
 *   already has it and nothing is passed.
 */
import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { builtin } from '../builtin.js';
import { contentCodings, decodeBody, DecodedTooLarge, otherCharset, textIn, UndecodableBody } from './encoding.js';
import { UsageError } from './errors.js';

/** One request, as the client hands it to a transport. */
export interface SendOptions {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Ends the attempt: its time-out, or Ctrl-C passed on. */
  signal?: AbortSignal;
}

/** The answer: status, headers (lower-case names) and the body as a stream of chunks. */
export interface TransportResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: import('node:stream').Readable;
  /**
   * The whole body as UTF-8 text, without the per-chunk cost of async iteration. Only for a
   * body whose declared content-length the caller has accepted (the parser stops there).
   */
  text(): Promise<string>;
}

export interface Transport {
  readonly kind: 'node' | 'undici';
  send(opts: SendOptions): Promise<TransportResponse>;
  /** Closes the connections it owns (an injected dispatcher belongs to its owner). */
  close(): Promise<void>;
}

export interface TransportOptions {
  caFile?: string;
  /** An undici dispatcher to send through (tests); not closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Many requests will follow: take undici (faster per request, slower to load). */
  throughput?: boolean;
  /** With `throughput`: at most this many connections to one server (unlimited when absent). */
  connections?: number;
  /**
   * Connect directly, whatever the proxy variables say: the embedded sandbox, a server inside
   * this very process, which a proxy could not reach.
   */
  direct?: boolean;
}

/**
 * The transport for a run.
 * @example await createTransport(process.env) // NodeTransport; UndiciTransport behind a proxy
 */
export async function createTransport(env: NodeJS.ProcessEnv = process.env, opts: TransportOptions = {}): Promise<Transport> {
  if (opts.dispatcher) {
    const { UndiciTransport } = await import('./transport-undici.js');
    return new UndiciTransport(opts.dispatcher, false);
  }
  const ca = trustedCertificates(env, opts.caFile);
  // One secure context for every connection: handing `ca` itself to each tls.connect would
  // parse every bundled root again per connection, which is slow.
  const secureContext = ca ? builtin('node:tls').createSecureContext({ ca }) : undefined;
  const proxy = opts.direct ? undefined : proxySettings(env);
  if (proxy || opts.throughput) {
    const { UndiciTransport, createDispatcher } = await import('./transport-undici.js');
    return new UndiciTransport(createDispatcher(secureContext, proxy, opts.connections), true);
  }
  const { NodeTransport } = await import('./transport-node.js');
  return new NodeTransport(secureContext);
}

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string;
}

const pick = (env: NodeJS.ProcessEnv, lower: string): string | undefined => {
  const v = env[lower];
  if (v !== undefined && v !== '') return v;
  const u = env[lower.toUpperCase()];
  return u !== undefined && u !== '' ? u : undefined;
};

/**
 * The proxy variables as undici's `EnvHttpProxyAgent` reads them (lower case wins), taken from
 * `env` rather than `process.env`; `undefined` when no proxy is configured.
 */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const httpProxy = pick(env, 'http_proxy');
  const httpsProxy = pick(env, 'https_proxy');
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy, noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

/** Does NO_PROXY exempt this address (undici's rules: `*`, exact, suffix, optional :port)? */
export function proxyBypassed(noProxy: string, u: URL): boolean {
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return noProxy
    .split(/[,\s]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === '*') return true;
      const m = /^(.+?)(?::(\d+))?$/.exec(entry.toLowerCase())!;
      if (m[2] && m[2] !== port) return false;
      const h = m[1].replace(/^\*?\./, '');
      return host === h || host.endsWith(`.${h}`);
    });
}

/** Node reads NODE_EXTRA_CA_CERTS once, at start-up, into its default trust store. */
const startupExtraCa = process.env.NODE_EXTRA_CA_CERTS;

/**
 * The trust store to pass as `ca`, or undefined when Node's default store already is the right
 * one (no extra file, or the same NODE_EXTRA_CA_CERTS Node loaded at start-up). Otherwise it is
 * Node's bundled roots plus the extra files.
 */
export function trustedCertificates(env: NodeJS.ProcessEnv, caFile?: string): string[] | undefined {
  const fromEnv = env.NODE_EXTRA_CA_CERTS || undefined;
  if (!caFile && (!fromEnv || fromEnv === startupExtraCa)) return undefined;
  const extra: string[] = [];
  if (fromEnv) {
    try {
      extra.push(readFileSync(fromEnv, 'utf8'));
    } catch {
      // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS and goes on; so do we.
    }
  }
  if (caFile) {
    try {
      extra.push(readFileSync(caFile, 'utf8'));
    } catch (e) {
      throw new UsageError(`cannot read the CA file ${caFile}: ${(e as Error).message}`);
    }
  }
  return extra.length ? [...builtin('node:tls').rootCertificates, ...extra] : undefined;
}

/**
 * The whole body of an answer as text, refusing more than `max` bytes (`tooBig` is the error
 * then), received or decoded. A body sent with a Content-Encoding is decoded (`undecodable` is the
 * error for one that cannot be), and text in a declared charset other than UTF-8 read in it
 * (encoding.ts). A declared length within the cap of a UTF-8 body sent as it is is read whole:
 * the parser reads no further.
 */
export function readBody(res: TransportResponse, max: number, tooBig: () => Error, undecodable: (why: string) => Error): Promise<string> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.reject(tooBig());
  const codings = contentCodings(res.headers['content-encoding']);
  const charset = otherCharset(res.headers['content-type']);
  if (codings.length === 0 && charset === undefined && res.headers['content-length'] !== undefined && Number.isFinite(declared))
    return res.text();
  return readBytes(res.body, max, tooBig).then((raw) => {
    if (codings.length === 0) return textIn(raw, charset);
    try {
      return textIn(decodeBody(raw, codings, max), charset);
    } catch (e) {
      if (e instanceof DecodedTooLarge) throw tooBig();
      if (e instanceof UndecodableBody) throw undecodable(e.message);
      throw e;
    }
  });
}

/** Every byte of a body, refusing more than `max`; a body closed before its end is a reset connection. */
function readBytes(body: import('node:stream').Readable, max: number, tooBig: () => Error): Promise<Buffer> {
  // Events rather than `for await`: a stream's async iterator is cold code that slows a
  // single command.
  return new Promise<Buffer>((resolve, reject) => {
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
      resolve(Buffer.concat(chunks, total));
    });
    body.once('error', reject);
    // Closed before the end of the body arrived: the answer is incomplete.
    body.once('close', () => {
      if (!ended) reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
  });
}
