import { describe, expect, test } from 'vitest';
import { displayWidth, printList } from '../../src/output/index.js';
import { fakeIO } from '../support/fake-io.js';

const rows = [
  { id: 1, name: 'Alpha', active: true, price: 19.99, created_by: { id: 3, username: 'ana' } },
  { id: 22, name: 'Beta, "b"\nsecond line', active: false, price: null, created_by: { id: 4, username: 'bo' } },
  { id: 333, name: 'Ærø 日本', active: true, price: 1234567, created_by: null },
];

async function* asyncRows<T>(items: T[]): AsyncGenerator<T> {
  for (const it of items) {
    await new Promise((r) => setImmediate(r));
    yield it;
  }
}

describe('json', () => {
  test.each([0, 1, 3])('%i rows: exactly JSON.stringify(rows, null, 2) and parseable', async (n) => {
    const io = fakeIO();
    const count = await printList(rows.slice(0, n), { format: 'json', io });
    expect(count).toBe(n);
    expect(io.out()).toBe(JSON.stringify(rows.slice(0, n), null, 2) + '\n');
    expect(JSON.parse(io.out())).toEqual(rows.slice(0, n));
  });

  test('an empty list prints []', async () => {
    const io = fakeIO();
    await printList([], { format: 'json', io });
    expect(io.out()).toBe('[]\n');
  });

  test('streams from an async source, the same bytes', async () => {
    const io = fakeIO();
    expect(await printList(asyncRows(rows), { format: 'json', io })).toBe(3);
    expect(io.out()).toBe(JSON.stringify(rows, null, 2) + '\n');
  });

  test('--fields: only those keys, in that order, dotted paths flat; a missing value is null', async () => {
    const io = fakeIO();
    await printList(rows, { format: 'json', fields: ['name', 'created_by.username', 'id'], io });
    const parsed = JSON.parse(io.out());
    expect(parsed).toEqual([
      { name: 'Alpha', 'created_by.username': 'ana', id: 1 },
      { name: 'Beta, "b"\nsecond line', 'created_by.username': 'bo', id: 22 },
      { name: 'Ærø 日本', 'created_by.username': null, id: 333 },
    ]);
    expect(Object.keys(parsed[0])).toEqual(['name', 'created_by.username', 'id']);
  });

  test('default columns do not limit json: every field the server returned', async () => {
    const io = fakeIO();
    await printList(rows, { format: 'json', columns: ['id'], io });
    expect(JSON.parse(io.out())).toEqual(rows);
  });

  test('many rows (several write chunks) stay one valid array', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({ id: i, note: `row ${i}` }));
    const io = fakeIO();
    expect(await printList(many, { format: 'json', io })).toBe(5000);
    expect(JSON.parse(io.out())).toEqual(many);
  });
});

describe('ndjson', () => {
  test('one compact object a line', async () => {
    const io = fakeIO();
    expect(await printList(rows, { format: 'ndjson', io })).toBe(3);
    expect(io.out()).toBe(rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  });

  test('with --fields', async () => {
    const io = fakeIO();
    await printList(asyncRows(rows), { format: 'ndjson', fields: ['id', 'created_by.id'], io });
    expect(io.out()).toBe('{"id":1,"created_by.id":3}\n{"id":22,"created_by.id":4}\n{"id":333,"created_by.id":null}\n');
  });

  test('an empty list prints nothing', async () => {
    const io = fakeIO();
    expect(await printList([], { format: 'ndjson', io })).toBe(0);
    expect(io.out()).toBe('');
  });
});

describe('table off a terminal', () => {
  test('tab-separated, field names as header, no colour, nothing cut, one line a row', async () => {
    const io = fakeIO({ tty: false });
    await printList(rows, { format: 'table', columns: ['id', 'name', 'active', 'price', 'created_by.username'], io });
    expect(io.out()).toBe(
      'id\tname\tactive\tprice\tcreated_by.username\n' +
        '1\tAlpha\ttrue\t19.99\tana\n' +
        '22\tBeta, "b"\\nsecond line\tfalse\t\tbo\n' +
        '333\tÆrø 日本\ttrue\t1234567\t\n',
    );
  });

  test('no columns given: the first row keys; nested objects as compact JSON; ISO times kept', async () => {
    const io = fakeIO({ tty: false });
    await printList([{ id: 1, meta: { a: [1, 2] }, at: '2026-03-01T09:30:00Z', tab: 'a\tb' }], { format: 'table', io });
    expect(io.out()).toBe('id\tmeta\tat\ttab\n1\t{"a":[1,2]}\t2026-03-01T09:30:00Z\ta\\tb\n');
  });

  test('--fields win over the default columns', async () => {
    const io = fakeIO({ tty: false });
    await printList(rows, { format: 'table', columns: ['id', 'name'], fields: ['name', 'id'], io });
    expect(io.out().split('\n')[0]).toBe('name\tid');
  });

  test('a very long cell is not cut', async () => {
    const long = 'x'.repeat(5000);
    const io = fakeIO({ tty: false });
    await printList([{ id: 1, text: long }], { format: 'table', io });
    expect(io.out()).toBe(`id\ttext\n1\t${long}\n`);
  });

  test('an empty list: the header alone when the columns are known, else nothing', async () => {
    const a = fakeIO();
    await printList([], { format: 'table', columns: ['id', 'name'], io: a });
    expect(a.out()).toBe('id\tname\n');
    const b = fakeIO();
    await printList([], { format: 'table', io: b });
    expect(b.out()).toBe('');
  });
});

describe('table on a terminal', () => {
  test('aligned columns two spaces apart, exact bytes (no colour asked)', async () => {
    const io = fakeIO({ tty: true, columns: 80 });
    await printList(rows, { format: 'table', columns: ['id', 'name', 'active', 'price'], noColor: true, io });
    expect(io.out()).toBe(
      [
        'id   name                    active  price',
        '1    Alpha                   true    19.99',
        '22   Beta, "b"\\nsecond line  false',
        '333  Ærø 日本                true    1234567',
        '',
      ].join('\n'),
    );
  });

  test('coloured headers (bold cyan) when colour is on; rows plain', async () => {
    const io = fakeIO({ tty: true, columns: 80 });
    await printList([{ id: 1, name: 'Alpha' }], { format: 'table', io });
    expect(io.out()).toBe('\u001b[1m\u001b[36mid\u001b[39m\u001b[22m  \u001b[1m\u001b[36mname\u001b[39m\u001b[22m\n1   Alpha\n');
  });

  test('fitted to the terminal: widest column shrunk, cells cut with …, never wrapped', async () => {
    const wide = [
      { id: 1, code: 'GPT4', description: 'A very long description that will never fit in a narrow terminal at all', status: 'active' },
      { id: 2, code: 'DALLE', description: 'Short', status: 'paused' },
    ];
    const io = fakeIO({ tty: true, columns: 40, env: { NO_COLOR: '1' } });
    await printList(wide, { format: 'table', io });
    const lines = io.out().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    expect(io.out()).toBe(
      [
        'id  code   description            status',
        '1   GPT4   A very long descript…  active',
        '2   DALLE  Short                  paused',
        '',
      ].join('\n'),
    );
    expect(io.err()).toBe('');
  });

  test('wide characters count two columns', async () => {
    const io = fakeIO({ tty: true, columns: 20, env: { NO_COLOR: '1' } });
    await printList([{ id: 1, name: '日本語のテキストです長い' }], { format: 'table', io });
    for (const l of io.out().trimEnd().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(20);
    expect(io.out()).toBe('id  name\n1   日本語のテキス…\n');
  });

  test('too many columns for the terminal: the rightmost are left out, said on stderr', async () => {
    const row = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`column_${i}`, `value number ${i}`]));
    const io = fakeIO({ tty: true, columns: 50, env: { NO_COLOR: '1' } });
    await printList([row], { format: 'table', io });
    for (const l of io.out().trimEnd().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(50);
    expect(io.out().split('\n')).toHaveLength(3);
    expect(io.err()).toMatch(/^note: \d+ columns not shown to fit the terminal \(.*column_11\); choose with --fields or use -o json\n$/);
  });

  test('timestamps shown in local time, control characters escaped (server text cannot drive the terminal)', async () => {
    const io = fakeIO({ tty: true, columns: 80, env: { NO_COLOR: '1' } });
    await printList([{ at: '2026-03-01T09:30:00Z', text: '\u001b[2Jboom\r\n' }], { format: 'table', io });
    const d = new Date('2026-03-01T09:30:00Z');
    const p = (n: number): string => String(n).padStart(2, '0');
    const off = -d.getTimezoneOffset();
    const zone = `${off < 0 ? '-' : '+'}${p(Math.floor(Math.abs(off) / 60))}:${p(Math.abs(off) % 60)}`;
    // To the second, with the zone (src/output/time.ts).
    const local = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:00 ${zone}`;
    expect(io.out()).toBe(`at                          text\n${local}  \\x1b[2Jboom\\r\\n\n`);
  });

  test('more rows than one layout page: widths from the first page, later rows cut to them, one line each', async () => {
    const many = Array.from({ length: 2500 }, (_, i) => ({ id: i, name: i < 1000 ? 'short' : 'a much longer name than before' }));
    const io = fakeIO({ tty: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(await printList(asyncRows(many), { format: 'table', io })).toBe(2500);
    const lines = io.out().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(2501);
    // ids 0..999 are 3 wide, names 5: each column gets 4 columns of headroom for the rows to come.
    expect(lines[0]).toBe('id       name');
    expect(lines[1]).toBe('0        short');
    expect(lines[2500]).toBe('2499     a much l…');
  });

  test('an empty list prints nothing on stdout', async () => {
    const io = fakeIO({ tty: true });
    expect(await printList([], { format: 'table', columns: ['id'], io })).toBe(0);
    expect(io.out()).toBe('');
  });
});

describe('--fields naming a field no row has (a typo)', () => {
  test.each(['json', 'ndjson', 'csv', 'table'] as const)(
    '%s: refused (exit 2) with the fields there are, nothing printed',
    async (format) => {
      const io = fakeIO();
      const refused = printList(asyncRows(rows), { format, io, fields: ['name', 'nmae', 'created_by.username', 'created_by.email'] });
      await expect(refused).rejects.toMatchObject({
        exitCode: 2,
        message:
          "--fields: 'nmae', 'created_by.email' are neither in the answer nor in the contract; the fields are: id, name, active, price, created_by",
      });
      expect(io.out()).toBe('');
      // A field of the contract is no typo, whether or not the rows have it.
      const contract = fakeIO();
      expect(
        await printList(asyncRows(rows), { format, io: contract, fields: ['name', 'nmae'], knownFields: () => ['id', 'name', 'nmae'] }),
      ).toBe(3);
      const quiet = fakeIO();
      await printList(asyncRows(rows), { format, io: quiet, fields: ['name', 'created_by.username'] });
      expect(quiet.err()).toBe('');
    },
  );

  test('a field that only a later row has is no typo; an empty list says nothing; only the first 1,000 rows are looked at', async () => {
    const io = fakeIO();
    await printList([{ id: 1 }, { id: 2, note: 'x' }], { format: 'ndjson', io, fields: ['id', 'note'] });
    expect(io.err()).toBe('');
    const empty = fakeIO();
    await printList([], { format: 'csv', io: empty, fields: ['nope'] });
    expect(empty.err()).toBe('');
    const many = Array.from({ length: 1500 }, (_, i) => (i === 1200 ? { id: i, late: 1 } : { id: i }));
    const late = fakeIO();
    await expect(printList(many, { format: 'ndjson', io: late, fields: ['id', 'late'] })).rejects.toMatchObject({ exitCode: 2 });
    expect(late.out()).toBe('');
    // Found within the first 1,000 rows: every row printed, in order.
    const found = fakeIO();
    const sparse = Array.from({ length: 1500 }, (_, i) => (i === 900 ? { id: i, late: 1 } : { id: i }));
    expect(await printList(asyncRows(sparse), { format: 'ndjson', io: found, fields: ['id', 'late'] })).toBe(1500);
    expect(found.out().split('\n')[900]).toBe('{"id":900,"late":1}');
  });
});
