/**
 * The read commands of every group against the sandbox in both of its dialects (src/sandbox/dialect.ts):
 * the default one, and `alt`, which answers the same data in another reading of the API
 * documents (decimals and ids as strings, booleans as 0/1, lists under other keys or bare,
 * pagination under other names). Each command runs with `-o json`, must exit 0 and print the
 * rows the sandbox holds, compared by id (as text: `alt` sends ids as strings):
 * - every list with `--all`: the ids the sandbox's SQLite database holds for it;
 * - every list without `--all`: the ids the default dialect answers to the very request the
 *   command sent (read from `--verbose`), the same data in both sandboxes;
 * - every get, detail, report, stats and info: the identifying values the database holds.
 * Both sandboxes start from copies of the same seeded file (tests/commands/dialect-cases.ts, shared
 * with tests/commands/dialects-forms.test.ts, which runs the same commands in CSV and table forms).
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/sandbox/dialect.js';
import type { RunResult } from '../support/run-cli.js';
import {
  accountName,
  fill,
  ids,
  jsonValues,
  lists,
  ones,
  printedRows,
  run,
  said,
  sandboxes,
  sorted,
  valuesOf,
  type Who,
  useDialectSandboxes,
} from './dialect-cases.js';

useDialectSandboxes();

/**
 * The rows the default dialect answers to the first GET of `path` that run `r` sent (read from
 * its --verbose log), asked again of the default sandbox as `who`.
 */
async function defaultAnswerRows(dialect: Dialect, r: RunResult, path: string, who: Who, key: string): Promise<string[]> {
  const base = sandboxes[dialect].url;
  const sent = r.stderr
    .split('\n')
    .map((l) => /^> GET (\S+) \(attempt 1\//.exec(l)?.[1])
    .find((u) => u !== undefined && u.startsWith(base) && new URL(u).pathname === path);
  expect(sent, `the command sent GET ${path}; its log: ${r.stderr.slice(0, 300)}`).toBeDefined();
  const u = new URL(sent!);
  const res = await fetch(`${sandboxes.default.url}${u.pathname}${u.search}`, {
    headers: { authorization: `Bearer ${sandboxes.default.tokenFor(accountName(who))}`, 'x-device-id': 'dialects-test' },
  });
  const data = ((await res.json()) as { data: unknown }).data;
  const rows = Array.isArray(data)
    ? data
    : Object.values(data as Record<string, unknown>).find(
        (v) => Array.isArray(v) && (v.length === 0 || (v[0] as Record<string, unknown>)[key] !== undefined),
      );
  expect(Array.isArray(rows), `rows with ${key} in the default answer to ${u.pathname}`).toBe(true);
  return ids(rows as Array<Record<string, unknown>>, key);
}

describe.each(['default', 'alt'] as const)('the %s dialect', (dialect) => {
  describe('every list, first page', () => {
    it.each(lists.map((c) => [c.line, c] as const))(
      '%s',
      async (_, c) => {
        const r = await run(dialect, fill(c.line), c.who, true);
        expect(r.code, said(r)).toBe(0);
        const expected = await defaultAnswerRows(dialect, r, fill(c.path), c.who, c.id);
        expect(ids(printedRows(r), c.id)).toEqual(expected);
      },
      120_000,
    );
  });

  describe('every list with --all', () => {
    it.each(lists.map((c) => [c.line, c] as const))(
      '%s --all',
      async (_, c) => {
        const r = await run(dialect, `${fill(c.line)} --all`, c.who);
        expect(r.code, said(r)).toBe(0);
        const expected = c.all();
        expect(expected.length, 'the seeded data holds rows for this list').toBeGreaterThan(0);
        expect(sorted(ids(printedRows(r), c.id))).toEqual(sorted(expected));
      },
      300_000,
    );
  });

  describe('every get, detail, report, stats and info', () => {
    it.each(ones.map((c) => [c.line, c] as const))(
      '%s',
      async (_, c) => {
        const line = fill(c.line);
        const r = await run(dialect, line, c.who);
        expect(r.code, said(r)).toBe(0);
        const printed = jsonValues(r.stdout);
        expect(printed.length, `JSON on stdout, got: ${r.stdout.slice(0, 300)}`).toBeGreaterThan(0);
        for (const [key, values] of Object.entries(c.expect())) {
          expect(values.length, `the database holds ${key} for ${line}`).toBeGreaterThan(0);
          const found = new Set(valuesOf(printed, key));
          if (c.oneOf)
            expect(
              values.some((v) => found.has(v)),
              `one of ${key} ${values.join(', ')} in the output of ${line}`,
            ).toBe(true);
          else for (const v of values) expect(found.has(v), `${key} ${v} in the output of ${line}`).toBe(true);
        }
      },
      120_000,
    );
  });
});
