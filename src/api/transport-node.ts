/**
 * The node:http transport (see transport.ts for when it is chosen): keep-alive agents, one per
 * scheme; node:https and node:tls are loaded only for an https:// origin. Node follows no
 * redirects and reads NODE_EXTRA_CA_CERTS into its default trust store itself.
 */
import http from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { SecureContext } from 'node:tls';
import { builtin } from '../builtin.js';
import type { SendOptions, Transport, TransportResponse } from './transport.js';

export class NodeTransport implements Transport {
  readonly kind = 'node' as const;
  #http: http.Agent | undefined;
  #https: HttpsAgent | undefined;

  constructor(private readonly secureContext?: SecureContext) {}

  send(o: SendOptions): Promise<TransportResponse> {
    const u = new URL(o.origin);
    const secure = u.protocol === 'https:';
    const mod = secure ? builtin('node:https') : http;
    // Idle sockets are dropped after 4 s, as undici's keepAliveTimeout; a reused socket the
    // server has meanwhile closed fails like any connection reset.
    const agent = secure
      ? (this.#https ??= new (mod as typeof import('node:https')).Agent({
          keepAlive: true,
          timeout: 4_000,
          ...(this.secureContext ? { secureContext: this.secureContext } : {}),
        }))
      : (this.#http ??= new http.Agent({ keepAlive: true, timeout: 4_000 }));
    return new Promise<TransportResponse>((resolve, reject) => {
      let req: http.ClientRequest;
      try {
        req = mod.request({
          protocol: u.protocol,
          // URL keeps an IPv6 literal in brackets; the socket wants it bare.
          hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: u.port || (secure ? 443 : 80),
          path: o.path,
          method: o.method,
          // Stated outright: Node sends neither a length nor chunks for a DELETE body, so the
          // server would read none.
          headers: o.body !== undefined ? { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) } : o.headers,
          agent,
          ...(o.signal ? { signal: o.signal } : {}),
          ...(secure && this.secureContext ? { secureContext: this.secureContext } : {}),
        });
      } catch (e) {
        // An invalid header value (a token pasted with a newline ...): nothing was sent.
        reject(e);
        return;
      }
      req.once('error', reject);
      req.once('response', (res) => {
        resolve({
          statusCode: res.statusCode ?? 0,
          headers: res.headers,
          body: res,
          text: () =>
            new Promise<string>((ok, fail) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.once('end', () => ok(Buffer.concat(chunks).toString('utf8')));
              res.once('error', fail);
              // Closed before the declared length arrived (no 'end'): the answer is incomplete.
              res.once('close', () => {
                if (!res.complete) fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
              });
            }),
        });
      });
      req.end(o.body);
    });
  }

  async close(): Promise<void> {
    this.#http?.destroy();
    this.#https?.destroy();
  }
}
