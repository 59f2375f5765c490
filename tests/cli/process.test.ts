/**
 * The real binary as a user runs it: signals, exit codes, closed pipes, start-up weight.
 * Runs bin/subctl.js against dist/ (built by `npm test`'s pretest step).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluatedModules } from '../support/bundle-coverage.js';
import { fail, ok, startStubServer, type StubReply, type StubServer } from '../support/stub-server.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/subctl.js');
let server: StubServer;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/subctl.cjs.cache'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
  server = await startStubServer(() =>
    ok({ pagination: { total_pages: 1, total_records: 1 }, services: [{ service_id: 1, service_code: 'GPT4' }] }),
  );
});
afterAll(() => server.close());

/** Runs the binary without blocking this process (which serves the stub server). */
function runBin(
  args: string[],
  envVars: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [...nodeArgs, bin, ...args], { env: envVars, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolveRun({ status, stdout, stderr }));
  });
}

function env(extra: Record<string, string> = {}) {
  return { PATH: process.env.PATH!, HOME: tempDir('subctl-home-'), SUBCTL_CONFIG_DIR: tempDir('subctl-cfg-'), ...extra };
}

describe('the binary', () => {
  /** `services list` against the stub's `reply`, SIGINT `settleMs` after its first request. */
  async function interruptAfterFirstRequest(reply: StubReply, settleMs: number) {
    server.setHandler(() => reply);
    server.requests.length = 0;
    const child = spawn(process.execPath, [bin, 'services', 'list', '--base-url', server.url], {
      env: env({ SUBCTL_TOKEN: 't' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    while (server.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, settleMs));
    const sent = performance.now();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    return { code, elapsed: performance.now() - sent, stderr };
  }

  // Each wait below lasts 10 s or more; the process must end long before, whatever the load.
  it('Ctrl-C during a retry wait ends the process at once with exit 130', async () => {
    // After the first attempt is answered the client waits the 20 s its Retry-After asks.
    const r = await interruptAfterFirstRequest({ ...fail(429, 'slow down'), headers: { 'retry-after': '20' } }, 150);
    expect(r.code).toBe(130);
    expect(r.elapsed).toBeLessThan(3000);
    expect(server.requests).toHaveLength(1);
    expect(r.stderr).toContain('interrupted');
  });

  it('Ctrl-C while an answer is awaited (node:http, one command) ends the process at once with exit 130', async () => {
    const r = await interruptAfterFirstRequest({ hang: true }, 100);
    expect(r.code).toBe(130);
    expect(r.elapsed).toBeLessThan(3000);
    expect(server.requests).toHaveLength(1);
    expect(r.stderr).toContain('interrupted');
  });

  it('a closed pipe ends quietly: `| head -1` prints one line, no EPIPE trace', () => {
    const r = spawnSync('bash', ['-c', `set -o pipefail; node ${bin} api endpoints -o ndjson | head -1`], { env: env(), encoding: 'utf8' });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout).method).toBeDefined();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('an error written to a stderr whose reader is gone (`2>&1 | head -1`) keeps its exit code', async () => {
    // On the embedded sandbox, whose closing gives the stream's error time to arrive before the
    // exit (against a stub the process was gone first, and the old code passed too).
    const child = spawn(process.execPath, [bin, '--sandbox', 'services', 'get', 'NOPE'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    // The reading end closed before the child writes: every write to its stderr fails with EPIPE.
    child.stderr.destroy();
    child.stdout.resume();
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(4);
  });

  it('non-interactive commands never load ink or react', async () => {
    server.setHandler(() => ok({ pagination: { total_pages: 1, total_records: 1 }, services: [{ service_id: 1, service_code: 'GPT4' }] }));
    const trace = join(tempDir('subctl-trace-'), 'modules.txt');
    const cases = [
      ['services', 'list', '--base-url', server.url, '-o', 'json'],
      ['services', 'list', '--base-url', server.url],
      ['api', 'endpoints'],
      ['--help'],
      ['config', 'list'],
    ];
    for (const args of cases) {
      const r = await runBin(args, env({ SUBCTL_TOKEN: 't', TRACE_FILE: trace }), [
        '--import',
        join(root, 'tests/support/trace-imports.mjs'),
      ]);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    const loaded = readFileSync(trace, 'utf8');
    expect(loaded).toMatch(/^cjs node:vm$/m); // the trace works (the launcher's own require)
    expect(loaded).not.toMatch(/node_modules\/(ink|react|@inkjs|yoga-layout)\//);
    expect(loaded).not.toMatch(/^cjs (ink|react)$/m);
  });

  it("neither a command against a platform nor the embedded sandbox loads node:module (Node's ES module loader), node:os, node:crypto or perf_hooks", async () => {
    server.setHandler(() => ok({ pagination: { total_pages: 1, total_records: 1 }, services: [{ service_id: 1, service_code: 'GPT4' }] }));
    const dir = tempDir('subctl-builtins-');
    const sandboxEnv = env();
    const cases: Array<[string[], NodeJS.ProcessEnv]> = [
      [['services', 'list', '--base-url', server.url, '-o', 'json'], env({ SUBCTL_TOKEN: 't' })],
      // Twice: the first run seeds the data file; the second is the everyday start.
      [['--sandbox', 'services', 'list', '-o', 'json'], sandboxEnv],
      [['--sandbox', 'services', 'list', '-o', 'json'], sandboxEnv],
    ];
    // What this Node loads for an empty CommonJS script is not subctl's doing: Node 24 loads its
    // ES module loader for every script (Node 20 none of these).
    const unwanted = /^NativeModule (module|os|internal\/modules\/esm\/loader|crypto|perf_hooks)$/;
    const empty = join(dir, 'empty.cjs');
    writeFileSync(empty, '');
    const baselineFile = join(dir, 'baseline.txt');
    const base = spawnSync(process.execPath, ['-r', join(root, 'tests/support/builtins-at-exit.cjs'), empty], {
      env: { ...process.env, BUILTINS_FILE: baselineFile },
    });
    expect(base.status, String(base.stderr)).toBe(0);
    const byNode = new Set(readFileSync(baselineFile, 'utf8').split('\n'));
    for (const [i, [args, vars]] of cases.entries()) {
      const file = join(dir, `${i}.txt`);
      const r = await runBin(args, { ...vars, BUILTINS_FILE: file }, ['-r', join(root, 'tests/support/builtins-at-exit.cjs')]);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      if (i === 1) continue;
      const builtins = readFileSync(file, 'utf8').split('\n');
      expect(builtins).toContain('NativeModule vm'); // the list is real: the launcher's vm.Script
      // Start-up the command has no use for: module and os about 0.2-0.3 ms each, crypto about
      // 2 ms (the sandbox needs it only to issue a token or hash a password), perf_hooks (the
      // global `performance`) about 1 ms.
      expect(
        builtins.filter((m) => unwanted.test(m) && !byNode.has(m)),
        args.join(' '),
      ).toEqual([]);
    }
  });

  /** The bundle's source modules a command evaluated (tests/support/bundle-coverage.ts). */
  async function evaluated(args: string[]): Promise<string[]> {
    const dir = tempDir('subctl-cov-');
    const r = await runBin(args, env({ SUBCTL_TOKEN: 't', NODE_V8_COVERAGE: dir }));
    expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return evaluatedModules(dir, join(root, 'dist'));
  }

  it('the coverage trace sees the modules a command evaluates', async () => {
    const mods = await evaluated(['services', 'list', '--base-url', server.url, '-o', 'json']);
    expect(mods).toContain('src/cli/run.ts');
    expect(mods).toContain('src/commands/services/index.ts');
    expect(mods).not.toContain('src/commands/subscriptions/index.ts');
  });

  it('a single command sends over node:http and never loads undici; --all loads undici', async () => {
    server.setHandler(() => ok({ pagination: { total_pages: 1, total_records: 1 }, services: [{ service_id: 1, service_code: 'GPT4' }] }));
    const undici = (mods: string[]) => mods.filter((m) => m.startsWith('node_modules/undici/'));
    const one = await evaluated(['services', 'list', '--base-url', server.url, '-o', 'json']);
    expect(one).toContain('src/api/transport-node.ts');
    expect(one).not.toContain('src/api/transport-undici.ts');
    expect(undici(one)).toEqual([]);
    const all = await evaluated(['services', 'list', '--base-url', server.url, '-o', 'json', '--all']);
    expect(all).toContain('src/api/transport-undici.ts');
    expect(undici(all).length).toBeGreaterThan(5);
    // Nor does a command read it: undici is a file of its own beside the bundle every command
    // reads (about 280 KB less to read, about 1 ms of every start).
    const sources = (file: string) =>
      (JSON.parse(readFileSync(join(root, 'dist', `${file}.map`), 'utf8')) as { sources: string[] }).sources;
    expect(sources('subctl.cjs').filter((s) => s.includes('node_modules/undici/'))).toEqual([]);
    expect(sources('transport-undici.cjs').filter((s) => s.includes('node_modules/undici/')).length).toBeGreaterThan(5);
  });

  it("a command builds only its own group's contract", async () => {
    // The groups' contract files (admin-common.ts holds the few pieces they share).
    const contracts = (mods: string[]) =>
      mods.filter((s) => s.startsWith('src/api/contract/admin-') && !s.endsWith('admin-common.ts')).sort();
    expect(contracts(await evaluated(['subscriptions', 'manage', '--help']))).toEqual(['src/api/contract/admin-subscriptions.ts']);
    expect(contracts(await evaluated(['wallet', 'list', '--help']))).toEqual(['src/api/contract/admin-misc.ts']);
    expect(contracts(await evaluated(['services', 'list', '--help']))).toEqual(['src/api/contract/admin-services.ts']);
    // and none of the user-area contract files
    expect((await evaluated(['services', 'list', '--help'])).filter((s) => s.startsWith('src/api/contract/user-'))).toEqual([]);
  });

  it('--version answers from the launcher with nothing else loaded', () => {
    const r = spawnSync(process.execPath, [bin, '--version'], { env: { PATH: process.env.PATH! }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`);
  });

  it('a usage error exits 2 and a bad flag names itself', async () => {
    const r = await runBin(['services', 'list', '--page-size', '500', '--base-url', server.url], env({ SUBCTL_TOKEN: 't' }));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('page_size');
  });
});
