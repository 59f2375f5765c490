/**
 * An empty list as CSV is its header alone, not zero bytes: `csv.DictReader` over an export
 * that matched nothing then has its field names, and a script appending exports gets the
 * same columns every time. The header is the table's columns first, then the contract's fields
 * of the list's items.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

let server: StubServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startStubServer((req) =>
    req.path === '/admin/services'
      ? ok({ pagination: { current_page: 1, page_size: 20, total_pages: 0, total_records: 0 }, services: [] })
      : ok({ pagination: { current_page: 1, page_size: 20, total_pages: 0, total_records: 0 }, codes: [], summary: {} }),
  );
  env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', SUBCTL_CONFIG_DIR: join(tempDir('subctl-empty-csv-'), 'cfg') };
});
afterAll(() => server.close());

describe('an empty list as csv', () => {
  it('services list: the header, the table columns first, then the other fields of a service', async () => {
    for (const all of [[], ['--all']]) {
      const r = await runCli(['services', 'list', '--service-code', 'NONE', '-o', 'csv', ...all], { env });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toBe('');
      const header = lines[0].split(',');
      expect(header.slice(0, 3)).toEqual(['service_id', 'service_code', 'service_name']);
      expect(header).toEqual(expect.arrayContaining(['provider_name', 'created_date', 'last_updated']));
      expect(new Set(header).size).toBe(header.length);
    }
  });

  it('usage-codes list, with --fields: those fields; json is still an empty array', async () => {
    const r = await runCli(['usage-codes', 'list', '--batch-id', 'NONE', '-o', 'csv'], { env });
    expect(r.stdout.split('\n')[0].split(',').slice(0, 2)).toEqual(['code_id', 'code_value']);
    const fields = await runCli(['services', 'list', '-o', 'csv', '--fields', 'service_code,is_active'], { env });
    expect(fields.stdout).toBe('service_code,is_active\n');
    const json = await runCli(['services', 'list', '-o', 'json'], { env });
    expect(JSON.parse(json.stdout)).toEqual([]);
  });
});
