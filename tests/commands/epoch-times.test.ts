/**
 * A platform that sends its times as numbers since 1970 (seconds or milliseconds): tables, text
 * and CSV show them as the times they are, JSON as sent. Against a stub that answers so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { inZone } from '../support/zone.js';

let server: StubServer;
const entry = (id: number, created_at: number) => ({ id, user_id: 1, username: 'admin', module: 'auth', action: 'login', created_at });
beforeAll(async () => {
  server = await startStubServer();
  server.setHandler(() =>
    ok({ logs: [entry(2, 1764237600250), entry(1, 1764237600)], page: 1, page_size: 20, total_items: 2, total_pages: 1 }),
  );
});
afterAll(() => server.close());

const env = () => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' });

describe('times sent as epoch numbers', () => {
  it('a table off a terminal and CSV: ISO times in UTC; JSON: the numbers as sent', async () => {
    const table = await runCli('audit list', { env: env() });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('2025-11-27T10:00:00.250Z');
    expect(table.stdout).toContain('2025-11-27T10:00:00Z');
    expect(table.stdout).not.toContain('1764237600');
    const csv = await runCli('audit list -o csv --fields id,created_at', { env: env() });
    expect(csv.stdout).toBe('id,created_at\n2,2025-11-27T10:00:00.250Z\n1,2025-11-27T10:00:00Z\n');
    const json = await runCli('audit list -o json', { env: env() });
    expect(JSON.parse(json.stdout).map((x: { created_at: unknown }) => x.created_at)).toEqual([1764237600250, 1764237600]);
  });

  it('on a terminal: each in the local zone, to the second', async () => {
    const r = await inZone('Asia/Tokyo', () => runCli('audit list --no-color', { env: env(), tty: true, columns: 120 }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/2025-11-27 19:00:00 \+09:00/g)).toHaveLength(2);
  });
});
