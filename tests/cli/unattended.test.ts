/**
 * The real binary run unattended (cron, CI, `env -i`): stdout that cannot be written, and a
 * reader that goes away. Runs bin/subctl.js against dist/ (built by `npm test`'s pretest step).
 */
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/subctl.js');
let server: StubServer;

const PAGES = 12;
const PAGE_SIZE = 100;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/subctl.cjs.cache'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
  // An export of 1200 rows in 12 pages: more than a pipe holds, so a reader that stops early
  // makes the writes fail while pages are still coming.
  server = await startStubServer((req) => {
    const page = Number(req.query.page_number ?? 1);
    const services = Array.from({ length: PAGE_SIZE }, (_, i) => {
      const id = (page - 1) * PAGE_SIZE + i + 1;
      return { service_id: id, service_code: `S${id}`, service_name: `Sérvice ${id} ${'x'.repeat(40)}` };
    });
    return ok({ pagination: { total_pages: PAGES, total_records: PAGES * PAGE_SIZE }, services });
  });
});
afterAll(() => server.close());

/** A cron-like environment: nothing but PATH, a config directory of its own, and what is given. */
const cronEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  SUBCTL_CONFIG_DIR: tempDir('subctl-cron-'),
  ...extra,
});

function runBin(args: string[], env: NodeJS.ProcessEnv, stdout: number | 'pipe'): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', stdout, 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += d));
    if (child.stdout) child.stdout.resume();
    child.on('exit', (status) => done({ status, stderr }));
  });
}

describe.skipIf(!existsSync('/dev/full'))('stdout on a full device (`> /dev/full`, a full disk)', () => {
  const full = (args: string[], env = cronEnv()) => {
    const fd = openSync('/dev/full', 'w');
    return runBin(args, env, fd).finally(() => closeSync(fd));
  };

  const lines = [['--version'], ['version'], ['help'], ['--help'], ['services', '--help'], ['help', 'exit-codes'], ['completion', 'bash']];
  it.each(lines.map((a) => [a.join(' '), a] as const))(
    '`subctl %s` says it could not write and exits 1, never 0 with the output lost, never a trace',
    async (_line, args) => {
      const r = await full([...args]);
      expect(r.stderr).toMatch(
        /^error: cannot write to standard output: (no space left on device \(ENOSPC\)|ENOSPC: no space left on device, write)\n/,
      );
      expect(r.stderr).not.toMatch(/\n\s+at |node:events|Unhandled/);
      expect(r.status).toBe(1);
    },
  );

  it('a command against a platform, in text and in JSON (-o json: the error is one JSON object)', async () => {
    const env = cronEnv({ SUBCTL_TOKEN: 'tok-123456' });
    const text = await full(['services', 'get', '1', '--base-url', server.url], env);
    expect(text.stderr).toMatch(/^error: cannot write to standard output: no space left on device \(ENOSPC\)\nhint: free some disk space/);
    expect(text.status).toBe(1);
    const json = await full(['version', '-o', 'json'], env);
    expect(JSON.parse(json.stderr).error).toMatchObject({ type: 'local', code: 'ENOSPC' });
    expect(json.status).toBe(1);
  });
});

describe('a reader that goes away (`| head -1`) ends an --all export quietly, exit 0, in every format', () => {
  it.each(['table', 'csv', 'json', 'ndjson'])('-o %s', async (format) => {
    const child = spawn(process.execPath, [bin, 'services', 'list', '--all', '-o', format, '--base-url', server.url], {
      env: cronEnv({ SUBCTL_TOKEN: 'tok-123456' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // `head -1`: the first line, then the reading end closes.
    const first = await new Promise<string>((done) => {
      let got = '';
      child.stdout.on('data', (d: Buffer) => {
        got += d.toString();
        if (got.includes('\n')) {
          child.stdout.destroy();
          done(got.slice(0, got.indexOf('\n')));
        }
      });
    });
    const status = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    expect(first.length).toBeGreaterThan(0);
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
});
