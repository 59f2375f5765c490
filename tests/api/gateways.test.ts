/**
 * subctl behind the gateways, proxies and CDNs real platforms sit behind: what the user sees
 * (stdout, stderr, the exit code) when they answer in ways the platform itself never would.
 * The servers here write raw HTTP answers (compressed bodies, HTML pages, empty bodies), which
 * tests/support/stub-server.ts does not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

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

  it('a body sent as it is under a misnamed Content-Encoding (utf-8, none) is read when it is JSON', async () => {
    for (const coding of ['utf-8', 'none']) {
      gw.handle((_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
        res.end(PAGE);
      });
      const r = await run('services list -o json');
      expect(JSON.parse(r.stdout), coding).toEqual(ROWS);
      expect(r.code, coding).toBe(0);
    }
  });

  it('an answer in a declared charset other than UTF-8 (Latin-1) keeps its letters, one page and --all, compressed or not', async () => {
    for (const gzip of [false, true]) {
      const latin1 = Buffer.from(PAGE, 'latin1');
      const body = gzip ? zlib.gzipSync(latin1) : latin1;
      gw.handle((_q, res) => {
        res.writeHead(200, {
          'content-type': 'application/json; charset=ISO-8859-1',
          'content-length': body.length,
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        });
        res.end(body);
      });
      const one = await run('services list -o json');
      expect(JSON.parse(one.stdout)).toEqual(ROWS);
      const all = await run('services list --all -o csv --fields service_id,service_name');
      expect(all.stdout).toBe('service_id,service_name\n1,Vision Ünïcode\n2,Speech\n');
    }
  });

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

const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway\u001b]0;owned\u0007\u001b[2J</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';
const SSO =
  '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><script>var t = "<title>x</title>";</script><title>\n  Sign in &ndash; Corp SSO &amp; VPN\n</title>' +
  '<style>body{}</style></head><body><form action="/login"><input name="password"></form></body></html>';

function page(status: number, html: string, extra: Record<string, string> = {}): Handler {
  return (_q, res) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...extra });
    res.end(html);
  };
}

describe('web pages from gateways, proxies and sign-in portals', () => {
  it.each([502, 503, 504])(
    '%i with an nginx page: one line naming the page by its title, no markup, no escapes; exit 6; -o json alike',
    async (status) => {
      gw.handle(page(status, NGINX_502.replaceAll('502', String(status))));
      const r = await run('services list');
      const title = `${status} Bad Gateway`;
      expect(r.stderr).toBe(
        `error: HTTP ${status} from GET ${gw.url}/admin/services: a web page ("${title}"), not JSON\n` +
          'hint: a gateway or proxy in front of the platform answered: the platform may be down, restarting or slow; run the command again later (--verbose shows the page)\n',
      );
      expect(r.stdout).toBe('');
      expect(r.code).toBe(6);
      const j = await run('services list -o json');
      expect(j.stdout).toBe('');
      expect(JSON.parse(j.stderr).error).toMatchObject({
        type: 'server',
        status,
        message: `HTTP ${status} from GET ${gw.url}/admin/services: a web page ("${title}"), not JSON`,
      });
      expect(j.code).toBe(6);
    },
  );

  it('a 200 sign-in page (SSO, captive portal): named by its title, entities read, the hint says what answered; exit 6, no rows printed', async () => {
    gw.handle(page(200, SSO));
    const r = await run('services list -o csv');
    expect(r.stderr).toBe(
      `error: HTTP 200 from GET ${gw.url}/admin/services is a web page ("Sign in – Corp SSO & VPN"), not JSON\n` +
        'hint: a sign-in page, captive portal or proxy answered instead of the platform: check the base URL and the network (`subctl doctor`); --verbose shows the page\n',
    );
    expect(r.stdout).toBe('');
    expect(r.code).toBe(6);
  });

  it('a 404 page from a web server (a wrong path prefix): exit 6, not "not found" (4), which a script may read as already deleted', async () => {
    gw.handle(page(404, '<html><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>'));
    const r = await run('services delete 7 --yes');
    expect(r.stderr).toBe(
      `error: HTTP 404 from DELETE ${gw.url}/admin/services is a web page ("Not Found"), not JSON\n` +
        "hint: a web server or gateway answered, not the platform's API: check the base URL and its path prefix (`subctl doctor`); --verbose shows the page\n",
    );
    expect(r.code).toBe(6);
  });

  it('a page without a title or heading is named by the start of its text; plain text by its start', async () => {
    gw.handle(page(503, `<html><body><p>Service <b>temporarily</b> unavailable.</p>${'<p>x</p>'.repeat(100)}</body></html>`));
    const r = await run('services list');
    expect(r.stderr).toMatch(
      /^error: HTTP 503 from GET \S+: a web page \("Service temporarily unavailable\. x x x[ x]*\.\.\."\), not JSON\n/,
    );
    expect(r.stderr.split('\n')[0].length).toBeLessThan(200);
    gw.handle((_q, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('upstream connect error or disconnect/reset before headers. reset reason: overflow');
    });
    const t = await run('services list');
    expect(t.stderr).toMatch(
      /^error: HTTP 502 from GET \S+: not JSON \(text\/plain\): upstream connect error or disconnect\/reset before headers\. reset reason: overflo\.\.\.\n/,
    );
    expect(t.code).toBe(6);
  });

  it('JSON sent as text/html (a misconfigured gateway) is read as the JSON it is', async () => {
    gw.handle(page(200, PAGE));
    const r = await run('services list -o json');
    expect(JSON.parse(r.stdout)).toEqual(ROWS);
    expect(r.code).toBe(0);
  });

  it.each([
    [413, 'the request is too large', 'takes smaller requests; send less at once'],
    [414, 'the request address is too long', 'takes shorter addresses; give fewer or shorter filters'],
    [
      431,
      'the request headers are too large',
      'takes smaller headers (the token, the session id); sign in again (`subctl auth login`) for a fresh token',
    ],
  ])('%i from a gateway: refused, nothing applied (exit 5), whatever the body', async (status, said, hint) => {
    gw.handle(page(status, `<html><head><title>${status} Too Large</title></head><body>nginx</body></html>`));
    const r = await run('services list');
    expect(r.stderr).toBe(
      `error: HTTP ${status} from GET ${gw.url}/admin/services: ${said} ("${status} Too Large")\n` +
        `hint: nothing was applied: the server or a gateway in front of it ${hint}\n`,
    );
    expect(r.code).toBe(5);
    gw.handle((_q, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: false, message: 'payload too large', data: null }));
    });
    const j = await run('services list');
    expect(j.stderr).toBe(
      `error: payload too large (HTTP ${status})\nhint: nothing was applied: the server or a gateway in front of it ${hint}\n`,
    );
    expect(j.code).toBe(5);
  });
});

describe('bulk runs through a gateway', () => {
  const EMPTY = JSON.stringify({
    status: true,
    message: 'OK',
    data: { pagination: { current_page: 1, page_size: 100, total_pages: 1, total_records: 0 }, subscriptions: [] },
  });
  const csv = (n: number) =>
    `subscription_id,action,reason,extend_days\n${Array.from({ length: n }, (_, i) => `${100 + i},extend,ticket ${i},30`).join('\n')}\n`;
  const writes = () => gw.seen.filter((s) => s.method !== 'GET');

  function bulkGateway(write: (id: number, res: http.ServerResponse) => void): Handler {
    return (req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(EMPTY);
        return;
      }
      write(Number((req.url ?? '').split('/')[3]), res);
    };
  }

  it('a row refused 413 by the gateway is failed, not applied, in the report (exit 8), and not sent again by the next run', async () => {
    const dir = tempDir('subctl-gw-bulk-');
    const input = join(dir, 'rows.csv');
    const report = join(dir, 'report.csv');
    writeFileSync(input, csv(3));
    gw.handle(
      bulkGateway((id, res) => {
        if (id === 101) {
          res.writeHead(413, { 'content-type': 'text/html' });
          res.end('<html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413</h1></center></body></html>');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: true, message: 'extended', data: { subscription_id: id } }));
      }),
    );
    const env = { SUBCTL_TOKEN: 'tok-123', SUBCTL_CONFIG_DIR: join(dir, 'cfg') };
    const args = ['subscriptions', 'manage', '--from-csv', input, '--yes', '--report', report, '--base-url', gw.url];
    const r = await runCli(args, { env });
    expect(r.stderr).toMatch(/3 rows: 2 applied, 1 failed, 0 unknown/);
    expect(r.code).toBe(8);
    const lines = readFileSync(report, 'utf8').split('\n');
    expect(lines[2]).toBe(
      `3,id=101,failed,1,413,"HTTP 413 from PUT ${gw.url}/admin/subscriptions/101/manage: the request is too large (""413 Request Entity Too Large"")",`,
    );
    expect(writes()).toHaveLength(3);
    const again = await runCli(args, { env });
    expect(again.code).toBe(8);
    expect(writes()).toHaveLength(3);
  });

  it('rows refused 431 (headers too large: the credential, not the row) are failed, and the next run sends them again', async () => {
    const dir = tempDir('subctl-gw-bulk-');
    const input = join(dir, 'rows.csv');
    writeFileSync(input, csv(2));
    let refuse = true;
    gw.handle(
      bulkGateway((id, res) => {
        if (refuse) {
          res.writeHead(431, { 'content-type': 'text/html' });
          res.end('<html><head><title>431 Request Header Fields Too Large</title></head></html>');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: true, message: 'extended', data: { subscription_id: id } }));
      }),
    );
    const env = { SUBCTL_TOKEN: 'tok-123', SUBCTL_CONFIG_DIR: join(dir, 'cfg') };
    const args = ['subscriptions', 'manage', '--from-csv', input, '--yes', '--base-url', gw.url];
    const first = await runCli(args, { env });
    expect(first.stderr).toMatch(/2 rows: 0 applied, 2 failed, 0 unknown/);
    expect(first.code).toBe(8);
    refuse = false;
    const again = await runCli(args, { env });
    expect(again.stderr).toMatch(/2 rows: 2 applied, 0 failed, 0 unknown/);
    expect(again.code).toBe(0);
    expect(writes()).toHaveLength(4);
  });

  it('Connection: close on every answer, 200 rows at --concurrency 16: each row sent once and applied (exit 0)', async () => {
    const dir = tempDir('subctl-gw-bulk-');
    const input = join(dir, 'rows.csv');
    writeFileSync(input, csv(200));
    gw.handle((req, res) => {
      res.shouldKeepAlive = false;
      bulkGateway((id, out) => {
        out.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
        out.end(JSON.stringify({ status: true, message: 'extended', data: { subscription_id: id } }));
      })(req, res);
    });
    const r = await runCli(['subscriptions', 'manage', '--from-csv', input, '--yes', '--concurrency', '16', '--base-url', gw.url], {
      env: { SUBCTL_TOKEN: 'tok-123', SUBCTL_CONFIG_DIR: join(dir, 'cfg') },
    });
    expect(r.stderr).toMatch(/200 rows: 200 applied, 0 failed, 0 unknown/);
    expect(r.code).toBe(0);
    const ids = writes().map((w) => w.url.split('/')[3]);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
  });
});

describe('empty answers to reads', () => {
  const empty =
    (status: number): Handler =>
    (_q, res) => {
      res.writeHead(status, status === 204 ? {} : { 'content-type': 'application/json', 'content-length': '0' });
      res.end();
    };

  it.each([200, 204])('an empty %i to a list, an export or a get is exit 6, never an empty list or an empty CSV', async (status) => {
    gw.handle(empty(status));
    for (const line of ['services list', 'services list --all -o csv', 'services get 1']) {
      const r = await run(line);
      expect(r.stdout, line).toBe('');
      expect(r.stderr, line).toMatch(
        new RegExp(`^error: HTTP ${status} from GET ${gw.url}/admin/services\\S* is empty; the platform answers every read with JSON\\n`),
      );
      expect(r.code, line).toBe(6);
    }
    const j = await run('services list -o json');
    expect(JSON.parse(j.stderr).error.hint).toBe(
      'a gateway or proxy in front of the platform may have dropped the answer; run the command again (--verbose shows the exchange)',
    );
  });

  it('an empty answer to a read is sent again as a failed GET is; a write answered 204 is done (exit 0)', async () => {
    gw.handle((req, res) => {
      if (gw.seen.length === 1) return empty(200)(req, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(PAGE);
    });
    const r = await runCli(`services list -o json --base-url ${gw.url} --retries 1`, { env: { SUBCTL_TOKEN: 'tok-123' } });
    expect(JSON.parse(r.stdout)).toEqual(ROWS);
    expect(r.code).toBe(0);
    expect(gw.seen).toHaveLength(2);
    gw.handle(empty(204));
    const del = await run('services delete 7 --yes');
    expect(del.stderr).toBe('');
    expect(del.code).toBe(0);
    expect(gw.seen.map((s) => s.method)).toEqual(['DELETE']);
  });
});

describe('answers that are not HTTP, or out of turn', () => {
  async function rawServer(answer: (c: net.Socket) => void): Promise<{ url: string; close: () => Promise<void> }> {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((c) => {
      sockets.add(c);
      c.once('data', () => answer(c));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy();
          server.close(() => r());
        }),
    };
  }

  it('a port that does not speak HTTP: named as such with a hint at the base URL, one page and --all alike (exit 7)', async () => {
    const srv = await rawServer((c) => c.end('SSH-2.0-OpenSSH_9.6\r\n'));
    try {
      for (const line of ['services list', 'services list --all']) {
        const r = await runCli(`${line} --base-url ${srv.url} --retries 0`, { env: { SUBCTL_TOKEN: 'tok-123' } });
        expect(r.stderr, line).toMatch(/^error: GET \S+: 127\.0\.0\.1:\d+ did not answer in HTTP: .+\n/);
        expect(r.stderr, line).toContain('hint: check the base URL: its scheme (https:// or http://) and its port');
        expect(r.code, line).toBe(7);
      }
    } finally {
      await srv.close();
    }
  });

  it('an unrequested 100 Continue: read through on one page (node:http); named for what it is under --all (undici drops it), exit 7', async () => {
    const srv = await rawServer((c) => {
      c.write('HTTP/1.1 100 Continue\r\n\r\n');
      setTimeout(
        () => c.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(PAGE)}\r\n\r\n${PAGE}`),
        20,
      );
    });
    try {
      const one = await runCli(`services list -o json --base-url ${srv.url} --retries 0`, { env: { SUBCTL_TOKEN: 'tok-123' } });
      expect(JSON.parse(one.stdout)).toEqual(ROWS);
      expect(one.code).toBe(0);
      const all = await runCli(`services list --all --base-url ${srv.url} --retries 0`, { env: { SUBCTL_TOKEN: 'tok-123' } });
      expect(all.stderr).toMatch(
        /^error: GET \S+: 127\.0\.0\.1:\d+ sent an answer that was not asked for \(a 100 Continue, or a second answer to one request\); the connection was dropped \(UND_ERR_SOCKET\)\n/,
      );
      expect(all.code).toBe(7);
    } finally {
      await srv.close();
    }
  });
});

describe('a proxy that refuses the tunnel (https_proxy)', () => {
  let proxy: { url: string; connects: string[]; status: number; close: () => Promise<void> };
  beforeAll(async () => {
    const connects: string[] = [];
    const server = http.createServer((_q, res) => res.writeHead(400).end());
    server.on('connect', (req: http.IncomingMessage, sock: net.Socket) => {
      connects.push(`${req.url} ${req.headers['proxy-authorization'] ?? '-'}`);
      sock.end(`HTTP/1.1 ${proxy.status} Refused\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    proxy = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      connects,
      status: 407,
      close: () => new Promise<void>((r) => server.close(() => r())),
    };
  });
  afterAll(() => proxy.close());

  const viaProxy = (line: string, proxyUrl = proxy.url) =>
    runCli(`${line} --base-url https://api.example.invalid`, { env: { SUBCTL_TOKEN: 'tok-123', https_proxy: proxyUrl } });

  it('407: the proxy named (never its credentials), what it wants said, not retried (exit 7); one page and --all alike', async () => {
    proxy.status = 407;
    for (const line of ['services list', 'services list --all']) {
      proxy.connects.length = 0;
      const withCredentials = proxy.url.replace('//', '//ops:s3cret-pw@');
      const r = await viaProxy(line, withCredentials);
      expect(r.stderr, line).toMatch(
        new RegExp(
          `^error: GET https://api\\.example\\.invalid/admin/services\\S*: the proxy ${proxy.url} refused to open a tunnel to api\\.example\\.invalid \\(HTTP 407 Proxy Authentication Required\\)\\n` +
            'hint: the proxy asks for credentials: give them in its address \\(https_proxy=http://USER:PASSWORD@proxy:port\\), or ask for this machine to be let through\\n$',
        ),
      );
      expect(r.stderr, line).not.toContain('s3cret-pw');
      expect(r.code, line).toBe(7);
      expect(proxy.connects, line).toEqual([`api.example.invalid:443 Basic ${Buffer.from('ops:s3cret-pw').toString('base64')}`]);
    }
  });

  it('403: the destination is not allowed, no_proxy named; 502 from the proxy is retried as a network failure', async () => {
    proxy.status = 403;
    const denied = await viaProxy('services list');
    expect(denied.stderr).toContain('refused to open a tunnel to api.example.invalid (HTTP 403 Forbidden)');
    expect(denied.stderr).toContain(
      'hint: the proxy does not let this machine reach api.example.invalid: ask for it to be allowed, or name it in no_proxy',
    );
    expect(denied.code).toBe(7);
    proxy.status = 502;
    proxy.connects.length = 0;
    const down = await viaProxy('services list --retries 1');
    expect(down.stderr).toMatch(/refused to open a tunnel to api\.example\.invalid \(HTTP 502 Bad Gateway\) \(after 2 attempts\)\n/);
    expect(proxy.connects).toHaveLength(2);
    expect(down.code).toBe(7);
  });
});

describe('a write answered 5xx by a gateway may have been applied', () => {
  const GATEWAY_TIMEOUT =
    '<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center></body></html>';

  it('a single write answered 504 (HTML) or 500 (JSON): sent once, exit 6, the hint says to check before running it again', async () => {
    gw.handle(page(504, GATEWAY_TIMEOUT));
    const r = await run('subscriptions manage 42 --action extend --reason r --extend-days 30 --yes');
    expect(r.stderr).toBe(
      `error: HTTP 504 from PUT ${gw.url}/admin/subscriptions/42/manage: a web page ("504 Gateway Time-out"), not JSON\n` +
        'hint: the platform may have applied the request before the failure (a gateway answers 502 or 504 after passing it on): check what it changed before running the command again\n',
    );
    expect(r.code).toBe(6);
    expect(gw.seen.filter((s) => s.method === 'PUT')).toHaveLength(1);
    gw.handle((req, res) => {
      if (req.method === 'GET') return page(200, PAGE)(req, res);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: false, message: 'internal error', data: null }));
    });
    const j = await run('services delete 7 --yes');
    expect(j.stderr).toBe(
      'error: internal error (HTTP 500)\n' +
        'hint: the platform may have applied the request before the failure (a gateway answers 502 or 504 after passing it on): check what it changed before running the command again\n',
    );
    expect(j.code).toBe(6);
  });

  it('a read answered 502 keeps the advice to run it again later', async () => {
    gw.handle(page(502, GATEWAY_TIMEOUT.replaceAll('504 Gateway Time-out', '502 Bad Gateway')));
    const r = await run('services list');
    expect(r.stderr).toContain(
      'hint: a gateway or proxy in front of the platform answered: the platform may be down, restarting or slow; run the command again later',
    );
  });

  it('cleanup from cron behind a gateway that gives up first (504): the cleanup may have run, and how to check', async () => {
    gw.handle(page(504, GATEWAY_TIMEOUT));
    const r = await run('cleanup --yes');
    expect(r.stderr).toMatch(
      /^error: HTTP 504 from POST \S+: a web page \("504 Gateway Time-out"\), not JSON: the cleanup may have run on the platform all the same\n/,
    );
    expect(r.stderr).toContain(
      'hint: check before running it again: `subctl cleanup --dry-run` counts what is left, and `subctl audit list --module maintenance --action cleanup` shows the runs the platform recorded',
    );
    expect(r.code).toBe(6);
  });
});
