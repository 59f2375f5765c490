/**
 * A one-shot command validates its input and its answer with the contract's manifest and builds
 * no zod schema (tests/api/contract-manifest.test.ts holds the manifest to the schemas). In a
 * file of its own: any other test that reads a schema would build it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEndpoint } from '../../src/api/contract/common.js';
import { servicesList } from '../../src/api/contract/admin-services.js';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

const built = (e: AnyEndpoint) => (['params', 'query', 'body', 'response'] as const).filter((k) => 'value' in Object.getOwnPropertyDescriptor(e, k)!);

describe('a one-shot command builds no zod schema', () => {
  let server: StubServer;
  beforeAll(async () => {
    server = await startStubServer();
    server.setHandler(() => ok({ pagination: { current_page: 1, page_size: 20, total_pages: 1, total_records: 1 }, services: [{ service_id: 1, service_code: 'A' }] }));
  });
  afterAll(async () => {
    await server.close();
  });

  it('services list validates its query and its answer from the manifest alone', async () => {
    const r = await runCli('services list --page-size 5 --is-active true -o json', { env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([{ service_id: 1, service_code: 'A' }]);
    expect(server.requests[0].query).toEqual({ page_size: '5', is_active: 'true' });
    expect(built(servicesList)).toEqual([]);
    // Bad input builds the schema, and zod names the field.
    const bad = await runCli('services list --page-size 500 -o json', { env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('page_size');
    expect(built(servicesList)).toEqual(['params', 'query', 'body', 'response']);
    expect(server.requests).toHaveLength(1);
  });
});
