/**
 * Ctrl-S in the console: the rows of the page on screen to a CSV file in the working directory,
 * through the shared printer (header row, formula-safe cells), so the file matches
 * `subctl <resource> list -o csv` for the same page.
 */
import { createWriteStream, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { LocalError, localError } from '../api/errors.js';
import type { IO } from '../io.js';
import { printList } from '../output/index.js';
import type { Row } from './resources.js';

const two = (n: number) => String(n).padStart(2, '0');

/** `subctl-subscriptions-20261122-153012.csv` (local time). */
export function exportFileName(resource: string, at: Date): string {
  const stamp = `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}-${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}`;
  return `subctl-${resource}-${stamp}.csv`;
}

/** How many names (`-2`, `-3` …) are tried before giving up. */
const MAX_TRIES = 1000;

/**
 * A new file for the export: the name of its second, or with `-2`, `-3` … when that is taken
 * (two exports within a second, or a file of that name there already). Opened with O_EXCL:
 * a file that is there is never written to, and two exports never get the same one.
 */
function openNew(dir: string, name: string): { path: string; fd: number } {
  const dot = name.lastIndexOf('.');
  for (let n = 1; ; n++) {
    const path = join(dir, n === 1 ? name : `${name.slice(0, dot)}-${n}${name.slice(dot)}`);
    try {
      return { path, fd: openSync(path, 'wx', 0o600) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n >= MAX_TRIES) throw localError(e, path) ?? e;
    }
  }
}

/** Writes the rows; resolves to the file's path and the number of rows written. */
export async function exportCsv(
  rows: Row[],
  opts: { resource: string; columns?: string[]; dir: string; at: Date },
): Promise<{ path: string; count: number }> {
  const { path, fd } = openNew(opts.dir, exportFileName(opts.resource, opts.at));
  const file = createWriteStream(path, { fd });
  const io: IO = {
    stdin: Readable.from([]),
    stdout: file,
    stderr: new PassThrough(),
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: {},
  };
  // Ours (O_EXCL never opens a file that was there): a failed export removes it.
  try {
    const count = await printList(rows, { format: 'csv', columns: opts.columns, io });
    file.end();
    await finished(file);
    return { path, count };
  } catch (e) {
    file.destroy();
    rmSync(path, { force: true });
    // Named with the file, not as the printer's "standard output".
    const cause = e instanceof LocalError ? e.cause : e;
    throw localError(cause, path) ?? cause;
  }
}
