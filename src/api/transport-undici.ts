/**
 * The undici transport (see transport.ts for when it is chosen). undici is imported by deep
 * paths: its package root loads fetch, WebSocket, caches and more, which take several times as
 * long to load as the agent and the request helper.
 */
import { createRequire } from 'node:module';
import type { SecureContext } from 'node:tls';
import type { Dispatcher } from 'undici';
// @ts-expect-error -- deep path into undici: no type declarations; typed through `AgentClass` below.
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error -- deep path into undici: no type declarations; typed through `requestImpl` below.
import requestFn from 'undici/lib/api/api-request.js';
import type { ProxySettings, SendOptions, Transport, TransportResponse } from './transport.js';

type AgentClass = typeof import('undici').Agent;
type EnvHttpProxyAgentClass = typeof import('undici').EnvHttpProxyAgent;
type AgentOptions = ConstructorParameters<AgentClass>[0];

const Agent = AgentImpl as AgentClass;

/**
 * undici's `request()` helper, bound at call time to any dispatcher (`this.dispatch(...)`).
 * `import 'undici/lib/api/index.js'` alone does not add `.request` to dispatchers (the package
 * root does that), so this is called instead: it works with our Agent, an injected `MockAgent`
 * or any other undici 7 dispatcher.
 */
const requestImpl = requestFn as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

export class UndiciTransport implements Transport {
  readonly kind = 'undici' as const;
  constructor(
    readonly dispatcher: Dispatcher,
    private readonly owned: boolean,
  ) {}

  async send(o: SendOptions): Promise<TransportResponse> {
    const res = await requestImpl.call(this.dispatcher, {
      origin: o.origin,
      path: o.path,
      method: o.method as Dispatcher.HttpMethod,
      headers: o.headers,
      body: o.body,
      signal: o.signal,
    });
    return {
      statusCode: res.statusCode,
      headers: res.headers as TransportResponse['headers'],
      body: res.body,
      text: () => res.body.text(),
    };
  }

  async close(): Promise<void> {
    if (this.owned) await this.dispatcher.close();
  }
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
 * A keep-alive Agent, or an EnvHttpProxyAgent when a proxy is configured; `connections` caps
 * the connections per server (requests beyond it wait for a free one).
 */
export function createDispatcher(
  secureContext: SecureContext | undefined,
  proxy: ProxySettings | undefined,
  connections?: number,
): Dispatcher {
  const base: AgentOptions = {
    keepAliveTimeout: 4_000,
    ...(connections ? { connections } : {}),
    // Time-outs are enforced per attempt by the client (headers and body together); these
    // inactivity limits only bound a connection nobody is waiting for any more.
    connect: secureContext ? { secureContext, timeout: 10_000 } : { timeout: 10_000 },
  };
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
