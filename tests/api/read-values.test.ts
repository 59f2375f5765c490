/** Values that steer a decision (src/api/read-values.ts) and rows found (src/api/rows.ts). */
import { describe, expect, it } from 'vitest';
import { readBoolean, readDate, readDay, readId, readLabel, readNumber, readWhole, sameId } from '../../src/api/read-values.js';
import { findRows, totalsOf } from '../../src/api/rows.js';
import { servicesList } from '../../src/api/contract/admin-services.js';

describe('read-values', () => {
  it('a label from text, a number, or the first text field of an object', () => {
    expect(readLabel(' admin ', ['role_name'])).toBe('admin');
    expect(readLabel(7, [])).toBe('7');
    expect(readLabel({ role_name: 'admin', name: 'x' }, ['role_name', 'name'])).toBe('admin');
    expect(readLabel({ role_name: ' ', name: 'ops' }, ['role_name', 'name'])).toBe('ops');
    for (const v of [undefined, null, '', '  ', [], ['admin'], true, NaN, {}, { role_name: 3 }])
      expect(readLabel(v, ['role_name'])).toBeUndefined();
  });

  it('numbers from numbers or decimal text only', () => {
    expect(readNumber('19.99')).toBe(19.99);
    expect(readNumber(' 12 ')).toBe(12);
    expect(readNumber(5)).toBe(5);
    for (const v of ['0x10', '', 'abc', '1,5', null, undefined, {}, [], true, Infinity, NaN]) expect(readNumber(v)).toBeUndefined();
  });

  it('whole numbers: counts and numeric ids', () => {
    expect(readWhole('12')).toBe(12);
    expect(readWhole('12.0')).toBe(12);
    expect(readWhole(3)).toBe(3);
    expect(readWhole('12.5')).toBeUndefined();
    expect(readWhole('')).toBeUndefined();
  });

  it('ids: one value whatever the spelling; unreadable is undefined', () => {
    expect(readId('42')).toBe(42);
    expect(readId(42)).toBe(42);
    expect(readId(' A-12 ')).toBe('A-12');
    expect(readId('9007199254740993')).toBe('9007199254740993');
    for (const v of [null, undefined, '', ' ', {}, [1], true, 1.5]) expect(readId(v)).toBeUndefined();
    expect(sameId('7', 7)).toBe(true);
    expect(sameId('7', 8)).toBe(false);
    expect(sameId(undefined, undefined)).toBe(false);
  });

  it('booleans from true/false, 1/0 and their text', () => {
    expect([true, 1, '1', 'true', 'TRUE', 'yes'].map(readBoolean)).toEqual([true, true, true, true, true, true]);
    expect([false, 0, '0', 'false', 'no'].map(readBoolean)).toEqual([false, false, false, false, false]);
    // The flags of databases that keep them as one letter.
    expect(['Y', 'y', ' N ', 'n'].map(readBoolean)).toEqual([true, true, false, false]);
    for (const v of [2, 'maybe', 'yn', 'T', null, {}]) expect(readBoolean(v)).toBeUndefined();
  });

  it('ISO dates with or without a time or zone; a time without a zone is UTC', () => {
    expect(readDate('2026-01-31')).toBe(Date.UTC(2026, 0, 31));
    expect(readDate('2026-01-31T10:00')).toBe(Date.UTC(2026, 0, 31, 10));
    expect(readDate('2026-01-31 10:00:05')).toBe(Date.UTC(2026, 0, 31, 10, 0, 5));
    expect(readDate('2026-01-31T10:00:05.250Z')).toBe(Date.UTC(2026, 0, 31, 10, 0, 5, 250));
    expect(readDate('2026-01-31T12:00:00+02:00')).toBe(Date.UTC(2026, 0, 31, 10));
    expect(readDate('2026-01-31T12:00:00+0200')).toBe(Date.UTC(2026, 0, 31, 10));
    for (const v of ['2026-02-30', '2026-13-01', '31/01/2026', 'tomorrow', '', 1738000000, null]) expect(readDate(v)).toBeUndefined();
    expect(readDay('2026-01-31T23:30:00-02:00')).toBe('2026-02-01');
  });
});

describe('rows', () => {
  it("the contract's key, data as a list, the single list-valued field; otherwise none, naming the keys", () => {
    expect(findRows(servicesList, { services: [{ a: 1 }] })).toEqual({ rows: [{ a: 1 }], from: 'data.services' });
    expect(findRows(servicesList, [{ a: 1 }]).from).toBe('data');
    const other = findRows(servicesList, { pagination: {}, codes: [{ a: 1 }] });
    expect(other.rows).toEqual([{ a: 1 }]);
    expect(other.note).toBe('note: rows read from data.codes; the API documents name data.services');
    const none = findRows(servicesList, { x: [1], y: [2], z: 3 });
    expect(none.rows).toBeUndefined();
    expect(none.note).toContain('data holds x, y, z');
    expect(findRows(servicesList, { pagination: { total_records: 0 } }).rows).toEqual([]);
    expect(findRows(servicesList, null).rows).toEqual([]);
  });

  it("paging under the contract's names and the common alternatives, numbers as text", () => {
    expect(totalsOf(servicesList, { pagination: { total_pages: 3, total_records: 50 } })).toEqual({ totalPages: 3, totalRecords: 50 });
    expect(totalsOf(servicesList, { meta: { totalPages: '4', totalRecords: '61' } })).toEqual({ totalPages: 4, totalRecords: 61 });
    expect(totalsOf(servicesList, { total_count: '7' })).toEqual({ totalPages: undefined, totalRecords: 7 });
    expect(totalsOf(servicesList, { pagination: { total_items: 9, total_rows: 8 } }).totalRecords).toBe(9);
  });

  it('whether a page follows and the page size served, where the platform says only that', () => {
    expect(totalsOf(servicesList, { pagination: { page_number: 2, page_size: '7', has_next_page: 'Y' } })).toEqual({
      hasNext: true,
      served: 7,
    });
    expect(totalsOf(servicesList, { meta: { hasMore: false, per_page: 25 } })).toEqual({ hasNext: false, served: 25 });
    expect(totalsOf(servicesList, { has_more: 1, limit: 10 })).toEqual({ hasNext: true, served: 10 });
    // Not a size: nothing, zero, a fraction; not a word on the next page: text that is no boolean.
    expect(totalsOf(servicesList, { pagination: { page_size: 0, has_next_page: 'maybe' }, per_page: '2.5' })).toEqual({});
    // An answer holding only such facts is an empty list.
    expect(findRows(servicesList, { has_next_page: false, page_size: 20 }).rows).toEqual([]);
  });
});
