/**
 * `-o json` must not pay for cli-table3 or the CSV encoder: they are imported only by table.ts
 * and csv.ts, which printList/printObject load on demand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { fakeIO } from '../support/fake-io.js';

const loaded = vi.hoisted(() => ({ table: 0, csv: 0 }));

vi.mock('cli-table3', async (importOriginal) => {
  loaded.table++;
  return importOriginal();
});
vi.mock('../../src/output/csv.js', async (importOriginal) => {
  loaded.csv++;
  return importOriginal();
});

describe('lazy loading of the heavy printers', () => {
  test('json, ndjson and tables off a terminal load neither library; csv and terminal tables load theirs', async () => {
    const { printList, printObject } = await import('../../src/output/index.js');
    const rows = [{ id: 1, name: 'Alpha' }];
    for (const format of ['json', 'ndjson'] as const) {
      await printList(rows, { format, io: fakeIO() });
      await printObject(rows[0], { format, io: fakeIO() });
    }
    await printList(rows, { format: 'table', io: fakeIO({ tty: false }) });
    await printObject(rows[0], { format: 'table', io: fakeIO({ tty: false }) });
    expect(loaded).toEqual({ table: 0, csv: 0 });

    await printList(rows, { format: 'csv', io: fakeIO() });
    expect(loaded).toEqual({ table: 0, csv: 1 });

    const io = fakeIO({ tty: true, env: { NO_COLOR: '1' } });
    await printList(rows, { format: 'table', io });
    expect(io.out()).toBe('id  name\n1   Alpha\n');
    expect(loaded).toEqual({ table: 1, csv: 1 });
  });

  test('only table.ts and csv.ts import the libraries, and nothing imports them statically (but the lazily loaded wide.ts)', () => {
    const index = readFileSync(join(import.meta.dirname, '../../src/output/index.ts'), 'utf8');
    expect(index).not.toMatch(/^import\s[^;]*?from\s+'\.\/wide\.js'/m);
    const dir = join(import.meta.dirname, '../../src/output');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const src = readFileSync(join(dir, file), 'utf8');
      const staticImports = [...src.matchAll(/^import\s[^;]*?from\s+'([^']+)'/gms)]
        .filter((m) => !/^import\s+type\s/.test(m[0]))
        .map((m) => m[1]);
      if (file !== 'table.ts') expect(staticImports, file).not.toContain('cli-table3');
      // wide.ts shares the table's layout and is itself imported only lazily (index.ts).
      if (file !== 'wide.ts') expect(staticImports, file).not.toContain('./table.js');
      expect(staticImports, file).not.toContain('./csv.js');
    }
  });
});
