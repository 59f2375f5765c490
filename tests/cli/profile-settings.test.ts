/**
 * The settings a profile keeps (`config set KEY VALUE --profile P`) are used by its commands:
 * `output` was stored and shown by `config get`, and every command still printed a table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer(() =>
    ok({
      pagination: { current_page: 1, page_size: 20, total_pages: 1, total_records: 1 },
      services: [{ service_id: 4, service_code: 'GPT4', service_name: 'GPT four' }],
    }),
  );
});
afterAll(() => server.close());

describe("a profile's output setting", () => {
  it("is the format of its commands unless -o or SUBCTL_OUTPUT says otherwise; another profile's is not", async () => {
    const cfg = tempConfigDir();
    const env = { SUBCTL_CONFIG_DIR: cfg, SUBCTL_TOKEN: 't' };
    for (const line of [
      `config set base-url ${server.url} --profile p`,
      'config set output json --profile p',
      `config set base-url ${server.url} --profile q`,
    ]) {
      const r = await runCli(line, { env });
      expect(r.code, `${line}: ${r.stderr}`).toBe(0);
    }
    const json = await runCli('services list --profile p', { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ service_id: 4, service_code: 'GPT4', service_name: 'GPT four' }]);
    // -o and SUBCTL_OUTPUT win over it.
    const table = await runCli('services list --profile p -o table', { env });
    expect(table.stdout.split('\n')[0].split('\t')[0]).toBe('service_id');
    const csv = await runCli('services list --profile p', { env: { ...env, SUBCTL_OUTPUT: 'csv' } });
    expect(csv.stdout.split('\n')[0]).toMatch(/^service_id,service_code,/);
    // Profile q has no output setting: a table.
    const other = await runCli('services list --profile q', { env });
    expect(other.stdout.split('\n')[0].split('\t')[0]).toBe('service_id');
    // A command that prints its answer only when a format is asked for (api prints json
    // unless -o says otherwise) takes the profile's as asked for.
    expect((await runCli('config set output ndjson --profile p', { env })).code).toBe(0);
    const api = await runCli('api GET /admin/services --profile p', { env });
    expect(api.code, api.stderr).toBe(0);
    // One object, one line (ndjson), not json's indented lines.
    expect(api.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(api.stdout).services[0].service_code).toBe('GPT4');
    expect((await runCli('config set output json --profile p', { env })).code).toBe(0);
    // A command line that does not parse gets its JSON error too (as with SUBCTL_OUTPUT=json).
    const parse = await runCli('services list --profile p --bogus', { env });
    expect(parse.code).toBe(2);
    expect(parse.stderr.split('\n').some((l) => l.startsWith('{') && JSON.parse(l).error?.type === 'usage')).toBe(true);
    const plain = await runCli('services list --profile q --bogus', { env });
    expect(plain.stderr).not.toMatch(/^\{/m);
    // Errors of its commands come as JSON too, as with -o json.
    const bad = await runCli('services list --profile p --page-size 500', { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n').some((l) => l.startsWith('{') && JSON.parse(l).error?.type === 'validation')).toBe(true);
  });
});
