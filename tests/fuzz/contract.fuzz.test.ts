/**
 * Input and answer fuzzing over every endpoint of the contract, with fast-check.
 *
 * (a) Invalid input (from each field's description: wrong types, strings over the maximum or
 *     under the minimum, numbers out of bounds, bad enum values, bad dates, required fields left
 *     out) is refused before sending: `validateInput` names the field, and through the CLI
 *     (`subctl api METHOD PATH -f key:=JSON ...`) it is exit 2, the field named, nothing sent.
 * (b) Valid input (from the same descriptions) gives a request whose path params, query and
 *     body the endpoint's own schemas accept once read back off the wire, with the same values.
 * (c) Malformed answers (truncated JSON, HTML error pages, wrong types in the data, bodies of
 *     several MB, empty bodies, 200 with status:false, non-UTF-8 bytes, JSON that is not an
 *     envelope) give a clear error line and a documented exit code: never a crash (exit 1) nor
 *     a stack trace, through the client, through `subctl api`, and through the verbs that
 *     render answers (tables, csv, json, summaries, the dashboard).
 *
 * Budget: FUZZ_RUNS runs per property (`npm run fuzz`: 2000); 30 when unset (`npm test`).
 * FUZZ_SEED replays a run; FUZZ_TRACE=FILE appends every case to FILE before it runs (to find
 * a case that hangs). A table of the cases per command group is printed at the end.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, validateInput } from '../../src/api/client.js';
import type { AnyEndpoint } from '../../src/api/contract/common.js';
import { endpoints, matchEndpoint } from '../../src/api/contract/index.js';
import { CliError, ValidationError } from '../../src/api/errors.js';
import { runCli, tempConfigDir, type RunResult } from '../support/run-cli.js';
import { brokenInput, fieldsOf, refuses, validInput, type Broken, type Input } from './arbitraries.js';
import { envelope, startWire, type Wire, type WireReply, type WireRequest } from './wire.js';

const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS) || 30);
/** Runs of a property that goes through the whole CLI in process (slower than the client). */
const CLI_RUNS = Math.max(2, Math.ceil(RUNS / 15));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });

let wire: Wire;
let configDir: string;
let client: ApiClient;

beforeAll(async () => {
  wire = await startWire();
  configDir = tempConfigDir();
  client = new ApiClient({ baseUrl: wire.url, token: 'tok-fuzz', retries: 0, timeoutMs: 10_000 });
});

// ---------------------------------------------------------------------------------------------
// Bookkeeping: cases per command group

const groupOf = (ep: AnyEndpoint) => (ep.name.startsWith('cms.') ? 'auth' : ep.name.split('.')[0]);
const table = new Map<string, { cases: number; failures: number }>();
function tally(group: string, cases: number, failed = false) {
  const t = table.get(group) ?? { cases: 0, failures: 0 };
  t.cases += cases;
  if (failed) t.failures++;
  table.set(group, t);
}
/** Runs a property, counting its cases under `group` (and a failure when it throws). */
async function check<T>(group: string, arb: fc.Arbitrary<T>, numRuns: number, predicate: (v: T) => Promise<void> | void): Promise<void> {
  let n = 0;
  try {
    await fc.assert(
      fc.asyncProperty(arb, async (v) => {
        n++;
        if (process.env.FUZZ_TRACE)
          (await import('node:fs')).appendFileSync(process.env.FUZZ_TRACE, `${group} ${n} ${JSON.stringify(v).slice(0, 300)}\n`);
        await predicate(v);
      }),
      params(numRuns),
    );
  } catch (e) {
    tally(group, n, true);
    throw e;
  }
  tally(group, n);
}

/** The same for a list of cases drawn beforehand: each one run once. */
async function checkList<T>(group: string, cases: T[], predicate: (v: T) => Promise<void> | void): Promise<void> {
  let n = 0;
  try {
    for (const c of cases) {
      n++;
      await predicate(c);
    }
  } catch (e) {
    tally(group, n, true);
    throw new Error(`case ${n} of ${cases.length} failed: ${JSON.stringify(cases[n - 1]).slice(0, 2000)}`, { cause: e });
  }
  tally(group, n);
}

afterAll(async () => {
  await client?.close();
  await wire?.close();
  const rows = [...table].sort(([a], [b]) => a.localeCompare(b));
  const total = rows.reduce((s, [, t]) => s + t.cases, 0);
  const failures = rows.reduce((s, [, t]) => s + t.failures, 0);
  const w = Math.max(5, ...rows.map(([g]) => g.length));
  const line = (g: string, c: string | number, f: string | number) => `${g.padEnd(w)}  ${String(c).padStart(7)}  ${String(f).padStart(8)}`;
  console.log(
    [
      `fuzz cases per command group (FUZZ_RUNS=${RUNS})`,
      line('group', 'cases', 'failures'),
      ...rows.map(([g, t]) => line(g, t.cases, t.failures)),
      line('total', total, failures),
    ].join('\n'),
  );
});

// ---------------------------------------------------------------------------------------------
// Helpers

const env = () => ({ SUBCTL_BASE_URL: wire.url, SUBCTL_TOKEN: 'tok-fuzz', SUBCTL_CONFIG_DIR: configDir });

function pathOf(ep: AnyEndpoint, p: Record<string, unknown>): string {
  return ep.path.replace(/\{(\w+)\}/g, (_m, k: string) => encodeURIComponent(String(p[k])));
}

/** `subctl api METHOD PATH -f key:=JSON ...`: query fields on a GET, body fields otherwise. */
function apiArgs(ep: AnyEndpoint, input: Input, extra: string[] = []): string[] {
  const fields = ep.method === 'GET' ? input.query : input.body;
  const other = ep.method === 'GET' ? input.body : input.query;
  if (Object.keys(other).length) throw new Error(`${ep.name}: the api command cannot send a ${ep.method === 'GET' ? 'body' : 'query'}`);
  const args = ['api', ep.method, pathOf(ep, input.params), '--retries', '0', ...extra];
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) args.push('-f', `${k}:=${JSON.stringify(v)}`);
  return args;
}

const withoutUndefined = (o: Record<string, unknown>) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>;

/** Reads a request back off the wire the way a server would, and checks it against the endpoint's schemas. */
function checkOnTheWire(ep: AnyEndpoint, req: WireRequest, input: Input): void {
  expect(req.method).toBe(ep.method);
  const m = matchEndpoint(req.method, req.path);
  expect(m?.endpoint.name, `${req.method} ${req.path} routes to ${ep.name}`).toBe(ep.name);
  if (ep.params) {
    const r = ep.params.safeParse(m!.params);
    expect(r.success, `params ${JSON.stringify(m!.params)}: ${r.error?.message}`).toBe(true);
    expect(r.data).toEqual(ep.params.parse(input.params));
  }
  const listFields = new Set(
    fieldsOf(ep)
      .filter((f) => f.place === 'query' && f.info.kind === 'list')
      .map((f) => f.name),
  );
  const query: Record<string, unknown> = {};
  for (const k of new Set(req.search.keys())) {
    const all = req.search.getAll(k);
    if (!listFields.has(k)) expect(all, `query key ${k} sent once`).toHaveLength(1);
    query[k] = listFields.has(k) ? all : all[0];
  }
  if (ep.query) {
    const r = ep.query.safeParse(query);
    expect(r.success, `query ${req.url}: ${r.error?.message}`).toBe(true);
    expect(r.data).toEqual(ep.query.parse(input.query));
  } else expect([...req.search.keys()]).toEqual([]);
  if (ep.body) {
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(req.body.toString('utf8')) as unknown;
    const r = ep.body.safeParse(body);
    expect(r.success, `body ${req.body.toString('utf8')}: ${r.error?.message}`).toBe(true);
    expect(body).toEqual(withoutUndefined(input.body));
  } else {
    // No body in the contract: nothing, or (`subctl api` on a POST/DELETE) an empty object.
    expect(['', '{}']).toContain(req.body.toString('utf8'));
  }
}

/** Error output of the CLI: documented code, one clear `error:` line first, no crash, no trace. */
function expectClearFailure(r: RunResult, allowed: number[]): void {
  const why = `exit ${r.code}; stderr:\n${r.stderr.slice(0, 1500)}`;
  expect(allowed, why).toContain(r.code);
  // A stack trace of subctl (Node prints frames 4 spaces in); field errors are 2 spaces in.
  expect(r.stderr, why).not.toMatch(/^ {4}at \S/m);
  expect(r.stderr, why).not.toMatch(/this is a bug in subctl/);
  expect(r.stderr, why).not.toContain('\u001b');
  if (r.code !== 0) {
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    if (lines.at(-1)?.startsWith('{')) {
      // -o json|ndjson: the error is said once, as one JSON object on the last line; notes
      // written before the error came stay above it (docs/output.md).
      expect(JSON.parse(lines.at(-1)!).error.message, why).toMatch(/^\S/);
      for (const l of lines.slice(0, -1)) expect(l, why).toMatch(/^(note|warning): \S/);
      return;
    }
    // Notes written before the error came (where the rows of an answer were found) stay above it.
    const at = lines.findIndex((l) => !/^(note|warning): \S/.test(l));
    expect(lines[at], why).toMatch(/^error: \S/);
    // Every line after it is a field error, a hint, a note, or a progress line.
    for (const l of lines.slice(at + 1)) expect(l, why).toMatch(/^( {2}\S|hint: |[a-z[])/);
  }
}

// ---------------------------------------------------------------------------------------------
// (a) invalid input

describe('(a) invalid input is refused before sending, naming the field', () => {
  it.each(endpoints.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', async (_name, ep) => {
    const broken = brokenInput(ep);
    if (!broken) {
      tally(groupOf(ep), 0);
      return;
    }
    await check(groupOf(ep), broken, RUNS, (b) => {
      let err: unknown;
      try {
        validateInput(ep, b.input);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(b)).toBeInstanceOf(ValidationError);
      const fields = (err as ValidationError).problems.map((p) => p.field);
      expect(
        fields.some((f) => f === b.field || f.startsWith(`${b.field}.`)),
        `${JSON.stringify(fields)} names ${b.field}`,
      ).toBe(true);
    });

    // The same through the whole CLI: a sample of cases a command line can say.
    const expressible = (b: Broken) => {
      if (b.place !== 'params') return true;
      if (b.how === 'missing') return false;
      const f = fieldsOf(ep).find((x) => x.place === 'params' && x.name === b.field)!;
      // A path segment is text: the value must still be refused as text, and the path route here.
      return refuses(f, String(b.value)) && matchEndpoint(ep.method, pathOf(ep, b.input.params))?.endpoint === ep;
    };
    // Drawn, then kept when expressible (a filter could loop for ever: an empty path id, say,
    // routes nowhere, so no broken path id of DELETE /cms/users/devices/{id} can be said).
    const said = fc
      .sample(broken, { numRuns: CLI_RUNS * 20, seed: SEED })
      .filter(expressible)
      .slice(0, CLI_RUNS);
    if (!said.length) return;
    await checkList(groupOf(ep), said, async (b) => {
      wire.requests.length = 0;
      const r = await runCli(apiArgs(ep, b.input), { env: env() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^error: invalid input/);
      expect(r.stderr).toContain(b.field);
      expect(wire.requests).toHaveLength(0);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// (b) valid input

describe('(b) valid input makes a request the endpoint schemas accept, values unchanged', () => {
  it.each(endpoints.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', async (_name, ep) => {
    wire.reply = () => envelope(null);
    await check(groupOf(ep), validInput(ep), RUNS, async (input) => {
      expect(() => validateInput(ep, input)).not.toThrow();
      wire.requests.length = 0;
      await client.callFull(ep, input as never);
      expect(wire.requests).toHaveLength(1);
      checkOnTheWire(ep, wire.requests[0], input);
    });
    await check(groupOf(ep), validInput(ep), CLI_RUNS, async (input) => {
      wire.requests.length = 0;
      const r = await runCli(apiArgs(ep, input), { env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(wire.requests).toHaveLength(1);
      checkOnTheWire(ep, wire.requests[0], input);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// (c) malformed answers

const JSON_TYPE = { 'content-type': 'application/json' };

type Unwrapped = { type: string; shape?: Record<string, unknown>; element?: unknown; innerType?: unknown };
function unwrap(s: unknown): Unwrapped {
  let d = (s as { _zod: { def: Unwrapped } })._zod.def;
  for (let i = 0; i < 5 && (d.type === 'optional' || d.type === 'nullable'); i++)
    d = (d.innerType as { _zod: { def: Unwrapped } })._zod.def;
  return d;
}
const keysOf = (s: unknown): string[] => {
  const d = unwrap(s);
  return d.type === 'object' && d.shape ? Object.keys(d.shape) : [];
};

/** Data with the answer's own keys holding values of any type (wrong ones, mostly). */
function wrongData(ep: AnyEndpoint): fc.Arbitrary<unknown> {
  const any = fc.jsonValue({ maxDepth: 2 });
  const keys = keysOf(ep.response);
  const opts: Array<fc.Arbitrary<unknown>> = [fc.jsonValue({ maxDepth: 3 })];
  if (keys.length) opts.push(fc.record(Object.fromEntries(keys.map((k) => [k, any])), { requiredKeys: [] }));
  const items = ep.paging?.items;
  if (items !== undefined) {
    const d = unwrap(items ? (unwrap(ep.response).shape?.[items] ?? ep.response) : ep.response);
    const itemKeys = d.type === 'array' ? keysOf(d.element) : [];
    const item = fc.oneof(any, fc.record(Object.fromEntries(itemKeys.map((k) => [k, any])), { requiredKeys: [] }));
    const list = fc.array(item, { maxLength: 6 });
    const info = ep.paging!.info;
    opts.push(
      items
        ? fc.record({ [items]: list, ...(info ? { [info]: any } : { total_pages: any, total_records: any }) }, { requiredKeys: [items] })
        : list,
    );
  }
  return fc.oneof(...opts);
}

const HUGE = (() => {
  // About 4 MB: a valid envelope with a long list of objects, and the same bytes cut short.
  const rows = Array.from({ length: 24_000 }, (_, i) => ({ id: i, name: `row ${i} ${'x'.repeat(120)}`, value: i * 1.5 }));
  const text = JSON.stringify({ status: true, message: 'OK', data: { items: rows, blob: 'y'.repeat(500_000) } });
  return { text, cut: text.slice(0, text.length - 7) };
})();

const controlText = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    fc.constantFrom(
      '\n',
      '\r',
      '\t',
      '\u001b[2J',
      '\u001b]0;owned\u0007',
      '\u0000',
      '\u0008',
      '\u009b',
      '\n    at Object.<anonymous> (/srv/app.js:1:1)',
    ),
  ),
  maxLength: 60,
});

/** Every kind of malformed answer, each drawn at random. */
function malformed(ep: AnyEndpoint): fc.Arbitrary<{ kind: string; reply: WireReply }> {
  const sample = JSON.stringify({ status: true, message: 'OK', data: { a: 1, b: [1, 2, { c: 'x' }], d: 'text' }, error: null, meta: null });
  const kinds: Array<fc.Arbitrary<{ kind: string; reply: WireReply }>> = [
    fc
      .integer({ min: 0, max: sample.length - 1 })
      .map((n) => ({ kind: 'truncated JSON', reply: { status: 200, headers: JSON_TYPE, body: sample.slice(0, n) } })),
    fc.constantFrom(200, 400, 401, 403, 404, 409, 422, 500, 502, 503, 504).map((status) => ({
      kind: 'HTML error page',
      reply: {
        status,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!DOCTYPE html>\n<html><head><title>${status}</title></head>\n<body><h1>Error ${status}</h1><p>nginx</p></body></html>\n`,
      },
    })),
    wrongData(ep).map((data) => ({ kind: 'wrong types in the data', reply: envelope(data) })),
    fc.constantFrom(HUGE.text, HUGE.cut).map((body) => ({ kind: 'huge body', reply: { status: 200, headers: JSON_TYPE, body } })),
    fc
      .constantFrom(200, 201, 204, 400, 401, 404, 500, 503)
      .map((status) => ({ kind: 'empty body', reply: { status, headers: JSON_TYPE, body: '' } })),
    fc
      .record({
        message: fc.option(controlText, { nil: undefined }),
        error: fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.record({
            code: fc.oneof(fc.string(), fc.integer()),
            message: controlText,
            fields: fc.array(fc.record({ field: controlText, message: controlText }), { maxLength: 3 }),
          }),
        ),
      })
      .map((e) => ({
        kind: '200 with status:false',
        reply: { status: 200, headers: JSON_TYPE, body: JSON.stringify({ status: false, message: e.message, data: null, error: e.error }) },
      })),
    fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40, min: 0x80, max: 0xff }), fc.boolean()).map(([bytes, inJson]) => ({
      kind: 'non-UTF-8 bytes',
      reply: {
        status: 200,
        headers: JSON_TYPE,
        body: inJson
          ? Buffer.concat([
              Buffer.from('{"status":true,"message":"'),
              Buffer.from(bytes),
              Buffer.from('","data":{"name":"'),
              Buffer.from(bytes),
              Buffer.from('"}}'),
            ])
          : Buffer.from(bytes),
      },
    })),
    fc
      .jsonValue({ maxDepth: 2 })
      .map((v) => ({ kind: 'JSON that is not an envelope', reply: { status: 200, headers: JSON_TYPE, body: JSON.stringify(v) } })),
  ];
  return fc.oneof(...kinds);
}

const ANSWER_EXITS = [0, 3, 4, 5, 6, 7];

describe('(c) malformed answers: a clear error and a documented exit code, never a crash', () => {
  it.each(endpoints.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', async (_name, ep) => {
    const input = fc.sample(validInput(ep), { numRuns: 1, seed: 7 })[0];
    // Through the client (the path of every verb): a CliError with a documented code, or data.
    await check(groupOf(ep), malformed(ep), RUNS, async ({ kind, reply }) => {
      wire.reply = () => reply;
      try {
        await client.callFull(ep, input as never);
      } catch (e) {
        expect(e, `${kind}: ${(e as Error)?.stack}`).toBeInstanceOf(CliError);
        const err = e as CliError;
        expect(ANSWER_EXITS, kind).toContain(err.exitCode);
        expect(err.message.length, kind).toBeGreaterThan(0);
        expect(err.message, kind).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }
    });
    // Through `subctl api` (raw: no response schema), in two output formats.
    await check(
      groupOf(ep),
      fc.tuple(malformed(ep), fc.constantFrom('json', 'table', 'csv', 'ndjson')),
      CLI_RUNS,
      async ([{ reply }, format]) => {
        wire.reply = () => reply;
        expectClearFailure(await runCli(apiArgs(ep, input, ['-o', format]), { env: env() }), ANSWER_EXITS);
      },
    );
  });

  // Verbs that render answers: lists (table, csv, json, ndjson, --all), objects, summaries, charts.
  const verbs: Array<[string, string]> = [
    ['services', 'services list'],
    ['services', 'services list -o csv'],
    ['services', 'services get --service-code GPT4'],
    ['services', 'services report'],
    ['service-plans', 'service-plans list -o ndjson'],
    ['service-plans', 'service-plans get 3'],
    ['plans', 'plans list --all -o json'],
    ['plans', 'plans report'],
    ['subscriptions', 'subscriptions list --all -o csv'],
    ['subscriptions', 'subscriptions list'],
    ['subscriptions', 'subscriptions manage 42 --action extend --reason r --extend-days 1 --yes'],
    ['usage-codes', 'usage-codes list'],
    ['usage-codes', 'usage-codes list -o json'],
    ['wallet', 'wallet list'],
    ['wallet', 'wallet list -o json'],
    ['dashboard', 'dashboard'],
    ['dashboard', 'dashboard -o json'],
    ['audit', 'audit list'],
    ['audit', 'audit user 5 -o csv'],
    ['cleanup', 'cleanup --dry-run --cleanup-expired-days 30'],
    ['users', 'users list'],
    ['users', 'users get 5'],
    ['users', 'users search'],
    ['roles', 'roles list'],
    ['roles', 'roles of 5'],
    ['roles', 'roles assignments'],
    ['referrals', 'referrals stats'],
    ['referrals', 'referrals mine'],
    ['referrals', 'referrals admin-list -o csv'],
    ['profile', 'profile get'],
    ['devices', 'devices list'],
    ['me', 'me wallet'],
    ['me', 'me subscriptions'],
    ['me', 'me services'],
    ['me', 'me access GPT4'],
    ['auth', 'auth status'],
    ['auth', 'auth login --username ann --password-stdin'],
    ['auth', 'auth login --cms --username ann --password-stdin -o json'],
    ['profile', 'profile update --address somewhere'],
    ['users', 'users create --username u1 --email u1@x --role user --password-stdin'],
    ['referrals', 'referrals validate ABC123'],
    ['roles', 'roles delete 9 --yes'],
    ['me', 'me use GPT4 --usage-amount 1 --usage-type api_call'],
  ];
  it.each(verbs)('%s: subctl %s', async (group, line) => {
    const words = line.split(' ');
    const stdin = words.includes('--password-stdin') ? 'pw-fuzz-1\n' : undefined;
    const ep = endpoints.find((e) => e.name.startsWith(`${words[0]}.`)) ?? endpoints[0];
    await check(
      group,
      fc.oneof(
        malformed(ep),
        ...endpoints
          .filter((e) => groupOf(e) === group)
          .map((e) => wrongData(e).map((data) => ({ kind: 'wrong types', reply: envelope(data) }))),
      ),
      CLI_RUNS * 2,
      async (m) => {
        wire.reply = () => m.reply;
        // Its own config directory: a sign-in may store whatever token the answer held.
        // `profile update` without --full-name keeps the profile's: none in the answer is a usage error (2).
        const allowed = line.startsWith('profile update') ? [...ANSWER_EXITS, 2] : ANSWER_EXITS;
        expectClearFailure(
          await runCli([...words, '--retries', '0'], { env: { ...env(), SUBCTL_CONFIG_DIR: tempConfigDir() }, stdin }),
          allowed,
        );
      },
    );
  });
});
