import { describe, expect, test } from 'vitest';
import { displayWidth, note, printObject, warn } from '../../src/output/index.js';
import { fakeIO } from '../support/fake-io.js';

const service = {
  id: 12,
  service_code: 'GPT4',
  is_active: true,
  description: 'Line one\nline two',
  created_by: { id: 3, username: 'ana', team: { name: 'ops' } },
  plans: [
    { plan_code: 'PRO-M', price: 19.99 },
    { plan_code: 'BASIC', price: 5, note: 'cheap' },
  ],
  tags: ['llm', 'text'],
  deleted_at: null,
};

describe('printObject json / ndjson', () => {
  test('json: pretty (2 spaces) and a newline', async () => {
    const io = fakeIO();
    await printObject(service, { format: 'json', io });
    expect(io.out()).toBe(JSON.stringify(service, null, 2) + '\n');
  });

  test('json with --fields: those keys, in order', async () => {
    const io = fakeIO();
    await printObject(service, {
      format: 'json',
      fields: ['service_code', 'created_by.username', 'missing'],
      io,
      knownFields: () => ['missing'],
    });
    expect(io.out()).toBe('{\n  "service_code": "GPT4",\n  "created_by.username": "ana",\n  "missing": null\n}\n');
    expect(io.err()).toBe('');
    // Neither in the answer nor in the contract: refused with the fields there are, nothing printed.
    const typo = fakeIO();
    await expect(printObject(service, { format: 'json', fields: ['service_code', 'servce_name'], io: typo })).rejects.toMatchObject({
      exitCode: 2,
      message: `--fields: 'servce_name' is neither in the answer nor in the contract; the fields are: ${Object.keys(service).join(', ')}`,
    });
    expect(typo.out()).toBe('');
  });

  test('ndjson: one line', async () => {
    const io = fakeIO();
    await printObject(service, { format: 'ndjson', io });
    expect(io.out()).toBe(JSON.stringify(service) + '\n');
  });

  test('non-objects print as JSON too', async () => {
    const io = fakeIO();
    await printObject([1, 2], { format: 'json', io });
    await printObject(undefined, { format: 'ndjson', io });
    expect(io.out()).toBe('[\n  1,\n  2\n]\nnull\n');
  });
});

describe('printObject table', () => {
  test('off a terminal: key<TAB>value lines, nested keys dotted, no colour', async () => {
    const io = fakeIO({ tty: false });
    await printObject(service, { format: 'table', io });
    expect(io.out()).toBe(
      [
        'id\t12',
        'service_code\tGPT4',
        'is_active\ttrue',
        'description\tLine one\\nline two',
        'created_by.id\t3',
        'created_by.username\tana',
        'created_by.team.name\tops',
        'plans\t[{"plan_code":"PRO-M","price":19.99},{"plan_code":"BASIC","price":5,"note":"cheap"}]',
        'tags\t["llm","text"]',
        'deleted_at\t',
        '',
      ].join('\n'),
    );
  });

  test('off a terminal with --fields', async () => {
    const io = fakeIO({ tty: false });
    await printObject(service, { format: 'table', fields: ['created_by.username', 'id'], io });
    expect(io.out()).toBe('created_by.username\tana\nid\t12\n');
  });

  test('on a terminal: key/value table, nested objects as indented sections, arrays of objects as sub-tables', async () => {
    const io = fakeIO({ tty: true, columns: 60, env: { NO_COLOR: '1' } });
    await printObject(service, { format: 'table', io });
    expect(io.out()).toBe(
      [
        'id            12',
        'service_code  GPT4',
        'is_active     true',
        'description   Line one\\nline two',
        'created_by',
        '  id        3',
        '  username  ana',
        '  team',
        '    name  ops',
        'plans (2)',
        '  plan_code  price  note',
        '  PRO-M      19.99',
        '  BASIC      5      cheap',
        'tags          ["llm","text"]',
        'deleted_at',
        '',
      ].join('\n'),
    );
  });

  test('on a terminal: long values cut to the width, keys coloured when colour is on', async () => {
    const io = fakeIO({ tty: true, columns: 30 });
    await printObject({ name: 'x'.repeat(100), n: 1 }, { format: 'table', io });
    const lines = io.out().trimEnd().split('\n');
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(30);
    expect(lines[0]).toBe(`\u001b[36mname\u001b[39m  ${'x'.repeat(23)}…`);
    expect(lines[1]).toBe('\u001b[36mn\u001b[39m     1');
  });

  test('an array as a table is printed as a list', async () => {
    const io = fakeIO({ tty: false });
    await printObject([{ a: 1 }, { a: 2 }], { format: 'table', io });
    expect(io.out()).toBe('a\n1\n2\n');
  });

  test('a scalar prints as its cell text', async () => {
    const io = fakeIO({ tty: false });
    await printObject('done', { format: 'table', io });
    expect(io.out()).toBe('done\n');
  });
});

describe('note / warn', () => {
  test('go to stderr, never stdout; note is silenced by quiet, warn is not', () => {
    const io = fakeIO({ tty: true, env: { NO_COLOR: '1' } });
    note(io, 'Showing 50 of 1203 services: use --all');
    note(io, 'hidden', { quiet: true });
    warn(io, 'credentials stored in a 0600 file\n');
    expect(io.out()).toBe('');
    expect(io.err()).toBe('Showing 50 of 1203 services: use --all\nwarning: credentials stored in a 0600 file\n');
  });

  test('warn colours its prefix only when stderr takes colour', () => {
    const tty = fakeIO({ tty: true });
    warn(tty, 'x');
    expect(tty.err()).toBe('\u001b[33mwarning:\u001b[39m x\n');
    const piped = fakeIO({ tty: false });
    warn(piped, 'x');
    expect(piped.err()).toBe('warning: x\n');
    const flag = fakeIO({ tty: true });
    warn(flag, 'x', { noColor: true });
    expect(flag.err()).toBe('warning: x\n');
  });
});
