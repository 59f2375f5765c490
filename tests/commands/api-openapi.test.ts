/**
 * `subctl api openapi`: the contract as an OpenAPI 3.1 document, checked by a third-party
 * validator (@seriousme/openapi-schema-validator, the OpenAPI Initiative's schemas), with every
 * endpoint of `api endpoints` in it, as the built CLI prints it.
 */
import { execFileSync } from 'node:child_process';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../support/run-cli.js';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters?: Array<{ name: string; in: string; required: boolean }>;
        requestBody?: unknown;
        'x-subctl-command'?: string;
      }
    >
  >;
};
let doc: Doc;

beforeAll(() => {
  // The bundle, as users run it (npm test builds it first).
  const text = execFileSync(process.execPath, ['bin/subctl.js', 'api', 'openapi'], {
    env: { PATH: process.env.PATH, SUBCTL_CONFIG_DIR: tempConfigDir() },
    encoding: 'utf8',
  });
  doc = JSON.parse(text) as Doc;
});

describe('api openapi', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc) as never);
    expect(res.errors ?? null).toBeNull();
    expect(res.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
    // The validator does refuse: the same document with one parameter's `in` taken out.
    const broken = structuredClone(doc);
    delete (broken.paths['/admin/services'].get.parameters![0] as { in?: string }).in;
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('has every endpoint of `api endpoints`, each once, with its command, path parameters and body', async () => {
    const r = await runCli('api endpoints -o json');
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout) as Array<{ method: string; path: string; name: string; command: string | null }>;
    const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([m, op]) => ({ method: m.toUpperCase(), path, ...op })),
    );
    expect(ops.map((o) => `${o.method} ${o.path} ${o.operationId}`).sort()).toEqual(
      listed.map((e) => `${e.method} ${e.path} ${e.name}`).sort(),
    );
    for (const e of listed) {
      const op = doc.paths[e.path][e.method.toLowerCase()];
      expect(op['x-subctl-command'] ?? null, e.name).toBe(e.command);
      // Every {placeholder} of the path is a required path parameter.
      const placeholders = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(
        (op.parameters ?? [])
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort(),
        e.name,
      ).toEqual(placeholders.sort());
    }
    // One in detail: the query of `services list`, and the body of `services create`.
    const list = doc.paths['/admin/services'].get;
    expect(list.parameters).toEqual(
      expect.arrayContaining([{ name: 'page_size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } }]),
    );
    const create = doc.paths['/admin/services'].post as unknown as {
      requestBody: { content: { 'application/json': { schema: { required: string[]; properties: Record<string, unknown> } } } };
    };
    expect(create.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['service_code', 'service_name']),
    );
  });

  it('works with --jq', async () => {
    const r = await runCli(['api', 'openapi', '--jq', '.openapi']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('3.1.0\n');
  });
});
