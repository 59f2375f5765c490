/**
 * Bulk input: rows from CSV (header row naming the columns) or NDJSON (one object a line),
 * from a file or stdin (`-`). Every row keeps its line number so errors can name it.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from '../api/errors.js';

export interface InputRow {
  /** 1-based line number in the input (for CSV, the line the record starts on). */
  line: number;
  record: Record<string, unknown>;
}

function open(file: string, stdin: Readable): Readable {
  if (file === '-') return stdin;
  const s = createReadStream(file);
  return s;
}

async function readAll(stream: Readable, file: string): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  } catch (e) {
    throw new UsageError(`cannot read ${file === '-' ? 'standard input' : file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readCsvRows(file: string, stdin: Readable): Promise<InputRow[]> {
  const { parse } = await import('csv-parse');
  const text = await readAll(open(file, stdin), file);
  const rows: InputRow[] = [];
  const parser = parse(text, { columns: (h: string[]) => h.map((c) => c.trim()), bom: true, trim: true, skip_empty_lines: true, info: true, relax_column_count: false });
  try {
    for await (const rec of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      const record: Record<string, unknown> = {};
      // Empty cells mean "not given" (the command-line default, if any, applies).
      for (const [k, v] of Object.entries(rec.record)) if (v !== '') record[k] = v;
      rows.push({ line: rec.info.lines, record });
    }
  } catch (e) {
    const err = e as Error & { lines?: number };
    throw new UsageError(`${file}: ${err.lines ? `line ${err.lines}: ` : ''}${err.message}`);
  }
  return rows;
}

export async function readNdjsonRows(file: string, stdin: Readable): Promise<InputRow[]> {
  const text = await readAll(open(file, stdin), file);
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
