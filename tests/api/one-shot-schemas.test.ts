/**
 * A one-shot command validates its input and its answer with the contract's manifest, and the
 * sandbox a request's body, building no zod schema for good input
 * (tests/api/contract-manifest.test.ts holds the manifest to the schemas). In a file of its
 * own: any other test that reads a schema would build it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEndpoint } from '../../src/api/contract/common.js';
import { servicesCreate, servicesList } from '../../src/api/contract/admin-services.js';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { call, closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

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

describe('the sandbox', () => {
  afterAll(closeAllTestSandboxes);

  it('checks a good body with the manifest and builds the schema for a bad one, naming the field', async () => {
    const sb = await startTestSandbox();
    const body = { service_code: 'ONESHOT', service_name: 'One shot', service_type: 'USAGE_BASED', provider_name: 'Acme', base_service_url: 'https://x.example', access_pattern: '/v1/*', credit_reset_cycle: 'monthly' };
    const good = await call(sb, 'POST', '/admin/services', { as: 'admin', body });
    expect(good.status).toBeLessThan(300);
    expect(built(servicesCreate)).toEqual([]);
    const bad = await call(sb, 'POST', '/admin/services', { as: 'admin', body: { ...body, service_code: 'ONESHOT2', service_type: 'NOPE' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('service_type');
    expect(built(servicesCreate)).toEqual(['params', 'query', 'body', 'response']);
  });
});
