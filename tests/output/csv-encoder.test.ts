/**
 * The CSV output (src/output/csv.ts, csv-stringify with this project's options): generated
 * records read back by a CSV reader as the text each value should give (formula quotes, negative
 * numbers as data, booleans, dates, objects as JSON); the encoder's batches join into the same
 * bytes as one pass; spaces at either end survive subctl's own bulk reader.
 */
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/bulk/csv.js';
import { CsvEncoder, csvRecords } from '../../src/output/csv.js';

const NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
const FORMULA_START = /^[=+@\t\r\uff1d\uff0b\uff0d\uff20]/;
function json(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
}
/** What a reader should get back for `v`: its text, with `'` before what a spreadsheet would run. */
function expectedText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  const s = v instanceof Date ? (Number.isNaN(v.getTime()) ? '' : v.toISOString()) : typeof v === 'object' ? json(v) : String(v);
  const formula = FORMULA_START.test(s) || (s.startsWith('-') && !NEGATIVE_NUMBER.test(s));
  return formula ? `'${s}` : s;
}

const tricky = fc.constantFrom(
  '',
  ' ',
  ' lead',
  'trail ',
  '\u00a0nbsp',
  'mid dle',
  ',',
  '"',
  'a,b',
  'say "hi"',
  'two\nlines',
  'cr\rhere',
  'crlf\r\nx',
  '=SUM(A1)',
  '+1',
  '-1',
  '-19.99',
  '-1e5',
  '-x',
  '@me',
  '\tlead',
  '\rlead',
  '＝1',
  '＋1',
  '－1',
  '＠a',
  'Ünïcødé',
  '日本',
  "'quoted",
);
const cell = fc.oneof(
  tricky,
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date({ noInvalidDate: false }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean()), { maxKeys: 3 }),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 3 }),
);

describe('CSV encoder', () => {
  it('generated records read back as the text of each value', () => {
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }), (records) => {
        // Records of one width, as a table has.
        const width = records[0].length;
        const rows = records.map((r) => Array.from({ length: width }, (_, i) => r[i % r.length]));
        const text = csvRecords(rows);
        expect(text.endsWith('\n')).toBe(true);
        expect(parse(text, { relax_column_count: false })).toEqual(rows.map((r) => r.map(expectedText)));
      }),
      { numRuns: Number(process.env.CSV_RUNS) || 500 },
    );
  });

  it('formulas get a leading quote; negative numbers, as numbers or text, do not', () => {
    const one = (v: unknown) => csvRecords([[v]]).slice(0, -1);
    expect(['=SUM(A1)', '+1', '@me', '-x', '\tx', '－1'].map(one)).toEqual(["'=SUM(A1)", "'+1", "'@me", "'-x", "'\tx", "'－1"]);
    expect([-19.99, '-19.99', '-1e5', -7n].map(one)).toEqual(['-19.99', '-19.99', '-1e5', '-7']);
    expect(one('\rx')).toBe('"\'\rx"');
    // A date beyond year 9999 is written +010000-...: a formula to a spreadsheet.
    expect(one(new Date(8.64e15))).toBe("'+275760-09-13T00:00:00.000Z");
  });

  it('rows encoded in batches give the bytes of one pass', () => {
    const rows = Array.from({ length: 1234 }, (_, i) => ({ id: i, name: i % 7 ? `row ${i}` : `=x${i}`, note: i % 5 ? null : 'a, "b"' }));
    const enc = new CsvEncoder(undefined);
    let text = '';
    for (const r of rows) {
      enc.add(r);
      if (enc.full()) text += enc.take().text;
    }
    const last = enc.finish();
    text += last.text;
    expect(text).toBe(csvRecords([['id', 'name', 'note'], ...rows.map((r) => [r.id, r.name, r.note])]));
    expect(parse(text, { columns: true })).toHaveLength(1234);
  });

  it('reads back as the values written (header, quotes, line breaks, JSON cells)', () => {
    const enc = new CsvEncoder(undefined);
    const rows = [
      { id: 1, note: 'late, again', who: { name: 'Ana "A"' }, ok: true, gone: null },
      { id: 2, note: 'two\nlines', who: { name: 'Bo' }, ok: false, gone: null },
    ];
    for (const r of rows) enc.add(r);
    const text = enc.finish().text;
    expect(parse(text, { columns: true })).toEqual([
      { id: '1', note: 'late, again', who: '{"name":"Ana \\"A\\""}', ok: 'true', gone: '' },
      { id: '2', note: 'two\nlines', who: '{"name":"Bo"}', ok: 'false', gone: '' },
    ]);
  });

  it("values with spaces at either end come back whole through subctl's own bulk reader (which trims unquoted cells)", () => {
    const enc = new CsvEncoder(undefined);
    const values = ['  padded name  ', ' lead', 'trail ', '\u00a0nbsp\u00a0', 'plain'];
    enc.add(Object.fromEntries(values.map((v, i) => [`c${i}`, v])));
    const text = enc.finish().text;
    expect(text.split('\n')[1]).toBe('"  padded name  "," lead","trail ","\u00a0nbsp\u00a0",plain');
    const [, row] = parseCsv(text);
    expect(row.fields).toEqual(values);
  });

  it('known columns and no rows: the header alone', () => {
    expect(new CsvEncoder(['a', 'b']).finish().text).toBe('a,b\n');
    expect(new CsvEncoder(undefined).finish().text).toBe('');
  });
});
