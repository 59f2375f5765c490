/**
 * The CSV encoder against csv-stringify, the library it replaced, with the options this project
 * gave it (formula escaping, negative numbers as text left alone, booleans, dates, objects as
 * JSON): the same bytes for generated rows. And the bytes read back by a CSV reader.
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/bulk/csv.js';
import { CsvEncoder, csvCell, csvRecord } from '../../src/output/csv.js';

const NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
function json(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
}
/** csv-stringify as src/output/csv.ts configured it before. */
const reference = (records: unknown[][]) =>
  stringify(records, {
    escape_formulas: true,
    cast: {
      boolean: (v) => (v ? 'true' : 'false'),
      date: (v) => (Number.isNaN(v.getTime()) ? '' : v.toISOString()),
      object: (v) => json(v),
      // Text that begins or ends with white space is quoted (readers that trim would lose it),
      // unless the formula quote that leads it (a TAB or CR first) already hides its start.
      string: (v) =>
        NEGATIVE_NUMBER.test(v)
          ? { value: v, escape_formulas: false }
          : /\s$/.test(v) || (/^\s/.test(v) && !/^[\t\r]/.test(v))
            ? { value: v, quoted: true }
            : v,
    },
  });

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
  it('writes exactly what csv-stringify wrote, over generated records', () => {
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }), (records) => {
        // Records of one width, as a table has.
        const width = records[0].length;
        const rows = records.map((r) => Array.from({ length: width }, (_, i) => r[i % r.length]));
        expect(rows.map(csvRecord).join('')).toBe(reference(rows));
      }),
      { numRuns: Number(process.env.CSV_RUNS) || 500 },
    );
  });

  it('formulas get a leading quote; negative numbers, as numbers or text, do not', () => {
    expect(['=SUM(A1)', '+1', '@me', '-x', '\tx', '－1'].map(csvCell)).toEqual(["'=SUM(A1)", "'+1", "'@me", "'-x", "'\tx", "'－1"]);
    expect([-19.99, '-19.99', '-1e5', -7n].map(csvCell)).toEqual(['-19.99', '-19.99', '-1e5', '-7']);
    expect(csvCell('\rx')).toBe('"\'\rx"');
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
