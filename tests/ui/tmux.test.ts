/**
 * The real binary (bin/subctl.js over dist/, built by `npm test`) in a real terminal: tmux on a
 * private socket, 120x40, against a sandbox served by this test process. Open the console,
 * switch to subscriptions, page forward, filter by status, extend the selected subscription
 * through the form and the confirmation, then read the sandbox's database: its end_date moved
 * by the days typed. Screens are polled with a deadline, never slept on.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/subctl.js');
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
if (!hasTmux) console.warn('tests/ui/tmux.test.ts: tmux is not installed, so the console-in-a-terminal test is skipped (CI installs tmux)');

const socket = `subctl-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const session = 'console';
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
const keys = (...k: string[]) => {
  const r = tmux('send-keys', '-t', session, ...k);
  if (r.status !== 0) throw new Error(`tmux send-keys failed: ${r.stderr}`);
};

/** Polls the pane until `test` holds; fails with the last screen after `ms`. */
async function waitScreen(test: (s: string) => boolean, what: string, ms = 15_000): Promise<string> {
  const deadline = Date.now() + ms;
  let s = '';
  while (Date.now() < deadline) {
    s = screen();
    if (test(s)) return s;
    await new Promise((r) => setTimeout(r, 40));
  }
  const err = existsSync(join(dir, 'stderr')) ? readFileSync(join(dir, 'stderr'), 'utf8') : '';
  const code = existsSync(join(dir, 'exit-code')) ? readFileSync(join(dir, 'exit-code'), 'utf8').trim() : 'still running';
  throw new Error(`timed out waiting for ${what}; the screen was:\n${s}\nstderr:\n${err}\nexit code: ${code}`);
}
const waitFor = (text: string, ms?: number) => waitScreen((s) => s.includes(text), JSON.stringify(text), ms);

/** Polls the pane of another session until `test` holds; fails with its last screen after `ms`. */
async function pollPane(name: string, test: (s: string) => boolean, what: string, ms = 15_000): Promise<string> {
  const deadline = Date.now() + ms;
  let s = '';
  while (Date.now() < deadline) {
    s = tmux('capture-pane', '-p', '-t', name).stdout;
    if (test(s)) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
}

let sb: Sandbox;
let dir: string;

/** The console's subscriptions table on page 1, a row selected. */
const table = (x: string) => /subscriptions {2}page 1 of \d+/.test(x) && /^> \d+/m.test(x);

/**
 * An interactive bash with job control in a session of its own (prompt `<name>$ `), as a user's
 * shell: `run(args)` types a subctl command against the test sandbox, with a token of its own.
 */
function shellSession(name: string) {
  const token = join(dir, `${name}-token`);
  writeFileSync(token, sb.tokenFor('admin'), { mode: 0o600 });
  const rc = join(dir, `${name}-bashrc`);
  writeFileSync(rc, `PS1='${name}$ '\n`);
  const started = tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '120',
    '-y',
    '30',
    `env -i PATH="$PATH" HOME="${dir}" TERM=xterm-256color LANG=C.UTF-8 bash --noprofile --rcfile "${rc}" -i`,
  );
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  const send = (...k: string[]) => tmux('send-keys', '-t', name, ...k);
  return {
    send,
    pane: (test: (x: string) => boolean, what: string) => pollPane(name, test, what),
    prompt: (x: string) => new RegExp(`^${name}\\$ *$`, 'm').test(x),
    run(args: string) {
      send(
        '-l',
        `SUBCTL_CONFIG_DIR="${join(dir, `${name}-cfg`)}" SUBCTL_BASE_URL="${sb.url}" SUBCTL_TOKEN="$(cat "${token}")" "${process.execPath}" "${bin}" ${args}`,
      );
      send('Enter');
    },
    close: () => tmux('kill-session', '-t', name),
  };
}

beforeAll(async () => {
  if (!hasTmux) return;
  if (!existsSync(join(root, 'dist/subctl.cjs.cache'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
  sb = await startTestSandbox();
  dir = tempDir('subctl-tmux-');
  // A session that stays: tmux ends its server when the last session ends, and a new session
  // asked for while the server is ending fails ("server exited unexpectedly").
  tmux('new-session', '-d', '-s', 'keep', 'sleep 3600');
});

afterAll(async () => {
  if (!hasTmux) return;
  tmux('kill-server');
  // tmux leaves its socket file behind when the server is killed: nothing of a run stays in /tmp.
  rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
  await sb?.close();
});

describe.skipIf(!hasTmux)('the console in a terminal (tmux)', () => {
  it('switch, page, filter, extend through the form; the sandbox database has the new end date', async () => {
    // A clean environment: no CI variables (Ink draws nothing when it believes it runs in CI).
    const launcher = join(dir, 'run.sh');
    writeFileSync(
      launcher,
      [
        '#!/bin/sh',
        `env -i PATH="$PATH" HOME="${dir}" TERM=xterm-256color LANG=C.UTF-8 SUBCTL_CONFIG_DIR="${join(dir, 'cfg')}" \\`,
        `  SUBCTL_BASE_URL="${sb.url}" SUBCTL_TOKEN="$(cat "${join(dir, 'token')}")" "${process.execPath}" "${bin}" console 2> "${join(dir, 'stderr')}"`,
        `echo $? > "${join(dir, 'exit-code')}"`,
        'sleep 30',
      ].join('\n'),
      { mode: 0o700 },
    );
    writeFileSync(join(dir, 'token'), sb.tokenFor('admin'), { mode: 0o600 });
    const started = tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', launcher);
    expect(started.status, started.stderr).toBe(0);

    // Home: the dashboard, and the header.
    let s = await waitFor('dashboard');
    expect(s).toContain('subctl │ profile default');
    expect(s).toContain(sb.url);

    keys(':subscriptions', 'Enter');
    s = await waitScreen((x) => /subscriptions {2}page 1 of \d+, total \d+/.test(x) && /^> \d+/m.test(x), 'the subscriptions table');
    const total = Number(/page 1 of (\d+)/.exec(s)![1]);
    expect(total).toBeGreaterThan(1);
    const firstPageTop = /^> (\d+)/m.exec(s)![1];

    keys('NPage');
    await waitScreen((x) => x.includes(`page 2 of ${total}`) && /^> (\d+)/m.exec(x)?.[1] !== firstPageTop, 'page 2');

    keys('/');
    await waitFor('filters of subscriptions');
    keys('status=active', 'Enter');
    // The rows of the filtered page, not the page shown while it loads.
    const rowsOf = (x: string) => x.split('\n').filter((l) => /^[> ][ *]\d+ /.test(l));
    s = await waitScreen(
      (x) =>
        x.includes('filter status=active') &&
        /page 1 of \d+/.test(x) &&
        !x.includes('loading…') &&
        rowsOf(x).length > 0 &&
        rowsOf(x).every((l) => / active /.test(l)),
      'the filtered table',
    );
    const rows = s.split('\n').filter((l) => /^[> ][ *]\d+ /.test(l));
    expect(rows.length).toBeGreaterThan(5);
    for (const l of rows) expect(l, s).toMatch(/ active /);
    const id = Number(/^> (\d+)/m.exec(s)![1]);
    const before = sb.db.prepare('SELECT end_date, status FROM subscriptions WHERE subscription_id = ?').get(id) as {
      end_date: string;
      status: string;
    };
    expect(before.status).toBe('active');

    keys('e');
    await waitFor('extend_days*');
    // Enter with the reason empty: the contract's complaint, inline; nothing sent.
    keys('Enter');
    await waitFor('reason: required: expected string');
    keys('ticket 4242', 'Tab', '30', 'Enter');
    s = await waitFor('Proceed? [y/N]');
    expect(s).toContain(`extend subscription ${id}`);
    expect(s).toContain(`profile: default (${sb.url})`);
    keys('y');
    await waitFor(`subscription ${id} extended by 30 day(s)`);

    const after = sb.db.prepare('SELECT end_date, status FROM subscriptions WHERE subscription_id = ?').get(id) as {
      end_date: string;
      status: string;
    };
    expect(Date.parse(after.end_date) - Date.parse(before.end_date)).toBe(30 * 86_400_000);
    expect(after.status).toBe('active');

    // Marks belong to the filter: the row in view marked, another filter, and the marks are gone.
    keys('Space');
    await waitFor('1 marked');
    keys('/');
    await waitFor('filters of subscriptions');
    keys('C-u', 'status=paused', 'Enter');
    s = await waitScreen(
      (x) => x.includes('filter status=paused') && rowsOf(x).length > 0 && rowsOf(x).every((l) => / paused /.test(l)),
      'the paused table',
    );
    expect(s).not.toContain('marked');
    // The user of the row in view, their subscriptions (kept to them by the server), and back.
    keys('U');
    s = await waitScreen((x) => x.includes('Account') && x.includes('S subscriptions'), "the row's user");
    const userId = Number(/user_id +(\d+)/.exec(s)![1]);
    keys('S');
    // Every row shown is theirs (the sandbox's database says whose each subscription is).
    const ownersOf = (x: string) =>
      new Set(
        rowsOf(x).map(
          (l) =>
            (
              sb.db.prepare('SELECT user_id FROM subscriptions WHERE subscription_id = ?').get(Number(/^[> ][ *](\d+)/.exec(l)![1])) as {
                user_id: number;
              }
            ).user_id,
        ),
      );
    await waitScreen(
      (x) => x.includes(`filter user_id=${userId}`) && rowsOf(x).length > 0 && [...ownersOf(x)].join() === String(userId),
      'their subscriptions',
    );
    keys('Escape');
    await waitFor('S subscriptions');
    keys('Escape');
    await waitScreen((x) => x.includes('filter status=paused') && /^> \d+/m.test(x), 'the paused table again');

    keys('q');
    const deadline = Date.now() + 10_000;
    while (!existsSync(join(dir, 'exit-code')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 40));
    expect(readFileSync(join(dir, 'exit-code'), 'utf8').trim()).toBe('0');
  });
  it('a bulk run on a terminal: a progress line with the time left while it runs, then the final count on a clean line', async () => {
    // 20 ms per answer, two in flight: 60 rows take about 0.6 s, several progress ticks (200 ms).
    const slow = await startTestSandbox({ chaos: { latencyMs: [20, 20] } });
    try {
      const ids = (
        slow.db
          .prepare("SELECT subscription_id FROM subscriptions WHERE status = 'active' ORDER BY subscription_id LIMIT 60")
          .all() as Array<{ subscription_id: number }>
      ).map((r) => r.subscription_id);
      expect(ids.length).toBe(60);
      const csv = join(dir, 'rows.csv');
      writeFileSync(csv, `subscription_id,action,reason,extend_days\n${ids.map((id) => `${id},extend,tty progress,1`).join('\n')}\n`);
      writeFileSync(join(dir, 'bulk-token'), slow.tokenFor('admin'), { mode: 0o600 });
      const launcher = join(dir, 'bulk.sh');
      writeFileSync(
        launcher,
        [
          '#!/bin/sh',
          `env -i PATH="$PATH" HOME="${dir}" TERM=xterm-256color LANG=C.UTF-8 SUBCTL_CONFIG_DIR="${join(dir, 'bulk-cfg')}" \\`,
          `  SUBCTL_BASE_URL="${slow.url}" SUBCTL_TOKEN="$(cat "${join(dir, 'bulk-token')}")" "${process.execPath}" "${bin}" subscriptions manage --from-csv "${csv}" --concurrency 2 --yes`,
          `echo "exit $?"`,
          'sleep 30',
        ].join('\n'),
        { mode: 0o700 },
      );
      const started = tmux('new-session', '-d', '-s', 'bulk', '-x', '120', '-y', '10', launcher);
      expect(started.status, started.stderr).toBe(0);
      const poll = (test: (x: string) => boolean, what: string) => pollPane('bulk', test, what);
      const running = await poll((x) => /\d+\/60 rows, 0 failed, \d+ rows\/s, \d+s left/.test(x), 'a progress line with the time left');
      expect(running).not.toContain('60 applied');
      const end = await poll((x) => x.includes('exit '), 'the end of the run');
      const lines = end.split('\n').map((l) => l.trimEnd());
      const i = lines.findIndex((l) => l.startsWith('60/60 rows'));
      // The final count, alone on its line: nothing left over from the longer lines before it.
      expect(lines[i]).toMatch(/^60\/60 rows, 0 failed, \d+ rows\/s$/);
      expect(lines[i + 1]).toBe('subscriptions manage: 60 rows: 60 applied, 0 failed, 0 unknown');
      expect(lines).toContain('exit 0');
    } finally {
      tmux('kill-session', '-t', 'bulk');
      await slow.close();
    }
  });

  it('Ctrl-Z suspends the console to the shell (its screen, cursor and echo back); fg brings the same screen back, whole, and its keys work', async () => {
    const { send, pane, prompt, run, close } = shellSession('zsh');
    try {
      await pane(prompt, 'the shell prompt');
      run('console subscriptions');
      const first = await pane(table, 'the subscriptions table');
      const selected = /^> (\d+)/m.exec(first)![1];
      send('C-z');
      // The shell's own screen (the console's is gone), its job table, and a prompt that echoes.
      const shell = await pane((x) => /Stopped/.test(x) && prompt(x), 'the job stopped and the prompt');
      expect(table(shell)).toBe(false);
      send('-l', 'echo back-$((40+2))');
      send('Enter');
      await pane((x) => x.includes('back-42'), 'the shell echoing and running a command');
      send('-l', 'fg');
      send('Enter');
      // The same screen, drawn whole (not a blank one waiting for its next change).
      const again = await pane((x) => table(x) && x.includes('subctl │ profile default'), 'the console again');
      expect(/^> (\d+)/m.exec(again)![1]).toBe(selected);
      send('j');
      const moved = await pane((x) => table(x) && /^> (\d+)/m.exec(x)![1] !== selected, 'the selection moved');
      expect(moved).toContain(`  ${selected} `);
      send('q');
      await pane((x) => !table(x) && prompt(x), 'the shell after q');
      send('-l', 'echo "console exit $?"');
      send('Enter');
      // The echo's output line (the typed command holds the words too).
      const end = await pane((x) => /^console exit \d+$/m.test(x), 'the exit code');
      expect(end).toMatch(/^console exit 0$/m);
    } finally {
      close();
    }
  });

  it('signed out under a running console, then in again in another shell: r shows the 401 and what to do, then r uses the new sign-in', async () => {
    const cfg = join(dir, 'renew-cfg');
    const env = { SUBCTL_CONFIG_DIR: cfg };
    const login = () => runCli(`auth login --base-url ${sb.url} --username admin --password-stdin -q`, { env, stdin: 'sandbox-admin\n' });
    expect((await login()).code).toBe(0);
    const { send, pane, prompt, close } = shellSession('renew');
    try {
      await pane(prompt, 'the shell prompt');
      send('-l', `SUBCTL_CONFIG_DIR="${cfg}" "${process.execPath}" "${bin}" console subscriptions`);
      send('Enter');
      await pane(table, 'the subscriptions table');
      // Another shell signs out (the token is revoked on the server): r gets the 401.
      expect((await runCli('auth logout -q', { env })).code).toBe(0);
      send('r');
      await pane((x) => /HTTP 401/.test(x), 'the 401 on the status line');
      // Read whole with `!`: what to do.
      send('!');
      const whole = await pane((x) => x.includes('The last error'), 'the error shown whole');
      expect(whole.replace(/\s*\n\s*/g, ' ')).toContain(
        'sign in again with `subctl auth login --profile default` (in another shell), then press r',
      );
      send('Escape');
      await pane((x) => table(x) && !x.includes('The last error'), 'the table again');
      // Signed in again there: r reads the new sign-in, and the table is back.
      expect((await login()).code).toBe(0);
      send('r');
      const back = await pane((x) => table(x) && !/HTTP 401/.test(x), 'the table with the new sign-in');
      expect(back).toMatch(/refresh/);
      send('q');
      await pane((x) => !table(x) && prompt(x), 'the shell after q');
    } finally {
      close();
    }
  });

  it('a terminal resized while the console is suspended: fg draws it at the new size, whole (no line wraps)', async () => {
    const { send, pane, prompt, run, close } = shellSession('rsh');
    try {
      await pane(prompt, 'the shell prompt');
      run('console subscriptions');
      await pane(table, 'the subscriptions table');
      send('C-z');
      await pane((x) => /Stopped/.test(x) && prompt(x), 'the job stopped and the prompt');
      // The resize reaches the shell (the foreground job), not the stopped console.
      expect(tmux('resize-window', '-t', 'rsh', '-x', '90', '-y', '24').status).toBe(0);
      send('-l', 'fg');
      send('Enter');
      // Every line under the table's header is a row (at the old width each would wrap in two),
      // and the footer fits on its line.
      const rowsOf = (x: string) => {
        const lines = x.split('\n');
        const head = lines.findIndex((l) => /^ {2}subs/.test(l));
        return head < 0 ? [] : lines.slice(head + 1, head + 8);
      };
      const again = await pane(
        (x) => table(x) && !x.includes('loading') && rowsOf(x).length === 7 && rowsOf(x).every((l) => /^[> ] \d+ /.test(l)),
        'the console drawn at 90 columns',
      );
      for (const l of again.split('\n')) expect(l.length).toBeLessThanOrEqual(90);
      send('q');
      await pane((x) => !table(x) && prompt(x), 'the shell after q');
    } finally {
      close();
    }
  });

  it('the form of a create command: Ctrl-Z and fg keep what was typed; Ctrl-C ends the command (exit 130, nothing sent); the shell screen comes back after it', async () => {
    const { send, pane, prompt, run, close } = shellSession('fsh');
    const plan = (code: string) => sb.db.prepare('SELECT plan_name, price, currency FROM subscription_plans WHERE plan_code = ?').get(code);
    // Asked once the command has ended (a `cmd; echo` line would go on to the echo when cmd stops).
    const exitCode = async () => {
      await pane((x) => prompt(x) && !x.includes('plan_name*'), 'the shell after the command');
      send('-l', 'echo "form exit $?"');
      send('Enter');
      return pane((x) => /^form exit \d+$/m.test(x), 'the exit code');
    };
    try {
      await pane(prompt, 'the shell prompt');
      run('plans create --plan-code TMUX-FORM');
      await pane((x) => x.includes('plan_name*') && !prompt(x), 'the form');
      send('-l', 'Tmux plan');
      await pane((x) => x.includes('Tmux plan'), 'the typed name');
      send('C-z');
      const shell = await pane((x) => /Stopped/.test(x) && prompt(x), 'the job stopped and the prompt');
      expect(shell).not.toContain('plan_name*');
      send('-l', 'fg');
      send('Enter');
      await pane((x) => x.includes('plan_name*') && x.includes('Tmux plan'), 'the form again, with the name typed before');
      for (const k of ['Tab', '-l 9.5', 'Tab', '-l USD', 'Tab', '-l 1', 'Tab', 'Right', 'Tab', '-l 100', 'Tab', 'Right', 'Enter'])
        send(...k.split(/(?<=^-l) /));
      const created = await exitCode();
      expect(created).toMatch(/^form exit 0$/m);
      // The shell's screen as it was: the command typed, no form left on it.
      expect(created).not.toContain('plan_name*');
      expect(plan('TMUX-FORM')).toEqual({ plan_name: 'Tmux plan', price: 9.5, currency: 'USD' });

      send('-l', 'clear');
      send('Enter');
      await pane((x) => !x.includes('form exit') && prompt(x), 'a clear screen');
      run('plans create --plan-code TMUX-INT');
      await pane((x) => x.includes('plan_name*') && !prompt(x), 'the second form');
      send('-l', 'Half typed');
      await pane((x) => x.includes('Half typed'), 'the typed name');
      send('C-c');
      const ended = await exitCode();
      expect(ended).toMatch(/^form exit 130$/m);
      expect(ended).toMatch(/^interrupted$/m);
      expect(plan('TMUX-INT')).toBeUndefined();
    } finally {
      close();
    }
  });

  it('bash completion in readline: after `--service-type=` Tab offers the values without doubling the =, and completes one', async () => {
    const { send, pane, prompt, close } = shellSession('csh');
    const wrapper = join(dir, 'csh-bin');
    mkdirSync(wrapper, { recursive: true });
    writeFileSync(join(wrapper, 'subctl'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`, { mode: 0o755 });
    try {
      await pane(prompt, 'the shell prompt');
      send('-l', `export PATH="${wrapper}:$PATH" SUBCTL_CONFIG_DIR="${join(dir, 'csh-cfg')}"; eval "$(subctl completion bash)"; clear`);
      send('Enter');
      await pane((x) => prompt(x) && !x.includes('eval'), 'completion loaded');
      send('-l', 'subctl services list --service-type=');
      send('Tab');
      send('Tab');
      const listed = await pane((x) => x.includes('USAGE_BASED') && x.includes('TIME_BASED'), 'the values listed');
      expect(listed).not.toContain('--service-type==');
      send('-l', 'US');
      send('Tab');
      const done = await pane((x) => /--service-type=USAGE_BASED\s*$/m.test(x), 'the value completed');
      expect(done).not.toContain('==');
      send('C-c');
    } finally {
      close();
    }
  });

  it('Ctrl-C at a prompt (the y/N of a delete, a masked password) ends the command at once: exit 130, nothing sent, the terminal echoes again', async () => {
    writeFileSync(join(dir, 'prompt-token'), sb.tokenFor('admin'), { mode: 0o600 });
    const code = sb.db.prepare('SELECT service_code FROM services ORDER BY service_id LIMIT 1').pluck().get() as string;
    const launcher = join(dir, 'prompt.sh');
    const base = `env -i PATH="$PATH" HOME="${dir}" TERM=xterm-256color LANG=C.UTF-8 SUBCTL_CONFIG_DIR="${join(dir, 'prompt-cfg')}" SUBCTL_BASE_URL="${sb.url}"`;
    writeFileSync(
      launcher,
      [
        '#!/bin/sh',
        `${base} SUBCTL_TOKEN="$(cat "${join(dir, 'prompt-token')}")" "${process.execPath}" "${bin}" services delete ${code}`,
        `echo "delete exit $?"`,
        `${base} "${process.execPath}" "${bin}" auth login --username bob`,
        `echo "login exit $?"`,
        // The shell's terminal after both: a typed word is echoed back.
        'read -r word; echo "read: $word"',
        'sleep 30',
      ].join('\n'),
      { mode: 0o700 },
    );
    const started = tmux('new-session', '-d', '-s', 'prompt', '-x', '120', '-y', '20', launcher);
    expect(started.status, started.stderr).toBe(0);
    const send = (...k: string[]) => tmux('send-keys', '-t', 'prompt', ...k);
    const poll = (text: string, ms?: number) => pollPane('prompt', (x) => x.includes(text), JSON.stringify(text), ms);
    try {
      await poll('Proceed? [y/N]');
      send('C-c');
      // One Ctrl-C is enough: the command does not wait for a second.
      const deleted = await poll('delete exit', 10_000);
      expect(deleted).toContain('delete exit 130');
      expect(deleted).not.toContain('this is a bug');
      expect(sb.db.prepare('SELECT COUNT(*) FROM services WHERE service_code = ?').pluck().get(code)).toBe(1);
      await poll('Password:');
      send('-l', 'secr');
      await poll('Password: ****');
      send('C-c');
      const login = await poll('login exit', 10_000);
      expect(login).toContain('login exit 130');
      expect(login).not.toContain('this is a bug');
      send('-l', 'echoed');
      send('Enter');
      const after = await poll('read: echoed');
      // Typed after the prompts, the word is on the screen twice: as echoed, then as read.
      expect(after.split('\n').filter((l) => l.includes('echoed'))).toHaveLength(2);
    } finally {
      tmux('kill-session', '-t', 'prompt');
    }
  });
});
