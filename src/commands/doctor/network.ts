/**
 * The network checks: proxies in the environment, and whether the platform answers a plain
 * `GET /` (the answer also carries the server's clock for the clock check). Failing
 * reachability is exit 7 (see src/commands/doctor/index.ts).
 */
import { proxyBypassed, type Transport } from '../../api/transport.js';
import type { Ctx } from '../../cli/context.js';
import { DOCTOR_TIMEOUT_MS, type DoctorRun, type Probe } from './types.js';

function redactProxy(p: string): string {
  try {
    const u = new URL(p);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString().replace(/\/$/, '');
  } catch {
    return p;
  }
}

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME|HOSTNAME/i;

export function errorCode(e: unknown): string | undefined {
  let cur = e as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 4 && cur; i++) {
    if (typeof cur.code === 'string' && !/^UND_ERR_(SOCKET|ABORTED)$/.test(cur.code)) return cur.code;
    cur = cur.cause as typeof cur;
  }
  return undefined;
}

async function probe(ctx: Ctx, base: URL, timeoutMs: number, direct = false): Promise<Probe> {
  const { createTransport } = await import('../../api/transport.js');
  let transport: Transport | undefined;
  const started = performance.now();
  const localStart = ctx.now().getTime();
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
  try {
    transport = await createTransport(ctx.io.env, { direct });
    const path = `${base.pathname.replace(/\/+$/, '')}/`;
    const res = await transport.send({
      origin: base.origin,
      path,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'subctl-doctor' },
      signal,
    });
    // Read to the end (an answer to `/` is small): destroying undici's body mid-way rejects
    // the request's own promise, unhandled.
    await res.text().catch(() => '');
    const ms = Math.round(performance.now() - started);
    const date = res.headers.date;
    return {
      ok: true,
      ms,
      status: res.statusCode,
      date: Array.isArray(date) ? date[0] : date,
      localMid: (localStart + ctx.now().getTime()) / 2,
    };
  } catch (e) {
    const ms = Math.round(performance.now() - started);
    const timedOut = signal.aborted && !ctx.signal.aborted;
    const code = timedOut ? 'ETIMEDOUT' : errorCode(e);
    const message = timedOut ? `no answer within ${timeoutMs} ms` : ((e as Error)?.message ?? String(e));
    return { ok: false, ms, error: message, code, tlsError: !!code && TLS_CODE.test(code), localMid: localStart };
  } finally {
    await transport?.close().catch(() => {});
  }
}

/** The proxy variables, whether they parse, and whether the checked address goes through one. */
export async function checkProxy(s: DoctorRun): Promise<void> {
  const { env, add, where } = s;
  const { proxySettings } = await import('../../api/transport.js');
  const proxy = proxySettings(env);
  s.proxy = proxy;
  if (!proxy) add('proxy', 'ok', 'none (direct connections)');
  else {
    const parts: string[] = [];
    if (proxy.httpsProxy) parts.push(`https_proxy ${redactProxy(proxy.httpsProxy)}`);
    if (proxy.httpProxy) parts.push(`http_proxy ${redactProxy(proxy.httpProxy)}`);
    if (proxy.noProxy) parts.push(`no_proxy ${proxy.noProxy}`);
    const bad = [proxy.httpsProxy, proxy.httpProxy]
      .filter((p): p is string => !!p)
      .filter((p) => {
        try {
          new URL(p);
          return false;
        } catch {
          return true;
        }
      });
    const target = where.url;
    const chosen = target ? (target.protocol === 'https:' ? (proxy.httpsProxy ?? proxy.httpProxy) : proxy.httpProxy) : undefined;
    const proxyApplies = !!target && !!chosen && !proxyBypassed(proxy.noProxy, target);
    s.proxyApplies = proxyApplies;
    const applies = where.sandbox
      ? 'the embedded sandbox is on loopback'
      : target
        ? proxyApplies
          ? `${target.host} goes through ${redactProxy(chosen!)}`
          : `${target.host} is reached directly${chosen ? ' (no_proxy)' : ''}`
        : '';
    if (bad.length) add('proxy', 'fail', `${parts.join(', ')}: ${bad.join(', ')} is not a URL`, 'give the proxy as http://host:port');
    else add('proxy', 'ok', `${parts.join(', ')}${applies ? `; ${applies}` : ''}`);
  }
}

/** Whether the sandbox or the checked address answers, how fast, and if not, why. */
export async function checkReachability(s: DoctorRun): Promise<void> {
  const { ctx, g, add, where, timeoutMs, proxy, proxyApplies } = s;
  let reached: Probe | undefined;
  if (where.sandbox) {
    try {
      if (g.timeout === undefined) g.timeout = DOCTOR_TIMEOUT_MS;
      if (g.retries === undefined) g.retries = 0;
      s.api = await ctx.api();
      // The sandbox listens in this process: reached directly, as commands reach it.
      reached = await probe(ctx, new URL(ctx.target()!.baseUrl), timeoutMs, true);
      if (reached.ok) add('reachability', 'ok', `the embedded sandbox answered in ${reached.ms} ms`);
      else
        add(
          'reachability',
          'fail',
          `the embedded sandbox did not answer: ${reached.error}`,
          'run `subctl sandbox reset` to start from fresh data',
        );
    } catch (e) {
      add(
        'reachability',
        'fail',
        `the embedded sandbox did not start: ${(e as Error).message}`,
        'run `subctl sandbox reset`, or see `subctl sandbox --help`',
      );
    }
  } else if (where.url) {
    reached = await probe(ctx, where.url, timeoutMs);
    const host = where.url.host;
    if (reached.ok) {
      const s = reached.status!;
      if (s >= 500)
        add(
          'reachability',
          'warn',
          `${host} answered in ${reached.ms} ms, but with HTTP ${s}`,
          'the server is up but failing: try again later, or tell its operators',
        );
      else
        add(
          'reachability',
          'ok',
          `${host} answered in ${reached.ms} ms (GET ${where.url.pathname.replace(/\/+$/, '')}/ -> HTTP ${s}${proxyApplies ? ', through the proxy' : ''})`,
        );
    } else if (reached.tlsError) {
      add('reachability', 'fail', `${host}: the TLS handshake failed (${reached.code})`, 'see the tls check');
    } else {
      const code = reached.code;
      const fix =
        code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? `check the host name in the base address${proxy ? ' and the proxy settings' : ''}, and your DNS`
          : code === 'ECONNREFUSED'
            ? `nothing listens on ${host}: check the address and port, and that the platform is running`
            : code === 'ETIMEDOUT'
              ? `check the network path to ${host} (VPN, firewall${proxy ? ', proxy' : ''}); --timeout MS allows more time`
              : `check the address and the network${proxy ? ' (and the proxy)' : ''}`;
      add(
        'reachability',
        'fail',
        `no answer from ${host}${proxyApplies ? ' (through the proxy)' : ''} after ${reached.ms} ms: ${reached.error}${code && !reached.error?.includes(code) ? ` (${code})` : ''}`,
        fix,
      );
    }
  } else {
    add('reachability', 'warn', 'not checked: no usable base address', 'fix the base-url check first');
  }

  s.reached = reached;
}
