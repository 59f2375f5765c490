/**
 * The pager: chosen by SUBCTL_PAGER, then PAGER, then `less -FRX`; only on a terminal, never with
 * --no-pager, --follow or in the console. A stub pager (a shell script) records what it read and
 * how it was started, then passes the text on.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';
import { pagerCommand } from '../../src/output/pager.js';

let server: StubServer;
let dir: string;
const services = [{ service_id: 1, service_code: 'S1', service_name: 'One', service_type: 'HYBRID', provider_name: 'P', is_active: true }];

/** A pager script: its stdin into `<name>.in`, its arguments into `<name>.args`, then stdin on to stdout with a mark. */
function stubPager(name: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' "$*" > '${file}.args'\ntee '${file}.in'\necho '-- end of ${name}'\n`);
  chmodSync(file, 0o755);
  return file;
}
const recorded = (file: string) => (existsSync(`${file}.in`) ? readFileSync(`${file}.in`, 'utf8') : undefined);

beforeAll(async () => {
  server = await startStubServer();
  dir = tempDir('subctl-pager-');
});
afterAll(() => server.close());
beforeEach(() => {
  server.setHandler(() => ok({ pagination: { current_page: 1, page_size: 20, total_pages: 1, total_records: 1 }, services }));
});
const env = (more: Record<string, string | undefined>) => ({ SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', ...more });

describe('the pager', () => {
  it('SUBCTL_PAGER wins over PAGER; the command output goes through it on a terminal', async () => {
    const mine = stubPager('subctl-pager');
    const theirs = stubPager('pager');
    const r = await runCli('services list -o json', { tty: true, env: env({ SUBCTL_PAGER: `${mine} --flag`, PAGER: theirs }) });
    expect(r.code, r.stderr).toBe(0);
    expect(recorded(mine), JSON.stringify(r)).toBeDefined();
    expect(JSON.parse(recorded(mine)!)).toEqual(services);
    expect(readFileSync(`${mine}.args`, 'utf8')).toBe('--flag\n');
    expect(recorded(theirs)).toBeUndefined();
    // What the pager wrote is what the user sees.
    expect(r.stdout).toBe(`${recorded(mine)}-- end of subctl-pager\n`);
  });

  it('PAGER when SUBCTL_PAGER is not set; a terminal table goes through it too, fitted and coloured as on the terminal', async () => {
    const theirs = stubPager('pager-2');
    const r = await runCli('services list', { tty: true, env: env({ PAGER: theirs, FORCE_COLOR: '1' }) });
    expect(r.code, r.stderr).toBe(0);
    const text = recorded(theirs)!;
    expect(text).toContain('S1');
    expect(text).toContain('\u001b[');
  });

  it('off a terminal, with --no-pager, with SUBCTL_PAGER empty or cat: no pager', async () => {
    const p = stubPager('never');
    const cases: Array<[string, boolean, Record<string, string>]> = [
      ['services list -o json', false, { SUBCTL_PAGER: p }],
      ['services list -o json --no-pager', true, { SUBCTL_PAGER: p }],
      ['services list -o json', true, { SUBCTL_PAGER: '', PAGER: p }],
      ['services list -o json', true, { SUBCTL_PAGER: 'cat', PAGER: p }],
    ];
    for (const [line, tty, e] of cases) {
      const r = await runCli(line, { tty, env: env(e) });
      expect(r.code, line).toBe(0);
      expect(JSON.parse(r.stdout), line).toEqual(services);
    }
    expect(recorded(p)).toBeUndefined();
  });

  it('a command that prints nothing starts no pager; an error is not paged', async () => {
    const p = stubPager('quiet');
    const r = await runCli('services list -o json --page-size 0', { tty: true, env: env({ SUBCTL_PAGER: p }) });
    expect(r.code).toBe(2);
    expect(recorded(p)).toBeUndefined();
  });

  it('the default is less -FRX where less is installed, none where it is not', () => {
    const bin = tempDir('subctl-bin-');
    expect(pagerCommand({ PATH: bin })).toBeUndefined();
    writeFileSync(join(bin, 'less'), '#!/bin/sh\ncat\n');
    chmodSync(join(bin, 'less'), 0o755);
    expect(pagerCommand({ PATH: bin })).toBe('less -FRX');
    expect(pagerCommand({ PATH: bin, PAGER: 'more' })).toBe('more');
    expect(pagerCommand({ PATH: bin, SUBCTL_PAGER: 'most', PAGER: 'more' })).toBe('most');
  });
});
