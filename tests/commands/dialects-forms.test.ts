/**
 * The read commands of tests/commands/dialects.test.ts in the forms people and scripts read
 * (CSV, the table off a terminal, the table on one), against both dialects of the sandbox
 * (src/sandbox/dialect.ts). For each command and dialect:
 * - `-o csv`, parsed: a header and as many records as the JSON form has rows, the id column
 *   the JSON form's ids, no cell empty where the JSON form has a value;
 * - no form shows `[object Object]`, `undefined` or `NaN`;
 * - the table off a terminal has a line a row (and a header), on a terminal too;
 * - `alt` prints the values the default prints: numbers as numbers (`19.99` or `"19.99"`), times
 *   as the same instant, a boolean `1` as `true`, a role object as its name. Fields the contract
 *   does not name are printed as received (docs/decisions.md, "Reading answers"): they are listed
 *   in UNTYPED below.
 * Terminal tables are drawn in a zone other than UTC, where a time without a zone shows whether
 * it was read as UTC.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/sandbox/dialect.js';
import { readDate, readNumber } from '../../src/api/read-values.js';
import { runCli, tempConfigDir, type RunResult } from '../support/run-cli.js';
import { fill, ids, jsonValues, lists, ones, printedRows, runAs, said, sandboxes, useDialectSandboxes, type Who } from './dialect-cases.js';

useDialectSandboxes();

const savedTz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Asia/Tokyo';
});
afterAll(() => {
  process.env.TZ = savedTz;
});

/**
 * Fields the contract does not type, by the start of the command line: printed as each platform
 * sent them (a field of a listed path: `user_details.role` covers `user_details.role.role_name`).
 */
const UNTYPED: Record<string, string[]> = {
  'users list': ['is_verified'],
  'users get': ['is_verified'],
  'profile get': ['is_verified'],
  // The audit log's details are any JSON (the readable change is built from them).
  audit: ['change'],
  // Referral answers: "item fields not shown" in the API documents.
  referrals: ['is_active', 'is_expired', 'user_details.role', 'user_summary.role'],
  'me test-services': ['requires_auth'],
  // The plan's and the service's fields in a service plan's detail are not listed either.
  'service-plans get': ['service_is_active', 'plan_is_active', 'auto_renewal'],
  // Not the same in two sandboxes by construction: where each listens, when each answered.
  'auth status': ['base_url'],
  dashboard: ['generated_at'],
};

/** Whether `field` of `line`'s output is one of UNTYPED. */
function untyped(line: string, field: string): boolean {
  return Object.entries(UNTYPED).some(
    ([start, fields]) => line.startsWith(start) && fields.some((f) => field === f || field.startsWith(`${f}.`)),
  );
}

interface Forms {
  json: RunResult;
  csv: RunResult;
  tsv: RunResult;
  tty: RunResult;
}

async function forms(dialect: Dialect, line: string, who: Who): Promise<Forms> {
  const [json, csv, tsv, tty] = [
    await runAs(dialect, `${line} -o json`, who),
    await runAs(dialect, `${line} -o csv`, who),
    await runAs(dialect, `${line} -o table`, who),
    await runAs(dialect, `${line} -o table --no-pager --no-color`, who, { tty: true, columns: 400 }),
  ];
  for (const r of [json, csv, tsv, tty]) expect(r.code, said(r)).toBe(0);
  return { json, csv, tsv, tty };
}

const BAD = /\[object Object\]|\bundefined\b|\bNaN\b/;

function noBadText(f: Forms, line: string): void {
  for (const [form, r] of Object.entries(f)) {
    if (form !== 'json') expect(r.stdout, `${line} -o ${form}`).not.toMatch(BAD);
  }
}

const records = (csv: string) => parse(csv, { relax_column_count: false }) as string[][];

/** Two printed values the same: the same text, the same number, or the same instant. */
function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const [x, y] = [readNumber(a), readNumber(b)];
  if (x !== undefined && y !== undefined) return x === y;
  const [s, t] = [readDate(a), readDate(b)];
  // The default sends milliseconds, `alt` whole seconds: the same instant to the second.
  return s !== undefined && t !== undefined && Math.abs(s - t) < 1000;
}

/** A cell's words (a sub-table's row, `amount=25 payment_method=card`), a date-time one word. */
const words = (cell: string) => cell.split(/\t|=| (?!\d{2}:\d{2}:\d{2})/);

function sameCell(a: string, b: string): boolean {
  const [x, y] = [words(a), words(b)];
  return x.length === y.length && x.every((w, i) => sameValue(w, y[i]));
}

/** Cells of JSON text (nested objects and lists) are the answer as received: not compared. */
const nested = (cell: string) => /^[[{]/.test(cell);

/** `alt`'s table (header, then rows of cells) against the default's, cell by cell; UNTYPED fields left out. */
function sameTable(def: string[][], alt: string[][], line: string, form: string): void {
  const typed = (t: string[][]) => {
    const keep = t[0].map((field) => !untyped(line, field));
    return t.map((row) => row.filter((_, j) => keep[j]));
  };
  [def, alt] = [typed(def), typed(alt)];
  // A header is compared as cells are: an object's keys off a terminal include a sub-table's first column.
  expect(
    alt[0].length === def[0].length && alt[0].every((h, j) => sameCell(def[0][j], h)),
    `${line} -o ${form}: the header ${JSON.stringify(alt[0])}, the default's ${JSON.stringify(def[0])}`,
  ).toBe(true);
  expect(alt.length, `${line} -o ${form}: the rows`).toBe(def.length);
  const differ: string[] = [];
  for (let i = 1; i < def.length; i++) {
    def[0].forEach((field, j) => {
      const [d, a] = [def[i][j] ?? '', alt[i][j] ?? ''];
      if ((nested(d) && nested(a)) || sameCell(d, a)) return;
      differ.push(`row ${i} ${field}: ${JSON.stringify(d)} (default) vs ${JSON.stringify(a)} (alt)`);
    });
  }
  expect(differ.slice(0, 5), `${line} -o ${form}`).toEqual([]);
}

const tsvCells = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t'));

/** The lines of a terminal table: its header and its rows. */
const ttyLines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/** The times a terminal table shows (`2026-11-26 14:03:27 +09:00`), as instants, in order of time. */
const ttyTimes = (text: string) =>
  [...text.matchAll(/(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) ([+-]\d{2}:\d{2})/g)]
    .map((m) => readDate(`${m[1]}${m[2]}`)!)
    .sort((a, b) => a - b);

/** `alt`'s terminal table shows the instants the default's shows (to the second). */
function sameTimes(def: string, alt: string, line: string): void {
  const [d, a] = [ttyTimes(def), ttyTimes(alt)];
  expect(a.length, `${line} -o table on a terminal: times shown`).toBe(d.length);
  const differ = d
    .filter((t, i) => Math.abs(t - a[i]) >= 1000)
    .map((t, i) => `${new Date(t).toISOString()} vs ${new Date(a[i]).toISOString()}`);
  expect(differ.slice(0, 3), `${line} -o table on a terminal: the same instants`).toEqual([]);
}

describe('every list, first page, in every form', () => {
  it.each(lists.map((c) => [c.line, c] as const))(
    '%s',
    async (_, c) => {
      const line = fill(c.line);
      const printed = {} as Record<Dialect, Forms>;
      for (const dialect of ['default', 'alt'] as const) {
        const f = (printed[dialect] = await forms(dialect, line, c.who));
        const rows = printedRows(f.json);
        expect(rows.length, `${line}: rows in the seeded data`).toBeGreaterThan(0);
        noBadText(f, `${line} (${dialect})`);
        const csv = records(f.csv.stdout);
        expect(csv.length, `${line} -o csv (${dialect}): a header and a record a row`).toBe(rows.length + 1);
        const id = csv[0].indexOf(c.id);
        expect(id, `${line} -o csv (${dialect}): the ${c.id} column`).toBeGreaterThanOrEqual(0);
        expect(
          csv.slice(1).map((r) => r[id]),
          `${line} -o csv (${dialect}): ids`,
        ).toEqual(ids(rows, c.id));
        const empty: string[] = [];
        csv.slice(1).forEach((record, i) =>
          csv[0].forEach((field, j) => {
            const v = rows[i][field];
            if (v !== null && v !== undefined && v !== '' && record[j] === '') empty.push(`row ${i + 1} ${field}`);
          }),
        );
        expect(empty.slice(0, 5), `${line} -o csv (${dialect}): cells empty where JSON has a value`).toEqual([]);
        expect(tsvCells(f.tsv.stdout).length, `${line} -o table (${dialect}), off a terminal`).toBe(rows.length + 1);
        expect(ttyLines(f.tty.stdout).length, `${line} -o table (${dialect}), on a terminal`).toBe(rows.length + 1);
      }
      sameTable(records(printed.default.csv.stdout), records(printed.alt.csv.stdout), line, 'csv');
      sameTable(tsvCells(printed.default.tsv.stdout), tsvCells(printed.alt.tsv.stdout), line, 'table');
      sameTimes(printed.default.tty.stdout, printed.alt.tty.stdout, line);
    },
    120_000,
  );
});

describe('every get, detail, report, stats and info, in every form', () => {
  it.each(ones.map((c) => [c.line, c] as const))(
    '%s',
    async (_, c) => {
      const line = fill(c.line);
      const printed = {} as Record<Dialect, Forms>;
      for (const dialect of ['default', 'alt'] as const) {
        const f = (printed[dialect] = await forms(dialect, line, c.who));
        expect(jsonValues(f.json.stdout).length, `${line}: JSON`).toBeGreaterThan(0);
        noBadText(f, `${line} (${dialect})`);
        expect(records(f.csv.stdout).length, `${line} -o csv (${dialect}): at least a header and a record`).toBeGreaterThanOrEqual(2);
      }
      sameTable(records(printed.default.csv.stdout), records(printed.alt.csv.stdout), line, 'csv');
      // Off a terminal an object is `key<TAB>value` lines: the same keys, the same values.
      // (the dashboard writes `key: value`).
      const keyValues = (text: string) => {
        const pairs = text
          .split('\n')
          // Indented lines (the dashboard's recent activity: audit details, any JSON) are left out.
          .filter((l) => l.trim() !== '' && !/^\s/.test(l))
          .map((l) => (l.includes('\t') ? l.split(/\t(.*)/) : l.split(/: (.*)/)));
        return [pairs.map((kv) => kv[0]), pairs.map((kv) => kv[1] ?? '')];
      };
      sameTable(keyValues(printed.default.tsv.stdout), keyValues(printed.alt.tsv.stdout), line, 'table');
      sameTimes(printed.default.tty.stdout, printed.alt.tty.stdout, line);
    },
    120_000,
  );
});

describe('a boolean that decides the exit code, in every form', () => {
  it.each([
    // An inactive service: no access; a code nobody holds: not valid.
    ['me access LEGACY-BOT', 'enduser'],
    ['referrals validate NO-SUCH-CODE', 'enduser'],
  ] as const)('%s (as %s): exit 5 in both dialects', async (line, who) => {
    for (const dialect of ['default', 'alt'] as const)
      for (const form of ['json', 'csv', 'table']) {
        const r = await runAs(dialect, `${line} -o ${form}`, who);
        expect(r.code, `${line} -o ${form} (${dialect}): ${said(r)}`).toBe(5);
      }
  });
});

describe('--fields in CSV', () => {
  it('a role object prints its name under `role`, and a path into it still selects the value sent', async () => {
    const json = printedRows(await runAs('alt', 'users list --limit 1 -o json', 'superadmin'))[0];
    const role = (json.role as { role_name: string }).role_name;
    const byName = await runAs('alt', 'users list --limit 1 -o csv --fields user_id,role', 'superadmin');
    expect(records(byName.stdout)).toEqual([
      ['user_id', 'role'],
      [json.user_id, role],
    ]);
    const byPath = await runAs('alt', 'users list --limit 1 -o csv --fields user_id,role.role_name', 'superadmin');
    expect(byPath.stderr).toBe('');
    expect(records(byPath.stdout)).toEqual([
      ['user_id', 'role.role_name'],
      [json.user_id, role],
    ]);
  });
});

describe('doctor', () => {
  it.each(['json', 'table'])('-o %s: the credential check reads `valid: 1` and a role object', async (form) => {
    for (const dialect of ['default', 'alt'] as const) {
      const r = await runAs(dialect, `doctor -o ${form}`, 'superadmin');
      const line = r.stdout.split('\n').find((l) => l.includes('credential'));
      const detail =
        form === 'json' ? (JSON.parse(r.stdout) as Array<Record<string, unknown>>).find((c) => c.check === 'credential') : undefined;
      const text = detail ? `${String(detail.status)} ${String(detail.detail)}` : (line ?? '');
      expect(text, `doctor -o ${form} (${dialect}): ${r.stdout.slice(0, 400)}`).toMatch(
        /^ok\s.*valid \(user superadmin, role superadmin\)/,
      );
    }
  });
});

describe('auth login and logout', () => {
  it.each(['json', 'table'])(
    '-o %s: the profile keeps the role by its name and the user id as a number, and logout revokes the token',
    async (form) => {
      for (const dialect of ['default', 'alt'] as const) {
        const env = { SUBCTL_CONFIG_DIR: tempConfigDir() };
        const login = await runCli(
          `auth login --base-url ${sandboxes[dialect].url} --profile p --username admin --password-stdin -o ${form}`,
          {
            env,
            stdin: 'sandbox-admin\n',
          },
        );
        expect(login.code, `${dialect}: ${said(login)}`).toBe(0);
        expect(login.stderr, dialect).toContain('signed in as admin (admin)');
        const profiles = records((await runCli('config list -o csv', { env })).stdout);
        expect(profiles[1][profiles[0].indexOf('role')], `${dialect}: the stored role`).toBe('admin');
        const logout = await runCli('auth logout --profile p', { env });
        expect(logout.code, `${dialect}: ${said(logout)}`).toBe(0);
        expect(logout.stderr, dialect).toBe("signed out of profile 'p'\n");
      }
    },
  );
});
