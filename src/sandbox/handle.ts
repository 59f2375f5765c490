/**
 * One request through the sandbox, in order: injected faults (chaos.ts), routing, the bearer
 * token and the role's rights (401/403), the input (request.ts), the area's handler (reads at
 * once, writes batched and audited), and the envelope written back.
 */
import type http from 'node:http';
import type { AnyEndpoint } from '../api/contract/common.js';
import { roleAllows, tokenRow, tokenUser } from './auth.js';
import { decideAfterWrite, decideChaos, type ChaosOptions } from './chaos.js';
import type { writeBatcher } from './batch.js';
import { holdingDataStamp, prep, releaseDataStamp } from './db.js';
import { altData, altError } from './dialect.js';
import { encodeOk, envelopeError, errorData } from './envelope.js';
import { auditNames, maskSecrets, readInput, type Input } from './request.js';
import { route, type Route } from './routing.js';
import type { TokenCache } from './token-cache.js';
import { SandboxError, type AuthUser, type DB, type HandlerContext, type HandlerResult, type HandlerTable } from './types.js';

/** What every request of one running sandbox shares. */
export interface Served {
  db: DB;
  handlers: HandlerTable;
  chaos: ChaosOptions | undefined;
  /** Answers in the `alt` dialect (dialect.ts). */
  alt: boolean;
  now: () => Date;
  writes: ReturnType<typeof writeBatcher>;
  tokens: TokenCache;
  /** The endpoint each request was routed to, for its error answer (errorData). */
  routedTo: WeakMap<http.IncomingMessage, AnyEndpoint>;
}

/** POSTs that only read (validating a session changes nothing): never audited, as no GET is. */
const UNAUDITED = new Set(['auth.validate-session']);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const isThenable = (v: unknown): v is PromiseLike<unknown> => typeof (v as { then?: unknown } | null)?.then === 'function';

function sendBody(res: http.ServerResponse, status: number, body: Buffer, headers?: Record<string, string>): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.length,
    ...headers,
  });
  res.end(body);
}

function sendError(s: Served, res: http.ServerResponse, err: SandboxError, headers?: Record<string, string>, e?: AnyEndpoint): void {
  const envelope = envelopeError(err.message, err.code, err.fields, err.extra, errorData(e, err.code, err.message));
  // Encoded once: measuring the length and then writing the string would encode it twice.
  sendBody(res, err.status, Buffer.from(JSON.stringify(s.alt ? altError(envelope) : envelope), 'utf8'), headers);
}

/** Applies an injected fault before the request is read: true when it answered (or dropped) the request. */
async function injectFault(s: Served, chaos: ChaosOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
  const d = decideChaos(chaos);
  if (d.delayMs > 0) await sleep(d.delayMs);
  switch (d.fault) {
    case 'reset':
      req.socket.destroy();
      return true;
    case 'hang':
      // Never answered: the socket stays open until the client gives up or close().
      return true;
    case '5xx':
      sendError(s, res, new SandboxError(503, 'chaos: injected server error', 'SERVICE_UNAVAILABLE'));
      return true;
    case '429': {
      const secs = chaos.retryAfterSeconds ?? 1;
      sendError(s, res, new SandboxError(429, 'chaos: injected rate limit', 'RATE_LIMITED'), { 'retry-after': String(secs) });
      return true;
    }
  }
  return false;
}

/** Routes the request: throws 400 on a malformed path. A route already known is answered at once. */
function routeRequest(method: string, path: string): Route | Promise<Route> {
  try {
    return route(method, path);
  } catch {
    throw new SandboxError(400, `malformed path: ${path}`, 'BAD_REQUEST');
  }
}

/** The caller's account from the bearer token (reads use the remembered accounts); 401 and 403 as the endpoint's access asks. */
function authenticate(s: Served, req: http.IncomingMessage, e: AnyEndpoint, method: string, read: boolean): AuthUser | null {
  let user: AuthUser | null = null;
  const authz = req.headers.authorization;
  if (authz) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    user = m ? (read ? s.tokens.user(m[1], s.now()) : tokenUser(tokenRow(s.db, m[1]), s.now())) : null;
    if (!user && e.access !== 'public') throw new SandboxError(401, 'invalid or expired token', 'UNAUTHORIZED');
  } else if (e.access !== 'public')
    throw new SandboxError(401, 'authentication required: send Authorization: Bearer <token>', 'UNAUTHORIZED');
  if (user && e.access !== 'public' && !roleAllows(e.access, user.role, method)) {
    throw new SandboxError(403, `role ${user.role} may not call ${e.name} (${method} ${e.path})`, 'FORBIDDEN');
  }
  return user;
}

/** The handler's context; `audited` turns true when it writes an audit entry. */
function handlerContext(
  s: Served,
  req: http.IncomingMessage,
  user: AuthUser | null,
  input: Input,
  state: { audited: boolean },
): HandlerContext {
  const { db, now } = s;
  const ip = req.socket.remoteAddress ?? '';
  const userAgent = typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : '';
  const ctx: HandlerContext = {
    db,
    user,
    params: input.params,
    query: input.query,
    body: input.body,
    headers: req.headers,
    ip,
    userAgent,
    now,
    auditOrder: s.chaos?.auditOldestFirst ? 'ASC' : 'DESC',
    audit(module, action, details) {
      state.audited = true;
      releaseDataStamp(db);
      prep(
        db,
        'INSERT INTO audit_logs (user_id, username, module, action, details, ip_address, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        ctx.user?.user_id ?? null,
        ctx.user?.username ?? null,
        module,
        action,
        details === undefined || details === null ? null : typeof details === 'string' ? details : JSON.stringify(details),
        ip,
        userAgent,
        now().toISOString(),
      );
    },
  };
  return ctx;
}

/** Runs a mutation with the other writes waiting now, committed together (batch.ts); audited by the handler, else here. */
function runWrite(
  s: Served,
  e: AnyEndpoint,
  handler: HandlerTable[string],
  ctx: HandlerContext,
  input: Input,
  state: { audited: boolean },
): Promise<HandlerResult> {
  const finish = (r: HandlerResult): HandlerResult => {
    if (!state.audited && !UNAUDITED.has(e.name)) {
      const { module, action } = auditNames(e);
      ctx.audit(
        module,
        action,
        maskSecrets({
          endpoint: e.name,
          ...(Object.keys(input.params).length ? { params: input.params } : {}),
          ...(Object.keys(input.body).length ? { body: input.body } : {}),
        }),
      );
    }
    return r;
  };
  return s.writes.run(() => {
    state.audited = false;
    const r = handler(ctx);
    return isThenable(r) ? Promise.resolve(r).then(finish) : finish(r);
  });
}

async function handle(s: Served, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (s.chaos && (await injectFault(s, s.chaos, req, res))) return;
  const method = (req.method ?? 'GET').toUpperCase();
  const rawUrl = req.url ?? '/';
  const qi = rawUrl.indexOf('?');
  const path = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
  const qs = qi < 0 ? '' : rawUrl.slice(qi + 1);
  const routed = routeRequest(method, path);
  const r = routed instanceof Promise ? await routed : routed;
  if (r.kind === 'none') throw new SandboxError(404, `no such endpoint: ${method} ${path}`, 'NOT_FOUND');
  if (r.kind === 'method') {
    const e = new SandboxError(405, `method ${method} not allowed on ${path} (allowed: ${r.allow.join(', ')})`, 'METHOD_NOT_ALLOWED');
    sendError(s, res, e, { allow: r.allow.join(', ') });
    return;
  }
  const e = r.prepared.endpoint;
  s.routedTo.set(req, e);

  // Reads look the data stamp up once: for the token's account remembered under it, and held
  // for the handler's synchronous run (holdingDataStamp) for what it remembers.
  const read = method === 'GET';
  const stamp = read ? s.tokens.sync() : '';
  const user = authenticate(s, req, e, method, read);
  const pending = readInput(req, r.prepared, r.params, qs);
  const input = pending instanceof Promise ? await pending : pending;

  const handler = s.handlers[e.name];
  if (!handler) throw new SandboxError(501, `endpoint ${e.name} (${e.method} ${e.path}) has no sandbox handler yet`, 'NOT_IMPLEMENTED');
  const state = { audited: false };
  const ctx = handlerContext(s, req, user, input, state);
  let result: HandlerResult;
  if (read) {
    // A handler that answers at once is not awaited: one turn of the microtask queue less per read.
    const out = holdingDataStamp(s.db, stamp, () => handler(ctx));
    result = isThenable(out) ? await out : out;
  } else result = await runWrite(s, e, handler, ctx, input, state);
  // Chaos after a write was applied: the answer a faulty gateway gives instead (chaos.ts).
  const after = s.chaos && !read ? decideAfterWrite(s.chaos) : null;
  if (after === 'applied-503')
    return sendError(s, res, new SandboxError(503, 'chaos: upstream connection reset after the write', 'SERVICE_UNAVAILABLE'));
  if (after === 'applied-reset') return void req.socket.destroy();
  const status = result.status ?? e.successStatus ?? 200;
  sendBody(res, status, encodeOk(result.message ?? 'Success', s.alt ? altData(e.name, result.data) : result.data));
}

/** The server's request listener: errors answered as envelopes, unexpected ones as 500 (logged unless `quiet`). */
export function requestListener(s: Served, quiet: boolean): http.RequestListener {
  return (req, res) => {
    handle(s, req, res).catch((err: unknown) => {
      const e = s.routedTo.get(req);
      if (err instanceof SandboxError) {
        sendError(s, res, err, undefined, e);
        return;
      }
      if (!quiet) process.stderr.write(`sandbox: ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}\n`);
      sendError(s, res, new SandboxError(500, `internal error: ${(err as Error)?.message ?? String(err)}`, 'SERVER_ERROR'), undefined, e);
    });
  };
}
