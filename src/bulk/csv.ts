/**
 * The CSV reader of bulk input (RFC 4180), written for it: csv-parse, with the line numbers and
 * trimming bulk input needs, is several times slower on a run's input, read cold as a run meets it.
 *
 * - Fields are separated by `,`, records by LF, CRLF or CR; a leading byte-order mark is dropped.
 * - A field may be quoted (`"a, b"`, with `""` for a quote); quoted fields may span lines.
 * - Spaces and tabs around a field are dropped (inside quotes they are kept).
 * - Lines holding nothing but spaces are skipped.
 * - Every record has the header's number of fields.
 * - Each record carries the line it starts on (1-based).
 */

export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const COMMA = 44;
const QUOTE = 34;
const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

/**
 * Every record of `text`, the header first; errors name the line. One loop over the characters
 * with its state in locals, kept whole: split, its parts would hand that state back and forth.
 */
export function parseCsv(text: string): CsvRecord[] {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const n = s.length;
  const records: CsvRecord[] = [];
  let i = 0;
  let line = 1;
  let width = -1;

  while (i < n) {
    const start = line;
    const fields: string[] = [];
    let blank = true;
    // One record: fields until a record separator or the end.
    for (;;) {
      while (i < n && (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB)) i++;
      let value: string;
      if (i < n && s.charCodeAt(i) === QUOTE) {
        blank = false;
        const opened = line;
        i++;
        let out = '';
        let from = i;
        for (;;) {
          if (i >= n) throw new CsvError(`a quote opened on line ${opened} is never closed`, opened);
          const c = s.charCodeAt(i);
          if (c === QUOTE) {
            if (s.charCodeAt(i + 1) === QUOTE) {
              out += s.slice(from, i + 1);
              i += 2;
              from = i;
              continue;
            }
            out += s.slice(from, i);
            i++;
            break;
          }
          if (c === LF || (c === CR && s.charCodeAt(i + 1) !== LF)) line++;
          i++;
        }
        value = out;
        while (i < n && (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB)) i++;
        if (i < n) {
          const c = s.charCodeAt(i);
          if (c !== COMMA && c !== LF && c !== CR) {
            throw new CsvError(
              `unexpected ${JSON.stringify(s[i])} after the closing quote of a field (a quote inside a quoted field is written "")`,
              line,
            );
          }
        }
      } else {
        const from = i;
        while (i < n) {
          const c = s.charCodeAt(i);
          if (c === COMMA || c === LF || c === CR) break;
          if (c === QUOTE)
            throw new CsvError('a quote inside a field that does not start with one (quote the whole field: "a ""b"" c")', line);
          i++;
        }
        let to = i;
        while (to > from && (s.charCodeAt(to - 1) === SPACE || s.charCodeAt(to - 1) === TAB)) to--;
        value = s.slice(from, to);
        if (to > from) blank = false;
      }
      fields.push(value);
      if (i < n && s.charCodeAt(i) === COMMA) {
        blank = false;
        i++;
        continue;
      }
      // End of the record: a line break (CRLF counts once) or the end of the text.
      if (i < n) {
        if (s.charCodeAt(i) === CR && s.charCodeAt(i + 1) === LF) i++;
        i++;
        line++;
      }
      break;
    }
    if (blank) continue;
    if (width < 0) width = fields.length;
    else if (fields.length !== width) {
      throw new CsvError(`${fields.length} field${fields.length === 1 ? '' : 's'} where the header has ${width}`, start);
    }
    records.push({ line: start, fields });
  }
  return records;
}
