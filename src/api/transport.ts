/**
 * The HTTP transport: which undici dispatcher carries the requests.
 *
 * - A keep-alive `Agent` by default.
 * - `EnvHttpProxyAgent` when `http_proxy`/`https_proxy` (either case; lower case wins) is set,
 *   honouring `no_proxy`. It is loaded lazily: most runs have no proxy and should not pay for it.
 * - `NODE_EXTRA_CA_CERTS` (and `caFile`) merged with Node's bundled roots: undici's `connect.ca`
 *   replaces the whole trust store, so passing only the extra file would drop the public roots.
 *   When `env` holds the same NODE_EXTRA_CA_CERTS Node loaded at start-up, Node's default store
 *   already has it and nothing is passed.
 *
 * undici is imported by deep paths: its package root loads fetch, WebSocket, caches and more
 * (about 90 ms on Node 20) where the agent and the request helper take about 30 ms.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import tls from 'node:tls';
import type { Dispatcher } from 'undici';
// @ts-expect-error -- deep path into undici: no type declarations; typed through `AgentClass` below.
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error -- deep path into undici: no type declarations; typed through `requestImpl` below.
import requestFn from 'undici/lib/api/api-request.js';
import { UsageError } from './errors.js';

type AgentClass = typeof import('undici').Agent;
type EnvHttpProxyAgentClass = typeof import('undici').EnvHttpProxyAgent;
type AgentOptions = ConstructorParameters<AgentClass>[0];

const Agent = AgentImpl as AgentClass;

/**
 * undici's `request()` helper, bound at call time to any dispatcher (`this.dispatch(...)`).
 * `import 'undici/lib/api/index.js'` alone does not add `.request` to dispatchers (the package
 * root does that), so the client calls this instead: it works with our Agent, an injected
 * `MockAgent` or any other undici 7 dispatcher.
 */
const requestImpl = requestFn as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/** Sends one request over `dispatcher`; no retries, no redirects (the caller's business). */
export function sendRequest(dispatcher: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestImpl.call(dispatcher, opts);
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
  return extra.length ? [...tls.rootCertificates, ...extra] : undefined;
}

let envProxyAgentClass: EnvHttpProxyAgentClass | undefined;
function loadEnvHttpProxyAgent(): EnvHttpProxyAgentClass {
  if (envProxyAgentClass) return envProxyAgentClass;
  // Loaded on demand through require so that createDispatcher stays synchronous.
  const load = createRequire(import.meta.url);
  // ProxyAgent opens its CONNECT tunnels with `client.connect()`, one of the API methods the
  // package root copies onto Dispatcher.prototype; the deep imports skip that step, so do it here
  // (without it an https target behind a proxy fails with "this[kClient].connect is not a function").
  const DispatcherClass = load('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
  Object.assign(DispatcherClass.prototype, load('undici/lib/api/index.js'));
  envProxyAgentClass = load('undici/lib/dispatcher/env-http-proxy-agent.js') as EnvHttpProxyAgentClass;
  return envProxyAgentClass;
}

/**
 * The dispatcher for a run.
 * @example createDispatcher(process.env) // Agent, or EnvHttpProxyAgent when https_proxy is set
 */
export function createDispatcher(env: NodeJS.ProcessEnv = process.env, opts: { caFile?: string } = {}): Dispatcher {
  const ca = trustedCertificates(env, opts.caFile);
  // One secure context for every connection: handing `ca` itself to each tls.connect would
  // parse the ~150 roots again per connection (about 50 ms each).
  const secureContext = ca ? tls.createSecureContext({ ca }) : undefined;
  const base: AgentOptions = {
    keepAliveTimeout: 4_000,
    // Time-outs are enforced per attempt by the client (headers and body together); these
    // inactivity limits only bound a connection nobody is waiting for any more.
    connect: secureContext ? { secureContext, timeout: 10_000 } : { timeout: 10_000 },
  };
  const proxy = proxySettings(env);
  if (!proxy) return new Agent(base);
  const EnvHttpProxyAgent = loadEnvHttpProxyAgent();
  return new EnvHttpProxyAgent({
    ...base,
    httpProxy: proxy.httpProxy,
    httpsProxy: proxy.httpsProxy,
    // Given explicitly, or undici would read process.env.no_proxy instead of `env`.
    noProxy: proxy.noProxy,
    // http:// targets go to the proxy as absolute-URI requests (as curl does); https:// ones
    // through a CONNECT tunnel.
    proxyTunnel: false,
    // Through a tunnel the target's TLS is set up by `requestTls`, not `connect`.
    ...(secureContext ? { requestTls: { secureContext }, proxyTls: { secureContext } } : {}),
  } as ConstructorParameters<EnvHttpProxyAgentClass>[0]);
}
