/**
 * An exclusive lock file, so that two cron runs of the same command never overlap.
 *
 * Taken by creating the file with O_EXCL ('wx') and writing {pid, started_at, command, host,
 * nonce, pid_start}. A lock whose pid is not alive (process.kill(pid, 0) -> ESRCH) on this host
 * is stale and taken over silently; so is one whose pid now names another process (`pid_start`:
 * the boot and the start time of the holder, from /proc on Linux; after a reboot, or once pids
 * wrap around, a dead holder's pid is often some other live process, and a cron job would refuse
 * to run every night until someone removed the lock). The take-over itself runs under a short-lived
 * guard file (`<lock>.takeover`), so that two processes finding the same stale lock cannot both
 * win.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CliError, ExitCode } from '../api/errors.js';
import { builtin } from '../builtin.js';
import { ensurePrivateDir, FILE_MODE, type Paths } from './paths.js';
import { openNoFollow } from './safe-files.js';

export interface Lock {
  path: string;
  release(): void;
}

export interface LockInfo {
  pid: number;
  started_at: string;
  command: string;
  host?: string;
  nonce?: string;
  /** `processStart(pid)` of the holder, where the system tells it. */
  pid_start?: string;
}

/** This machine's name; node:os is loaded when a lock is taken, not by every command (store.ts imports this module). */
const hostname = (): string => builtin('node:os').hostname();

/** Another live process holds the lock. Exit 5 ("rejected"): nothing was done. */
export class LockHeldError extends CliError {
  readonly holder: Partial<LockInfo>;
  readonly lockPath: string;
  constructor(lockPath: string, holder: Partial<LockInfo>) {
    const pid = holder.pid !== undefined ? String(holder.pid) : 'unknown';
    const since = holder.started_at ? `, since ${holder.started_at}` : '';
    const host = holder.host && holder.host !== hostname() ? ` on ${holder.host}` : '';
    const what = holder.command ? `subctl ${holder.command.replace(/^subctl\s+/, '')}` : 'subctl command';
    super('locked', ExitCode.rejected, `another ${what} is running (pid ${pid}${host}${since}); lock: ${lockPath}`, {
      hint: `wait for it, or remove ${lockPath} if pid ${pid} is not running`,
      details: { lock: lockPath, pid: holder.pid ?? null, started_at: holder.started_at ?? null, command: holder.command ?? null },
    });
    this.holder = holder;
    this.lockPath = lockPath;
  }
}

/** `<stateDir>/<name>.lock`, e.g. lockPath(paths, 'cleanup'). */
export function lockPath(paths: Paths, name: string): string {
  return path.join(paths.stateDir, `${name}.lock`);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Alive per process.kill(pid, 0): ESRCH means gone; EPERM means alive (another user's). A zombie
 * (exited, not yet reaped) answers kill(0) too but holds nothing: a run killed by `timeout -s
 * KILL` in a container whose first process does not reap orphans stays one for good, and its
 * lock would refuse every later run.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  const state = statFields(pid)?.[0];
  return state !== 'Z' && state !== 'X';
}

/**
 * The fields of `/proc/<pid>/stat` from the third on (state, parent, ...); undefined where /proc
 * does not tell. The command name (field 2) is in parentheses and may hold spaces and ')':
 * the fields after it follow the last ')'.
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Which process `pid` is, beyond its number: this boot's id and the process's start time in clock
 * ticks since boot (`/proc/<pid>/stat`, field 22), as `<boot id>/<ticks>`. undefined where /proc
 * does not tell (not Linux, or hidden): the pid alone decides then.
 */
export function processStart(pid: number): string | undefined {
  const ticks = startTicks(pid);
  if (ticks === undefined) return undefined;
  try {
    return `${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim()}/${ticks}`;
  } catch {
    return undefined;
  }
}

/** Field 22 of `/proc/<pid>/stat` (the 20th from the third): when the process started, in clock ticks since boot. */
function startTicks(pid: number): string | undefined {
  const ticks = statFields(pid)?.[19];
  return ticks && /^\d+$/.test(ticks) ? ticks : undefined;
}

/**
 * When process `pid` started, in ms since the epoch (`/proc/stat`'s btime and the process's start
 * in clock ticks, at Linux's 100 a second); undefined where /proc does not tell.
 */
function processStartedAt(pid: number): number | undefined {
  const ticks = startTicks(pid);
  if (ticks === undefined) return undefined;
  try {
    const btime = Number(/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'latin1'))?.[1]);
    return Number.isFinite(btime) ? btime * 1000 + Number(ticks) * 10 : undefined;
  } catch {
    return undefined;
  }
}

type Observed =
  | { kind: 'missing' }
  | { kind: 'info'; info: Partial<LockInfo>; raw: string; mtimeMs: number }
  | { kind: 'unreadable'; raw: string; mtimeMs: number };

function observe(file: string): Observed {
  let raw: string;
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
    raw = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  try {
    const v = JSON.parse(raw) as unknown;
    if (typeof v === 'object' && v !== null && typeof (v as LockInfo).pid === 'number')
      return { kind: 'info', info: v as Partial<LockInfo>, raw, mtimeMs };
  } catch {
    /* being written, or garbage */
  }
  return { kind: 'unreadable', raw, mtimeMs };
}

/** A lock file that no live process can be holding. */
function isStale(o: Observed, now: number): boolean {
  if (o.kind === 'missing') return false;
  if (o.kind === 'unreadable') return now - o.mtimeMs > UNREADABLE_GRACE_MS; // a holder between open and write is quick
  if (o.info.host !== undefined && o.info.host !== hostname()) return false; // cannot check another host's pids
  const pid = o.info.pid as number;
  if (!pidAlive(pid)) return true;
  // Alive, but is it the holder? A lock that says which process it was tells; one without
  // `pid_start` tells by its time: a process that started after the lock was taken cannot hold
  // it (else such a lock, its pid reused, would be held for good).
  if (typeof o.info.pid_start !== 'string') {
    const taken = typeof o.info.started_at === 'string' ? Date.parse(o.info.started_at) : NaN;
    const began = processStartedAt(pid);
    return Number.isFinite(taken) && began !== undefined && began > taken + 2_000;
  }
  const current = processStart(pid);
  return current !== undefined && current !== o.info.pid_start;
}

const UNREADABLE_GRACE_MS = 5_000;
const GUARD_STALE_MS = 10_000;
const MAX_ATTEMPTS = 200; // x 10-25 ms of waiting at most

export function acquireLock(lockFile: string, info: { command: string }): Lock {
  const file = path.resolve(lockFile);
  ensurePrivateDir(path.dirname(file));
  const mine: LockInfo = {
    pid: process.pid,
    started_at: new Date().toISOString(),
    command: info.command,
    host: hostname(),
    nonce: builtin('node:crypto').randomBytes(8).toString('hex'),
  };
  const start = processStart(process.pid);
  if (start !== undefined) mine.pid_start = start;
  const content = JSON.stringify(mine) + '\n';

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let fd: number | undefined;
    try {
      // A link planted at the lock's place is refused, never read as a holder nor removed as stale.
      fd = openNoFollow(file, 'wx', FILE_MODE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (fd !== undefined) {
      try {
        fs.writeSync(fd, content);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      return makeLock(file, mine);
    }

    const seen = observe(file);
    if (seen.kind === 'missing') continue; // released meanwhile: try again at once
    if (seen.kind === 'info' && !isStale(seen, Date.now())) throw new LockHeldError(file, seen.info);
    if (seen.kind === 'unreadable' && !isStale(seen, Date.now())) {
      sleepSync(10); // a holder between its open and its write
      continue;
    }
    // Stale: remove it under the guard, then race for it again with O_EXCL.
    if (!takeOverStale(file, seen.raw)) sleepSync(10 + Math.floor(Math.random() * 15));
  }
  const last = observe(file);
  throw new LockHeldError(file, last.kind === 'info' ? last.info : {});
}

/**
 * Removes the lock file if it still has the content `seenRaw` and is still stale, under the guard
 * `<file>.takeover`. false when another process holds the guard (try again shortly).
 * @internal exported for tests
 */
export function takeOverStale(file: string, seenRaw: string): boolean {
  const guard = `${file}.takeover`;
  let gfd: number;
  try {
    gfd = fs.openSync(guard, 'wx', FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    try {
      if (Date.now() - fs.statSync(guard).mtimeMs > GUARD_STALE_MS) fs.rmSync(guard, { force: true }); // its owner died mid-take-over
    } catch {
      /* gone meanwhile */
    }
    return false;
  }
  fs.closeSync(gfd);
  try {
    const now = observe(file);
    if (now.kind !== 'missing' && now.raw === seenRaw && isStale(now, Date.now())) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(guard, { force: true });
  }
  return true;
}

function makeLock(file: string, mine: LockInfo): Lock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', onExit);
    try {
      const o = observe(file);
      if (o.kind === 'info' && o.info.pid === mine.pid && o.info.nonce === mine.nonce) fs.rmSync(file, { force: true });
    } catch {
      /* nothing we can do; the next run sees a dead pid */
    }
  };
  const onExit = (): void => release();
  process.on('exit', onExit);
  return { path: file, release };
}

/**
 * `acquireLock`, waiting up to `timeoutMs` for a live holder to let go (a lock held for the
 * moment of a read-modify-write, as the config's is), then throwing its LockHeldError.
 */
export function acquireLockWaiting(lockFile: string, info: { command: string }, timeoutMs = 5_000): Lock {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return acquireLock(lockFile, info);
    } catch (e) {
      if (!(e instanceof LockHeldError) || Date.now() > deadline) throw e;
      sleepSync(5 + Math.floor(Math.random() * 20));
    }
  }
}
