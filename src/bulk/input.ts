/**
 * Bulk input: rows from CSV (header row naming the columns) or NDJSON (one object a line),
 * from a file or stdin (`-`). Every row keeps its line number so errors can name it.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from '../api/errors.js';
import { CsvError, parseCsv, type CsvRecord } from './csv.js';

export interface InputRow {
  /** 1-based line number in the input (for CSV, the line the record starts on). */
  line: number;
  record: Record<string, unknown>;
}

/**
 * The whole input as text: a file is read at once (a stream and its async iteration are cold
 * code that a run of 10,000 rows paid a few ms for before its first request), stdin as it comes.
 * Input that is not UTF-8 (a spreadsheet's Latin-1 export, say) is refused with the line of its
 * first bad byte: decoding it anyway would send U+FFFD in place of every accented letter.
 */
async function readText(file: string, stdin: Readable): Promise<string> {
  const name = file === '-' ? 'standard input' : file;
  const fail = (e: unknown) => new UsageError(`cannot read ${name}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
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
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    let line = 1;
    let start = 0;
    for (let i = 0; i < at; i++) {
      if (bytes[i] === 0x0a) {
        line++;
        start = i + 1;
      }
    }
    throw new UsageError(`${name}: line ${line}: not valid UTF-8 (byte 0x${bytes[at].toString(16).toUpperCase().padStart(2, '0')} at byte ${at - start + 1} of the line)`, {
      hint: 'save the file as UTF-8 (a Latin-1 file converts with `iconv -f latin1 -t utf-8 FILE > NEW-FILE`)',
    });
  }
  return bytes.toString('utf8');
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629), or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    // The sequence's length, and the range its second byte must fall in (no overlongs, no
    // surrogates, nothing past U+10FFFF).
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    if (i + n >= b.length) return i; // cut short at the end
    if (b[i + 1] < lo || b[i + 1] > hi) return i;
    for (let k = 2; k <= n; k++) if ((b[i + k] & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return -1;
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
  const text = await readText(file, stdin);
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
    rows.push({ line: i + 1, record: v as Record<string, unknown> });
  });
  return rows;
}
