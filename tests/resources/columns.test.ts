/**
 * A list's default columns are named once (src/resources/columns.ts) and drawn by two sides:
 * the command's table (off a terminal: its tab-separated header) and the console's list screen
 * (src/ui/resources.ts, laid out by columnsFor in src/ui/table-layout.ts). Against one sandbox,
 * the first page of each list has the same columns, in the same order, on both sides.
 *
 * The referral lists are not here: their items are not described by the specification, so the
 * command prints the keys the platform sends and the console names its own (docs/decisions.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { getPath } from '../../src/output/index.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { resourceByName, type Row } from '../../src/ui/resources.js';
import { columnsFor } from '../../src/ui/table-layout.js';
import { runCli } from '../support/run-cli.js';
import { startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

const CASES: Array<{ resource: string; command: string; who?: string }> = [
  { resource: 'services', command: 'services list' },
  { resource: 'service-plans', command: 'service-plans list' },
  { resource: 'plans', command: 'plans list' },
  { resource: 'subscriptions', command: 'subscriptions list' },
  { resource: 'usage-codes', command: 'usage-codes list' },
  { resource: 'wallet', command: 'wallet list' },
  { resource: 'audit', command: 'audit list' },
  { resource: 'users', command: 'users list' },
  { resource: 'users-search', command: 'users search', who: 'superadmin' },
  { resource: 'roles', command: 'roles list' },
  { resource: 'role-assignments', command: 'roles assignments' },
];

/** The columns the console's list screen draws for the first page of `resource`, as `who`. */
async function consoleColumns(resource: string, who: string): Promise<string[]> {
  const r = resourceByName(resource)!;
  const api = new ApiClient({ baseUrl: sb.url, token: sb.tokenFor(who), retries: 0, timeoutMs: 10_000 });
  const data = await api.call(r.endpoint, { query: { [r.endpoint.paging!.size]: 10 } } as never);
  const rows = getPath(data, r.endpoint.paging!.items) as Row[];
  expect(rows.length, resource).toBeGreaterThan(0);
  return columnsFor(r.view ? rows.map(r.view) : rows, r.columns);
}

describe('list columns: the command line and the console draw one definition', () => {
  it.each(CASES)('$resource: `subctl $command` and the console show the same columns', async (c) => {
    const who = c.who ?? 'admin';
    const env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: sb.tokenFor(who), FORCE_COLOR: '0' };
    const cli = await runCli(`${c.command} --page-size 10`, { env });
    expect(cli.code, cli.stderr).toBe(0);
    const header = cli.stdout.split('\n')[0].split('\t');
    expect(header.length).toBeGreaterThan(3);
    expect(await consoleColumns(c.resource, who)).toEqual(header);
  });
});
