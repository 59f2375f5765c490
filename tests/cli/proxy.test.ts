/**
 * Proxies as a user behind one meets them: the embedded sandbox, served by subctl's own
 * process on loopback, is reached directly whatever http_proxy/https_proxy say (through a proxy
 * it failed with "connection refused by 127.0.0.1:<sandbox port>"); a proxy that cannot be
 * reached is named as the proxy, not as the server.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { proxyPeer } from '../../src/api/client.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('proxies', () => {
  it('the embedded sandbox is reached directly behind a proxy that is down: a page, every page (--all, undici), doctor', async () => {
    const port = await deadPort();
    const env = { SUBCTL_CONFIG_DIR: tempConfigDir(), http_proxy: `http://127.0.0.1:${port}`, HTTPS_PROXY: `http://127.0.0.1:${port}` };
    const one = await runCli('--sandbox services list -o json --retries 0', { env });
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).length).toBeGreaterThan(5);
    const all = await runCli('--sandbox wallet list --all -o ndjson --limit 250 --retries 0', { env });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trim().split('\n')).toHaveLength(250);
    const doctor = await runCli('--sandbox doctor', { env });
    expect(doctor.stdout + doctor.stderr).toMatch(/ok\s+reachability: the embedded sandbox answered/);
  });

  it('a proxy that refuses the connection is named as the proxy, with the server it was on the way to (exit 7)', async () => {
    const port = await deadPort();
    const r = await runCli('services list --base-url https://api.example.com --retries 0', {
      env: { SUBCTL_CONFIG_DIR: tempConfigDir(), SUBCTL_TOKEN: 't', https_proxy: `http://127.0.0.1:${port}` },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(
      `error: GET https://api.example.com/admin/services: connection refused by the proxy http://127.0.0.1:${port} on the way to api.example.com (ECONNREFUSED)\n`,
    );
    expect(r.stderr).toMatch(/^hint: check https_proxy, http_proxy and no_proxy/m);
  });

  it('proxyPeer: the proxy whose address (or unresolved name) and port the error names; nothing without a proxy or for another peer', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3128'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 3128,
    });
    const wrapped = Object.assign(new Error('fetch failed'), { cause: refused });
    expect(proxyPeer(wrapped, { httpsProxy: 'http://127.0.0.1:3128' })).toBe('http://127.0.0.1:3128');
    expect(proxyPeer(refused, { httpProxy: 'http://127.0.0.1:8080' })).toBeUndefined();
    expect(proxyPeer(refused, undefined)).toBeUndefined();
    const unresolved = Object.assign(new Error('getaddrinfo ENOTFOUND proxy.corp'), { code: 'ENOTFOUND', hostname: 'proxy.corp' });
    expect(proxyPeer(unresolved, { httpProxy: 'http://proxy.corp:3128' })).toBe('http://proxy.corp:3128');
    const v6 = Object.assign(new Error('x'), { code: 'ECONNREFUSED', address: '::1', port: 80 });
    expect(proxyPeer(v6, { httpProxy: 'http://[::1]' })).toBe('http://[::1]');
  });
});
