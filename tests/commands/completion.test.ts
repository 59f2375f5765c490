/**
 * `subctl completion` and the hidden `subctl __complete` it calls back: groups, verbs, flags,
 * enum values, dynamic values from the platform through the 5-minute cache, silence on
 * failure, and the generated scripts themselves (syntax, and one real bash round trip).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
let server: StubServer;

const services = [
  { service_id: 1, service_code: 'GPT4', service_name: 'GPT-4 access' },
  { service_id: 2, service_code: 'DALLE', service_name: 'Images' },
  { service_id: 3, service_code: 'GEMINI', service_name: 'Gemini' },
];
const plans = [
  { plan_id: 1, plan_code: 'PRO-M', plan_name: 'Pro monthly' },
  { plan_id: 2, plan_code: 'BASIC', plan_name: 'Basic' },
];
const codes = [
  { code_id: 1, batch_id: 'SPRING26', service_code: 'GPT4', plan_code: 'PRO-M' },
  { code_id: 2, batch_id: 'SPRING26', service_code: 'GPT4', plan_code: 'PRO-M' },
  { code_id: 3, batch_id: 'WINTER25', service_code: 'DALLE', plan_code: 'BASIC' },
];
const page = (n: number) => ({ current_page: 1, page_size: 100, total_pages: 1, total_records: n });

function platform(): Parameters<StubServer['setHandler']>[0] {
  return (req) => {
    if (req.path === '/admin/services') return ok({ pagination: page(services.length), services });
    if (req.path === '/admin/subscription-plans') return ok({ pagination: page(plans.length), subscription_plans: plans });
    if (req.path === '/admin/usage-codes/list') return ok({ pagination: page(codes.length), usage_codes: codes });
    return fail(404, 'not found');
  };
}

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(platform());
});

/** `subctl __complete [--shell S] -- <cword> <words...>`, cword = the last word's index. */
async function complete(line: string[], opts: { shell?: string; env?: Record<string, string> } = {}) {
  const args = ['__complete', ...(opts.shell ? ['--shell', opts.shell] : []), '--', String(line.length - 1), ...line];
  const r = await runCli(args, { env: opts.env });
  return { ...r, lines: r.stdout.split('\n').filter(Boolean) };
}

describe('__complete: the command tree', () => {
  it('completes groups with their aliases, and hides itself', async () => {
    const r = await complete(['subctl', '']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.lines).toEqual(expect.arrayContaining(['services', 'subscriptions', 'subs', 'usage-codes', 'codes', 'completion', 'doctor']));
    expect(r.lines).not.toContain('__complete');
    expect((await complete(['subctl', 'su'])).lines).toEqual(['subscriptions', 'subs']);
  });

  it('completes the verbs of a group (and of an alias)', async () => {
    expect((await complete(['subctl', 'services', ''])).lines).toEqual(
      expect.arrayContaining(['list', 'get', 'report', 'create', 'update', 'delete']),
    );
    expect((await complete(['subctl', 'subs', 'm'])).lines).toEqual(['manage']);
  });

  it('completes the flags of a verb, global options included', async () => {
    const r = await complete(['subctl', 'services', 'list', '--']);
    expect(r.lines).toEqual(
      expect.arrayContaining([
        '--service-type',
        '--is-active',
        '--page-size',
        '--sort-by',
        '--output',
        '--profile',
        '--base-url',
        '--all',
        '--timeout',
      ]),
    );
    expect((await complete(['subctl', 'services', 'list', '--service-t'])).lines).toEqual(['--service-type']);
    // Global options before the group do not lose the place.
    expect((await complete(['subctl', '--profile', 'x', '-o', 'json', 'services', 'list', '--sort-o'])).lines).toEqual(['--sort-order']);
  });

  it('completes enum values after an enum flag, -o, and subscriptions manage --action', async () => {
    expect((await complete(['subctl', 'services', 'list', '--service-type', ''])).lines).toEqual(['TIME_BASED', 'USAGE_BASED', 'HYBRID']);
    expect((await complete(['subctl', 'services', 'list', '-o', ''])).lines).toEqual(['table', 'wide', 'json', 'ndjson', 'csv']);
    expect((await complete(['subctl', 'subscriptions', 'manage', '42', '--action', ''])).lines).toEqual([
      'extend',
      'pause',
      'resume',
      'cancel',
      'add_credits',
    ]);
    expect((await complete(['subctl', 'services', 'list', '--service-type', 'HY'])).lines).toEqual(['HYBRID']);
    expect((await complete(['subctl', 'services', 'list', '--service-type=U'])).lines).toEqual(['--service-type=USAGE_BASED']);
    expect((await complete(['subctl', 'services', 'list', '--is-active', ''])).lines).toEqual(['true', 'false']);
  });

  it('bash: joins the pieces bash splits at = and answers relative to its own current word', async () => {
    expect((await complete(['subctl', 'services', 'list', '--service-type', '=', 'HY'])).lines).toEqual(['HYBRID']);
    // Right after the `=`: readline replaces the empty text after it, so no `=` in the answers
    // (with one, `--service-type=<TAB>` became `--service-type==`).
    expect((await complete(['subctl', 'services', 'list', '--service-type', '='])).lines).toEqual(['TIME_BASED', 'USAGE_BASED', 'HYBRID']);
    // `--base-url http://h:1` arrives in pieces; the group after it is still found.
    expect((await complete(['subctl', '--base-url', 'http', ':', '//127.0.0.1', ':', '9', 'services', 'li'])).lines).toEqual([
      'list',
      'list-alt',
    ]);
  });

  it('config use completes the profiles; config get, set and unset the settings', async () => {
    const cfg = tempConfigDir();
    const env = { SUBCTL_CONFIG_DIR: cfg };
    for (const p of ['prod', 'staging']) await runCli(['config', 'set', 'base-url', `https://${p}.example.com`, '--profile', p], { env });
    expect((await complete(['subctl', 'config', 'use', ''], { env })).lines).toEqual(['prod', 'staging']);
    expect((await complete(['subctl', 'config', 'use', 'st'], { env })).lines).toEqual(['staging']);
    for (const verb of ['get', 'set', 'unset'])
      expect((await complete(['subctl', 'config', verb, ''], { env })).lines).toEqual(['base-url', 'output', 'timeout', 'retries']);
    // The keys completion offers are the settings config takes.
    const { SETTINGS } = await import('../../src/config/store.js');
    expect(SETTINGS.map((s) => s.key)).toEqual(['base-url', 'output', 'timeout', 'retries']);
  });

  it('zsh and fish get value<TAB>description', async () => {
    const r = await complete(['subctl', 'serv'], { shell: 'fish' });
    expect(r.lines).toContain('services\tservices offered through plans (/admin/services)');
    expect(r.lines.find((l) => l.startsWith('service-plans\t'))).toBeDefined();
  });

  it('needs no network for anything but dynamic values', async () => {
    await complete(['subctl', 'services', 'list', '--'], { env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' } });
    await complete(['subctl', 'services', 'get', '--service-code', 'GPT4', '--'], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('__complete: dynamic values', () => {
  const envFor = (dir: string) => ({ SUBCTL_CONFIG_DIR: dir, SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 'tok' });

  it('fetches service codes once, at the largest page size, then answers from the cache', async () => {
    const dir = tempConfigDir();
    const r = await complete(['subctl', 'services', 'get', '--service-code', ''], { env: envFor(dir) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.lines).toEqual(['DALLE', 'GEMINI', 'GPT4']);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].path).toBe('/admin/services');
    expect(server.requests[0].query).toMatchObject({ page_size: '100', page_number: '1' });
    expect(server.requests[0].headers.authorization).toBe('Bearer tok');
    const file = join(dir, 'cache', 'completion', 'default-services.json');
    const cached = JSON.parse(readFileSync(file, 'utf8'));
    expect(Date.now() - Date.parse(cached.fetched_at)).toBeLessThan(60_000);
    expect(cached.values.map((v: { value: string }) => v.value)).toEqual(['DALLE', 'GEMINI', 'GPT4']);

    // A second completion within 5 minutes: no request; prefix filtering applies.
    const again = await complete(['subctl', 'subscriptions', 'list', '--service-code', 'G'], { env: envFor(dir) });
    expect(again.lines).toEqual(['GEMINI', 'GPT4']);
    expect(server.requests).toHaveLength(1);

    // Positional codes (`services get GPT4`) come from the same cache.
    expect((await complete(['subctl', 'services', 'get', 'D'], { env: envFor(dir) })).lines).toEqual(['DALLE']);
    expect(server.requests).toHaveLength(1);
  });

  it('fetches again once the cache is older than 5 minutes', async () => {
    const dir = tempConfigDir();
    await complete(['subctl', 'services', 'get', '--service-code', ''], { env: envFor(dir) });
    expect(server.requests).toHaveLength(1);
    const file = join(dir, 'cache', 'completion', 'default-services.json');
    const cached = JSON.parse(readFileSync(file, 'utf8'));
    cached.fetched_at = new Date(Date.now() - 6 * 60_000).toISOString();
    cached.values = [{ value: 'OLD' }];
    writeFileSync(file, JSON.stringify(cached));
    const r = await complete(['subctl', 'services', 'get', '--service-code', ''], { env: envFor(dir) });
    expect(server.requests).toHaveLength(2);
    expect(r.lines).toEqual(['DALLE', 'GEMINI', 'GPT4']);
  });

  it('plan codes and batch ids, each kind in its own cache file', async () => {
    const dir = tempConfigDir();
    expect((await complete(['subctl', 'service-plans', 'manage', '--plan-code', ''], { env: envFor(dir) })).lines).toEqual([
      'BASIC',
      'PRO-M',
    ]);
    expect((await complete(['subctl', 'usage-codes', 'list', '--batch-id', ''], { env: envFor(dir) })).lines).toEqual([
      'SPRING26',
      'WINTER25',
    ]);
    expect(server.requests.map((r) => r.path)).toEqual(['/admin/subscription-plans', '/admin/usage-codes/list']);
    expect(existsSync(join(dir, 'cache', 'completion', 'default-plans.json'))).toBe(true);
    expect(existsSync(join(dir, 'cache', 'completion', 'default-batches.json'))).toBe(true);
    const fish = await complete(['subctl', 'plans', 'update', '--plan-code', 'P'], { shell: 'fish', env: envFor(dir) });
    expect(fish.lines).toEqual(['PRO-M\tPro monthly']);
  });

  it('a failing server: the stale cache, exit 0, nothing on stderr', async () => {
    const dir = tempConfigDir();
    await complete(['subctl', 'services', 'get', '--service-code', ''], { env: envFor(dir) });
    const file = join(dir, 'cache', 'completion', 'default-services.json');
    const cached = JSON.parse(readFileSync(file, 'utf8'));
    cached.fetched_at = new Date(Date.now() - 6 * 60_000).toISOString();
    writeFileSync(file, JSON.stringify(cached));
    server.setHandler(() => fail(503, 'down'));
    const r = await complete(['subctl', 'services', 'get', '--service-code', ''], { env: envFor(dir) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.lines).toEqual(['DALLE', 'GEMINI', 'GPT4']);
    expect(server.requests).toHaveLength(2); // one attempt: no retries on a Tab
  });

  it('a failing server and no cache: nothing, exit 0, nothing on stderr', async () => {
    server.setHandler(() => fail(500, 'boom'));
    const r = await complete(['subctl', 'services', 'get', '--service-code', ''], { env: envFor(tempConfigDir()) });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('a server that never answers: gives up within the short time-out, silently', async () => {
    server.setHandler(() => ({ hang: true }));
    const started = Date.now();
    const r = await complete(['subctl', 'services', 'get', '--service-code', ''], { env: envFor(tempConfigDir()) });
    // Its time-out is 2 s; the everyday one, 10 s.
    expect(Date.now() - started).toBeLessThan(9_000);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('an unreachable address or a broken configuration: silent too', async () => {
    const r = await complete(['subctl', 'services', 'get', '--service-code', ''], {
      env: { SUBCTL_BASE_URL: 'http://127.0.0.1:9', SUBCTL_TOKEN: 't' },
    });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), '{ not json');
    const broken = await complete(['subctl', 'services', 'get', '--service-code', ''], { env: { SUBCTL_CONFIG_DIR: dir } });
    expect(broken).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('honours --profile and --base-url typed on the line being completed', async () => {
    const dir = tempConfigDir();
    // A profile named on the line must exist, as for any command (a misspelt one is refused).
    expect((await runCli('config set timeout 5000 --profile ops', { env: { SUBCTL_CONFIG_DIR: dir } })).code).toBe(0);
    const r = await complete(['subctl', '--profile', 'ops', 'services', 'get', '--base-url', server.url, '--service-code', 'GP'], {
      env: { SUBCTL_CONFIG_DIR: dir, SUBCTL_TOKEN: 't' },
    });
    expect(r.lines).toEqual(['GPT4']);
    expect(existsSync(join(dir, 'cache', 'completion', 'ops-services.json'))).toBe(true);
  });
});

describe('completion scripts', () => {
  const scriptFor = async (shell: string) => {
    const r = await runCli(['completion', shell]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const dir = tempDir('subctl-comp-');
    const file = join(dir, `subctl.${shell}`);
    writeFileSync(file, r.stdout);
    return { text: r.stdout, file };
  };
  const has = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;

  it('`completion --help` shows the install lines; a missing or unknown shell is a usage error', async () => {
    const help = await runCli('completion --help');
    expect(help.stdout).toContain('eval "$(subctl completion bash)"');
    expect(help.stdout).toContain('~/.config/fish/completions/subctl.fish');
    expect(help.stdout).toContain('_subctl');
    expect((await runCli('completion')).code).toBe(2);
    expect((await runCli('completion powershell')).stderr).toContain("unknown shell 'powershell'");
  });

  it('bash: bash -n accepts it', async () => {
    const { file } = await scriptFor('bash');
    const r = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(!has('zsh'))('zsh: zsh -n accepts it', async () => {
    const { file } = await scriptFor('zsh');
    const r = spawnSync('zsh', ['-n', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(!has('fish'))('fish: fish -n accepts it', async () => {
    const { file } = await scriptFor('fish');
    const r = spawnSync('fish', ['-n', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('bash for real: the function fills COMPREPLY through the binary', async () => {
    if (!existsSync(join(root, 'dist/subctl.cjs.cache'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
    const { file } = await scriptFor('bash');
    const bin = tempDir('subctl-bin-');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'subctl'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin/subctl.js')}" "$@"\n`);
    chmodSync(join(bin, 'subctl'), 0o755);
    const run = (words: string[]) => {
      const assign = `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}`;
      const r = spawnSync(
        'bash',
        ['-c', `source '${file}'; ${assign}; _subctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"; complete -p subctl`],
        {
          encoding: 'utf8',
          env: { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME, SUBCTL_CONFIG_DIR: tempConfigDir() },
        },
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(run(['subctl', 'services', 'list', '--service-type', ''])).toEqual([
      'TIME_BASED',
      'USAGE_BASED',
      'HYBRID',
      'complete -o default -F _subctl_complete subctl',
    ]);
    expect(run(['subctl', 'subs', 'ma'])).toEqual(['manage', 'complete -o default -F _subctl_complete subctl']);
  });
});
