import { describe, expect, test } from 'vitest';
import { escapeControls, formatCell, getPath, OUTPUT_FORMATS, parseOutputFormat, pickFields } from '../../src/output/index.js';
import { UsageError } from '../../src/api/errors.js';

/** The local rendering with seconds and offset, computed independently of src/output/time.ts. */
function localSecondZone(iso: string): string {
  const d = new Date(iso);
  const p = (n: number): string => String(n).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  const zone = `${off < 0 ? '-' : '+'}${p(Math.floor(Math.abs(off) / 60))}:${p(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${zone}`;
}

describe('parseOutputFormat', () => {
  test.each(OUTPUT_FORMATS)('accepts %s', (f) => {
    expect(parseOutputFormat(f)).toBe(f);
  });

  test('is case-insensitive and trims', () => {
    expect(parseOutputFormat(' JSON ')).toBe('json');
    expect(parseOutputFormat('NDJSON')).toBe('ndjson');
  });

  test('rejects anything else with an error naming the allowed values (a usage error: exit 2)', () => {
    expect(() => parseOutputFormat('xml')).toThrow('invalid output format "xml": expected one of table, json, ndjson, csv');
    expect(() => parseOutputFormat('')).toThrow(/expected one of table, json, ndjson, csv/);
    try {
      parseOutputFormat('yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      expect((e as UsageError).exitCode).toBe(2);
    }
  });
});

describe('getPath / pickFields', () => {
  const row = {
    id: 7,
    created_by: { id: 3, username: 'ana', team: { name: 'ops' } },
    plans: [{ plan_code: 'PRO-M' }],
    'a.b': 'literal',
    zero: 0,
    off: false,
  };

  test('dotted paths, array indexes, a literal dotted key first', () => {
    expect(getPath(row, 'created_by.username')).toBe('ana');
    expect(getPath(row, 'created_by.team.name')).toBe('ops');
    expect(getPath(row, 'plans.0.plan_code')).toBe('PRO-M');
    expect(getPath(row, 'a.b')).toBe('literal');
    expect(getPath(row, 'created_by.missing.deeper')).toBeUndefined();
    expect(getPath(row, 'id.toString')).toBeUndefined();
    expect(getPath(null, 'id')).toBeUndefined();
  });

  test('keeps the requested keys in the requested order; missing fields are null; falsy values kept', () => {
    const picked = pickFields(row, ['created_by.username', 'id', 'nope', 'zero', 'off']);
    expect(Object.keys(picked)).toEqual(['created_by.username', 'id', 'nope', 'zero', 'off']);
    expect(picked).toEqual({ 'created_by.username': 'ana', id: 7, nope: null, zero: 0, off: false });
  });

  test('does not walk the prototype', () => {
    expect(getPath({}, 'constructor')).toBeUndefined();
    expect(getPath({ a: {} }, 'a.__proto__')).toBeUndefined();
  });
});

describe('formatCell', () => {
  test.each([
    [null, ''],
    [undefined, ''],
    [true, 'true'],
    [false, 'false'],
    [0, '0'],
    [-0, '0'],
    [1234567.891, '1234567.891'],
    [-42, '-42'],
    ['text, with "quotes"', 'text, with "quotes"'],
    [[1, 'a', null], '[1,"a",null]'],
    [{ a: { b: [1] } }, '{"a":{"b":[1]}}'],
    [{}, '{}'],
  ])('%j -> %j on and off a terminal (numbers exact everywhere)', (value, text) => {
    expect(formatCell(value, { tty: false })).toBe(text);
    expect(formatCell(value, { tty: true })).toBe(text);
  });

  test('bigints print exactly', () => {
    expect(formatCell(12345678901234567890n, { tty: false })).toBe('12345678901234567890');
  });

  test('ISO timestamps: kept as-is off a terminal, local YYYY-MM-DD HH:mm:ss +HH:MM on one', () => {
    for (const iso of ['2026-03-01T09:30:00Z', '2026-03-01T09:30:00.123Z', '2026-03-01T23:59:59+05:30', '2026-03-01T09:30']) {
      expect(formatCell(iso, { tty: false })).toBe(iso);
      expect(formatCell(iso, { tty: true })).toBe(localSecondZone(iso));
    }
  });

  test('date-only strings and non-dates are never rewritten', () => {
    expect(formatCell('2026-03-01', { tty: true })).toBe('2026-03-01');
    expect(formatCell('2026-13-45T99:99:00Z', { tty: true })).toBe('2026-13-45T99:99:00Z');
    expect(formatCell('released 2026-03-01T09:30:00Z', { tty: true })).toBe('released 2026-03-01T09:30:00Z');
  });

  test('Date objects: ISO off a terminal, local on one', () => {
    const d = new Date('2026-03-01T09:30:00Z');
    expect(formatCell(d, { tty: false })).toBe('2026-03-01T09:30:00.000Z');
    expect(formatCell(d, { tty: true })).toBe(localSecondZone('2026-03-01T09:30:00Z'));
    expect(formatCell(new Date('nope'), { tty: false })).toBe('');
  });

  test('objects JSON cannot encode fall back to text instead of throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(formatCell(cyclic, { tty: false })).toBe('[object Object]');
    expect(formatCell({ n: 5n }, { tty: false })).toBe('{"n":"5"}');
  });
});

describe('escapeControls', () => {
  test('newline, CR and tab become visible escapes; other control characters \\xHH', () => {
    expect(escapeControls('a\nb\r\nc\td')).toBe('a\\nb\\r\\nc\\td');
    expect(escapeControls('\u001b[31mred\u0007')).toBe('\\x1b[31mred\\x07');
    expect(escapeControls('café ✓')).toBe('café ✓');
  });
});
