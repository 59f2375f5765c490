/**
 * subctl's files are its own: config, credentials, journals, reports, locks and caches are never
 * read or written through a symbolic link planted where one of them goes, and their modes are
 * never changed through one (a planted `config.json -> ~/.ssh/config` would have that file
 * chmod-ed and replaced). Such a link is refused with an error naming it.
 *
 * Node builtins only: this module is on the start-up path of every command (paths.ts uses it).
 */
import * as fs from 'node:fs';
import { UsageError } from '../api/errors.js';

/** O_NOFOLLOW where the system has it (not on Windows, where links need privileges to make). */
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** The refusal of a link in place of one of subctl's files. Exit 2. */
export function symlinkRefused(file: string): UsageError {
  return new UsageError(`${file} is a symbolic link: subctl reads and writes only files of its own there, never through a link`, {
    code: 'symlink',
    hint: `remove the link (\`rm ${file}\`) and run the command again; to keep subctl's files elsewhere, set SUBCTL_CONFIG_DIR`,
  });
}

/** Whether `file` is itself a symbolic link (a missing file is not). */
function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Throws symlinkRefused when `file` is a symbolic link. */
export function refuseSymlink(file: string): void {
  if (isSymlink(file)) throw symlinkRefused(file);
}

const FLAGS: Record<string, number> = {
  r: fs.constants.O_RDONLY,
  a: fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND,
  'a+': fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_APPEND,
  w: fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC,
  wx: fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL,
};

/**
 * fs.openSync that does not follow a symbolic link at `file` (O_NOFOLLOW): a link there is
 * refused (symlinkRefused) instead of opening its target. Other errors are Node's, as thrown.
 * `openNoFollow(journal, 'a+', 0o600)`.
 */
export function openNoFollow(file: string, flags: 'r' | 'a' | 'a+' | 'w' | 'wx', mode = 0o600): number {
  try {
    return fs.openSync(file, FLAGS[flags]! | NOFOLLOW, mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ELOOP: Linux and macOS; EMLINK: FreeBSD. O_EXCL meets a link as EEXIST.
    if ((code === 'ELOOP' || code === 'EMLINK' || code === 'EEXIST') && isSymlink(file)) throw symlinkRefused(file);
    throw e;
  }
}

/** A UTF-8 file read without following a link at its place; undefined when it does not exist. */
export function readNoFollow(file: string): string | undefined {
  let fd: number;
  try {
    fd = openNoFollow(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Where a JSON text failed to parse, as `line L, column C`, from V8's message (`at position N`,
 * or `(line L column C)`), never the text itself: the file may hold a token.
 */
export function jsonErrorPlace(text: string, e: unknown): string | undefined {
  const msg = e instanceof Error ? e.message : '';
  const lc = /line (\d+) column (\d+)/.exec(msg);
  if (lc) return `line ${lc[1]}, column ${lc[2]}`;
  const pos = /position (\d+)/.exec(msg);
  let at: number | undefined = pos ? Number(pos[1]) : undefined;
  if (at === undefined && /end of JSON input|Unexpected end/i.test(msg)) at = text.length;
  // `Unexpected token 'e', ..."ken": eyJSE"... is not valid JSON`: V8 quotes the text from 10
  // characters before the token (with "..." when it starts later than the text): found back in
  // the text, it gives the place (the quote itself is never shown).
  const quoted = /^Unexpected token '(.)', (\.\.\.)?"([\s\S]*?)"(?:\.\.\.)? is not valid JSON/.exec(msg);
  if (at === undefined && quoted) {
    const from = text.indexOf(quoted[3]!);
    if (from >= 0) at = from + (quoted[2] ? 10 : quoted[3]!.indexOf(quoted[1]!));
  }
  if (at === undefined) return undefined;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - (before.lastIndexOf('\n') + 1) + 1;
  return `line ${line}, column ${column}`;
}
