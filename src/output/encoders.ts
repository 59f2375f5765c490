/**
 * Streaming a list: an encoder turns rows into text, `pump` pulls rows one at a time and writes
 * the text in chunks of about 4 KB, waiting for 'drain' when stdout is full. So memory stays
 * flat for a million rows, and the source (an async generator over pages) is asked for the
 * next page only when the reader has caught up.
 */
import { localError } from '../api/errors.js';
import { escapeControls, formatCell, getPath, pickFields } from './format.js';
import { drained, type PipeGuard } from './pipe.js';
import { headerStyle } from './style.js';

export type Row = Record<string, unknown>;

export interface Encoder {
  add(row: Row): void;
  /** Enough text is pending to be worth a write. */
  full(): boolean;
  /** The pending text and how many rows it holds, cleared. May be '' (nothing ready yet). */
  take(): { text: string; rows: number };
  /** The end of the output (json's ']', the header of an empty list ...), after the last take(). */
  finish(): { text: string; rows: number };
}

/** A quarter of stdout's highWaterMark: big enough to save write calls (a write per row is much slower into a pipe), small enough that the source stays about one highWaterMark ahead of the reader. */
export const CHUNK_CHARS = 4096;

/** Base for encoders that render each row to text at once. */
abstract class LineEncoder implements Encoder {
  protected buf = '';
  protected rows = 0;
  abstract add(row: Row): void;
  full(): boolean {
    return this.buf.length >= CHUNK_CHARS;
  }
  take(): { text: string; rows: number } {
    const out = { text: this.buf, rows: this.rows };
    this.buf = '';
    this.rows = 0;
    return out;
  }
  finish(): { text: string; rows: number } {
    return this.take();
  }
}

/** One compact JSON object a line. */
export class NdjsonEncoder extends LineEncoder {
  constructor(private readonly fields?: string[]) {
    super();
  }
  add(row: Row): void {
    this.buf += JSON.stringify(this.fields ? pickFields(row, this.fields) : row) + '\n';
    this.rows++;
  }
}

/**
 * A JSON array, streamed, byte for byte what `JSON.stringify(rows, null, 2) + '\n'` gives:
 * `[`, each item pretty-printed (2 spaces) and indented, `,` between items, `]`; `[]` when empty.
 */
export class JsonArrayEncoder extends LineEncoder {
  private started = false;
  constructor(private readonly fields?: string[]) {
    super();
  }
  add(row: Row): void {
    // JSON.stringify escapes newlines inside strings, so every raw '\n' is layout and may be indented.
    const item = JSON.stringify(this.fields ? pickFields(row, this.fields) : row, null, 2).replace(/\n/g, '\n  ');
    this.buf += (this.started ? ',\n  ' : '[\n  ') + item;
    this.started = true;
    this.rows++;
  }
  override finish(): { text: string; rows: number } {
    const out = this.take();
    out.text += this.started ? '\n]\n' : '[]\n';
    return out;
  }
}

/**
 * A table off a terminal: the same columns as on one, tab-separated, field names as the header,
 * no colour (unless FORCE_COLOR), nothing cut; newlines and tabs in cells escaped so one row
 * stays one line (`cut -f2`, `awk -F'\t'` work).
 */
export class TsvEncoder extends LineEncoder {
  private columns: string[] | undefined;
  private headerDone = false;
  constructor(
    columns: string[] | undefined,
    private readonly color: boolean,
  ) {
    super();
    this.columns = columns;
  }
  private header(): void {
    if (this.headerDone || !this.columns) return;
    this.headerDone = true;
    this.buf = this.columns.map((c) => headerStyle(escapeControls(c), this.color)).join('\t') + '\n' + this.buf;
  }
  add(row: Row): void {
    this.columns ??= Object.keys(row);
    this.header();
    let line = '';
    const cols = this.columns;
    for (let i = 0; i < cols.length; i++) {
      if (i > 0) line += '\t';
      line += escapeControls(formatCell(getPath(row, cols[i]), { tty: false }));
    }
    this.buf += line + '\n';
    this.rows++;
  }
  override finish(): { text: string; rows: number } {
    this.header();
    return this.take();
  }
}

function isAsyncIterable<T>(x: AsyncIterable<T> | Iterable<T>): x is AsyncIterable<T> {
  return typeof (x as AsyncIterable<T>)[Symbol.asyncIterator] === 'function';
}

/**
 * Pulls rows lazily into `enc` and writes its text to `stream`. Stops pulling (and lets the
 * source's `finally` run) when the reader goes away. On an async source, pending text is
 * written whenever the source makes us wait, so rows of a slow page show at once.
 * Returns how many rows were handed to the stream.
 */
/** Shown rows as they are printed: `see` answers false once it has seen enough; `end` if the rows end first. */
export interface RowWatch {
  see(row: Row): boolean;
  end(): void;
}

/**
 * Watches the first 1,000 rows for `--fields` names that none of them has (a typo, or a field of
 * another command): each is named once on stderr, the rows' own fields beside it, rather than
 * left as a silent column of nulls. An empty list says nothing. `one`: the answer is one object.
 */
export function fieldsWatch(fields: string[], warn: (text: string) => void, rowsToSee = 1000, one = false): RowWatch {
  const missing = new Set(fields);
  let seen = 0;
  let first: Row | undefined;
  let done = false;
  const end = (): void => {
    if (done) return;
    done = true;
    if (seen === 0 || missing.size === 0) return;
    const names = [...missing].map((f) => `'${f}'`).join(', ');
    const has = first ? Object.keys(first).join(', ') : '';
    warn(
      one ? `warning: --fields: the answer has no ${names}; it has ${has}` : `warning: --fields: no row has ${names}; the rows have ${has}`,
    );
  };
  return {
    see(row) {
      first ??= row;
      seen++;
      for (const f of missing) if (getPath(row, f) !== undefined) missing.delete(f);
      if (missing.size === 0 || seen >= rowsToSee) {
        end();
        return false;
      }
      return true;
    },
    end,
  };
}

export async function pump(
  source: AsyncIterable<Row> | Iterable<Row>,
  enc: Encoder,
  stream: NodeJS.WritableStream,
  guard: PipeGuard,
  watch?: RowWatch,
): Promise<number> {
  let written = 0;
  // Shown the first rows only (one test per row after that).
  let watching = watch !== undefined;
  const see = (row: Row): void => {
    if (!watch!.see(row)) watching = false;
  };
  let idle: NodeJS.Immediate | undefined;
  const flush = (): void => {
    if (idle !== undefined) {
      clearImmediate(idle);
      idle = undefined;
    }
    const { text, rows } = enc.take();
    if (text === '' || guard.closed()) return;
    stream.write(text);
    written += rows;
  };
  const needsDrain = (): boolean => (stream as { writableNeedDrain?: boolean }).writableNeedDrain === true;
  try {
    if (isAsyncIterable(source)) {
      for await (const row of source) {
        if (guard.closed()) break;
        if (watching) see(row);
        enc.add(row);
        if (enc.full()) flush();
        else if (idle === undefined) {
          // Runs only if the source goes idle (waits on I/O): a synchronous burst of rows never lets it fire.
          idle = setImmediate(flush);
        }
        // Also after an idle flush: pages arriving faster than the reader reads must not pile up in stdout.
        if (needsDrain()) {
          await drained(stream, guard);
          if (guard.closed()) break;
        }
      }
    } else {
      for (const row of source) {
        if (guard.closed()) break;
        if (watching) see(row);
        enc.add(row);
        if (enc.full()) {
          flush();
          if (needsDrain()) await drained(stream, guard);
          if (guard.closed()) break;
        }
      }
    }
  } catch (err) {
    // The rows that did arrive are output (ndjson/csv readers keep them); the error goes up.
    flush();
    throw err;
  } finally {
    if (idle !== undefined) clearImmediate(idle);
    if (watching) watch!.end();
  }
  if (!guard.closed()) {
    flush();
    const end = enc.finish();
    if (end.text !== '' && !guard.closed()) {
      stream.write(end.text);
      written += end.rows;
    }
    if (needsDrain()) await drained(stream, guard);
  }
  const failure = guard.error();
  if (failure) throw localError(failure, 'to standard output') ?? failure;
  return written;
}
