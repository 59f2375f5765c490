/**
 * Times on a real pseudo-terminal (the built binary under `script`, and the console in tmux),
 * with TZ=Asia/Tokyo and with --utc / SUBCTL_TZ=UTC, against the test sandbox; json and csv
 * bytes are the platform's whatever the zone.
 */
import { execFile, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox, closeAllTestSandboxes } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const bin = resolve(__dirname, '../../bin/subctl.js');
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;

let sb: Sandbox;
let dir: string;
let tokenFile: string;
let entry: { id: number; created_at: string };

beforeAll(async () => {
  sb = await startTestSandbox();
  dir = tempDir('subctl-pty-');
  tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, sb.tokenFor('admin'), { mode: 0o600 });
  entry = sb.db.prepare('SELECT id, created_at FROM audit_logs ORDER BY id DESC LIMIT 1').get() as { id: number; created_at: string };
});
afterAll(async () => {
  await closeAllTestSandboxes();
});

/**
 * The binary on a pseudo-terminal 80 columns wide; its output with CR LF as LF. Asynchronous:
 * the sandbox answering it runs in this process.
 */
function onPty(args: string, env: Record<string, string>): Promise<string> {
  const line = `stty cols 80 rows 40; node ${bin} ${args} --base-url ${sb.url} --token-file ${tokenFile} --no-color`;
  return new Promise((done) => {
    execFile(
      'script',
      ['-qec', line, '/dev/null'],
      { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir, TERM: 'xterm-256color', LANG: 'C.UTF-8', ...env }, timeout: 60_000 },
      (_e, stdout) => done(String(stdout).replace(/\r\n/g, '\n')),
    );
  });
}

/** The time the platform sent, as the terminal must show it in a zone `offsetMinutes` east of UTC. */
function shown(iso: string, offsetMinutes: number, zone: string): string {
  const d = new Date(Date.parse(iso) + offsetMinutes * 60_000);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} ${zone}`;
}

describe.skipIf(!hasScript)('times on a pseudo-terminal', () => {
  it('TZ=Asia/Tokyo: seconds and +09:00; --utc and SUBCTL_TZ=UTC: +00:00', async () => {
    const fields = `audit list --limit 1 --fields id,created_at`;
    expect(await onPty(fields, { TZ: 'Asia/Tokyo' })).toContain(`${entry.id}  ${shown(entry.created_at, 540, '+09:00')}`);
    expect(await onPty(`${fields} --utc`, { TZ: 'Asia/Tokyo' })).toContain(`${entry.id}  ${shown(entry.created_at, 0, '+00:00')}`);
    expect(await onPty(fields, { TZ: 'Asia/Tokyo', SUBCTL_TZ: 'UTC' })).toContain(`${entry.id}  ${shown(entry.created_at, 0, '+00:00')}`);
  }, 120_000);

  it('json and csv keep the bytes the platform sent, in any zone', async () => {
    const json = await onPty('audit list --limit 1 -o json --fields id,created_at', { TZ: 'Asia/Tokyo' });
    expect(json).toContain(`"created_at": "${entry.created_at}"`);
    const csv = await onPty('audit list --limit 1 -o csv --fields id,created_at --utc', { TZ: 'Asia/Tokyo' });
    expect(csv).toContain(`${entry.id},${entry.created_at}`);
  }, 120_000);
});

describe.skipIf(!hasTmux)('times in the console, in a real terminal', () => {
  const socket = `subctl-pty-${process.pid}`;
  const tmux = (...a: string[]) => spawnSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  // A session that stays: tmux ends its server when the last session ends, and a new session
  // asked for while the server is ending fails ("server exited unexpectedly").
  beforeAll(() => {
    tmux('new-session', '-d', '-s', 'keep', 'sleep 3600');
  });
  afterAll(() => {
    tmux('kill-server');
  });

  async function consoleScreen(extra: string, tz: string): Promise<string> {
    const name = `c${Math.random().toString(36).slice(2, 7)}`;
    const cmd = `env TZ=${tz} HOME=${dir} TERM=xterm-256color LANG=C.UTF-8 node ${bin} console audit --base-url ${sb.url} --token-file ${tokenFile} ${extra}`;
    const started = tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '30', cmd);
    expect(started.status, started.stderr).toBe(0);
    const deadline = Date.now() + 30_000;
    let s = '';
    while (Date.now() < deadline) {
      s = tmux('capture-pane', '-p', '-t', name).stdout;
      if (/times [+-]\d\d:\d\d/.test(s)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    tmux('send-keys', '-t', name, 'q');
    return s;
  }

  it('TZ=Asia/Tokyo: the title says times +09:00 and the newest entry shows its Tokyo time; --utc: +00:00', async () => {
    const tokyo = await consoleScreen('', 'Asia/Tokyo');
    expect(tokyo).toMatch(/^audit .*times \+09:00/m);
    expect(tokyo).toContain(shown(entry.created_at, 540, '').trim());
    const utc = await consoleScreen('--utc', 'Asia/Tokyo');
    expect(utc).toMatch(/^audit .*times \+00:00/m);
    expect(utc).toContain(shown(entry.created_at, 0, '').trim());
  }, 120_000);
});
