import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { printList, printObject } from '../../src/output/index.js';
import { fakeIO } from '../support/fake-io.js';

/** Parses CSV with Python's csv module, the reader most spreadsheets' exports are checked against. */
function pythonCsv(text: string): string[][] {
  const code = [
    'import csv, io, json, sys',
    "reader = csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8', newline=''))",
    'print(json.dumps(list(reader)))',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', code], { input: Buffer.from(text, 'utf8') }).toString('utf8'));
}

const tricky = 'Comma, "double quotes", a\nnewline, a\r\nCRLF and accents: café, naïve, Ærø, 日本語, emoji 🎉';

describe('csv', () => {
  test('without --fields: every field, the lead columns first in their order, then the rest as the first row has them', async () => {
    const io = fakeIO();
    const rows = [
      { amount: 5, currency: 'USD', transaction_id: 7, username: 'ana', user_id: 3 },
      { amount: 6, currency: 'EUR', transaction_id: 8, username: 'bo', user_id: 4 },
    ];
    await printList(rows, { format: 'csv', lead: ['transaction_id', 'username', 'created_by.username', 'amount', 'username'], io });
    expect(pythonCsv(io.out())).toEqual([
      ['transaction_id', 'username', 'amount', 'currency', 'user_id'],
      ['7', 'ana', '5', 'USD', '3'],
      ['8', 'bo', '6', 'EUR', '4'],
    ]);
    const given = fakeIO();
    await printList(rows, { format: 'csv', fields: ['user_id'], lead: ['transaction_id'], io: given });
    expect(given.out()).toBe('user_id\n3\n4\n');
  });

  test('a cell with commas, quotes, newlines and accents round-trips through Python csv', async () => {
    const io = fakeIO();
    const rows = [
      { id: 1, text: tricky, plain: 'simple' },
      { id: 2, text: '', plain: ' leading and trailing spaces ' },
    ];
    expect(await printList(rows, { format: 'csv', io })).toBe(2);
    expect(pythonCsv(io.out())).toEqual([
      ['id', 'text', 'plain'],
      ['1', tricky, 'simple'],
      ['2', '', ' leading and trailing spaces '],
    ]);
  });

  test('formulas are neutralised (leading quote); numbers, negative ones included, are not', async () => {
    const io = fakeIO();
    const row = {
      formula: '=SUM(A1)',
      plus: '+1+2',
      minus: '-2+3+cmd|"/C calc"!A0',
      at: '@SUM(A1)',
      tab: '\t=1',
      cr: '\r=1',
      fullwidth: '＝1+1',
      negative: -5,
      negative_string: '-19.99',
      decimal: 3.25,
      safe: 'a=b',
    };
    await printList([row], { format: 'csv', io });
    const [header, values] = pythonCsv(io.out());
    expect(header).toEqual(Object.keys(row));
    expect(Object.fromEntries(header.map((h, i) => [h, values[i]]))).toEqual({
      formula: "'=SUM(A1)",
      plus: "'+1+2",
      minus: '\'-2+3+cmd|"/C calc"!A0',
      at: "'@SUM(A1)",
      tab: "'\t=1",
      cr: "'\r=1",
      fullwidth: "'＝1+1",
      negative: '-5',
      negative_string: '-19.99',
      decimal: '3.25',
      safe: 'a=b',
    });
  });

  test('exact bytes: nested objects JSON-encoded, booleans true/false, null and missing empty', async () => {
    const io = fakeIO();
    await printList(
      [
        { id: 1, active: true, meta: { tags: ['a', 'b'] }, deleted_at: null },
        { id: 2, active: false, meta: [], extra: 'ignored: not in the first row' },
      ],
      { format: 'csv', io },
    );
    expect(io.out()).toBe('id,active,meta,deleted_at\n1,true,"{""tags"":[""a"",""b""]}",\n2,false,[],\n');
  });

  test('columns: --fields (dotted) win over the command defaults, which win over the first row keys', async () => {
    const rows = [{ id: 1, name: 'Alpha', created_by: { username: 'ana' } }];
    const a = fakeIO();
    await printList(rows, { format: 'csv', columns: ['name', 'id'], io: a });
    expect(a.out()).toBe('name,id\nAlpha,1\n');
    const b = fakeIO();
    await printList(rows, { format: 'csv', columns: ['name', 'id'], fields: ['created_by.username', 'id'], io: b });
    expect(b.out()).toBe('created_by.username,id\nana,1\n');
  });

  test('an empty list: the header when the columns are known, else nothing', async () => {
    const a = fakeIO();
    expect(await printList([], { format: 'csv', columns: ['id', 'name'], io: a })).toBe(0);
    expect(a.out()).toBe('id,name\n');
    const b = fakeIO();
    await printList([], { format: 'csv', io: b });
    expect(b.out()).toBe('');
  });

  test('dates: ISO strings kept, Date objects as ISO', async () => {
    const io = fakeIO({ tty: true });
    await printList([{ at: '2026-03-01T09:30:00Z', d: new Date('2026-03-01T09:30:00Z') }], { format: 'csv', io });
    expect(io.out()).toBe('at,d\n2026-03-01T09:30:00Z,2026-03-01T09:30:00.000Z\n');
  });

  test('streams many rows from an async source in order, one header', async () => {
    async function* rows(): AsyncGenerator<Record<string, unknown>> {
      for (let i = 0; i < 1000; i++) {
        if (i % 100 === 0) await new Promise((r) => setImmediate(r));
        yield { id: i, label: `row, ${i}` };
      }
    }
    const io = fakeIO();
    expect(await printList(rows(), { format: 'csv', io })).toBe(1000);
    const parsed = pythonCsv(io.out());
    expect(parsed).toHaveLength(1001);
    expect(parsed[0]).toEqual(['id', 'label']);
    expect(parsed[1000]).toEqual(['999', 'row, 999']);
  });

  test('printObject: a header and one row, nested objects JSON-encoded in the cell', async () => {
    const io = fakeIO();
    await printObject({ id: 7, name: '=cmd', owner: { id: 3, username: 'ana' }, ok: true }, { format: 'csv', io });
    expect(io.out()).toBe('id,name,owner,ok\n7,\'=cmd,"{""id"":3,""username"":""ana""}",true\n');
    const withFields = fakeIO();
    await printObject({ id: 7, owner: { username: 'ana' } }, { format: 'csv', fields: ['owner.username'], io: withFields });
    expect(withFields.out()).toBe('owner.username\nana\n');
  });
});
