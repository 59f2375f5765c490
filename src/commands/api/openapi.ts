/**
 * `subctl api openapi`: the contract (src/api/contract/) as an OpenAPI 3.1 document, built from
 * the same zod schemas that check every request and answer, so that other tools read the API as
 * subctl does. Every endpoint of `api endpoints` is an operation, named by its contract name.
 */
import { toJSONSchema, type ZodType } from 'zod';
import type { AnyEndpoint } from '../../api/contract/common.js';
import { version } from '../../../package.json';

type Json = Record<string, unknown>;

/**
 * A zod schema as a JSON Schema (2020-12, the dialect of OpenAPI 3.1). Requests are described
 * as sent (`input`: what a caller may put), answers as read (`output`); what JSON Schema cannot
 * say (a transform) is left open rather than refused.
 */
function schemaOf(s: ZodType, io: 'input' | 'output'): Json {
  const out = toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete out.$schema;
  return out;
}

/** The parameters of one place (`path` or `query`) from its object schema. */
function parameters(s: ZodType | undefined, place: 'path' | 'query'): Json[] {
  if (!s) return [];
  const js = schemaOf(s, 'input');
  const props = (js.properties ?? {}) as Record<string, Json>;
  const required = new Set((js.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: place, required: place === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** The platform's envelope around `data` (both specifications): `{status, message, data, error, meta}`. */
function envelope(data: Json): Json {
  return {
    type: 'object',
    required: ['status', 'data'],
    properties: { status: { type: 'boolean' }, message: { type: 'string' }, data, error: {}, meta: {} },
  };
}

function operation(ep: AnyEndpoint, command: string | undefined): Json {
  const op: Json = {
    operationId: ep.name,
    summary: ep.summary,
    tags: [ep.area === 'admin' ? 'admin' : ep.name.split('.')[0]],
    'x-subctl-access': ep.access,
  };
  if (command) op['x-subctl-command'] = `subctl ${command}`;
  const params = [...parameters(ep.params, 'path'), ...parameters(ep.query, 'query')];
  if (ep.deviceId) params.push({ name: 'X-Device-ID', in: 'header', required: true, schema: { type: 'string' } });
  if (params.length) op.parameters = params;
  if (ep.body) op.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(ep.body, 'input') } } };
  if (ep.access !== 'public') op.security = [{ bearer: [] }];
  op.responses = {
    [String(ep.successStatus ?? 200)]: {
      description: 'success',
      content: { 'application/json': { schema: envelope(schemaOf(ep.response, 'output')) } },
    },
    default: {
      description: 'failure: `status` false, `error` says why',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
    },
  };
  return op;
}

/** The whole document; `commands` maps an endpoint's name to the command that calls it. */
export function openApiDocument(endpoints: readonly AnyEndpoint[], commands: ReadonlyMap<string, string>): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const ep of endpoints) {
    (paths[ep.path] ??= {})[ep.method.toLowerCase()] = operation(ep, commands.get(ep.name));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Subscription and usage-metering platform (as subctl reads it)',
      version,
      description:
        "Built by `subctl api openapi` from the zod schemas of subctl's contract: the requests it sends and the answers it accepts.",
    },
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Failure: envelope({}),
      },
    },
  };
}
