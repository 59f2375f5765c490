/**
 * Errors become exit codes in one place, each with the server's message and a hint naming the
 * next command; with -o json the error is that one JSON object on stderr instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fail, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());

describe('every user-facing error has a message, an exit code and a hint', () => {
  it('a redirect is not followed (the token stays home): exit 6, the target named, the status said once', async () => {
    server.setHandler(() => ({ status: 302, headers: { location: 'http://elsewhere.example/admin/services' }, raw: '' }));
    const r = await runCli('services list --retries 0', { env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' } });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(
      `error: the server redirected GET ${server.url}/admin/services to http://elsewhere.example/admin/services (HTTP 302); subctl does not follow redirects\n`,
    );
    expect(r.stderr).toMatch(/^hint: if the platform has moved, point the base URL at the new address/m);
  });

  it.each([
    [400, 5, 'rejected', /hint: .*`subctl services get --help`/],
    [401, 3, 'unauthenticated', /hint: .*subctl auth login/],
    [403, 3, 'forbidden', /hint: .*subctl auth status/],
    [404, 4, 'not_found', /hint: .*`subctl services list`/],
    [409, 5, 'rejected', /hint: .*--help/],
    [422, 5, 'rejected', /hint: .*--help/],
    [500, 6, 'server', /hint: .*--verbose/],
  ])('HTTP %i -> exit %i (%s)', async (status, code, type, hint) => {
    server.setHandler(() => fail(status, `the server says ${status}`));
    const r = await runCli('services get --service-code X -o json --retries 0', {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
    });
    expect(r.code).toBe(code);
    // -o json: the error is said once, as one JSON object (its hint inside), with no text lines.
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const last = JSON.parse(r.stderr);
    expect(last.error).toMatchObject({ type, message: `the server says ${status}`, status });
    expect(`hint: ${last.error.hint}`).toMatch(hint);
  });

  it('network failure -> exit 7 with a hint to run doctor', async () => {
    const r = await runCli('services list --retries 0 --base-url http://127.0.0.1:9', { env: { SUBCTL_TOKEN: 't' } });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/hint: .*subctl doctor/);
  });

  it('invalid input -> exit 2 with the help command of the verb', async () => {
    const r = await runCli('services list --page-size 0', { env: { SUBCTL_BASE_URL: server.url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/hint: `subctl services list --help`/);
  });

  it('an unknown flag -> exit 2, with the help of the verb typed (else the group)', async () => {
    const r = await runCli('services list --colour red', { env: { SUBCTL_BASE_URL: server.url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--colour'/);
    expect(r.stderr).toMatch(/run 'subctl services list --help' for usage/);
    const group = await runCli('services --colour red', { env: { SUBCTL_BASE_URL: server.url } });
    expect(group.code).toBe(2);
    expect(group.stderr).toMatch(/run 'subctl services --help' for usage/);
  });
});
