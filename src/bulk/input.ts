/**
 * Bulk input: rows from CSV (header row naming the columns) or NDJSON (one object a line),
 * from a file or stdin (`-`). Every row keeps its line number so errors can name it.
 */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from '../api/errors.js';
import { utf8Text } from '../api/utf8.js';
import { CsvError, parseCsv, type CsvRecord } from './csv.js';

export interface InputRow {
  /** 1-based line number in the input (for CSV, the line the record starts on). */
  line: number;
  record: Record<string, unknown>;
}

/**
 * The whole input as text: a file is read at once (a stream and its async iteration are cold
 * code that would delay a run's first request), stdin as it comes.
 * Input that is not UTF-8 (a spreadsheet's Latin-1 export, say) is refused with the line of its
 * first bad byte: decoding it anyway would send U+FFFD in place of every accented letter.
 */
async function readText(file: string, stdin: Readable): Promise<string> {
  const name = file === '-' ? 'standard input' : file;
  const fail = (e: unknown) =>
    new UsageError(`cannot read ${name}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  let bytes: Buffer;
  if (file !== '-') {
    try {
      bytes = readFileSync(file);
    } catch (e) {
      throw fail(e);
    }
  } else {
    const chunks: Buffer[] = [];
    try {
      for await (const c of stdin) chunks.push(Buffer.from(c as Buffer));
    } catch (e) {
      throw fail(e);
    }
    bytes = Buffer.concat(chunks);
  }
  return utf8Text(bytes, name);
}

export async function readCsvRows(file: string, stdin: Readable): Promise<InputRow[]> {
  const text = await readText(file, stdin);
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (e) {
    if (e instanceof CsvError) throw new UsageError(`${file}: line ${e.line}: ${e.message}`);
    throw e;
  }
  if (!records.length) return [];
  const [header, ...body] = records;
  const names = header.fields;
  const seen = new Set<string>();
  for (const c of names) {
    if (c === '') throw new UsageError(`${file}: line ${header.line}: a column of the header has no name`);
    if (seen.has(c)) throw new UsageError(`${file}: line ${header.line}: the column '${c}' is named twice`);
    seen.add(c);
  }
  const rows: InputRow[] = [];
  for (const r of body) {
    const record: Record<string, unknown> = {};
    // Empty cells mean "not given" (the command-line default, if any, applies).
    for (let k = 0; k < names.length; k++) if (r.fields[k] !== '') record[names[k]] = r.fields[k];
    rows.push({ line: r.line, record });
  }
  return rows;
}

export async function readNdjsonRows(file: string, stdin: Readable): Promise<InputRow[]> {
  const raw = await readText(file, stdin);
  // A byte-order mark (Windows editors write one) is not JSON, as it is not CSV: dropped, as the
  // CSV reader drops it ("line 1: not valid JSON" said nothing of it).
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const rows: InputRow[] = [];
  text.split(/\r?\n/).forEach((l, i) => {
    if (!l.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(l);
    } catch {
      throw new UsageError(`${file}: line ${i + 1}: not valid JSON`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${file}: line ${i + 1}: expected a JSON object`);
    // JSON.parse keeps the last of two equal keys: which one was meant is not the tool's to guess.
    const twice = duplicateKey(l);
    if (twice !== undefined)
      throw new UsageError(`${file}: line ${i + 1}: the key '${twice}' is given twice: keep one`, {
        hint: 'fix the input and run again; nothing was sent',
      });
    rows.push({ line: i + 1, record: v as Record<string, unknown> });
  });
  return rows;
}

/**
 * The first key that one object of a valid JSON text names twice, at any depth; undefined when
 * none does. A scan of the text: keys are the strings followed by `:`.
 */
export function duplicateKey(text: string): string | undefined {
  const objects: Array<Set<string> | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) objects.push(new Set());
    else if (c === 0x5b /* [ */) objects.push(undefined);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) objects.pop();
    else if (c === 0x22 /* " */) {
      let j = i + 1;
      while (text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      let k = j + 1;
      while (k < text.length && /\s/.test(text[k])) k++;
      const keys = objects[objects.length - 1];
      if (text[k] === ':' && keys) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      i = j;
    }
  }
  return undefined;
}
