/**
 * The transport against real local servers: a forward proxy (absolute-URI requests and CONNECT
 * tunnels) for the proxy variables, and an https server whose certificate comes from a CA made
 * here with openssl for NODE_EXTRA_CA_CERTS.
 */
import { rmSync } from 'node:fs';
import https from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { NetworkError } from '../../src/api/errors.js';
import { createTransport, proxySettings, trustedCertificates } from '../../src/api/transport.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { loopbackCertificates } from '../support/tls-certs.js';
import { tempDir } from '../support/tmp.js';

const require = createRequire(import.meta.url);

// First, before any test creates a proxy dispatcher: a run without proxy variables never loads
// EnvHttpProxyAgent (each test file runs in its own process).
describe('start-up cost', () => {
  it('without proxy variables: node:http, or a plain undici Agent for throughput; EnvHttpProxyAgent is not loaded', async () => {
    const n = await createTransport({});
    expect(n.kind).toBe('node');
    await n.close();
    const d = await createTransport({}, { throughput: true });
    expect(d.kind).toBe('undici');
    expect((d as unknown as { dispatcher: object }).dispatcher.constructor.name).toBe('Agent');
    expect(require.cache[require.resolve('undici/lib/dispatcher/env-http-proxy-agent.js')]).toBeUndefined();
    await d.close();
    const p = await createTransport({ https_proxy: 'http://127.0.0.1:9' });
    expect(p.kind).toBe('undici');
    expect((p as unknown as { dispatcher: object }).dispatcher.constructor.name).toBe('EnvHttpProxyAgent');
    expect(require.cache[require.resolve('undici/lib/dispatcher/env-http-proxy-agent.js')]).toBeDefined();
    await p.close();
  });
});

describe('rule 11: proxy variables', () => {
  let target: StubServer;
  let proxyA: Proxy;
  let proxyB: Proxy;
  const clients: ApiClient[] = [];
  const client = (env: NodeJS.ProcessEnv) => {
    const c = new ApiClient({ baseUrl: target.url, env, retries: 0 });
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    target = await startStubServer(() => ok({ via: 'target' }));
    proxyA = await startProxy();
    proxyB = await startProxy();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all([target.close(), proxyA.close(), proxyB.close()]);
  });

  it('proxySettings: lower case wins, empty values are unset, NO_PROXY read', () => {
    expect(proxySettings({})).toBeUndefined();
    expect(proxySettings({ http_proxy: '' })).toBeUndefined();
    expect(proxySettings({ http_proxy: 'http://a', HTTP_PROXY: 'http://b', NO_PROXY: 'x' })).toEqual({
      httpProxy: 'http://a',
      httpsProxy: undefined,
      noProxy: 'x',
    });
    expect(proxySettings({ HTTPS_PROXY: 'http://c', no_proxy: 'y', NO_PROXY: 'z' })).toEqual({
      httpProxy: undefined,
      httpsProxy: 'http://c',
      noProxy: 'y',
    });
  });

  // undici's EnvHttpProxyAgent has no loopback exception of its own: with http_proxy set and
  // no_proxy unset, even http://127.0.0.1 goes through the proxy (as curl does). The test
  // asserts that real behaviour; no_proxy is how a user exempts the local sandbox.
  it('http_proxy: a request to http://127.0.0.1 goes through the proxy as an absolute-URI request', async () => {
    const out = await client({ http_proxy: proxyA.url }).request('GET', '/admin/services', { query: { page_size: '5' } });
    expect(out.data).toEqual({ via: 'target' });
    expect(proxyA.seen).toEqual([`GET ${target.url}/admin/services?page_size=5`]);
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0].headers['x-via-test-proxy']).toBe('1');
  });

  it('HTTP_PROXY (upper case) is honoured too', async () => {
    await client({ HTTP_PROXY: proxyA.url }).request('GET', '/x');
    expect(proxyA.seen).toEqual([`GET ${target.url}/x`]);
  });

  it('lower case wins when both are set', async () => {
    await client({ http_proxy: proxyA.url, HTTP_PROXY: proxyB.url }).request('GET', '/x');
    expect(proxyA.seen).toHaveLength(1);
    expect(proxyB.seen).toHaveLength(0);
  });

  it.each([{ no_proxy: '127.0.0.1' }, { NO_PROXY: 'localhost,127.0.0.1' }, { no_proxy: '*' }])('%o bypasses the proxy', async (np) => {
    await client({ http_proxy: proxyA.url, ...np }).request('GET', '/x');
    expect(proxyA.seen).toHaveLength(0);
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0].headers['x-via-test-proxy']).toBeUndefined();
  });

  it('the dispatcher reads `env`, not process.env', async () => {
    const saved = process.env.no_proxy;
    process.env.no_proxy = '*';
    try {
      await client({ http_proxy: proxyA.url }).request('GET', '/x');
      expect(proxyA.seen).toHaveLength(1);
    } finally {
      if (saved === undefined) delete process.env.no_proxy;
      else process.env.no_proxy = saved;
    }
  });

  it('a proxy that refuses connections is a NetworkError (exit 7)', async () => {
    const port = Number(new URL(proxyB.url).port);
    await proxyB.close();
    const e = await client({ http_proxy: `http://127.0.0.1:${port}` })
      .request('GET', '/x')
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).exitCode).toBe(7);
    proxyB = await startProxy();
  });
});

describe.each([
  ['node:http', false],
  ['undici', true],
] as const)('rule 12: NODE_EXTRA_CA_CERTS (%s transport)', (_kind, throughput) => {
  let dir: string;
  let caFile: string;
  let server: https.Server;
  let url: string;
  let handshakes = 0;
  let proxy: Proxy;

  beforeAll(async () => {
    dir = tempDir('subctl-ca-');
    const { key, cert } = loopbackCertificates(dir, 'subctl test CA');
    caFile = join(dir, 'ca.pem');
    server = https.createServer({ key, cert }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: true, message: 'OK', data: { secure: true } }));
    });
    server.on('secureConnection', () => handshakes++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    proxy = await startProxy();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (env: NodeJS.ProcessEnv, caFile?: string) => {
    const c = new ApiClient({ baseUrl: url, env, retries: 2, sleep: async () => {}, caFile });
    if (throughput) c.preferThroughput();
    try {
      return await c.request('GET', '/admin/services');
    } finally {
      await c.close();
    }
  };

  it('without the CA the call fails with a TLS NetworkError (exit 7), not retried, with a hint', async () => {
    const before = handshakes;
    const e = await call({}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    const n = e as NetworkError;
    expect(n.exitCode).toBe(7);
    expect(n.message).toMatch(/TLS|certificate/i);
    expect(n.hint).toMatch(/NODE_EXTRA_CA_CERTS/);
    expect(handshakes).toBe(before);
  });

  it('with NODE_EXTRA_CA_CERTS pointing at the CA the call succeeds', async () => {
    const out = await call({ NODE_EXTRA_CA_CERTS: caFile });
    expect(out.status).toBe(200);
    expect(out.data).toEqual({ secure: true });
  });

  it('the caFile option works the same', async () => {
    expect((await call({}, caFile)).data).toEqual({ secure: true });
  });

  it('the public roots are kept next to the extra CA (passing ca replaces the store otherwise)', () => {
    const ca = trustedCertificates({ NODE_EXTRA_CA_CERTS: caFile })!;
    expect(ca.length).toBe(tls.rootCertificates.length + 1);
    expect(ca.slice(0, -1)).toEqual([...tls.rootCertificates]);
    expect(ca.at(-1)).toContain('BEGIN CERTIFICATE');
    // Node already loaded its own start-up NODE_EXTRA_CA_CERTS: nothing to pass then.
    expect(trustedCertificates({ NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS })).toBeUndefined();
    expect(trustedCertificates({})).toBeUndefined();
    expect(() => trustedCertificates({}, join(dir, 'missing.pem'))).toThrow(/cannot read the CA file/);
  });

  it('https through https_proxy uses a CONNECT tunnel and still trusts NODE_EXTRA_CA_CERTS', async () => {
    const env = { https_proxy: proxy.url, NODE_EXTRA_CA_CERTS: caFile };
    const c = new ApiClient({ baseUrl: url, env, retries: 0 });
    if (throughput) c.preferThroughput();
    const seen = proxy.seen.length;
    try {
      expect((await c.request('GET', '/admin/services')).data).toEqual({ secure: true });
      expect(proxy.seen.slice(seen)).toEqual([`CONNECT ${new URL(url).host}`]);
    } finally {
      await c.close();
    }
  });
});
