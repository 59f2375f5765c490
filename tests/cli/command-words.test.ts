/**
 * Where the group and verb are on a command line, and what is built for it: global options may
 * come first (`subctl -o json services list`, the order gh and kubectl accept), and only the
 * verb named is built in full.
 */
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addGlobalOptions } from '../../src/cli/globals.js';
import { placeholder } from '../../src/cli/run.js';
import { groupAndVerb, outputWord } from '../../src/cli/words.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli } from '../support/run-cli.js';

const globals = addGlobalOptions(new Command()).options;
const words = (line: string) => groupAndVerb(line.split(' ').filter(Boolean), globals);

describe('groupAndVerb', () => {
  it('skips global options and their values, in either spelling', () => {
    expect(words('services list')).toEqual({ group: 'services', verb: 'list', at: 0 });
    expect(words('-o json services list --page-size 5')).toEqual({ group: 'services', verb: 'list', at: 2 });
    expect(words('--output=json --base-url http://x services ls')).toEqual({ group: 'services', verb: 'ls', at: 3 });
    expect(words('--sandbox --fields a,b services --limit 3 get GPT4')).toEqual({ group: 'services', verb: 'get', at: 3 });
    expect(words('--yes -q services delete')).toEqual({ group: 'services', verb: 'delete', at: 2 });
  });

  it('leaves the verb out when a flag it does not know comes before it', () => {
    // --service-code takes a value, but only the verb knows that: `GPT4` is not the verb.
    expect(words('services --service-code GPT4 get')).toEqual({ group: 'services', at: 0 });
    expect(words('services -- list')).toEqual({ group: 'services', at: 0 });
    expect(words('--help')).toEqual({});
  });

  it('outputWord finds -o in any spelling on a line that did not parse', () => {
    expect(outputWord('-o json x'.split(' '))).toBe('json');
    expect(outputWord('x --output ndjson'.split(' '))).toBe('ndjson');
    expect(outputWord('--output=json x'.split(' '))).toBe('json');
    expect(outputWord('-ojson x'.split(' '))).toBe('json');
    expect(outputWord('-o csv x -o json'.split(' '))).toBe('json');
    expect(outputWord('x -- -o json'.split(' '))).toBeUndefined();
    expect(outputWord('x --yes'.split(' '))).toBeUndefined();
  });

  it('a command listed but not built fails loudly if it is ever run', async () => {
    const program = new Command('t').exitOverride();
    placeholder(program.command('ghost'));
    await expect(program.parseAsync(['ghost'], { from: 'user' })).rejects.toThrow(/ghost.*not built/);
  });
});

describe('the command line as users type it', () => {
  let sb: Sandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    sb = await startTestSandbox();
    env = { SUBCTL_TOKEN: sb.tokenFor('admin') };
  });
  afterAll(() => sb?.close());

  it('global options before the group apply (this printed nothing and exited 0 before)', async () => {
    const r = await runCli(`-o json --base-url ${sb.url} services list --page-size 3`, { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ service_code: string }>;
    expect(rows).toHaveLength(3);
    const first = await runCli(`--base-url ${sb.url} -o csv --fields service_code services ls --page-size 2`, { env });
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n')[0]).toBe('service_code');
  });

  it('a usage error after global options names the command in its hint', async () => {
    const r = await runCli(`--base-url ${sb.url} services list --page-size 500`, { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`subctl services list --help`');
  });

  it('the group help lists every verb with its summary; the verb help is the verb in full', async () => {
    const group = await runCli('services --help', { env });
    expect(group.code).toBe(0);
    for (const v of ['list|ls', 'get', 'report', 'create', 'update', 'delete'])
      expect(group.stdout).toMatch(new RegExp(`^  ${v.replace('|', '\\|')} `, 'm'));
    expect(group.stdout).toContain('Delete a service by');
    const verb = await runCli('services update --help', { env });
    expect(verb.code).toBe(0);
    expect(verb.stdout).toContain('--service-name');
    expect(verb.stdout).toContain('--credit-reset-cycle');
  });

  it('each verb still runs when it is the one named (the others were only listed)', async () => {
    const get = await runCli(`--base-url ${sb.url} services get GPT4 -o json`, { env });
    expect(get.code, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout).service_info.service_code).toBe('GPT4');
    const report = await runCli(`services report --base-url ${sb.url} -o json`, { env });
    expect(report.code, report.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(report.stdout))).toBe(true);
  });

  it('a line naming a group builds that group alone; the root help asked before it still lists every group', async () => {
    const { groups } = await import('../../src/commands/index.js');
    const listed = (out: string) => groups.filter((g) => !g.hidden && new RegExp(`^  ${g.name}[ |]`, 'm').test(out)).map((g) => g.name);
    const all = groups.filter((g) => !g.hidden).map((g) => g.name);
    for (const line of ['--help', '--help services', '-h services list', '-o json --help services']) {
      const r = await runCli(line, { env });
      expect(r.code, line).toBe(0);
      expect(listed(r.stdout), line).toEqual(all);
    }
    // The group's own help, asked after it, is the group's.
    const group = await runCli('services --help', { env });
    expect(group.stdout).toMatch(/^Usage: subctl services /m);
  });

  it('a misspelt group is an unknown command with a suggestion, not "too many arguments"', async () => {
    const r = await runCli('servics list', { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("error: unknown command 'servics'\n(Did you mean services?)\nrun 'subctl --help' for usage\n");
  });

  it('an unknown group is named as such, whatever options follow it (not "unknown option")', async () => {
    const r = await runCli('maintenance cleanup --dry-run', { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("error: unknown command 'maintenance'\nrun 'subctl --help' for usage\n");
    const near = await runCli('-o json servics list --all --bogus', { env });
    expect(near.code).toBe(2);
    // -o json: the one JSON error object, Commander's message and suggestion inside it.
    expect(JSON.parse(near.stderr).error).toMatchObject({ type: 'usage', message: "unknown command 'servics'\n(Did you mean services?)" });
  });

  it('with -o json|ndjson a command line that does not parse is one JSON error object on stderr, and nothing else', async () => {
    for (const line of ['-o json maintenance cleanup', 'services list --bogus -o ndjson', '--output=json services lst']) {
      const r = await runCli(line, { env });
      expect(r.code, line).toBe(2);
      expect(r.stdout, line).toBe('');
      expect(r.stderr.endsWith('}\n') && r.stderr.indexOf('\n') === r.stderr.length - 1, line).toBe(true);
      const e = JSON.parse(r.stderr) as { error: { type: string; message: string; hint: string } };
      expect(e.error.hint, line).toMatch(/--help' for usage$/);
      expect(e.error.type, line).toBe('usage');
      expect(e.error.message, line).toMatch(/^unknown (command|option) /);
    }
    const env2 = { ...env, SUBCTL_OUTPUT: 'json' };
    const viaEnv = await runCli('services list --bogus', { env: env2 });
    expect(JSON.parse(viaEnv.stderr.trim().split('\n').pop()!).error.message).toBe("unknown option '--bogus'");
    const text = await runCli('services list --bogus', { env });
    expect(text.stderr).toBe("error: unknown option '--bogus'\nrun 'subctl services list --help' for usage\n");
  });

  it('an unknown verb names what the group has', async () => {
    const r = await runCli('referrals list', { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: unknown command 'list'");
    expect(r.stderr).toMatch(/^subctl referrals has: .*\bmine\b.*\badmin-list\b/m);
    expect(r.stderr).toContain("run 'subctl referrals --help' for usage");
    const near = await runCli('services lst', { env });
    expect(near.stderr).toContain('(Did you mean one of list, ls?)');
    expect(near.stderr).toContain('subctl services has: list, list-alt, get, report, create, update, delete');
  });
});
