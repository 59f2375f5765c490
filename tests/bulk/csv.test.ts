/**
 * The bulk CSV reader: the cases by hand, then the same records as csv-parse (the reference it
 * replaced) over generated files, with the same options bulk input used.
 */
import { parse as reference } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv } from '../../src/bulk/csv.js';

const fieldsOf = (text: string) => parseCsv(text).map((r) => r.fields);
const linesOf = (text: string) => parseCsv(text).map((r) => r.line);

describe('parseCsv', () => {
  it('plain fields, LF, CRLF and CR line ends, no final line end', () => {
    expect(fieldsOf('a,b\n1,2\r\n3,4\r5,6')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
      ['5', '6'],
    ]);
    expect(linesOf('a,b\n1,2\r\n3,4\r5,6')).toEqual([1, 2, 3, 4]);
  });

  it('quoted fields: commas, doubled quotes, line breaks (the record keeps the line it starts on)', () => {
    const text = 'id,reason\n1,"late, again"\n2,"he said ""no"""\n3,"two\nlines"\n4,"crlf\r\ninside"\n5,x\n';
    expect(fieldsOf(text).slice(1)).toEqual([
      ['1', 'late, again'],
      ['2', 'he said "no"'],
      ['3', 'two\nlines'],
      ['4', 'crlf\r\ninside'],
      ['5', 'x'],
    ]);
    expect(linesOf(text)).toEqual([1, 2, 3, 4, 6, 8]);
  });

  it('spaces around fields are dropped, inside quotes kept; empty fields stay empty', () => {
    expect(fieldsOf(' a ,\tb\n 1 , " q " ,\n'.replace(',\n', '\n'))).toEqual([
      ['a', 'b'],
      ['1', ' q '],
    ]);
    expect(fieldsOf('a,b,c\n,,\n1,,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['', '', ''],
      ['1', '', '3'],
    ]);
  });

  it('a byte-order mark is dropped; blank and space-only lines are skipped and still counted', () => {
    expect(fieldsOf('\uFEFFa,b\n\n   \n1,2\n\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(linesOf('\uFEFFa,b\n\n   \n1,2\n\n')).toEqual([1, 4]);
    expect(parseCsv('')).toEqual([]);
  });

  it('accents and other scripts pass through', () => {
    expect(fieldsOf('name\nÜbersetzung\n"日本, 東京"\n')).toEqual([['name'], ['Übersetzung'], ['日本, 東京']]);
  });

  it.each([
    ['a,b\n1,2,3\n', 2, /3 fields where the header has 2/],
    ['a,b\n1\n', 2, /1 field where the header has 2/],
    ['a,b\n1,"open\n\n', 2, /quote opened on line 2 is never closed/],
    ['a,b\n1,"x"y\n', 2, /unexpected "y" after the closing quote/],
    ['a,b\n1,x"y\n', 2, /quote inside a field that does not start with one/],
    ['a,b\n1,2\n3,"multi\nline",9\n', 3, /3 fields where the header has 2/],
  ])('%j is refused on line %i', (text, line, message) => {
    let err: unknown;
    try {
      parseCsv(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CsvError);
    expect((err as CsvError).line).toBe(line);
    expect((err as CsvError).message).toMatch(message);
  });
});

describe('the same records as csv-parse', () => {
  // Cells as people write them: text with commas, quotes, line breaks, spaces, accents.
  const cell = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('', ' ', 'a, b', 'say "hi"', 'two\nlines', 'cr\r\nlf', ' padded ', 'Ünïcødé', '-7', '=1+1'),
  );
  const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;
  // A cell is quoted when it must be (or at random); unquoted cells lose outer spaces, as both trim.
  const written = (v: string, forceQuote: boolean) => (forceQuote || /[",\r\n]/.test(v) || v !== v.trim() ? quote(v) : v);

  it('over generated files', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }).chain((width) =>
          fc.record({
            header: fc.array(fc.stringMatching(/^[a-z_]{1,8}$/), { minLength: width, maxLength: width }),
            rows: fc.array(fc.array(fc.tuple(cell, fc.boolean()), { minLength: width, maxLength: width }), { maxLength: 8 }),
            eol: fc.constantFrom('\n', '\r\n'),
            finalEol: fc.boolean(),
          }),
        ),
        ({ header, rows, eol, finalEol }) => {
          const lines = [header.join(','), ...rows.map((r) => r.map(([v, q]) => written(v, q)).join(','))];
          const text = lines.join(eol) + (finalEol ? eol : '');
          const ours = parseCsv(text).map((r) => r.fields);
          // A row of one empty cell is a blank line to both readers.
          const expected = reference(text, { bom: true, trim: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
          expect(ours).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
