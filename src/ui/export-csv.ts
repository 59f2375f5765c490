/**
 * Ctrl-S in the console: the rows of the page on screen to a CSV file in the working directory,
 * through the shared printer (header row, formula-safe cells), so the file matches
 * `subctl <resource> list -o csv` for the same page.
 */
import { createWriteStream, rmSync } from 'node:fs';
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

/** Writes the rows; resolves to the file's path and the number of rows written. */
export async function exportCsv(rows: Row[], opts: { resource: string; columns?: string[]; dir: string; at: Date }): Promise<{ path: string; count: number }> {
  const path = join(opts.dir, exportFileName(opts.resource, opts.at));
  const file = createWriteStream(path, { flags: 'wx', mode: 0o644 });
  const io: IO = {
    stdin: Readable.from([]),
    stdout: file,
    stderr: new PassThrough(),
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: {},
  };
  // Ours once opened ('wx' never opens a file that was there): a failed export removes it.
  let created = false;
  file.once('open', () => (created = true));
  try {
    const count = await printList(rows, { format: 'csv', columns: opts.columns, io });
    file.end();
    await finished(file);
    return { path, count };
  } catch (e) {
    file.destroy();
    if (created) rmSync(path, { force: true });
    // Named with the file, not as the printer's "standard output".
    const cause = e instanceof LocalError ? e.cause : e;
    throw localError(cause, path) ?? cause;
  }
}
