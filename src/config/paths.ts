/**
 * Where subctl keeps its files, and the file-system primitives every local store uses:
 * private directories (0700), private files (0600), atomic writes, and mode repair.
 *
 * Node builtins only: this module is on the start-up path of every command.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../api/errors.js';
import { builtin } from '../builtin.js';
import { readNoFollow, refuseSymlink, symlinkRefused } from './safe-files.js';

export interface Paths {
  configDir: string;
  configFile: string;
  credentialsFile: string;
  stateDir: string;
  dataDir: string;
  cacheDir: string;
}

const APP_NAME = 'subctl';
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Modes mean nothing useful on Windows (chmod only toggles read-only there). */
const POSIX_MODES = process.platform !== 'win32';

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v !== '' ? v : undefined;
}

/** XDG base directories must be absolute; a relative value is ignored (XDG Base Directory spec). */
function xdg(v: string | undefined): string | undefined {
  const s = nonEmpty(v);
  return s !== undefined && path.isAbsolute(s) ? s : undefined;
}

function uid(): string {
  return typeof process.getuid === 'function' ? String(process.getuid()) : (nonEmpty(builtin('node:os').userInfo().username) ?? 'user');
}

/**
 * The home directory: $HOME, else the password database (`os.homedir()`; cron with `env -i`),
 * else `os.tmpdir()/subctl-<uid>`.
 */
export function homeDir(env: NodeJS.ProcessEnv, deps: { homedir?: () => string; tmpdir?: () => string } = {}): string {
  const fromEnv = nonEmpty(env.HOME);
  if (fromEnv !== undefined) return fromEnv;
  const os = builtin('node:os');
  let h: string | undefined;
  try {
    h = nonEmpty((deps.homedir ?? os.homedir)());
  } catch {
    h = undefined;
  }
  if (h !== undefined) return h;
  return path.join((deps.tmpdir ?? os.tmpdir)(), `${APP_NAME}-${uid()}`);
}

/**
 * `SUBCTL_CONFIG_DIR=<d>` relocates everything under `<d>` (config.json, credentials.json, state/,
 * data/, cache/). Otherwise the XDG base directories, each with a `subctl` sub-directory.
 */
export function resolvePaths(env: NodeJS.ProcessEnv, deps: { homedir?: () => string; tmpdir?: () => string } = {}): Paths {
  const override = nonEmpty(env.SUBCTL_CONFIG_DIR);
  if (override !== undefined) {
    const d = path.resolve(override);
    return {
      configDir: d,
      configFile: path.join(d, 'config.json'),
      credentialsFile: path.join(d, 'credentials.json'),
      stateDir: path.join(d, 'state'),
      dataDir: path.join(d, 'data'),
      cacheDir: path.join(d, 'cache'),
    };
  }
  let home: string | undefined;
  const h = () => (home ??= homeDir(env, deps));
  const configDir = path.join(xdg(env.XDG_CONFIG_HOME) ?? path.join(h(), '.config'), APP_NAME);
  return {
    configDir,
    configFile: path.join(configDir, 'config.json'),
    credentialsFile: path.join(configDir, 'credentials.json'),
    stateDir: path.join(xdg(env.XDG_STATE_HOME) ?? path.join(h(), '.local', 'state'), APP_NAME),
    dataDir: path.join(xdg(env.XDG_DATA_HOME) ?? path.join(h(), '.local', 'share'), APP_NAME),
    cacheDir: path.join(xdg(env.XDG_CACHE_HOME) ?? path.join(h(), '.cache'), APP_NAME),
  };
}

function fsError(what: string, p: string, e: unknown): UsageError {
  const code = (e as NodeJS.ErrnoException)?.code ?? String(e);
  const full = code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG';
  return new UsageError(`cannot ${what} ${p}: ${code}`, {
    hint: full
      ? `the disk holding ${p} is full: free some space (\`df -h\`), then run the command again`
      : `check the permissions of ${p}, or point SUBCTL_CONFIG_DIR at a directory you own`,
  });
}

/**
 * chmod `p` to `mode` when its permission bits differ. Missing `p`: nothing. Returns whether it
 * changed. Never through a symbolic link: a linked directory (a user's dotfiles) is left as it
 * is, a linked file refused (safe-files.ts).
 */
export function repairMode(p: string, mode: number): boolean {
  if (!POSIX_MODES) return false;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw fsError('inspect', p, e);
  }
  if (st.isSymbolicLink()) {
    let target: fs.Stats | undefined;
    try {
      target = fs.statSync(p);
    } catch {
      target = undefined;
    }
    if (target?.isDirectory()) return false;
    throw symlinkRefused(p);
  }
  if ((st.mode & 0o777) === mode) return false;
  try {
    fs.chmodSync(p, mode);
  } catch (e) {
    throw fsError('restrict the permissions of', p, e);
  }
  return true;
}

/**
 * `mkdir -p` with 0700, a level at a time. Node's recursive mkdirSync never returns where a
 * parent exists but refuses children with ENOENT (`SUBCTL_CONFIG_DIR=/proc/subctl` spun at full
 * CPU, deaf to SIGTERM); here that ENOENT is the answer.
 */
function mkdirs(dir: string): void {
  const missing: string[] = [];
  let d = path.resolve(dir);
  while (!fs.existsSync(d)) {
    missing.push(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing.reverse()) {
    try {
      fs.mkdirSync(m, { mode: DIR_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // made meanwhile by another process: fine
    }
  }
}

/** `mkdir -p` with 0700; an existing directory with other permission bits is chmod-ed to 0700. */
export function ensurePrivateDir(dir: string): void {
  try {
    mkdirs(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new UsageError(`${dir} exists and is not a directory`, { hint: 'move it away, or set SUBCTL_CONFIG_DIR' });
    throw fsError('create the directory', dir, e);
  }
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    throw fsError('inspect', dir, e);
  }
  if (!st.isDirectory()) throw new UsageError(`${dir} exists and is not a directory`, { hint: 'move it away, or set SUBCTL_CONFIG_DIR' });
  repairMode(dir, DIR_MODE);
}

/**
 * Reads a UTF-8 file of subctl's; `undefined` when it does not exist. A symbolic link in its place
 * is refused; other failures: UsageError naming the file.
 */
export function readTextFile(file: string): string | undefined {
  try {
    return readNoFollow(file);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw fsError('read', file, e);
  }
}

/**
 * Atomic write: `<file>.<pid>.tmp` created exclusively with mode 0600, fsync, rename over `<file>`,
 * then fsync of the directory (best effort). The directory is made private (0700) first.
 * A symbolic link in place of `<file>` is refused (safe-files.ts), never written through.
 */
export function writeFileAtomic(file: string, content: string, mode = FILE_MODE): void {
  ensurePrivateDir(path.dirname(file));
  refuseSymlink(file);
  const target = file;
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    fs.rmSync(tmp, { force: true }); // a leftover from a crashed process that had our pid
    const fd = fs.openSync(tmp, 'wx', mode);
    try {
      fs.writeFileSync(fd, content, 'utf8');
      if (POSIX_MODES) fs.fchmodSync(fd, mode); // the umask may have narrowed or the open honoured it
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      /* ignore */
    }
    throw fsError('write', file, e);
  }
  if (POSIX_MODES) {
    try {
      const dfd = fs.openSync(path.dirname(target), 'r');
      try {
        fs.fsyncSync(dfd);
      } finally {
        fs.closeSync(dfd);
      }
    } catch {
      /* some file systems refuse fsync on a directory */
    }
  }
}
