import { describe, expect, test } from 'vitest';
import { printList, printObject, type OutputFormat } from '../../src/output/index.js';
import { fakeIO, type FakeIOOptions } from '../support/fake-io.js';

const ESC = '\u001b[';
const rows = [{ id: 1, name: 'Alpha' }];

async function tableOut(io: FakeIOOptions, noColor = false): Promise<string> {
  const f = fakeIO(io);
  await printList(rows, { format: 'table', io: f, noColor });
  return f.out();
}

describe('colour rules (clig.dev): escape codes only when stdout takes colour', () => {
  test('a terminal with nothing set: coloured headers', async () => {
    expect(await tableOut({ tty: true })).toContain(`${ESC}1m${ESC}36mid`);
  });

  test.each([
    ['NO_COLOR set', { tty: true, env: { NO_COLOR: '1' } }, false],
    ['TERM=dumb', { tty: true, env: { TERM: 'dumb' } }, false],
    ['stdout not a terminal', { tty: false }, false],
    ['--no-color', { tty: true }, true],
    ['FORCE_COLOR=0 on a terminal', { tty: true, env: { FORCE_COLOR: '0' } }, false],
    ['FORCE_COLOR=1 with --no-color (the flag wins)', { tty: false, env: { FORCE_COLOR: '1' } }, true],
  ] as const)('%s: no escape codes', async (_name, io, flag) => {
    const out = await tableOut(io as FakeIOOptions, flag);
    expect(out).not.toContain('\u001b');
    expect(out.split('\n')[1]).toMatch(/^1\s+Alpha$/);
  });

  test('an empty NO_COLOR does not count (no-color.org)', async () => {
    expect(await tableOut({ tty: true, env: { NO_COLOR: '' } })).toContain(ESC);
  });

  test.each([
    ['off a terminal', { tty: false, env: { FORCE_COLOR: '1' } }],
    ['over NO_COLOR', { tty: true, env: { FORCE_COLOR: '1', NO_COLOR: '1' } }],
    ['over TERM=dumb', { tty: true, env: { FORCE_COLOR: '3', TERM: 'dumb' } }],
  ] as const)('FORCE_COLOR wins %s', async (_name, io) => {
    expect(await tableOut(io as FakeIOOptions)).toContain(`${ESC}1m${ESC}36mid`);
  });

  test('FORCE_COLOR off a terminal colours the header but keeps the tab-separated layout', async () => {
    expect(await tableOut({ tty: false, env: { FORCE_COLOR: '1' } })).toBe(
      `${ESC}1m${ESC}36mid${ESC}39m${ESC}22m\t${ESC}1m${ESC}36mname${ESC}39m${ESC}22m\n1\tAlpha\n`,
    );
  });

  test.each(['json', 'ndjson', 'csv'] as OutputFormat[])(
    '%s never carries escape codes, even with FORCE_COLOR on a terminal',
    async (format) => {
      const io = fakeIO({ tty: true, env: { FORCE_COLOR: '1' } });
      await printList(rows, { format, io });
      await printObject(rows[0], { format, io });
      expect(io.out()).not.toContain('\u001b');
    },
  );

  test('printObject on a terminal follows the same rules', async () => {
    const on = fakeIO({ tty: true });
    await printObject({ id: 1, owner: { name: 'ana' } }, { format: 'table', io: on });
    expect(on.out()).toContain(ESC);
    for (const opts of [{ env: { NO_COLOR: '1' } }, { env: { TERM: 'dumb' } }] as FakeIOOptions[]) {
      const off = fakeIO({ tty: true, ...opts });
      await printObject({ id: 1, owner: { name: 'ana' } }, { format: 'table', io: off });
      expect(off.out()).not.toContain('\u001b');
    }
    const flag = fakeIO({ tty: true });
    await printObject({ id: 1, owner: { name: 'ana' } }, { format: 'table', io: flag, noColor: true });
    expect(flag.out()).toBe('id  1\nowner\n  name  ana\n');
  });
});
