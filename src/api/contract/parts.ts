/**
 * An endpoint's parts (params, query, body, response), read through its lazy schemas: reading a
 * part builds that endpoint's schemas, and only that endpoint's.
 */
import type { ZodError } from 'zod';
import { describeObject, type AnyEndpoint, type FieldInfo } from './common.js';

export type Place = 'params' | 'query' | 'body';
export type Part = Place | 'response';
export type ParseResult = { success: true; data: unknown } | { success: false; error: ZodError };

/** Whether the endpoint has params, a query or a body. */
export function hasPart(ep: AnyEndpoint, part: Place): boolean {
  return ep[part] !== undefined;
}

/** The input fields of an endpoint in declaration order (params, query, body), as `describeObject` gives them. */
export function fieldsOfEndpoint(ep: AnyEndpoint): Array<[string, Place, FieldInfo]> {
  const out: Array<[string, Place, FieldInfo]> = [];
  for (const place of ['params', 'query', 'body'] as const) for (const [k, info] of describeObject(ep[place])) out.push([k, place, info]);
  return out;
}

/**
 * `ep[part].safeParse(value)`; `part` must exist on the endpoint. `error` gives messages where
 * the schema has none of its own (the sandbox's platform wording).
 */
export function safeParsePart(ep: AnyEndpoint, part: Part, value: unknown, error?: (issue: never) => string | undefined): ParseResult {
  const schema = ep[part]!;
  return schema.safeParse(value, error ? { error: error as never } : undefined) as ParseResult;
}
