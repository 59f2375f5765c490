/**
 * Nothing from a server reaches a terminal raw (issue 26, point 3): for each escape class, on
 * each output path with a (fake) terminal, the bytes hold no ESC, no C1 control and no bidi
 * override, and show the visible escape instead; off a terminal json, ndjson and csv bytes are
 * exactly as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLine } from '../../src/commands/admin/audit-follow.js';
import { cutMessage, terminalSafe, terminalSafeJson, terminalSafeText } from '../../src/output/terminal-safe.js';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

/** The escape classes: what a server could plant in a field, and what a terminal must show instead. */
const CLASSES: Array<[string, string, string]> = [
  ['CSI (clear the screen)', 'a\u001b[2Jb', 'a\\x1b[2Jb'],
  ['OSC 52 (set the clipboard)', 'a\u001b]52;c;cm0gLXJmIH4K\u0007b', 'a\\x1b]52;c;cm0gLXJmIH4K\\x07b'],
  ['OSC title', 'a\u001b]0;PWNED\u001b\\b', 'a\\x1b]0;PWNED\\x1b\\b'],
  ['DCS', 'a\u001bP+q544e\u001b\\b', 'a\\x1bP+q544e\\x1b\\b'],
  ['C1 (8-bit CSI)', 'a\u009b2Jb', 'a\\x9b2Jb'],
  ['bidi override', 'a\u202eb\u2066c\u2069', 'a\\u202eb\\u2066c\\u2069'],
];

// eslint-disable-next-line no-control-regex
const RAW = /[\u001b\u0007\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;

let server: StubServer;
let payload = '';
beforeAll(async () => {
  server = await startStubServer((req) => {
    if (req.path === '/admin/services') {
      return ok({
        pagination: { current_page: 1, page_size: 20, total_pages: 1, total_records: 1 },
        services: [{ service_id: 1, service_code: 'X', service_name: payload }],
      });
    }
    return fail(400, `refused: ${payload}`);
  });
});
afterAll(() => server.close());
const env = () => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' });

describe.each(CLASSES)('%s', (_name, planted, shown) => {
  it.each(['table', 'csv', 'json', 'ndjson'])('-o %s on a terminal: shown as an escape, never raw', async (format) => {
    payload = planted;
    const r = await runCli(`services list -o ${format} --no-color`, { env: env(), tty: true, columns: 200 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    if (format === 'table' || format === 'csv') expect(r.stdout).toContain(shown);
    else
      expect(
        JSON.stringify(
          r.stdout
            .split('\n')
            .filter(Boolean)
            .map((l) => l),
        ),
      ).not.toMatch(RAW);
    if (format === 'ndjson') expect(JSON.parse(r.stdout).service_name).toBe(planted);
    if (format === 'json') expect(JSON.parse(r.stdout)[0].service_name).toBe(planted);
  });

  it('an error, its --verbose log and the -o json error line on a terminal: escaped', async () => {
    payload = planted;
    const r = await runCli('services get X --verbose -o json', { env: env(), tty: true });
    expect(r.code).toBe(5);
    expect(r.stderr).not.toMatch(RAW);
    // The client already drops control characters from a server's message; what is left is escaped.
    expect(r.stderr).toMatch(/^\{"error":\{"type":"rejected","message":"refused: a[^"]*b[^"]*"/m);
    expect(r.stderr).toMatch(/^< 400 GET .*/m);
  });

  it('an audit --follow line: escaped', () => {
    const line = auditLine(
      { created_at: '2026-01-01T00:00:00Z', username: planted, module: 'm', action: 'a', details: planted } as never,
      200,
    );
    expect(line).not.toMatch(RAW);
    expect(line).toContain(shown);
  });

  it.each(['csv', 'json', 'ndjson'])('-o %s off a terminal: the bytes the server sent, as before', async (format) => {
    payload = planted;
    const r = await runCli(`services list -o ${format} --fields service_id,service_name`, { env: env() });
    expect(r.code).toBe(0);
    const expected =
      format === 'json'
        ? `${JSON.stringify([{ service_id: 1, service_name: planted }], null, 2)}\n`
        : format === 'ndjson'
          ? `${JSON.stringify({ service_id: 1, service_name: planted })}\n`
          : `service_id,service_name\n1,${/[",\n\r]/.test(planted) ? `"${planted.replace(/"/g, '""')}"` : planted}\n`;
    expect(r.stdout).toBe(expected);
  });
});

describe('server messages', () => {
  it('a 5 MB message is cut, with the whole of it under --verbose', async () => {
    payload = 'x'.repeat(5 * 1024 * 1024);
    const r = await runCli('services get X', { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr.length).toBeLessThan(2000);
    expect(r.stderr).toContain(`... (${5 * 1024 * 1024 + 'refused: '.length - 500} more characters; --verbose shows the whole message)`);
    const v = await runCli('services get X --verbose', { env: env() });
    expect(v.stderr).toContain(`error: refused: ${payload}`);
  });
});

describe('the functions', () => {
  it('terminalSafe escapes every control; terminalSafeText keeps newlines and tabs; terminalSafeJson keeps the value', () => {
    expect(terminalSafe('a\nb\tc\u001b')).toBe('a\\nb\\tc\\x1b');
    expect(terminalSafeText('a\nb\tc\u001b\r')).toBe('a\nb\tc\\x1b\\r');
    const json = JSON.stringify({ v: 'a\u009b\u202e\u007f\u001b' });
    expect(terminalSafeJson(json)).not.toMatch(RAW);
    expect(JSON.parse(terminalSafeJson(json))).toEqual({ v: 'a\u009b\u202e\u007f\u001b' });
    expect(cutMessage('abc', 2)).toBe('ab... (1 more characters; --verbose shows the whole message)');
  });
});
