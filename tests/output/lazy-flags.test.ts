/**
 * Start-up: a command that does not use --jq, the pager or the spinner loads none of them
 * (jq-web, the pager, the stdout sink, ora), nor the OpenAPI builder.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

const loaded = vi.hoisted(() => ({ jq: 0, pager: 0, sink: 0, ora: 0, openapi: 0 }));
vi.mock('../../src/output/jq.js', async (orig) => (loaded.jq++, orig()));
vi.mock('../../src/output/pager.js', async (orig) => (loaded.pager++, orig()));
vi.mock('../../src/output/stdout.js', async (orig) => (loaded.sink++, orig()));
vi.mock('ora', async (orig) => (loaded.ora++, orig()));
vi.mock('../../src/commands/api/openapi.js', async (orig) => (loaded.openapi++, orig()));

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer(() =>
    ok({ pagination: { current_page: 1, page_size: 20, total_pages: 1, total_records: 0 }, services: [] }),
  );
});
afterAll(() => server.close());

describe('the new output flags cost nothing unused', () => {
  test('a list off a terminal, and on one with --no-pager, loads none of them; --jq loads jq and the sink only', async () => {
    const env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' };
    expect((await runCli('services list -o json', { env })).code).toBe(0);
    expect((await runCli('services list --all -o csv', { env })).code).toBe(0);
    expect((await runCli('services list --no-pager', { env, tty: true })).code).toBe(0);
    expect(loaded).toEqual({ jq: 0, pager: 0, sink: 0, ora: 0, openapi: 0 });
    const r = await runCli(['services', 'list', '--jq', 'length'], { env });
    expect(r.stdout).toBe('0\n');
    expect(loaded).toEqual({ jq: 1, pager: 0, sink: 1, ora: 0, openapi: 0 });
  }, 180_000);
});
