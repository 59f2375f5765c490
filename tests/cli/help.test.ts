/**
 * Help that teaches: every command's examples parse with the real parser (nothing is run or
 * sent), the global options are listed once under their own heading, no JavaScript limits leak
 * into help, `help <group> <verb>` and the help topics.
 */
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { examplesOf } from '../../src/cli/help.js';
import { TOPICS } from '../../src/cli/topics.js';
import { buildTree } from '../../src/cli/tree.js';
import { ok, startStubServer } from '../support/stub-server.js';
import { runCli, splitArgs, tempConfigDir } from '../support/run-cli.js';

/** Every command a user runs: each verb, and each group that is its own verb (`cleanup`). */
function leaves(program: Command): Command[] {
  const out: Command[] = [];
  for (const g of program.commands) {
    if (g.name() === 'help') continue;
    const verbs = g.commands.filter((c) => c.name() !== 'help');
    out.push(...(verbs.length ? verbs : [g]));
  }
  return out;
}

const words = (cmd: Command) => {
  const w: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) w.unshift(c.name());
  return w.join(' ');
};

/** Every help text of the tree: the root, each group, each verb. */
function allHelp(program: Command): Array<[string, string]> {
  const out: Array<[string, string]> = [['subctl', program.helpInformation()]];
  for (const g of program.commands) {
    out.push([g.name(), g.helpInformation()]);
    for (const v of g.commands) out.push([`${g.name()} ${v.name()}`, v.helpInformation()]);
  }
  return out;
}

/** The subctl command of an example line, as the shell would hand it over (redirections removed). */
function argvOf(line: string): string[] {
  const argv = splitArgs(line.replace(/\s+[<>]\s*\S+$/, ''));
  expect(argv[0], line).toBe('subctl');
  return argv.slice(1);
}

let program: Command;
beforeAll(async () => {
  program = await buildTree('*');
}, 60_000);

describe('examples', () => {
  it('every command has 1-3 examples, whole command lines of its own', () => {
    const bad: string[] = [];
    for (const cmd of leaves(program)) {
      const ex = examplesOf(cmd);
      if (ex.length < 1 || ex.length > 3) bad.push(`${words(cmd)}: ${ex.length} examples`);
      for (const e of ex)
        if (!e.startsWith(`subctl ${words(cmd)}`) && !e.startsWith(`subctl ${cmd.parent?.name()} `)) bad.push(`${words(cmd)}: ${e}`);
    }
    expect(bad).toEqual([]);
    expect(leaves(program).length).toBeGreaterThan(90);
  });

  it('every example parses with the real parser and reaches its command, sending nothing', async () => {
    const failures: string[] = [];
    for (const cmd of leaves(program)) {
      const group = words(cmd).split(' ')[0]!;
      for (const line of examplesOf(cmd)) {
        let reached: Record<string, unknown> | undefined;
        // A fresh tree a line (Commander keeps the values it parsed), its action only recorded.
        const tree = await buildTree(group, () => (raw) => {
          reached = raw;
        });
        const silence = (c: Command) => {
          c.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
          c.commands.forEach(silence);
        };
        silence(tree);
        try {
          await tree.parseAsync(argvOf(line), { from: 'user' });
          if (!reached) failures.push(`${line}: reached no command`);
        } catch (e) {
          failures.push(`${line}: ${(e as Error).message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('every example is input the contract accepts: run against a server, none is refused as invalid', async () => {
    // A user copies an example and edits its values: its flags' values must pass the checks made
    // before sending (enums, bounds, --fields against the contract). The server answers every
    // request with an empty success; what happens after the answer is not this test's concern.
    const server = await startStubServer(() => ok({}));
    const SKIP = /^subctl (sandbox|console|completion) |--follow/;
    const refused: string[] = [];
    const topicLines = Object.values(TOPICS).flatMap((t) => t.blocks.flatMap((b) => ('code' in b ? b.code : [])));
    const lines = [...leaves(program).flatMap((cmd) => examplesOf(cmd)), ...topicLines.filter((l) => /^subctl [^|]*$/.test(l))];
    expect(lines.length).toBeGreaterThan(150);
    try {
      for (const line of lines) {
        if (SKIP.test(line)) continue;
        const r = await runCli([...argvOf(line), '--yes', '--no-input', '--retries', '0'], {
          env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 'tok-examples', SUBCTL_CONFIG_DIR: tempConfigDir() },
          stdin: 'pw-example-1\npw-example-2\n',
        });
        const why = /^error: (invalid input: .*|--fields: .*)$/m.exec(r.stderr);
        if (why) refused.push(`${line}: ${why[1]}`);
      }
    } finally {
      await server.close();
    }
    expect(refused).toEqual([]);
  }, 180_000);

  it("a verb shows its examples in its help, before its flags; the specification's exact forms are among them", async () => {
    const r = await runCli('subscriptions manage --help');
    expect(r.code).toBe(0);
    const ex = r.stdout.indexOf(
      'Examples:\n  subctl subscriptions manage 42 --action extend --reason "support ticket 981" --extend-days 30',
    );
    expect(ex).toBeGreaterThan(0);
    expect(ex).toBeLessThan(r.stdout.indexOf('Options:'));
    const auth = await runCli('auth login --help');
    expect(auth.stdout).toContain('Examples:\n  subctl auth login --base-url https://api.example.com --profile prod\n');
  });
});

describe('help text', () => {
  it('lists the global options once, under their own heading after the own flags', () => {
    const bad: string[] = [];
    for (const cmd of leaves(program)) {
      const h = cmd.helpInformation();
      const heading = h.split('\n').filter((l) => l === 'Global options:').length;
      const profile = h.split('\n').filter((l) => l.trimStart().startsWith('--profile <name>')).length;
      if (heading !== 1 || profile !== 1) bad.push(`${words(cmd)}: heading ${heading}, --profile ${profile}`);
      const own = h.indexOf('\nOptions:');
      if (own >= 0 && own > h.indexOf('Global options:')) bad.push(`${words(cmd)}: own flags after the global options`);
    }
    expect(bad).toEqual([]);
    expect(
      program
        .helpInformation()
        .split('\n')
        .filter((l) => l.trimStart().startsWith('--profile <name>')),
    ).toHaveLength(1);
  });

  it('says types in words, never the JavaScript limits', () => {
    const texts = allHelp(program);
    expect(texts.length).toBeGreaterThan(100);
    for (const [name, text] of texts) {
      expect(text, name).not.toContain('9007199254740991');
      expect(text, name).not.toMatch(/\.\.\d|\d\.\./);
    }
    const plans = program.commands
      .find((c) => c.name() === 'plans')!
      .commands.find((c) => c.name() === 'create')!
      .helpInformation();
    expect(plans).toMatch(/--duration <value>\s+integer, required/);
    expect(plans).toMatch(/--price <value>\s+number, at least 0, required/);
    expect(plans).toMatch(/--duration-unit <value>\s+one of days\|months\|years, required/);
    expect(plans).toMatch(/--plan-code <value>\s+text, at most 50 characters, required/);
    const wallet = program.commands
      .find((c) => c.name() === 'wallet')!
      .commands.find((c) => c.name() === 'list')!
      .helpInformation();
    expect(wallet).toMatch(/--date-from <value>\s+date YYYY-MM-DD/);
    expect(wallet).toMatch(/--page-size <n>\s+integer, 1 to 100/);
  });

  it('each list names the fields --fields can pick', () => {
    const lists = leaves(program).filter((c) => c.options.some((o) => o.long === '--page-number'));
    expect(lists.length).toBeGreaterThan(15);
    const bad = lists.filter((c) => !/\nFields \(for --fields\):\n {2}\w/.test(c.helpInformation())).map(words);
    expect(bad).toEqual([]);
    const services = program.commands
      .find((c) => c.name() === 'services')!
      .commands.find((c) => c.name() === 'list')!
      .helpInformation();
    expect(services).toMatch(/Fields \(for --fields\):\n {2}service_id, service_code, service_name,/);
  });
});

describe('subctl help', () => {
  it('help <group> <verb> shows that verb, as <group> <verb> --help does', async () => {
    const viaHelp = await runCli('help subscriptions manage');
    const viaFlag = await runCli('subscriptions manage --help');
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toMatch(/^Usage: subctl subscriptions manage \[options\] \[id\]\n/);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    const alias = await runCli('help subs ls');
    expect(alias.stdout).toMatch(/^Usage: subctl subscriptions list\|ls /);
  });

  it('help <group> shows the group; help alone the root, with the topics', async () => {
    const g = await runCli('help services');
    expect(g.code).toBe(0);
    expect(g.stdout).toMatch(/^Usage: subctl services /);
    expect(g.stdout).toMatch(/\n {2}list\|ls \[options\] /);
    const root = await runCli('help');
    expect(root.code).toBe(0);
    expect(root.stdout).toMatch(/^Usage: subctl /);
    expect(root.stdout).toContain('Help topics: subctl help environment, subctl help exit-codes, subctl help output, subctl help bulk');
  });

  it('help of something that does not exist is a usage error', async () => {
    const r = await runCli('help nosuch');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("unknown command 'nosuch'");
  });

  it.each([
    ['environment', ['SUBCTL_PROFILE', 'SUBCTL_BASE_URL', 'SUBCTL_TOKEN', 'SUBCTL_OUTPUT', 'SUBCTL_CONFIG_DIR', 'NO_COLOR', 'HTTPS_PROXY']],
    ['exit-codes', ['\n  0  ', '\n  2  ', '\n  8  ', '\n  9  ', '\n  130  ', 'catalog diff']],
    ['output', ['ndjson', '--fields', '--jq', '--all', '--limit', 'SUBCTL_PAGER', '--no-pager']],
    ['bulk', ['--from-csv', '--from-ndjson', '--dry-run', '--concurrency', '--report', '--restart', '--skip-applied']],
  ])('help %s prints the topic', async (topic, needles) => {
    const r = await runCli(['help', topic]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    for (const n of needles) expect(r.stdout).toContain(n);
    // Wrapped for a terminal; a command line to copy is left whole.
    for (const line of r.stdout.split('\n')) if (!line.startsWith('  subctl ')) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});
