/**
 * The console as a support engineer meets it over SSH: the real binary (bin/subctl.js over
 * dist/, built by `npm test`) in tmux on a private socket, against a sandbox served by this test
 * process. Pasted text (tmux's bracketed paste, as a terminal emulator pastes), and the terminal
 * as the console leaves it. Screens are polled with a deadline, never slept on.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/subctl.js');
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
if (!hasTmux) console.warn('tests/ui/tmux-terminal.test.ts: tmux is not installed, so these tests are skipped (CI installs tmux)');

const socket = `subctl-term-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

let sb: Sandbox;
let dir: string;

beforeAll(async () => {
  if (!hasTmux) return;
  if (!existsSync(join(root, 'dist/subctl.cjs.cache'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
  sb = await startTestSandbox();
  dir = tempDir('subctl-term-');
  writeFileSync(join(dir, 'token'), sb.tokenFor('admin'), { mode: 0o600 });
  // A session that stays: tmux ends its server when the last session ends, and a new session
  // asked for while the server is ending fails ("server exited unexpectedly").
  tmux('new-session', '-d', '-s', 'keep', 'sleep 3600');
});

afterAll(async () => {
  if (!hasTmux) return;
  tmux('kill-server');
  rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
  await sb?.close();
});

/**
 * The console in a session of its own (`cols` x `rows`), in a clean environment (no CI
 * variables: Ink draws nothing when it believes it runs in CI); when it ends, its exit code is
 * printed and `cat -v` reads the terminal, so that what the terminal sends afterwards is seen.
 */
function consoleSession(name: string, args: string, cols = 100, rows = 30) {
  const launcher = join(dir, `${name}.sh`);
  writeFileSync(
    launcher,
    [
      '#!/bin/sh',
      `env -i PATH="$PATH" HOME="${dir}" TERM=xterm-256color LANG=C.UTF-8 SUBCTL_CONFIG_DIR="${join(dir, 'cfg')}" \\`,
      `  SUBCTL_BASE_URL="${sb.url}" SUBCTL_TOKEN="$(cat "${join(dir, 'token')}")" "${process.execPath}" "${bin}" console ${args}`,
      'echo "console exit $?"',
      'exec cat -v',
    ].join('\n'),
    { mode: 0o700 },
  );
  const started = tmux('new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), launcher);
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  const screen = () => tmux('capture-pane', '-p', '-t', name).stdout;
  return {
    screen,
    send: (...k: string[]) => tmux('send-keys', '-t', name, ...k),
    /** Pastes `text` as a terminal does when the program asked for bracketed paste (line feeds sent as CR). */
    paste(text: string) {
      tmux('set-buffer', '-b', name, text);
      tmux('paste-buffer', '-p', '-d', '-b', name, '-t', name);
    },
    async until(test: (s: string) => boolean, what: string, ms = 15_000): Promise<string> {
      const deadline = Date.now() + ms;
      let s = '';
      while (Date.now() < deadline) {
        s = screen();
        if (test(s)) return s;
        await new Promise((r) => setTimeout(r, 40));
      }
      throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
    },
    close: () => tmux('kill-session', '-t', name),
  };
}

const usersTable = (s: string) => /^users {2}page 1 of \d+/m.test(s) && /^> \d+/m.test(s);

describe.skipIf(!hasTmux)('the console in a terminal: pasted text and the terminal left behind', () => {
  it('lines pasted into the filter prompt are typed there (breaks as spaces), never run as keys; a paste elsewhere does nothing; after q the terminal no longer brackets pastes', async () => {
    const t = consoleSession('paste', 'users');
    try {
      await t.until(usersTable, 'the users table');
      t.send('/');
      await t.until((s) => s.includes('filters of users'), 'the filter prompt');
      t.paste('role=admin\nstatus=Active\n');
      // Typed on the prompt line, the prompt still open: its Enter was not pressed by the paste.
      await t.until((s) => /^\/ role=admin status=Active *$/m.test(s), 'the pasted filter on the prompt line');
      expect(t.screen()).toContain('filters of users');
      t.send('Enter');
      const rows = (s: string) => s.split('\n').filter((l) => /^[> ][ *]\d+ /.test(l));
      // The server's page for the filter: every row an active admin.
      await t.until(
        (s) => s.includes('filter role=admin status=Active') && rows(s).length > 0 && rows(s).every((l) => / admin +Active /.test(l)),
        'the filtered list',
      );
      // Outside a prompt a paste is refused, not run: `q` would quit, Enter would open a row.
      t.paste('q\n');
      await t.until((s) => s.includes('pasted text is taken only by a prompt'), 'the paste refused');
      expect(t.screen()).toContain('filter role=admin status=Active');
      t.send('q');
      await t.until((s) => /^console exit 0$/m.test(s), 'the exit code');
      // The terminal is the shell's again: a paste is plain text (no ESC [200~ around it).
      t.paste('after-the-console\n');
      const after = await t.until((s) => /^after-the-console$/m.test(s), 'cat -v echoing the paste');
      expect(after).not.toContain('[200~');
    } finally {
      t.close();
    }
  });

  it('a hang-up (kill -HUP, as a closed SSH connection sends) gives the terminal back: main screen, cursor shown, pastes plain; exit 129', async () => {
    const t = consoleSession('hup', 'users');
    try {
      await t.until(usersTable, 'the users table');
      const flags = () => tmux('display', '-p', '-t', 'hup', '#{alternate_on} #{cursor_flag}').stdout.trim();
      expect(flags()).toBe('1 0');
      // The launcher's shell runs the console as its one child (env execs node).
      const shell = tmux('display', '-p', '-t', 'hup', '#{pane_pid}').stdout.trim();
      const node = spawnSync('pgrep', ['-P', shell], { encoding: 'utf8' }).stdout.trim();
      expect(node).toMatch(/^\d+$/);
      process.kill(Number(node), 'SIGHUP');
      await t.until((s) => /^console exit 129$/m.test(s), 'the exit code');
      expect(flags()).toBe('0 1');
      t.paste('after-the-hangup\n');
      const after = await t.until((s) => /^after-the-hangup$/m.test(s), 'cat -v echoing the paste');
      expect(after).not.toContain('[200~');
    } finally {
      t.close();
    }
  });
});
