/**
 * A call's input: checked against the endpoint's schemas before anything is sent (a bad field is
 * named, exit 2), and turned into the request target (path filled, query appended).
 */
import type { z } from 'zod';
import type { AnyEndpoint } from './contract/common.js';
import { hasPart, safeParsePart } from './contract/parts.js';
import { ValidationError, type FieldProblem } from './errors.js';

/** `input` is the value parsed, when known: it tells a missing field from a wrong one. */
export function issueProblems(issues: readonly z.core.$ZodIssue[], prefix = '', input?: unknown): FieldProblem[] {
  return issues.map((i) => {
    const path = i.path.map((p) => String(p)).join('.');
    return { field: prefix && path ? `${prefix}.${path}` : prefix || path, message: issueMessage(i, input) };
  });
}

/**
 * zod's message, except for a field that is missing altogether: "required: expected string"
 * rather than zod's "Invalid input: expected string, received undefined", and "required:
 * expected one of ..." rather than "Invalid option: ...", which reads as if a wrong value had
 * been given. (Read from the input rather than asked of zod: zod's `reportInput` makes every
 * later parse slower, every row of a bulk run included.)
 */
function issueMessage(i: z.core.$ZodIssue, input: unknown): string {
  if ((i.code !== 'invalid_type' && i.code !== 'invalid_value' && i.code !== 'invalid_union') || i.path.length === 0 || input === undefined)
    return i.message;
  let v: unknown = input;
  for (const k of i.path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k as PropertyKey] : undefined;
  if (v !== undefined) return typedMessage(i, v) ?? i.message;
  return `required: ${i.message.replace(/^Invalid (input|option): /, '').replace(/, received undefined$/, '')}`;
}

/**
 * A number or a boolean given as text that is neither (a flag, a query value), said with the
 * text as typed: `expected a whole number, got 'abc'` rather than zod's "expected number,
 * received string", `expected true or false, got 'maybe'` rather than
 * "Invalid input".
 */
function typedMessage(i: z.core.$ZodIssue, v: unknown): string | undefined {
  const shown = typeof v === 'string' ? `'${v}'` : typeof v === 'number' ? String(v) : undefined;
  if (shown === undefined) return undefined;
  if (i.code === 'invalid_type' && (i.expected === 'number' || i.expected === 'int')) {
    return `expected a ${i.expected === 'int' ? 'whole ' : ''}number, got ${shown}`;
  }
  // q.bool(): true/false, or their text.
  if (
    i.code === 'invalid_union' &&
    typeof v === 'string' &&
    i.errors.some((e) => e.some((x) => x.code === 'invalid_type' && x.expected === 'boolean'))
  ) {
    return `expected true or false, got ${shown}`;
  }
  return undefined;
}

/** Keys of `given` that the caller actually set (not undefined), taken from the validated `parsed`. */
function onlyGiven(parsed: Record<string, unknown>, given: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!given || typeof given !== 'object') return out;
  for (const k in given as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(given, k) || (given as Record<string, unknown>)[k] === undefined) continue;
    if (k in parsed) out[k] = parsed[k];
  }
  return out;
}

const pathPieces = new Map<string, string[]>();
/**
 * A path template split once (literal, name, literal, ...): a bulk run validates and fills the
 * same one for every row.
 */
function piecesOf(template: string): string[] {
  let pieces = pathPieces.get(template);
  if (!pieces) pathPieces.set(template, (pieces = template.split(/\{([^}]+)\}/)));
  return pieces;
}

const pathNames = new Map<string, string[]>();
/** The `{name}`s of a path template (worked out once per template: every bulk row asks). */
function pathParams(template: string): string[] {
  let names = pathNames.get(template);
  if (!names) pathNames.set(template, (names = piecesOf(template).filter((_, i) => i % 2 === 1)));
  return names;
}

/**
 * Validates input against an endpoint's schemas; throws ValidationError listing every bad
 * field (nothing is sent). Query and body keep only the keys the caller gave: defaults
 * declared in the contract are the server's business (and a PUT must not reset fields).
 * @example validateInput(servicesGet, { query: {} }) // ValidationError: invalid input: service_code: Invalid input: expected string, received undefined
 */
export function validateInput(
  ep: AnyEndpoint,
  input: { params?: unknown; query?: unknown; body?: unknown },
): { params: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> | undefined } {
  const problems: FieldProblem[] = [];
  const params = checkPart(ep, 'params', input.params, problems);
  const query = checkPart(ep, 'query', input.query, problems);
  const body = hasPart(ep, 'body') ? checkPart(ep, 'body', input.body, problems) : undefined;
  const given = input.params as Record<string, unknown> | undefined;
  for (const name of pathParams(ep.path)) {
    const v = params[name] ?? given?.[name];
    if (v === undefined) {
      if (!problems.some((p) => p.field === name))
        problems.push({ field: name, message: 'Invalid input: expected a value for the path parameter' });
    } else if (v === '.' || v === '..') {
      // A URL resolves `.` and `..` segments even percent-encoded (/cms/roles/./users is
      // /cms/roles/users): the request would go to another endpoint.
      problems.push({ field: name, message: "Invalid input: '.' and '..' cannot be sent as a path segment" });
    }
  }
  if (problems.length) throw new ValidationError(problems);
  return {
    params: given ? { ...given, ...params } : params,
    query: onlyGiven(query, input.query),
    body: body === undefined ? undefined : onlyGiven(body, input.body),
  };
}

/** One part (params, query or body) checked against its schema; problems are added to `problems`. */
function checkPart(ep: AnyEndpoint, part: 'params' | 'query' | 'body', value: unknown, problems: FieldProblem[]): Record<string, unknown> {
  if (!hasPart(ep, part)) return {};
  const given = value ?? {};
  const r = safeParsePart(ep, part, given);
  if (!r.success) {
    problems.push(...issueProblems(r.error.issues, '', given));
    return {};
  }
  return r.data as Record<string, unknown>;
}

function queryValue(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function appendQuery(params: URLSearchParams, query: Record<string, unknown> | undefined): void {
  if (!query) return;
  for (const [k, v] of Object.entries(query)) {
    const values = Array.isArray(v) ? v : [v];
    for (const item of values) {
      const s = queryValue(item);
      if (s !== undefined) params.append(k, s);
    }
  }
}

/**
 * The request target (path and query) of an endpoint call under a base path: the same text as
 * `new URL(base + path)` with the query appended to its `searchParams` gives, without parsing a
 * URL per request (a cost on every row of a bulk run). `fillPath` percent-encodes every value,
 * and a path template is plain ASCII, so there is nothing for the URL parser to change.
 * @example requestTarget('/api', '/admin/subscriptions/{id}/manage', { id: 7 }, {}) // '/api/admin/subscriptions/7/manage'
 */
export function requestTarget(
  basePath: string,
  template: string,
  params: Record<string, unknown>,
  query: Record<string, unknown> | undefined,
): string {
  const path = `${basePath}${fillPath(template, params)}`;
  if (!query) return path;
  let any = false;
  for (const k in query) {
    if (query[k] !== undefined) {
      any = true;
      break;
    }
  }
  if (!any) return path;
  const sp = new URLSearchParams();
  appendQuery(sp, query);
  const qs = sp.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * `template` with its `{name}`s filled from `params`, percent-encoded.
 * @example fillPath('/admin/subscriptions/{id}/manage', { id: 7 }) // '/admin/subscriptions/7/manage'
 */
export function fillPath(template: string, params: Record<string, unknown>): string {
  const pieces = piecesOf(template);
  let out = pieces[0];
  for (let i = 1; i < pieces.length; i += 2) out += encodeURIComponent(String(params[pieces[i]])) + pieces[i + 1];
  return out;
}
