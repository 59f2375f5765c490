/**
 * A loopback server for the fuzz tests: records every request byte for byte (raw URL, so that
 * repeated query keys survive) and answers whatever bytes a test sets, non-UTF-8 included.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

export interface WireRequest {
  method: string;
  /** Raw request target, e.g. `/admin/services?page_size=5&x=1`. */
  url: string;
  path: string;
  search: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface WireReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface Wire {
  url: string;
  requests: WireRequest[];
  reply: (req: WireRequest) => WireReply;
  close(): Promise<void>;
}

export const envelope = (data: unknown, message = 'OK'): WireReply => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ status: true, message, data, error: null, meta: null }),
});

export async function startWire(): Promise<Wire> {
  const sockets = new Set<Socket>();
  const wire: Wire = {
    url: '',
    requests: [],
    reply: () => envelope({}),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://x');
    const rec: WireRequest = {
      method: req.method ?? '',
      url: req.url ?? '/',
      path: u.pathname,
      search: u.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    wire.requests.push(rec);
    let r: WireReply;
    try {
      r = wire.reply(rec);
    } catch (e) {
      r = { status: 599, body: `wire handler failed: ${(e as Error).message}` };
    }
    const body = r.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
    res.writeHead(r.status ?? 200, { 'content-length': String(body.length), ...r.headers });
    res.end(body);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  wire.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return wire;
}
