/**
 * `-o wide`: every column whole. `audit list -o wide` on an 80-column terminal shows each
 * entry's details whole, wrapped; off a terminal, tab-separated and whole; json unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { inZone } from '../support/zone.js';
import { wrapWidth } from '../../src/output/wrap.js';

let server: StubServer;
const details = {
  subscription_id: 397,
  action: 'extend',
  extend_days: 30,
  reason: 'customer asked on ticket 4711, "goodwill" after the outage of the 24th',
  from_status: 'active',
  to_status: 'active',
};
const entry = {
  id: 9,
  user_id: 1,
  username: 'admin',
  module: 'subscriptions',
  action: 'manage',
  details,
  ip_address: '10.0.0.7',
  user_agent: 'subctl/1.0',
  created_at: '2026-11-26T05:03:27Z',
};
beforeAll(async () => {
  server = await startStubServer();
  server.setHandler(() => ok({ logs: [entry], page: 1, page_size: 20, total_items: 1, total_pages: 1 }));
});
afterAll(() => server.close());

const env = () => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' });

describe('-o wide', () => {
  it('at 80 columns on a terminal: the details whole, wrapped, no line wider than 80', async () => {
    const r = await inZone('Asia/Tokyo', () => runCli('audit list -o wide --no-color', { env: env(), tty: true, columns: 80 }));
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(r.stdout).not.toContain('…');
    // Every character of the details is on the screen, in order, once the wrapping is undone.
    const text = lines.join('\n');
    const json = JSON.stringify(details);
    const joined = text.replace(/\s+/g, '');
    expect(joined).toContain(json.replace(/\s+/g, ''));
    expect(text).toContain('2026-11-26 14:03:27 +09:00');
  });

  it('off a terminal: one tab-separated line a row, every column whole, times as sent', async () => {
    const r = await runCli('audit list -o wide', { env: env(), columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const [head, row] = r.stdout.trimEnd().split('\n');
    const columns = head.split('\t');
    // The table's columns first, then every other field of the entry.
    expect(columns.slice(0, 6)).toEqual(['id', 'created_at', 'username', 'action', 'target', 'change']);
    expect(columns.slice(6).sort()).toEqual(['details', 'ip_address', 'module', 'user_agent', 'user_id']);
    const cells = row.split('\t');
    expect(cells[1]).toBe('2026-11-26T05:03:27Z');
    expect(cells[columns.indexOf('details')]).toBe(JSON.stringify(details));
    expect(cells[columns.indexOf('change')]).toBe(
      'extend extend_days=30 reason=customer asked on ticket 4711, "goodwill" after the outage of the 24th from_status=active to_status=active',
    );
  });

  it('json is unchanged by the table reading', async () => {
    const r = await runCli('audit list -o json', { env: env() });
    expect(JSON.parse(r.stdout)).toEqual([entry]);
  });

  it('wrapWidth breaks at a space or comma, else anywhere, never past the width', () => {
    expect(wrapWidth('extend 30 days', 8)).toEqual(['extend ', '30 days']);
    expect(wrapWidth('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapWidth('日本語のテキスト', 6)).toEqual(['日本語', 'のテキ', 'スト']);
  });
});
