/**
 * A request's input: the body read (with its size cap), parsed as JSON and checked with the
 * path params and query against the endpoint's own zod schemas (400 envelope naming each
 * field); and what the audit log records of a request.
 */
import type http from 'node:http';
import type { AnyEndpoint } from '../api/contract/common.js';
import { hasPart, safeParsePart } from '../api/contract/parts.js';
import { validationError, zodFields, type FieldError } from './envelope.js';
import { platformMessage } from './messages.js';
import { parseQuery, type Prepared } from './routing.js';
import { SandboxError } from './types.js';

type Json = Record<string, unknown>;

const MAX_BODY = 10 * 1024 * 1024;

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

/** Whether the request carries a body (a length other than 0, or chunks). */
function hasBody(req: http.IncomingMessage): boolean {
  return req.headers['content-length'] ? req.headers['content-length'] !== '0' : req.headers['transfer-encoding'] !== undefined;
}

/** The body's text as JSON (`{}` when empty, or when the endpoint takes none). */
function parseBody(e: AnyEndpoint, text: string): unknown {
  if (hasPart(e, 'body') && text.trim() !== '') {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new SandboxError(400, `Invalid JSON body: ${(err as Error).message}`, 'INVALID_JSON');
    }
  }
  return {};
}

/** A request's checked input, as the handler reads it. */
export interface Input {
  params: Json;
  query: Json;
  body: Json;
}

/**
 * Reads and checks the input of a request routed to `prepared` (path params `routeParams`,
 * query string `qs`): every field in error is named in one 400 answer. A request without a
 * body is checked at once, not in a later turn of the event loop.
 */
export function readInput(req: http.IncomingMessage, prepared: Prepared, routeParams: Json, qs: string): Input | Promise<Input> {
  if (!hasBody(req)) return checkInput(req, prepared, routeParams, qs, {});
  return readBody(req).then((text) => checkInput(req, prepared, routeParams, qs, parseBody(prepared.endpoint, text)));
}

function checkInput(req: http.IncomingMessage, prepared: Prepared, routeParams: Json, qs: string, rawBody: unknown): Input {
  const e = prepared.endpoint;
  if (e.deviceId) {
    const dev = req.headers['x-device-id'];
    if (typeof dev !== 'string' || dev.trim() === '') {
      throw validationError([{ field: 'X-Device-ID', message: 'header is required' }]);
    }
  }
  const fields: FieldError[] = [];
  let params: Json = routeParams;
  let query: Json = {};
  let body: Json = {};
  if (hasPart(e, 'params')) {
    const p = safeParsePart(e, 'params', routeParams, platformMessage);
    if (p.success) params = p.data as Json;
    else fields.push(...zodFields(p.error, 'params'));
  }
  if (hasPart(e, 'query')) {
    const q = safeParsePart(e, 'query', parseQuery(qs, prepared.listQueryFields), platformMessage);
    if (q.success) query = q.data as Json;
    else fields.push(...zodFields(q.error, 'query'));
  }
  if (hasPart(e, 'body')) {
    const b = safeParsePart(e, 'body', rawBody, platformMessage);
    if (b.success) body = b.data as Json;
    else fields.push(...zodFields(b.error, 'body'));
  }
  if (fields.length) throw validationError(fields);
  return { params, query, body };
}

const SECRET_KEY = /pass(word)?|token|secret|authorization/i;
/** A copy fit for the audit log: secrets masked. */
export function maskSecrets(v: unknown): unknown {
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
