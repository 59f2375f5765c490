/**
 * Something moves during long work, on a terminal only: the built CLI run on a pseudo-terminal
 * (util-linux `script`) against a slow stub server, and the same commands off a terminal and
 * with -q, where nothing is shown.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { tempConfigDir } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);
const BIN = resolve('bin/subctl.js');
const hasScript = existsSync('/usr/bin/script');
let server: StubServer;
let dir: string;
const all = Array.from({ length: 250 }, (_, i) => ({
  service_id: i + 1,
  service_code: `S${i + 1}`,
  service_name: `Service ${i + 1}`,
  service_type: 'HYBRID',
  provider_name: 'P',
  is_active: true,
}));
/** Each answer this late: well past the 300 ms after which the spinner shows. */
let delayMs = 1200;

beforeAll(async () => {
  server = await startStubServer((req) => {
    if (req.path === '/admin/services/detail') return { ...ok({ service_info: all[0] }), delayMs };
    const page = Number(req.query.page_number ?? 1);
    const size = Number(req.query.page_size ?? 20);
    return {
      ...ok({
        pagination: { current_page: page, page_size: size, total_pages: Math.ceil(all.length / size), total_records: all.length },
        services: all.slice((page - 1) * size, page * size),
      }),
      delayMs,
    };
  });
  dir = tempDir('subctl-progress-');
});
afterAll(() => server.close());

function env(): NodeJS.ProcessEnv {
  // No CI: the suite may run under CI=true, where nothing is shown by design.
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SUBCTL_CONFIG_DIR: tempConfigDir(),
    SUBCTL_BASE_URL: server.url,
    SUBCTL_TOKEN: 't',
    TERM: 'xterm',
  };
}

/** Runs `subctl ARGS > out` on a pseudo-terminal 100 columns wide; resolves to what the terminal showed. */
async function onTerminal(args: string, out: string): Promise<string> {
  const log = join(dir, `${out}.log`);
  await run('script', ['-qefc', `stty cols 100 rows 30; node ${BIN} ${args} > ${join(dir, out)}`, log], { env: env(), timeout: 120_000 });
  return readFileSync(log, 'utf8');
}

describe.skipIf(!hasScript)('on a pseudo-terminal', () => {
  it('a slow call shows a spinner on stderr, gone before the command ends; the answer is untouched', async () => {
    delayMs = 1200;
    const shown = await onTerminal('services get S1 -o json', 'get.json');
    expect(shown).toMatch(/waiting for GET \/admin\/services\/detail/);
    // ora hides the cursor while it spins and shows it again when it stops.
    expect(shown).toContain('\u001b[?25l');
    expect(shown).toContain('\u001b[?25h');
    expect(JSON.parse(readFileSync(join(dir, 'get.json'), 'utf8'))).toEqual({ service_info: all[0] });
  });

  it('an --all export shows rows, pages and the rate; the file holds every row', async () => {
    delayMs = 700;
    const shown = await onTerminal('services list --all --page-size 50 -o csv', 'all.csv');
    expect(shown).toMatch(/exporting: \d+ of 250 rows, \d+ pages?, \d+ rows\/s/);
    expect(readFileSync(join(dir, 'all.csv'), 'utf8').trim().split('\n')).toHaveLength(251);
  });

  it('with -q nothing is shown', async () => {
    delayMs = 1200;
    const quiet = await onTerminal('services list --all --page-size 50 -o csv -q', 'quiet.csv');
    expect(quiet).not.toMatch(/exporting|waiting for/);
    expect(quiet).not.toContain('\u001b[?25l');
    expect(readFileSync(join(dir, 'quiet.csv'), 'utf8').trim().split('\n')).toHaveLength(251);
  });
});

describe('off a terminal', () => {
  it('nothing is shown on stderr, however slow the calls', async () => {
    delayMs = 1200;
    const r = await run(process.execPath, [BIN, 'services', 'list', '--all', '--page-size', '100', '-o', 'csv'], {
      env: env(),
      timeout: 120_000,
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(251);
  });
});
