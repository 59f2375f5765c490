/**
 * `subctl api METHOD PATH [-f key=value ...] [--input FILE|-]`: any call with the shared client
 * rules; `subctl api endpoints`: the whole contract; `subctl api openapi`: it as OpenAPI 3.1.
 */
import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { loadEndpoint, matchRoute } from '../../api/contract/routes.js';
import { describeObject } from '../../api/contract/common.js';
import type { z } from '../../api/contract/z.js';
import { UsageError, ValidationError } from '../../api/errors.js';
import { commandOfEndpoint } from '../../cli/verbs.js';
import { badNumberText } from '../../api/contract/convert.js';
import type { Ctx } from '../../cli/context.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { utf8Text } from '../../api/utf8.js';
import { printList, printObject } from '../../output/index.js';
import type { Group } from '../types.js';

/**
 * `-f key=value`: numbers, booleans and null as such, `key:=json` for raw JSON, text otherwise.
 * (Where the contract says a field is text, `applyContractTypes` gives it back its text.)
 */
export function parseField(spec: string): [string, unknown] {
  const raw = spec.indexOf(':=');
  const eq = spec.indexOf('=');
  if (raw > 0 && raw < eq) {
    const key = spec.slice(0, raw);
    try {
      return [key, JSON.parse(spec.slice(raw + 2))];
    } catch {
      throw new UsageError(`-f ${spec}: the value after := is not JSON`);
    }
  }
  if (eq <= 0) throw new UsageError(`-f expects key=value, got '${spec}'`);
  const key = spec.slice(0, eq);
  const v = spec.slice(eq + 1);
  if (/^-?\d+(\.\d+)?$/.test(v) && !/^-?0\d/.test(v)) return [key, Number(v)];
  if (v === 'true' || v === 'false') return [key, v === 'true'];
  if (v === 'null') return [key, null];
  return [key, v];
}

/** The `key=value` fields (not `key:=json`) as typed, for the contract to type. */
function typedAsText(specs: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const spec of specs) {
    const raw = spec.indexOf(':=');
    const eq = spec.indexOf('=');
    if (eq > 0 && !(raw > 0 && raw < eq)) out.set(spec.slice(0, eq), spec.slice(eq + 1));
  }
  return out;
}

/**
 * Fields given as `key=value` whose contract type is text (a string, one of a list of values, a
 * date) get their text back: `-f service_code=123` or `-f search_keyword=2024` would otherwise be
 * sent as numbers and refused ("expected string, received number").
 */
function applyContractTypes(place: Record<string, unknown> | undefined, schema: z.ZodObject | undefined, texts: Map<string, string>): void {
  if (!place || !schema) return;
  for (const [k, info] of describeObject(schema)) {
    const text = texts.get(k);
    if (text === undefined || !(k in place)) continue;
    if (info.kind === 'string' || info.kind === 'enum' || info.kind === 'date') place[k] = text;
    // A number as the flags take one: `0x10` is refused as typed and named as the `-f` given.
    const bad = badNumberText(text, info);
    if (bad) throw new ValidationError([{ field: k, flag: `-f ${k}`, message: bad }]);
  }
}

async function readInput(ctx: Ctx, file: string): Promise<unknown> {
  let bytes: Buffer;
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
    bytes = Buffer.concat(chunks);
  } else {
    try {
      bytes = readFileSync(file);
    } catch (e) {
      throw new UsageError(`--input ${file}: ${(e as Error).message}`);
    }
  }
  // JSON is UTF-8 (RFC 8259): anything else is refused, not sent with U+FFFD in it.
  const decoded = utf8Text(bytes, `--input ${file}`);
  // A byte-order mark (Windows editors write one) is not JSON: dropped, as bulk input drops it.
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--input ${file}: not valid JSON`);
  }
}

/** Every group built (its verbs record the endpoints they call): endpoint name -> command. */
async function commandsOfEndpoints(): Promise<Map<string, string>> {
  if (!commandsBuilt) {
    const { buildTree } = await import('../../cli/tree.js');
    await buildTree('*');
    commandsBuilt = true;
  }
  return commandOfEndpoint;
}
let commandsBuilt = false;

async function listEndpoints(ctx: Ctx) {
  const { endpoints } = await import('../../api/contract/index.js');
  const commands = await commandsOfEndpoints();
  const rows = endpoints.map((e) => ({
    method: e.method,
    path: e.path,
    name: e.name,
    command: commands.has(e.name) ? `subctl ${commands.get(e.name)!}` : null,
    area: e.area,
    access: e.access,
    summary: e.summary,
  }));
  await printList(rows, {
    format: ctx.globals.output,
    fields: ctx.globals.fields,
    columns: ['method', 'path', 'command', 'summary'],
    io: ctx.io,
    noColor: ctx.globals.noColor,
  });
  return 0;
}

/** `api openapi`: the contract as an OpenAPI 3.1 document, JSON (one line with -o ndjson). */
async function printOpenApi(ctx: Ctx) {
  const { endpoints } = await import('../../api/contract/index.js');
  const { openApiDocument } = await import('./openapi.js');
  const doc = openApiDocument(endpoints, await commandsOfEndpoints());
  await printObject(doc, { format: ctx.globals.output === 'ndjson' ? 'ndjson' : 'json', io: ctx.io });
  return 0;
}

/** Examples shown in help: whole command lines, starting with `subctl `. */
export const apiExamples = [
  'subctl api GET /admin/services -f service_type=HYBRID',
  'subctl api endpoints --fields method,path,command',
  'subctl api openapi > subctl-openapi.json',
  "subctl api openapi --jq '.paths | keys | length'",
];

export const apiGroup: Group = {
  name: 'api',
  // A table of verbs, one Commander chain each: read whole.
  build(cmd, bind) {
    cmd
      .argument('<method>', 'GET, POST, PUT, DELETE (or `endpoints`, or `openapi`)')
      .argument('[path]', 'path under the base address, e.g. /admin/services')
      .addOption(
        new Option('-f, --field <key=value>', 'a query (GET) or body field; repeatable; key:=JSON for raw JSON').argParser(
          (v, prev: string[] = []) => [...prev, v],
        ),
      )
      .addOption(new Option('--input <file>', 'JSON body from FILE, or - for stdin'))
      .addOption(
        new Option('-H, --header <name:value>', 'an extra request header; repeatable').argParser((v, prev: string[] = []) => [...prev, v]),
      );
    addGlobalOptions(cmd);
    cmd.addHelpText('after', `\nExamples:\n${apiExamples.map((e) => `  ${e}`).join('\n')}\n`);
    cmd.action((method: string, path: string | undefined, _o, command) => {
      const opts = command.optsWithGlobals() as Record<string, unknown>;
      bind(async (ctx) => {
        if (method === 'endpoints') return listEndpoints(ctx);
        if (method === 'openapi') return printOpenApi(ctx);
        const m = method.toUpperCase();
        if (!['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].includes(m))
          throw new UsageError(`unknown method '${method}': use GET, POST, PUT or DELETE`);
        if (!path) throw new UsageError('missing the PATH argument, e.g. subctl api GET /admin/services');
        // One request, as sent: paging through a list is the group commands' (`services list --all`).
        if (ctx.globals.all || ctx.globals.limit !== undefined) {
          throw new UsageError(
            `${ctx.globals.all ? '--all' : '--limit'} pages through lists in the group commands (e.g. \`subctl services list --all\`); api sends one request: give -f page_number=N -f page_size=N`,
            {
              hint: 'leave out --all and --limit, or use the group command',
            },
          );
        }
        if (!path.startsWith('/')) path = `/${path}`;
        const [pathOnly, qs] = path.split('?');
        const fields = Object.fromEntries(((opts.field as string[] | undefined) ?? []).map(parseField));
        const query: Record<string, unknown> = Object.fromEntries(new URLSearchParams(qs ?? '').entries());
        let body: unknown;
        // --input shares its attribute with the global --no-input, and optsWithGlobals() lets the
        // program's value (true by default) override this command's: read this command's own.
        const input = (command.opts() as Record<string, unknown>).input;
        if (typeof input === 'string') body = await readInput(ctx, input);
        if (m === 'GET') Object.assign(query, fields);
        else if (Object.keys(fields).length || body === undefined) body = { ...(body as object | undefined), ...fields };
        const headers: Record<string, string> = {};
        for (const h of (opts.header as string[] | undefined) ?? []) {
          const i = h.indexOf(':');
          if (i <= 0) throw new UsageError(`-H expects name:value, got '${h}'`);
          headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
        }
        // A path of the contract gets the contract's checks before anything is sent (only that
        // endpoint's contract file is loaded).
        const match = matchRoute(m, pathOnly);
        if (match) {
          const endpoint = await loadEndpoint(match.name);
          const texts = typedAsText((opts.field as string[] | undefined) ?? []);
          const { validateInput } = await import('../../api/client.js');
          try {
            if (m === 'GET') applyContractTypes(query, endpoint.query, texts);
            else applyContractTypes(body as Record<string, unknown> | undefined, endpoint.body, texts);
            validateInput(endpoint, {
              params: endpoint.params ? match.params : undefined,
              query: endpoint.query ? query : undefined,
              body: endpoint.body ? (body ?? {}) : undefined,
            });
          } catch (e) {
            // Said as they were given: a field of -f (or of the path), not a flag api does not have.
            if (!(e instanceof ValidationError)) throw e;
            const inPath = new Set(Object.keys(match.params));
            const command = (await commandsOfEndpoints()).get(endpoint.name);
            throw new ValidationError(
              e.problems.map((p) => ({
                ...p,
                flag: p.field === '' ? undefined : inPath.has(p.field.split('.')[0]!) ? 'in the path' : `-f ${p.field.split('.')[0]}`,
              })),
              undefined,
              command
                ? `the endpoint is ${endpoint.name}; \`subctl ${command} --help\` lists each field with its type and bounds`
                : `the endpoint is ${endpoint.name} (\`subctl api endpoints\`)`,
            );
          }
        }
        const api = await ctx.api();
        const res = await api.request(m, pathOnly, { query, body, headers }, { signal: ctx.signal });
        const format = ctx.globals.outputExplicit ? ctx.globals.output : 'json';
        const out = { format, fields: ctx.globals.fields, io: ctx.io, noColor: ctx.globals.noColor };
        const data = res.data === undefined ? res.envelope : res.data;
        // Rows of a table, csv or ndjson are objects: an item that is not one is a `value` column.
        if (Array.isArray(data) && format !== 'json')
          await printList(
            data.map((d: unknown) =>
              d !== null && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : { value: d },
            ),
            out,
          );
        else await printObject(data ?? null, out);
        return 0;
      })(opts);
    });
  },
};
