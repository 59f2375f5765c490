/**
 * subctl behind the gateways, proxies and CDNs real platforms sit behind: what the user sees
 * (stdout, stderr, the exit code) when they answer in ways the platform itself never would.
 * The servers here write raw HTTP answers (compressed bodies, HTML pages, empty bodies), which
 * tests/support/stub-server.ts does not.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface Gateway {
  url: string;
  seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }>;
  handle(h: Handler): void;
  close(): Promise<void>;
}

async function startGateway(): Promise<Gateway> {
  let handler: Handler = (_q, res) => res.end();
  const seen: Gateway['seen'] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    handle(h) {
      handler = h;
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const ROWS = [
  { service_id: 1, service_code: 'OCR', service_name: 'Vision Ünïcode' },
  { service_id: 2, service_code: 'TTS', service_name: 'Speech' },
];
const PAGE = JSON.stringify({
  status: true,
  message: 'OK',
  data: { services: ROWS, pagination: { page_number: 1, page_size: 20, total_pages: 1, total_records: 2 } },
});

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const run = (args: string) => runCli(`${args} --base-url ${gw.url} --retries 0`, { env: { SUBCTL_TOKEN: 'tok-123' } });

describe('compressed answers (a gateway or CDN compresses whether asked or not)', () => {
  const codings: Array<[string, string, (b: Buffer) => Buffer]> = [
    ['gzip', '', (b) => zlib.gzipSync(b)],
    ['x-gzip', '', (b) => zlib.gzipSync(b)],
    ['br', '', (b) => zlib.brotliCompressSync(b)],
    ['deflate', ' (zlib-wrapped)', (b) => zlib.deflateSync(b)],
    // Some servers send raw deflate under `deflate`.
    ['deflate', ' (raw)', (b) => zlib.deflateRawSync(b)],
    ['gzip, br', '', (b) => zlib.brotliCompressSync(zlib.gzipSync(b))],
  ];
  for (const [coding, how, encode] of codings) {
    it(`Content-Encoding: ${coding}${how} is decoded, for one page (node:http) and for --all (undici)`, async () => {
      const body = encode(Buffer.from(PAGE));
      gw.handle((_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': body.length });
        res.end(body);
      });
      const one = await run('services list -o json');
      expect(one.stderr).toBe('');
      expect(JSON.parse(one.stdout)).toEqual(ROWS);
      expect(one.code).toBe(0);
      // subctl asks for no compression; the server sent it anyway.
      expect(gw.seen[0].headers['accept-encoding']).toBeUndefined();
      const all = await run('services list --all -o csv --fields service_id,service_name');
      expect(all.stdout).toBe('service_id,service_name\n1,Vision Ünïcode\n2,Speech\n');
      expect(all.code).toBe(0);
    });
  }

  it('a compressed body that unpacks past the 64 MiB cap is refused, not unpacked into memory (exit 6)', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(65 * 1024 * 1024, 0x20));
    gw.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const r = await run('services list');
    expect(r.stderr).toMatch(
      /^error: the answer to GET http:\/\/127\.0\.0\.1:\d+\/admin\/services.* \(HTTP 200\) is larger than 64 MiB; refusing to read it\n/,
    );
    expect(r.stdout).toBe('');
    expect(r.code).toBe(6);
  });

  it('an encoding subctl cannot decode, or bytes that are not the encoding named: named, exit 6, no bytes printed', async () => {
    gw.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
      res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x1b, 0x07]));
    });
    const z = await run('services list');
    expect(z.stderr).toMatch(
      /^error: cannot read the answer to GET \S+ \(HTTP 200\): it is encoded as "zstd", which subctl cannot decode\n/,
    );
    expect(z.code).toBe(6);
    gw.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(PAGE);
    });
    const g = await run('services list');
    expect(g.stderr).toMatch(/^error: cannot read the answer to GET \S+ \(HTTP 200\): its gzip encoding could not be decoded \(.+\)\n/);
    expect(g.stdout).toBe('');
    expect(g.code).toBe(6);
  });

  it('a gzip answer cut off before its end is a network failure (exit 7), never a short list', async () => {
    const body = zlib.gzipSync(Buffer.from(PAGE));
    gw.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.write(body.subarray(0, 20));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const r = await run('services list');
    expect(r.stderr).toMatch(/^error: GET \S+: connection to 127\.0\.0\.1:\d+ closed before the answer was complete/);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(7);
  });
});
