import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/api/errors.js';
import { acquireLock, LockHeldError, lockPath, pidAlive, processStart, takeOverStale } from '../../src/config/lock.js';
import { resolvePaths } from '../../src/config/paths.js';
import { tempDir } from '../support/tmp.js';

const root = tempDir('subctl-lock-test-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshLock = () => path.join(root, `l${++n}`, 'cleanup.lock');

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  expect(pidAlive(r.pid!)).toBe(false);
  return r.pid!;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('acquireLock in process', () => {
  it('writes {pid, started_at, command} 0600 in a 0700 dir; a second acquire is refused; release frees it', () => {
    const file = freshLock();
    const lock = acquireLock(file, { command: 'cleanup' });
    expect(lock.path).toBe(file);
    const info = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, command: 'cleanup' });
    expect(new Date(info.started_at).toISOString()).toBe(info.started_at);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);

    const e = thrown(() => acquireLock(file, { command: 'cleanup' }));
    expect(e).toBeInstanceOf(LockHeldError);
    expect(e).toBeInstanceOf(CliError);
    const err = e as LockHeldError;
    expect(err.exitCode).toBe(5);
    expect(err.type).toBe('locked');
    expect(err.message).toBe(`another subctl cleanup is running (pid ${process.pid}, since ${info.started_at}); lock: ${file}`);
    expect(err.hint).toBe(`wait for it, or remove ${file} if pid ${process.pid} is not running`);

    lock.release();
    expect(fs.existsSync(file)).toBe(false);
    lock.release(); // idempotent
    acquireLock(file, { command: 'cleanup' }).release();
  });

  it('a command given as "subctl cleanup" is not doubled in the message', () => {
    const file = freshLock();
    const lock = acquireLock(file, { command: 'subctl cleanup' });
    expect(() => acquireLock(file, { command: 'subctl cleanup' })).toThrow(/^another subctl cleanup is running \(pid /);
    lock.release();
  });

  it('names the holding live process', () => {
    const file = freshLock();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Taken after its holder started (a lock's time is when it was taken).
      const since = new Date(Date.now() + 5_000).toISOString();
      fs.writeFileSync(file, JSON.stringify({ pid: child.pid, started_at: since, command: 'cleanup' }));
      const e = thrown(() => acquireLock(file, { command: 'cleanup' })) as LockHeldError;
      expect(e).toBeInstanceOf(LockHeldError);
      expect(e.message).toContain(`pid ${child.pid}`);
      expect(e.message).toContain(`since ${since}`);
      expect(e.message).toContain(file);
      expect(fs.existsSync(file)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over a stale lock (dead pid) silently', () => {
    const file = freshLock();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      JSON.stringify({ pid: deadPid(), started_at: '2020-01-01T00:00:00.000Z', command: 'cleanup', host: os.hostname() }),
    );
    const lock = acquireLock(file, { command: 'cleanup' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(fs.readdirSync(path.dirname(file))).toEqual([]);
  });

  it.skipIf(process.platform !== 'linux')('a zombie holder (exited, never reaped) is dead: its lock is taken over', async () => {
    // `sleep 0` exits at once; its parent becomes `sleep 30`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
      const state = () => {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
        return stat.slice(stat.lastIndexOf(')') + 2)[0];
      };
      for (let i = 0; i < 400 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(state()).toBe('Z');
      expect(pidAlive(pid)).toBe(false);
      const file = freshLock();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const held = { pid, started_at: new Date().toISOString(), command: 'cleanup', host: os.hostname(), pid_start: processStart(pid) };
      expect(held.pid_start).toMatch(/^[0-9a-f-]{36}\/\d+$/);
      fs.writeFileSync(file, JSON.stringify(held));
      const lock = acquireLock(file, { command: 'cleanup' });
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
      lock.release();
    } finally {
      parent.kill();
    }
  });

  it('a lock whose pid now names another live process (reused after a reboot or a wrap-around) is stale; the holder itself is not', () => {
    const file = freshLock();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // What the holder writes: its boot and start time beside its pid.
      const own = acquireLock(freshLock(), { command: 'cleanup' });
      const mine = JSON.parse(fs.readFileSync(own.path, 'utf8'));
      own.release();
      expect(mine.pid_start).toBe(processStart(process.pid));
      expect(mine.pid_start).toMatch(/^[0-9a-f-]{36}\/\d+$/);
      const start = processStart(child.pid!)!;
      expect(start).toMatch(/^[0-9a-f-]{36}\/\d+$/);
      const [boot, ticks] = start.split('/');
      // The live child, as the lock's holder: held.
      fs.writeFileSync(
        file,
        JSON.stringify({
          pid: child.pid,
          started_at: '2026-01-01T00:00:00.000Z',
          command: 'cleanup',
          host: os.hostname(),
          pid_start: start,
        }),
      );
      expect(thrown(() => acquireLock(file, { command: 'cleanup' }))).toBeInstanceOf(LockHeldError);
      // The same pid, but the holder started at another time (the pid was reused): taken over.
      fs.writeFileSync(
        file,
        JSON.stringify({
          pid: child.pid,
          started_at: '2026-01-01T00:00:00.000Z',
          command: 'cleanup',
          host: os.hostname(),
          pid_start: `${boot}/${Number(ticks) - 1}`,
        }),
      );
      acquireLock(file, { command: 'cleanup' }).release();
      // Before the last reboot: taken over.
      fs.writeFileSync(
        file,
        JSON.stringify({
          pid: child.pid,
          started_at: '2026-01-01T00:00:00.000Z',
          command: 'cleanup',
          host: os.hostname(),
          pid_start: `00000000-0000-0000-0000-000000000000/${ticks}`,
        }),
      );
      acquireLock(file, { command: 'cleanup' }).release();
      // A lock of an earlier version (no pid_start): its time tells. Taken after the live process
      // with its pid started, it may be that process's: held. Taken before (long ago, the pid
      // reused since): taken over (it was held for good).
      fs.writeFileSync(
        file,
        JSON.stringify({ pid: child.pid, started_at: new Date(Date.now() + 5_000).toISOString(), command: 'cleanup', host: os.hostname() }),
      );
      expect(thrown(() => acquireLock(file, { command: 'cleanup' }))).toBeInstanceOf(LockHeldError);
      fs.writeFileSync(
        file,
        JSON.stringify({ pid: child.pid, started_at: '2020-01-01T00:00:00.000Z', command: 'cleanup', host: os.hostname() }),
      );
      acquireLock(file, { command: 'cleanup' }).release();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('processStart reads the start time after the command name, whatever it holds', () => {
    const dir = path.join(root, 'weird');
    fs.mkdirSync(dir, { recursive: true });
    // A command name with spaces and a ')' in it (the kernel's comm is its first 15 bytes).
    const exe = path.join(dir, 'a) b c');
    fs.symlinkSync(process.execPath, exe);
    const child = spawn(exe, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'latin1');
      expect(stat).toContain('(a) b c)');
      const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      expect(processStart(child.pid!)).toMatch(new RegExp(`/${ticks}$`));
      expect(processStart(deadPid())).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an old unreadable lock file is stale; one from another host is not', () => {
    const file = freshLock();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    acquireLock(file, { command: 'cleanup' }).release();

    fs.writeFileSync(file, JSON.stringify({ pid: deadPid(), started_at: 'x', command: 'cleanup', host: 'some-other-host' }));
    expect(() => acquireLock(file, { command: 'cleanup' })).toThrow(/on some-other-host/);
  });

  it('release leaves a lock that is no longer ours', () => {
    const file = freshLock();
    const lock = acquireLock(file, { command: 'cleanup' });
    const foreign = JSON.stringify({ pid: process.ppid, started_at: 'x', command: 'cleanup' });
    fs.writeFileSync(file, foreign);
    lock.release();
    expect(fs.readFileSync(file, 'utf8')).toBe(foreign);
  });

  it('a take-over removes only the stale file it saw, and only under the guard', () => {
    const file = freshLock();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const stale = JSON.stringify({ pid: deadPid(), started_at: 'x', command: 'cleanup', host: os.hostname() });
    // another process took the stale lock over between our read and our take-over: its fresh lock stays
    const fresh = JSON.stringify({ pid: process.pid, started_at: 'y', command: 'cleanup', host: os.hostname() });
    fs.writeFileSync(file, fresh);
    expect(takeOverStale(file, stale)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(fresh);
    // someone else is mid-take-over: we back off
    fs.writeFileSync(file, stale);
    fs.writeFileSync(`${file}.takeover`, '');
    expect(takeOverStale(file, stale)).toBe(false);
    expect(fs.existsSync(file)).toBe(true);
    // ... unless that guard is abandoned (older than 10 s): it is cleared, and the next try succeeds
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.takeover`, old, old);
    expect(takeOverStale(file, stale)).toBe(false);
    expect(takeOverStale(file, stale)).toBe(true);
    expect(fs.readdirSync(path.dirname(file))).toEqual([]);
  });

  it('two acquires in process: exactly one wins', () => {
    const file = freshLock();
    const results = [0, 1].map(() => {
      try {
        return acquireLock(file, { command: 'cleanup' });
      } catch (e) {
        return e;
      }
    });
    expect(results.filter((r) => r instanceof LockHeldError)).toHaveLength(1);
    for (const r of results) if (!(r instanceof Error)) (r as { release(): void }).release();
  });

  it('lockPath is in the state directory', () => {
    expect(lockPath(resolvePaths({ SUBCTL_CONFIG_DIR: '/c' }), 'cleanup')).toBe('/c/state/cleanup.lock');
  });
});

describe('acquireLock across processes', () => {
  let bundle: string;
  let script: string;
  beforeAll(() => {
    bundle = path.join(root, 'lock-bundle.mjs');
    buildSync({
      entryPoints: [path.resolve('src/config/lock.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: bundle,
      logLevel: 'silent',
    });
    script = path.join(root, 'racer.mjs');
    fs.writeFileSync(
      script,
      `import * as fs from 'node:fs';
import * as path from 'node:path';
import { acquireLock } from ${JSON.stringify(bundle)};
const [file, startAt, marks, count, mode] = process.argv.slice(2);
while (Date.now() < Number(startAt)) {}
try {
  const lock = acquireLock(file, { command: 'cleanup' });
  process.stdout.write('won\\n');
  if (mode === 'exit') process.exit(0); // released by the exit hook
  // hold the lock until every other racer has tried (or 20 s)
  const until = Date.now() + 20000;
  const poll = () => {
    if (fs.readdirSync(marks).length >= Number(count) - 1 || Date.now() > until) lock.release();
    else setTimeout(poll, 10);
  };
  poll();
} catch (e) {
  fs.writeFileSync(path.join(marks, String(process.pid)), '');
  process.stdout.write('lost:' + e.type + ':' + e.exitCode + '\\n');
}
`,
    );
  });

  function race(file: string, count: number): Promise<string[]> {
    const startAt = Date.now() + 800;
    const marks = fs.mkdtempSync(path.join(root, 'marks-'));
    return Promise.all(
      Array.from({ length: count }, () => {
        return new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, [script, file, String(startAt), marks, String(count)], {
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (d) => (out += d));
          child.stderr.on('data', (d) => (err += d));
          child.on('error', reject);
          child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`racer exited ${code}: ${err}`))));
        });
      }),
    );
  }

  it('8 processes racing for a free lock: exactly one wins, the others get exit code 5', async () => {
    const file = freshLock();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const results = await race(file, 8);
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost:locked:5')).toHaveLength(7);
    expect(fs.readdirSync(path.dirname(file))).toEqual([]);
  });

  it('8 processes racing for a stale lock: exactly one takes it over', async () => {
    const file = freshLock();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      JSON.stringify({ pid: deadPid(), started_at: '2020-01-01T00:00:00.000Z', command: 'cleanup', host: os.hostname() }),
    );
    const results = await race(file, 8);
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost:locked:5')).toHaveLength(7);
    expect(fs.readdirSync(path.dirname(file))).toEqual([]);
  });

  it('the lock is released when the holder exits without releasing', () => {
    const file = freshLock();
    const r = spawnSync(process.execPath, [script, file, '0', root, '1', 'exit'], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('won');
    expect(fs.existsSync(file)).toBe(false);
  });
});
