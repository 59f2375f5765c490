/**
 * Reading answers, tolerantly. An answer whose envelope says success (HTTP 2xx, `status` not
 * false) is the caller's, whatever the types of its fields: the API documents leave most shapes
 * open, and a server that sends `price: "19.99"` or `is_active: 1` has answered. Where `data`
 * departs from the contract's response schema, the departures are deviations: listed under
 * `--verbose`, and turned into exit 6 only with `--strict` (people testing a platform against
 * the documents). Errors are read the same way: the server's message, its code as received.
 */
import type { AnyEndpoint } from './contract/common.js';
import { safeParsePart } from './contract/parts.js';
import { BadResponseError, CliError, ExitCode, HttpError, StatusFalseError } from './errors.js';
import { issueProblems } from './input.js';
import { mapStrings, oneLine, redactUrl } from './redact.js';
import { isRetryableStatus, parseRetryAfter } from './retry.js';
import { findRows } from './rows.js';
import { isMarkup, isWebPage, pageWords } from './web-page.js';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** One answer the client accepted: the envelope unwrapped. */
export interface Exchange {
  status: number;
  headers: ResponseHeaders;
  envelope: unknown;
  data: unknown;
  message?: string;
}

/** What one attempt came to: an answer, or an error that may be worth another attempt. */
export interface Attempt {
  ok?: Exchange;
  error?: CliError;
  retryable?: boolean;
  retryAfterMs?: number;
  why?: string;
}

/** A 3xx answer: refused, because following it would send the credentials elsewhere. Exit 6. */
export class RedirectError extends CliError {
  readonly location?: string;
  constructor(status: number, message: string, location?: string) {
    super('redirect', ExitCode.server, message, {
      status,
      hint: location
        ? `if the platform has moved, point the base URL at the new address (--base-url or \`subctl config set base_url ...\`)`
        : undefined,
    });
    this.location = location;
  }
}

function snippet(text: string, n = 80): string {
  const s = oneLine(text);
  return s.length > n ? `${s.slice(0, n)}...` : s;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Is this JSON object the platform's envelope (`{status, message, data, error, meta}`, status optional)? */
function isEnvelope(v: unknown): v is Record<string, unknown> {
  const o = asRecord(v);
  return !!o && ('data' in o || typeof o.status === 'boolean' || JSEND.test(String(o.status)) || typeof o.success === 'boolean');
}

/** JSend's statuses (`success`, `fail`, `error`), another common way of saying how a request went. */
const JSEND = /^(success|fail|error)$/i;
/** Words for a request that failed: the contract's `false`/`0`, and JSend's and others' words. */
const FAILED_WORD = /^(fail|failed|failure|error)$/i;
const SAYS_NO = /^(false|0|fail|failed|failure|error)$/i;

/**
 * How a 2xx envelope says the request failed, for its error message (`status false`,
 * `status "fail"`, `success false`), or undefined when it does not: the contract's `status:
 * false` (also `"false"` and `0`), JSend's `status: "fail"` or `"error"`, or, in an envelope
 * without `status`, `success: false`.
 */
function refusal(env: Record<string, unknown>): string | undefined {
  const no = (v: unknown) => v === false || v === 0 || (typeof v === 'string' && SAYS_NO.test(v.trim()));
  if (env.status !== undefined && env.status !== null) {
    if (!no(env.status)) return undefined;
    return typeof env.status === 'string' && FAILED_WORD.test(env.status.trim())
      ? `status ${JSON.stringify(env.status.trim())}`
      : 'status false';
  }
  return no(env.success) ? 'success false' : undefined;
}

/** A code as received, in one line: a string as it is, a number or an object as its JSON text. */
function codeText(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  return oneLine(typeof v === 'string' ? v : JSON.stringify(v));
}

/** The server's words for an error answer: envelope message, else error.message, else the error string. */
function errorParts(status: number, body: unknown): { message: string; code?: string; details: unknown; hint?: string } {
  const o = asRecord(body);
  const error = o?.error;
  const errObj = asRecord(error);
  const data = asRecord(o?.data);
  const pickStr = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);
  const said =
    pickStr(o?.message) ??
    pickStr(errObj?.message) ??
    pickStr(error) ??
    pickStr(data?.message) ??
    pickStr(data?.error_message) ??
    pickStr(o?.detail) ??
    pickStr(o?.title);
  const message = (said !== undefined ? oneLine(said) : '') || `HTTP ${status}`;
  const code =
    codeText(errObj?.code) ??
    codeText(o?.error_code) ??
    codeText(data?.error_code) ??
    (typeof o?.code === 'string' ? codeText(o.code) : undefined);
  const details = mapStrings(errObj ?? (typeof error === 'string' && oneLine(error) !== message ? error : undefined), oneLine);
  return { message, code, details, hint: hintFor(status) };
}

function hintFor(status: number): string | undefined {
  if (status === 401) return 'sign in with `subctl auth login` (or set SUBCTL_TOKEN), then run the command again';
  if (status === 403) return 'the signed-in account may not do this; `subctl auth status` shows who you are';
  if (status === 429) return 'the server is rate-limiting; wait a moment and run the command again';
  if (status === 413) return 'nothing was applied: the server or a gateway in front of it takes smaller requests; send less at once';
  if (status === 414)
    return 'nothing was applied: the server or a gateway in front of it takes shorter addresses; give fewer or shorter filters';
  if (status === 431)
    return 'nothing was applied: the server or a gateway in front of it takes smaller headers (the token, the session id); sign in again (`subctl auth login`) for a fresh token';
  return undefined;
}

/** Statuses that refuse a request for its size, whoever answers them: nothing was applied (exit 5). */
const TOO_LARGE: Record<number, string> = {
  413: 'the request is too large',
  414: 'the request address is too long',
  431: 'the request headers are too large',
};

const PAGE_HINTS = {
  gateway:
    'a gateway or proxy in front of the platform answered: the platform may be down, restarting or slow; run the command again later (--verbose shows the page)',
  signIn:
    'a sign-in page, captive portal or proxy answered instead of the platform: check the base URL and the network (`subctl doctor`); --verbose shows the page',
  webServer:
    "a web server or gateway answered, not the platform's API: check the base URL and its path prefix (`subctl doctor`); --verbose shows the page",
};

/**
 * An answer that is not JSON: a web page (named by its title, never shown as markup), other
 * markup (by its text) or text (its start). A size refusal (413, 414, 431) is exit 5 whoever
 * sent it; a 5xx, 408 or 429 is retried as any; the rest is an answer outside the contract (exit 6).
 */
function notJson(status: number, headers: ResponseHeaders, text: string, where: () => string, retryAfterMs?: number): Attempt {
  const ctype = String(headers['content-type'] ?? 'no content type');
  const page = isWebPage(text, ctype);
  const words = isMarkup(text, ctype) ? pageWords(text) : snippet(text);
  const said = words ? ` ("${words}")` : '';
  if (TOO_LARGE[status]) {
    return { error: new HttpError(status, `HTTP ${status} from ${where()}: ${TOO_LARGE[status]}${said}`, { hint: hintFor(status) }) };
  }
  const what = page ? `a web page${said}, not JSON` : `not JSON (${ctype})${words ? `: ${words}` : ''}`;
  if (status >= 400 && isRetryableStatus(status)) {
    const hint = hintFor(status) ?? (page ? PAGE_HINTS.gateway : undefined);
    return {
      error: new HttpError(status, `HTTP ${status} from ${where()}: ${what}`, { hint }),
      retryable: true,
      retryAfterMs,
      why: `HTTP ${status}`,
    };
  }
  const error = new BadResponseError(`HTTP ${status} from ${where()} is ${what}`, { status });
  if (page) error.hint = status < 300 ? PAGE_HINTS.signIn : PAGE_HINTS.webServer;
  return { error };
}

function redirected(status: number, headers: ResponseHeaders, where: () => string, base: URL): Attempt {
  const loc = Array.isArray(headers.location) ? headers.location[0] : headers.location;
  let target: string | undefined;
  if (loc) {
    try {
      target = redactUrl(new URL(loc, base));
    } catch {
      target = loc;
    }
  }
  const msg = target
    ? `the server redirected ${where()} to ${target} (HTTP ${status}); subctl does not follow redirects`
    : `the server answered ${where()} with HTTP ${status} (a redirect without a Location); subctl does not follow redirects`;
  return { error: new RedirectError(status, msg, target) };
}

/**
 * One answer classified: a redirect (refused), text that is not JSON, an error status, a 2xx
 * whose envelope says `status: false`, or success with `data` unwrapped as received.
 * `where` names the request in messages; `url` is its address (for a relative Location).
 */
export function classifyAnswer(status: number, headers: ResponseHeaders, text: string, where: () => string, url: () => URL): Attempt {
  if (status >= 300 && status < 400) return redirected(status, headers, where, url());
  let body: unknown;
  let parsed = true;
  if (text.trim() === '') body = undefined;
  else {
    try {
      // A byte order mark before the JSON (some servers write one) is not part of it.
      body = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch {
      parsed = false;
    }
  }
  const retryable = isRetryableStatus(status);
  const retryAfterMs = retryable ? parseRetryAfter(headers['retry-after']) : undefined;
  if (!parsed) return notJson(status, headers, text, where, retryAfterMs);
  if (status >= 400 || status < 200) {
    const p = errorParts(status, body);
    return { error: new HttpError(status, p.message, p), retryable, retryAfterMs, why: `HTTP ${status}` };
  }
  const env = isEnvelope(body) ? body : undefined;
  const refused = env && refusal(env);
  if (refused) {
    // A 2xx that says it failed: the server refused the request (exit 5), in its words.
    const p = errorParts(status, env!);
    return { error: new StatusFalseError(status, p.message, { code: p.code, details: p.details }, refused) };
  }
  const message = env && typeof env.message === 'string' ? env.message : undefined;
  return { ok: { status, headers, envelope: body, data: env ? env.data : body, message } };
}

/** How a value was received, for a deviation line: its type, and a short text of a scalar. */
function describeReceived(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}...` : v)}`;
  return `${typeof v} ${String(v)}`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** One departure of an answer from the contract. */
export interface Deviation {
  /** `data.services[].price`: list positions shown as `[]`, so a column is one deviation. */
  field: string;
  expected: string;
  received: string;
}

/**
 * Departures no response schema sees (every documented field there may be left out): the
 * envelope's `status`, when sent, not a boolean (`"success"`), and a paged list's rows under
 * another key than the documents name (`data.records` for `data.services`).
 */
function outsideSchema(ep: AnyEndpoint, data: unknown, envelope: unknown): Deviation[] {
  const out: Deviation[] = [];
  const env = envelope !== null && typeof envelope === 'object' ? (envelope as Record<string, unknown>) : undefined;
  if (env && env.status !== undefined && typeof env.status !== 'boolean')
    out.push({ field: 'status', expected: 'boolean', received: describeReceived(env.status) });
  const key = ep.paging?.items;
  if (key && data !== null && typeof data === 'object' && !Array.isArray(data) && !(key in data)) {
    const found = findRows(ep, data);
    if (found.rows && found.from !== `data.${key}`)
      out.push({ field: `data.${key}`, expected: 'a list', received: `nothing (rows under ${found.from})` });
  }
  return out;
}

/** The departures of an answer (`data` and its envelope) from the contract; [] when it conforms. */
export function deviationsOf(ep: AnyEndpoint, data: unknown, envelope?: unknown): Deviation[] {
  const out = outsideSchema(ep, data, envelope);
  if (data === undefined || data === null) return out;
  const r = safeParsePart(ep, 'response', data);
  if (r.success) return out;
  const seen = new Set<string>();
  for (const issue of r.error.issues) {
    const field = ['data', ...issue.path.map((p) => (typeof p === 'number' ? '[]' : String(p)))].join('.').replace(/\.\[\]/g, '[]');
    if (seen.has(field)) continue;
    seen.add(field);
    const expected =
      'expected' in issue && typeof issue.expected === 'string'
        ? issue.expected
        : oneLine(issue.message.replace(/^Invalid (input|option): /, ''));
    out.push({ field, expected, received: describeReceived(valueAt(data, issue.path)) });
  }
  return out;
}

/** `--strict`: the deviations as the contract breach they are (exit 6), as zod words them. */
export function strictError(ep: AnyEndpoint, status: number, data: unknown, envelope?: unknown): BadResponseError | undefined {
  const problems = outsideSchema(ep, data, envelope).map((d) => ({
    field: d.field,
    message: `expected ${d.expected}, received ${d.received}`,
  }));
  if (data !== undefined && data !== null) {
    const r = safeParsePart(ep, 'response', data);
    if (!r.success) problems.push(...issueProblems(r.error.issues, 'data'));
  }
  const first = problems[0];
  if (!first) return undefined;
  return new BadResponseError(
    `unexpected answer from ${ep.method} ${ep.path} (HTTP ${status}): ${first.field}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
    { status, details: problems },
  );
}
