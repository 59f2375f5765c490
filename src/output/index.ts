/**
 * The output layer: every result a command prints goes through `printList` or `printObject`,
 * in the format of `-o` (table, json, ndjson, csv), with `--fields`, colour rules and a closed
 * pipe handled once here. cli-table3 and the CSV encoder are loaded only when a terminal table or
 * csv is asked for, so `-o json` never loads them.
 */
import { localError } from '../api/errors.js';
import { useColor, type IO } from '../io.js';
import { fieldsWatch, JsonArrayEncoder, NdjsonEncoder, pump, TsvEncoder, type Encoder, type Row } from './encoders.js';
import { terminalSafeJson, terminalSafeText } from './terminal-safe.js';
import { escapeControls, formatCell, isPlainObject, pickFields, resolveColumns, type OutputOptions } from './format.js';
import { guardPipe, writeText } from './pipe.js';
import { checkListFields, checkObjectFields } from './fields-check.js';
import { keyStyle } from './style.js';

export { OUTPUT_FORMATS, parseOutputFormat, pickFields, getPath, formatCell, escapeControls } from './format.js';
export type { OutputFormat, OutputOptions } from './format.js';
export { guardPipe } from './pipe.js';
export { note, warn } from './messages.js';
export { sparkline, bars } from './charts.js';
export { displayWidth, truncateWidth } from './width.js';

/** Terminal width when the IO does not say. */
const DEFAULT_COLUMNS = 80;

/** The terminal's width; 80 when unknown or reported as 0 (some pseudo-terminals). */
function terminalWidth(io: IO): number {
  return io.columns !== undefined && io.columns > 0 ? io.columns : DEFAULT_COLUMNS;
}

function fieldsOf(opts: OutputOptions): string[] | undefined {
  return opts.fields && opts.fields.length > 0 ? opts.fields : undefined;
}

/**
 * Prints a list in the chosen format and returns how many rows were written.
 *
 * Consumes `rows` lazily: the next row is pulled only when stdout has room (it waits for
 * 'drain'), so `subctl wallet list --all -o ndjson` over a million rows runs in flat memory and
 * fetches the next page only when the reader has caught up. When the reader goes away
 * (`| head -1`) it stops pulling, lets the source clean up, and resolves quietly.
 *
 * - json: a JSON array (`[]` when empty), pretty-printed, streamed item by item.
 * - ndjson: one compact object a line.
 * - csv: header row then records (`escape_formulas`), columns = --fields, else the command's
 *   columns, else the first row's keys.
 * - table: on a terminal, aligned and fitted to its width (sized on the first 1000 rows); off a
 *   terminal, the same columns tab-separated, nothing cut, one line a row.
 */
async function* asRecords(rows: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<Record<string, unknown>> {
  for await (const r of rows)
    yield r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r };
}

export async function printList(
  rows: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>,
  opts: OutputOptions,
): Promise<number> {
  const { io } = opts;
  const stream = io.stdout;
  const guard = guardPipe(stream);
  if (guard.closed()) return 0;
  if (opts.limit !== undefined) rows = firstOf(rows, opts.limit);
  const fields = fieldsOf(opts);
  if (fields) {
    rows = await checkListFields(rows, fields, (opts.knownFields ?? opts.emptyHeader)?.() ?? []);
  }
  const watch = fields ? fieldsWatch(fields, (text) => io.stderr.write(`${text}\n`)) : undefined;
  // A row that is not an object (null, text, a number: another platform's answer) has no columns
  // of its own: table and csv show it as one `value` cell; json and ndjson print it as received.
  if (opts.format === 'csv' || opts.format === 'table') rows = asRecords(rows);
  switch (opts.format) {
    case 'json':
      return pump(rows, forTerminal(io, new JsonArrayEncoder(fields), terminalSafeJson), stream, guard, watch);
    case 'ndjson':
      return pump(rows, forTerminal(io, new NdjsonEncoder(fields), terminalSafeJson), stream, guard, watch);
    case 'csv': {
      const { CsvEncoder } = await import('./csv.js');
      return pump(
        rows,
        forTerminal(io, new CsvEncoder(resolveColumns(opts, undefined), opts.lead, opts.emptyHeader), terminalSafeText),
        stream,
        guard,
        watch,
      );
    }
    case 'table': {
      const color = useColor(io, 'stdout', opts.noColor ?? false);
      if (opts.wide) {
        const { WideEncoder } = await import('./wide.js');
        return pump(
          rows,
          new WideEncoder(fieldsOf(opts), opts.columns ?? opts.lead, io.stdoutIsTTY, terminalWidth(io), color),
          stream,
          guard,
          watch,
        );
      }
      const columns = resolveColumns(opts, undefined);
      if (!io.stdoutIsTTY) return pump(rows, new TsvEncoder(columns, color), stream, guard, watch);
      const { TtyTableEncoder } = await import('./table.js');
      const onHidden = (hidden: string[]): void => {
        io.stderr.write(
          `note: ${hidden.length} column${hidden.length === 1 ? '' : 's'} not shown to fit the terminal (${hidden.join(', ')}); choose with --fields or use -o json\n`,
        );
      };
      return pump(rows, new TtyTableEncoder(columns, terminalWidth(io), color, onHidden), stream, guard, watch);
    }
    default:
      throw new Error(`unknown output format: ${String(opts.format)}`);
  }
}

/**
 * An encoder's text made safe when stdout is a terminal (terminal-safe.ts); off one, the encoder
 * itself: json, ndjson and csv bytes for scripts stay as they are.
 */
function forTerminal(io: IO, enc: Encoder, clean: (text: string) => string): Encoder {
  if (!io.stdoutIsTTY) return enc;
  const safe = (t: { text: string; rows: number }) => ({ text: clean(t.text), rows: t.rows });
  return { add: (row) => enc.add(row), full: () => enc.full(), take: () => safe(enc.take()), finish: () => safe(enc.finish()) };
}

/** The first `n` rows of `rows`, pulled as the printer asks for them. */
async function* firstOf(
  rows: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>,
  n: number,
): AsyncGenerator<Record<string, unknown>> {
  if (n <= 0) return;
  let i = 0;
  for await (const r of rows) {
    yield r;
    if (++i >= n) return;
  }
}

/** `key<TAB>value` lines, nested objects flattened to dotted keys (`created_by.username	ana`). */
function keyValueLines(obj: Record<string, unknown>, prefix: string, color: boolean, out: string[]): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix === '' ? k : `${prefix}.${k}`;
    if (isPlainObject(v) && Object.keys(v).length > 0) keyValueLines(v, key, color, out);
    else out.push(`${keyStyle(escapeControls(key), color)}\t${escapeControls(formatCell(v, { tty: false }))}`);
  }
}

/**
 * Prints one object.
 *
 * - json: pretty JSON (2 spaces) and a newline; ndjson: one line.
 * - csv: a header and one row, nested objects JSON-encoded in their cell.
 * - table: on a terminal a key/value view (nested objects as indented sections, arrays of
 *   objects as sub-tables) fitted to its width; off a terminal `key<TAB>value` lines.
 *
 * `--fields` (or the command's `columns`, for table and csv) choose and order the keys.
 * An array is printed as a list.
 */
export async function printObject(obj: unknown, opts: OutputOptions): Promise<void> {
  const { io } = opts;
  if (Array.isArray(obj) && (opts.format === 'table' || opts.format === 'csv')) {
    // Rows are objects: an item that is not one (a server answering [null, 3]) is a `value` column.
    await printList(
      obj.map((item: unknown) => (isPlainObject(item) ? (item as Row) : { value: item })),
      opts,
    );
    return;
  }
  const stream = io.stdout;
  const guard = guardPipe(stream);
  if (guard.closed()) return;
  const fields = fieldsOf(opts);
  const record = isPlainObject(obj) ? obj : undefined;
  if (record && fields) {
    checkObjectFields(record, fields, opts.knownFields?.() ?? []);
  }
  let text: string;
  switch (opts.format) {
    case 'json': {
      const value = record && fields ? pickFields(record, fields) : obj;
      text = (JSON.stringify(value, null, 2) ?? 'null') + '\n';
      if (io.stdoutIsTTY) text = terminalSafeJson(text);
      break;
    }
    case 'ndjson': {
      const value = record && fields ? pickFields(record, fields) : obj;
      text = (JSON.stringify(value) ?? 'null') + '\n';
      if (io.stdoutIsTTY) text = terminalSafeJson(text);
      break;
    }
    case 'csv': {
      const { csvOfObject } = await import('./csv.js');
      const row = record ?? { value: obj };
      text = csvOfObject(row, resolveColumns(opts, row) ?? []);
      if (io.stdoutIsTTY) text = terminalSafeText(text);
      break;
    }
    case 'table': {
      const color = useColor(io, 'stdout', opts.noColor ?? false);
      if (!record) {
        text = escapeControls(formatCell(obj, { tty: io.stdoutIsTTY })) + '\n';
        break;
      }
      const keys = fields ?? (opts.columns && opts.columns.length > 0 ? opts.columns : undefined);
      const view = keys ? pickFields(record, keys) : record;
      if (io.stdoutIsTTY) {
        const { renderObject } = await import('./table.js');
        text = renderObject(view, terminalWidth(io), color);
      } else {
        const lines: string[] = [];
        keyValueLines(view, '', color, lines);
        text = lines.length === 0 ? '' : lines.join('\n') + '\n';
      }
      break;
    }
    default:
      throw new Error(`unknown output format: ${String(opts.format)}`);
  }
  await writeText(stream, guard, text);
  const failure = guard.error();
  if (failure) throw localError(failure, 'to standard output') ?? failure;
}
