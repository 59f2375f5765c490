/**
 * A real HTTP server on loopback that records every request and answers from a handler.
 * Tests assert what went over the wire: method, path, query, headers, JSON body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
  at: number;
}

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON-encoded unless `raw` is given. */
  json?: unknown;
  raw?: string;
  /** Never answer (the socket stays open until the server closes). */
  hang?: boolean;
  /** Destroy the socket without an answer. */
  reset?: boolean;
  delayMs?: number;
}

export type StubHandler = (req: RecordedRequest, n: number) => StubReply | Promise<StubReply>;

export interface StubServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Connections accepted so far (tests may reset it to 0). */
  connections: number;
  setHandler(h: StubHandler): void;
  close(): Promise<void>;
}

/** An envelope like the platform's: `{status, message, data, error, meta}`. */
export function ok(data: unknown, message = 'OK'): StubReply {
  return { status: 200, json: { status: true, message, data, error: null, meta: null } };
}
export function fail(status: number, message: string, error: unknown = null): StubReply {
  return { status, json: { status: false, message, data: null, error } };
}

export async function startStubServer(handler: StubHandler = () => ok({})): Promise<StubServer> {
  let h = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const u = new URL(req.url ?? '/', 'http://x');
    let body: unknown = undefined;
    if (rawBody) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
    }
    const rec: RecordedRequest = {
      method: req.method ?? '',
      path: u.pathname,
      query: Object.fromEntries(u.searchParams.entries()),
      headers: req.headers,
      rawBody,
      body,
      at: Date.now(),
    };
    requests.push(rec);
    const reply = await h(rec, requests.length);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.hang) return;
    if (reply.reset) {
      req.socket.destroy();
      return;
    }
    const payload = reply.raw ?? JSON.stringify(reply.json ?? null);
    res.writeHead(reply.status ?? 200, { 'content-type': reply.raw !== undefined ? 'text/html' : 'application/json', ...reply.headers });
    res.end(payload);
  });
  server.on('connection', (s) => {
    stub.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const stub: StubServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: 0,
    setHandler(nh) {
      h = nh;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
  return stub;
}
