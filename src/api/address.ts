/**
 * Address and proxy policy: which base URLs the client accepts, and the proxy a failed
 * connection went to. Plain http:// is for loopback only, where nothing leaves the machine;
 * through a proxy elsewhere it would (the bearer token and a login's password, in clear, to the
 * proxy): refused, unless the proxy is on loopback, or NO_PROXY names the address.
 */
import { RefusedError, UsageError } from './errors.js';
import { proxyBypassed, proxySettings } from './transport.js';

/** True for 127.0.0.0/8, ::1 (also IPv4-mapped loopback) and `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
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

/**
 * The base URL checked against the policy: a URL, https:// (or http:// to loopback, directly),
 * without credentials. `checkProxy`: false when the client connects directly (the embedded
 * sandbox) or through an injected dispatcher (tests).
 */
export function checkBaseUrl(baseUrl: string, env: NodeJS.ProcessEnv, checkProxy: boolean): URL {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new UsageError(`invalid base URL: ${JSON.stringify(baseUrl)}`, {
      hint: 'give an address like https://api.example.com (--base-url)',
    });
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
  if (u.protocol === 'http:' && checkProxy) refusePlainProxy(u, env);
  return u;
}

function refusePlainProxy(u: URL, env: NodeJS.ProcessEnv): void {
  const p = proxySettings(env);
  if (!p?.httpProxy || proxyBypassed(p.noProxy, u)) return;
  let via: URL | undefined;
  try {
    via = new URL(p.httpProxy);
  } catch {
    return; // the transport names a proxy it cannot read
  }
  if (via.protocol === 'http:' && !isLoopbackHost(via.hostname)) {
    throw new RefusedError(
      `refusing plain http:// to ${u.host} through the proxy ${via.host} (http_proxy): credentials would travel unencrypted beyond this machine`,
      `add ${u.hostname} to NO_PROXY (NO_PROXY=${u.hostname}) to reach it directly, or use an https:// address`,
    );
  }
}

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
    if (peers.some((x) => (x.address === host || x.hostname === host) && (x.port === undefined || String(x.port) === port)))
      return `${u.protocol}//${u.host}`;
  }
  return undefined;
}

/**
 * The proxy a request to `url` goes through, as undici's EnvHttpProxyAgent picks it (https://
 * through https_proxy, else http_proxy), without its credentials; undefined when none applies.
 */
export function proxyFor(url: URL, proxy: { httpProxy?: string; httpsProxy?: string } | undefined): string | undefined {
  const p = url.protocol === 'https:' ? (proxy?.httpsProxy ?? proxy?.httpProxy) : proxy?.httpProxy;
  if (!p) return undefined;
  try {
    const u = new URL(p);
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}
