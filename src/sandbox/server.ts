/**
 * The sandbox's HTTP framework: the contract served over node:http on a loopback port.
 *
 * Each request: route by the contract (404 unknown path, 405 known path with another
 * method), authenticate the bearer token (401/403), parse and validate path params, query
 * and JSON body with the endpoint's own zod schemas (400 envelope naming each field), check
 * X-Device-ID where the endpoint needs it, call the area's handler, and answer the envelope
 * `{status, message, data, error, meta}`. Successful mutations leave an audit entry.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { loadContractFile, matchRoute, routes } from '../api/contract/routes.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import { fieldsOfEndpoint, hasPart, safeParsePart } from '../api/contract/parts.js';
import { platformMessage } from './messages.js';
import { embeddedToken, issueToken, roleAllows, tokenAccount, tokenRow, tokenUser } from './auth.js';
import { chaosActive, decideAfterWrite, decideChaos, type ChaosOptions } from './chaos.js';
import { writeBatcher } from './batch.js';
import { currentDataStamp, damageError, dataFileFailure, holdingDataStamp, openDatabase, prep, releaseDataStamp } from './db.js';
import { altData, altError, type Dialect } from './dialect.js';
import { adminHandlers } from './handlers/admin.js';
import { userHandlers } from './handlers/user.js';
import { seedDatabase } from './seed.js';
import { SandboxError, type AuthUser, type DB, type HandlerContext, type HandlerResult, type HandlerTable } from './types.js';

export interface SandboxOptions {
  /** SQLite file; created, migrated and seeded when new. */
  dataFile: string;
  /**
   * How the user named dataFile (`--data`), for its errors (exit 2: a file that cannot be a
   * sandbox's is never written into). Unset, the file is subctl's own, in its data directory.
   */
  dataFlag?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Seed scale for a new file (default 1). */
  scale?: number;
  /** PRNG seed for a new file (default 42). */
  seed?: number;
  chaos?: ChaosOptions;
  /** The sandbox clock (default: the real one). */
  now?: () => Date;
  /** No stderr output (500s are logged otherwise). */
  quiet?: boolean;
  /** Handlers to use instead of the built-in ones (tests). */
  handlers?: HandlerTable;
  /** How answers are written (dialect.ts; default 'default'). */
  dialect?: Dialect;
}

export interface Sandbox {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  port: number;
  db: DB;
  close(): Promise<void>;
  /** A fresh bearer token for a seeded (or any existing) account, e.g. `tokenFor('admin')`. */
  tokenFor(username: string): string;
  /** The CLI's embedded sandbox signing in as `username`: a token it issued itself and that is still good, else a new one (`embeddedToken`). */
  embeddedTokenFor(username: string): string;
}

type Json = Record<string, unknown>;
type FieldError = { field: string; message: string };

const MAX_BODY = 10 * 1024 * 1024;
/** POSTs that only read (validating a session changes nothing): never audited, as no GET is. */
const UNAUDITED = new Set(['auth.validate-session']);
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

/** Per endpoint, what the framework needs beyond the contract: list-valued query fields. */
interface Prepared {
  endpoint: AnyEndpoint;
  listQueryFields: Set<string>;
}
const preparedByEndpoint = new Map<AnyEndpoint, Prepared>();
function prepared(e: AnyEndpoint): Prepared {
  let p = preparedByEndpoint.get(e);
  if (!p) {
    const list = new Set(
      fieldsOfEndpoint(e)
        .filter(([, place, f]) => place === 'query' && f.kind === 'list')
        .map(([k]) => k),
    );
    p = { endpoint: e, listQueryFields: list };
    preparedByEndpoint.set(e, p);
  }
  return p;
}

type Route = { kind: 'ok'; prepared: Prepared; params: Record<string, string> } | { kind: 'method'; allow: string[] } | { kind: 'none' };
const routeCache = new Map<string, Route>();

/**
 * Routes METHOD PATH, remembering the answer (paths repeat: lists are asked page after page).
 * The endpoint's contract file is loaded on the first request to one of its endpoints (see
 * api/contract/routes.ts): a promise then, the route itself afterwards. Throws on a malformed
 * path (a bad %-escape).
 */
function route(method: string, path: string): Route | Promise<Route> {
  const key = `${method} ${path}`;
  const known = routeCache.get(key);
  if (known) return known;
  const m = METHODS.includes(method as (typeof METHODS)[number]) ? matchRoute(method, path) : undefined;
  if (m) {
    return loadContractFile(m.file).then((eps) => {
      const endpoint = eps.find((x) => x.name === m.name);
      if (!endpoint) throw new Error(`endpoint ${m.name} is not in contract file ${m.file}`);
      return remember(key, { kind: 'ok', prepared: prepared(endpoint), params: m.params });
    });
  }
  const allow = METHODS.filter((x) => x !== method && matchRoute(x, path));
  return remember(key, allow.length ? { kind: 'method', allow } : { kind: 'none' });
}

function remember(key: string, r: Route): Route {
  if (routeCache.size > 5000) routeCache.clear();
  routeCache.set(key, r);
  return r;
}

/** The success envelope as UTF-8. */
export function encodeOk(message: string, data: unknown): Buffer {
  return Buffer.from(JSON.stringify({ status: true, message, data: data === undefined ? null : data, error: null, meta: null }), 'utf8');
}

function envelopeError(
  message: string,
  code: string,
  fields?: FieldError[],
  extra?: Record<string, unknown>,
  data: Json | null = null,
): Json {
  const error: Json = { code, message };
  if (fields && fields.length) error.fields = fields;
  if (extra) Object.assign(error, extra);
  return { status: false, message, data, error, meta: null };
}

/** A refused login's `login_result`: the login_history status (a successful login answers SUCCESS). */
const LOGIN_RESULT: Record<string, string> = { ACCOUNT_BANNED: 'BLOCKED', ACCOUNT_INACTIVE: 'BLOCKED' };

/**
 * The `data` of an error answer to endpoint `e`. The user/auth/CMS specification has its
 * responses carry `error_code` and `message`, and login `login_result`, `error_code` and
 * `error_message` (point 8; its result shapes list them): that area's errors answer them in
 * `data` (`{success: false, error_code, message}`; login `{login_result, error_code,
 * error_message}`), beside the envelope's `error`, which stays as it is (clients read
 * `error.code` and `message`). The administrator area's errors, and those of no endpoint
 * (404, 405), keep `data: null`.
 */
export function errorData(e: AnyEndpoint | undefined, code: string, message: string): Json | null {
  if (e?.area !== 'user') return null;
  if (e.name === 'auth.login') return { login_result: LOGIN_RESULT[code] ?? 'FAILED', error_code: code, error_message: message };
  return { success: false, error_code: code, message };
}

function validationError(fields: FieldError[]): SandboxError {
  const message = `Validation failed: ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`;
  return new SandboxError(400, message, 'VALIDATION_ERROR', fields);
}

function zodFields(error: z.ZodError, root: string): FieldError[] {
  return error.issues.map((i) => ({ field: i.path.length ? i.path.map(String).join('.') : root, message: i.message }));
}

/**
 * `qs`'s pairs as URLSearchParams reads them. Without `%` or `+` there is nothing to decode (and
 * without a leading `?`, which it drops), so splitting it is the same and cheaper: URLSearchParams
 * took about 1% of a list request's time.
 */
function queryPairs(qs: string): Iterable<[string, string]> {
  if (qs.includes('%') || qs.includes('+') || qs.startsWith('?')) return new URLSearchParams(qs);
  const pairs: Array<[string, string]> = [];
  for (const part of qs.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    pairs.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return pairs;
}

/** Query string to an object: empty values dropped, repeated keys last-wins, list fields split on commas. */
export function parseQuery(qs: string, lists: Set<string>): Json {
  const out: Json = {};
  if (!qs) return out;
  for (const [k, v] of queryPairs(qs)) {
    if (lists.has(k)) {
      const prev = (out[k] as string[] | undefined) ?? [];
      out[k] = prev.concat(
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );
    } else if (v !== '') out[k] = v;
  }
  return out;
}

const SECRET_KEY = /pass(word)?|token|secret|authorization/i;
/** A copy fit for the audit log: secrets masked. */
function maskSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskSecrets);
  if (v && typeof v === 'object') {
    const o: Json = {};
    for (const [k, x] of Object.entries(v)) o[k] = SECRET_KEY.test(k) && typeof x === 'string' ? '***' : maskSecrets(x);
    return o;
  }
  return v;
}

/** Audit module and action of an endpoint: /admin/<module>/..., else the name's group; the verb. */
export function auditNames(e: AnyEndpoint): { module: string; action: string } {
  const parts = e.name.split('.');
  const action = parts[parts.length - 1];
  const segs = e.path.split('/').filter(Boolean);
  if (segs[0] === 'admin' && segs[1]) return { module: segs[1], action };
  const group = parts.slice(0, -1);
  if (group.length > 1 && group[0] === 'cms') group.shift();
  return { module: group[0] ?? segs[0] ?? 'api', action };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new SandboxError(413, `request body larger than ${MAX_BODY} bytes`, 'PAYLOAD_TOO_LARGE'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const isThenable = (v: unknown): v is PromiseLike<unknown> => typeof (v as { then?: unknown } | null)?.then === 'function';

/** Token accounts remembered for reads, at most. */
const MAX_TOKEN_ROWS = 1000;

/** A bearer token's account as remembered for reads: null when unknown, revoked or Banned/Inactive. */
interface TokenEntry {
  user: Readonly<AuthUser> | null;
  /** Its expiry, in ms since the epoch (NaN: never valid). */
  expires: number;
}

/**
 * Starts the sandbox: opens (creating, migrating, seeding) the data file and listens.
 *
 * @example
 *   const sb = await startSandbox({ dataFile: '/tmp/s.db' });
 *   // sb.url -> 'http://127.0.0.1:43121'; curl -H "authorization: Bearer $(sb.tokenFor('admin'))" $URL/admin/services
 */
export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const now = opts.now ?? (() => new Date());
  // A file that cannot be a sandbox's, a damaged one, a full disk or a read-only directory:
  // named with the file (dataFileFailure).
  let db: DB;
  try {
    db = openDatabase(opts.dataFile);
  } catch (err) {
    throw dataFileFailure(err, opts.dataFile, opts.dataFlag);
  }
  try {
    seedDatabase(db, { scale: opts.scale ?? 1, seed: opts.seed, now: now() });
  } catch (err) {
    db.close();
    throw dataFileFailure(damageError(err, opts.dataFile), opts.dataFile, opts.dataFlag);
  }
  const handlers: HandlerTable = opts.handlers ?? { ...userHandlers, ...adminHandlers };
  const chaos = chaosActive(opts.chaos) ? opts.chaos : undefined;
  const quiet = opts.quiet ?? false;
  const alt = opts.dialect === 'alt';

  const writes = writeBatcher(db);

  // Remembered for reads (GET), for as long as the database is unchanged (`dataStamp`, read
  // once per request): the bearer tokens' accounts, with their expiry (checked against the clock
  // on every request). Answers themselves are always computed: every list is a query.
  const tokens = new Map<string, TokenEntry>();
  let cachesStamp = '';
  /** Drops what was remembered under another data stamp than the current one. */
  const syncCaches = (): string => {
    const stamp = currentDataStamp(db);
    if (stamp !== cachesStamp) {
      tokens.clear();
      cachesStamp = stamp;
    }
    return stamp;
  };
  /**
   * `tokenUser(tokenRow(db, token), at)`, its account remembered until the data changes (call
   * `syncCaches` first, in the same tick). The expiry is compared in milliseconds, which orders
   * the ISO times the sandbox writes as their text does; one that does not parse counts as
   * expired.
   */
  const cachedTokenUser = (token: string, at: Date): AuthUser | null => {
    let e = tokens.get(token);
    if (e === undefined) {
      const row = tokenRow(db, token);
      const user = tokenAccount(row);
      e = { user: user && Object.freeze(user), expires: row ? Date.parse(row.expires_at) : NaN };
      if (tokens.size >= MAX_TOKEN_ROWS) tokens.clear();
      tokens.set(token, e);
    }
    return e.user !== null && at.getTime() < e.expires ? e.user : null;
  };

  const sendBody = (res: http.ServerResponse, status: number, body: Buffer, headers?: Record<string, string>) => {
    if (res.destroyed || res.headersSent) return;
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
      ...headers,
    });
    res.end(body);
  };
  // Encoded once: measuring the length and then writing the string would encode it twice.
  const send = (res: http.ServerResponse, status: number, text: string, headers?: Record<string, string>) =>
    sendBody(res, status, Buffer.from(text, 'utf8'), headers);
  const sendError = (res: http.ServerResponse, err: SandboxError, headers?: Record<string, string>, e?: AnyEndpoint) => {
    const envelope = envelopeError(err.message, err.code, err.fields, err.extra, errorData(e, err.code, err.message));
    send(res, err.status, JSON.stringify(alt ? altError(envelope) : envelope), headers);
  };
  /** The endpoint each request was routed to, for its error answer (errorData). */
  const routedTo = new WeakMap<http.IncomingMessage, AnyEndpoint>();

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (chaos) {
      const d = decideChaos(chaos);
      if (d.delayMs > 0) await sleep(d.delayMs);
      switch (d.fault) {
        case 'reset':
          req.socket.destroy();
          return;
        case 'hang':
          // Never answered: the socket stays open until the client gives up or close().
          return;
        case '5xx':
          sendError(res, new SandboxError(503, 'chaos: injected server error', 'SERVICE_UNAVAILABLE'));
          return;
        case '429': {
          const s = chaos.retryAfterSeconds ?? 1;
          sendError(res, new SandboxError(429, 'chaos: injected rate limit', 'RATE_LIMITED'), { 'retry-after': String(s) });
          return;
        }
      }
    }

    const method = (req.method ?? 'GET').toUpperCase();
    const rawUrl = req.url ?? '/';
    const qi = rawUrl.indexOf('?');
    const path = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
    const qs = qi < 0 ? '' : rawUrl.slice(qi + 1);
    let routed: Route | Promise<Route>;
    try {
      routed = route(method, path);
    } catch {
      throw new SandboxError(400, `malformed path: ${path}`, 'BAD_REQUEST');
    }
    const r = routed instanceof Promise ? await routed : routed;
    if (r.kind === 'none') throw new SandboxError(404, `no such endpoint: ${method} ${path}`, 'NOT_FOUND');
    if (r.kind === 'method') {
      const e = new SandboxError(405, `method ${method} not allowed on ${path} (allowed: ${r.allow.join(', ')})`, 'METHOD_NOT_ALLOWED');
      sendError(res, e, { allow: r.allow.join(', ') });
      return;
    }
    const e = r.prepared.endpoint;
    routedTo.set(req, e);

    // Reads look the data stamp up once: for the token's account remembered under it, and held
    // for the handler's synchronous run (holdingDataStamp) for what it remembers.
    const read = method === 'GET';
    const stamp = read ? syncCaches() : '';

    // Authentication and rights.
    let user: AuthUser | null = null;
    const authz = req.headers.authorization;
    if (authz) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
      user = m ? (read ? cachedTokenUser(m[1], now()) : tokenUser(tokenRow(db, m[1]), now())) : null;
      if (!user && e.access !== 'public') throw new SandboxError(401, 'invalid or expired token', 'UNAUTHORIZED');
    } else if (e.access !== 'public')
      throw new SandboxError(401, 'authentication required: send Authorization: Bearer <token>', 'UNAUTHORIZED');
    if (user && e.access !== 'public' && !roleAllows(e.access, user.role, method)) {
      throw new SandboxError(403, `role ${user.role} may not call ${e.name} (${method} ${e.path})`, 'FORBIDDEN');
    }

    // Input.
    let rawBody: unknown = {};
    const hasBody = req.headers['content-length'] ? req.headers['content-length'] !== '0' : req.headers['transfer-encoding'] !== undefined;
    if (hasBody) {
      const text = await readBody(req);
      if (hasPart(e, 'body') && text.trim() !== '') {
        try {
          rawBody = JSON.parse(text);
        } catch (err) {
          throw new SandboxError(400, `Invalid JSON body: ${(err as Error).message}`, 'INVALID_JSON');
        }
      }
    }
    if (e.deviceId) {
      const dev = req.headers['x-device-id'];
      if (typeof dev !== 'string' || dev.trim() === '') {
        throw validationError([{ field: 'X-Device-ID', message: 'header is required' }]);
      }
    }
    const fields: FieldError[] = [];
    let params: Json = r.params;
    let query: Json = {};
    let body: Json = {};
    if (hasPart(e, 'params')) {
      const p = safeParsePart(e, 'params', r.params, platformMessage);
      if (p.success) params = p.data as Json;
      else fields.push(...zodFields(p.error, 'params'));
    }
    if (hasPart(e, 'query')) {
      const q = safeParsePart(e, 'query', parseQuery(qs, r.prepared.listQueryFields), platformMessage);
      if (q.success) query = q.data as Json;
      else fields.push(...zodFields(q.error, 'query'));
    }
    if (hasPart(e, 'body')) {
      const b = safeParsePart(e, 'body', rawBody, platformMessage);
      if (b.success) body = b.data as Json;
      else fields.push(...zodFields(b.error, 'body'));
    }
    if (fields.length) throw validationError(fields);

    const handler = handlers[e.name];
    if (!handler) throw new SandboxError(501, `endpoint ${e.name} (${e.method} ${e.path}) has no sandbox handler yet`, 'NOT_IMPLEMENTED');

    let audited = false;
    const ip = req.socket.remoteAddress ?? '';
    const userAgent = typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : '';
    const ctx: HandlerContext = {
      db,
      user,
      params,
      query,
      body,
      headers: req.headers,
      ip,
      userAgent,
      now,
      auditOrder: chaos?.auditOldestFirst ? 'ASC' : 'DESC',
      audit(module, action, details) {
        audited = true;
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
    let result: HandlerResult;
    if (read) {
      // A handler that answers at once is not awaited: one turn of the microtask queue less per read.
      const r = holdingDataStamp(db, stamp, () => handler(ctx));
      result = isThenable(r) ? await r : r;
    } else {
      // Every successful mutation is audited: by the handler, else here.
      const finish = (r: HandlerResult): HandlerResult => {
        if (!audited && !UNAUDITED.has(e.name)) {
          const { module, action } = auditNames(e);
          ctx.audit(
            module,
            action,
            maskSecrets({
              endpoint: e.name,
              ...(Object.keys(params).length ? { params } : {}),
              ...(Object.keys(body).length ? { body } : {}),
            }),
          );
        }
        return r;
      };
      // Run with the other writes waiting now, committed together (batch.ts).
      result = await writes.run(() => {
        audited = false;
        const r = handler(ctx);
        return isThenable(r) ? Promise.resolve(r).then(finish) : finish(r);
      });
    }
    // Chaos after a write was applied: the answer a faulty gateway gives instead (chaos.ts).
    const after = chaos && !read ? decideAfterWrite(chaos) : null;
    if (after === 'applied-503')
      return sendError(res, new SandboxError(503, 'chaos: upstream connection reset after the write', 'SERVICE_UNAVAILABLE'));
    if (after === 'applied-reset') return void req.socket.destroy();
    const status = result.status ?? e.successStatus ?? 200;
    sendBody(res, status, encodeOk(result.message ?? 'Success', alt ? altData(e.name, result.data) : result.data));
  }

  const server = http.createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      const e = routedTo.get(req);
      if (err instanceof SandboxError) {
        sendError(res, err, undefined, e);
        return;
      }
      if (!quiet) process.stderr.write(`sandbox: ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}\n`);
      sendError(res, new SandboxError(500, `internal error: ${(err as Error)?.message ?? String(err)}`, 'SERVER_ERROR'), undefined, e);
    });
  });
  // Clients keep connections 4 s (undici); stay open a little longer than that.
  server.keepAliveTimeout = 10_000;
  server.headersTimeout = 15_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;

  const accountId = (username: string): number => {
    const u = prep(db, 'SELECT user_id FROM users WHERE username = ?').get(username) as { user_id: number } | undefined;
    if (!u) throw new Error(`sandbox: no account named ${username}`);
    return u.user_id;
  };
  let closed = false;
  return {
    url: `http://${host}:${addr.port}`,
    port: addr.port,
    db,
    tokenFor(username: string): string {
      return issueToken(db, accountId(username), { now: now() }).token;
    },
    embeddedTokenFor(username: string): string {
      return embeddedToken(db, accountId(username), now());
    },
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // Writes whose requests were read are done, as they would be without batching.
      writes.flush();
      db.close();
    },
  };
}

/** Every endpoint name of the contract without a handler in `table` (for tests and `sandbox serve`). */
export function missingHandlers(table: HandlerTable = { ...userHandlers, ...adminHandlers }): string[] {
  return routes.filter(([, , name]) => !table[name]).map(([, , name]) => name);
}
