/**
 * Every read command against a third reading of the API documents (tests/commands/dialect-third.ts:
 * JSend's envelope without a message, booleans as Y/N, times with an offset, `null` for empty
 * lists, rows under `records`, paged lists that only say whether a next page follows, or only
 * their row count, and serve fewer rows than asked). The commands are the contract's GET
 * endpoints, as `api endpoints` lists them. For each:
 * - `-o json`, `-o csv` and the table (off and on a terminal) exit 0 and show no
 *   `[object Object]`, `undefined`, `NaN` or `Invalid Date`; a list's forms hold a row for each
 *   row of its JSON;
 * - CSV and the table show what the sandbox behind the platform shows answering in its own
 *   dialect (the reference), cell by cell: the same text, number or instant; each list with
 *   `--all`, every row by id, asked at the contract's page size as against any platform;
 * - `--strict` exits 6 naming the envelope's status, and `--verbose` lists the deviations.
 * Beside them: `catalog export` and shell completion read the third platform as the sandbox, and
 * a few stubs of pages shorter than asked.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointByName, matchEndpoint } from '../../src/api/contract/index.js';
import { readDate, readId, readNumber } from '../../src/api/read-values.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli, tempConfigDir, type RunOptions, type RunResult } from '../support/run-cli.js';
import { ok, startStubServer } from '../support/stub-server.js';
import { jsonValues, printedRows, said } from './dialect-cases.js';
import { PAGE_CAP, startThirdPlatform, type ThirdPlatform } from './dialect-third.js';

let sandbox: Sandbox;
let third: ThirdPlatform;
/** The seeded referrer with the most referred users: the self-service referral reads have rows. */
let referrer: { user_id: number; username: string };
/** The read commands: the contract's GET endpoints with the command each is read by. */
let reads: Array<{ name: string; command: string }> = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  third = await startThirdPlatform(sandbox.url);
  referrer = sandbox.db
    .prepare(
      `SELECT u.user_id, u.username FROM referral_uses ru JOIN users u ON u.user_id = ru.referrer_id
       GROUP BY ru.referrer_id ORDER BY COUNT(*) DESC, u.user_id LIMIT 1`,
    )
    .get() as { user_id: number; username: string };
  const listed = await runCli('api endpoints -o json');
  reads = (JSON.parse(listed.stdout) as Array<{ method: string; name: string; command: string }>)
    .filter((e) => e.method === 'GET')
    .map((e) => ({ name: e.name, command: e.command.replace(/^subctl /, '') }));
}, 120_000);
afterAll(async () => {
  await third?.close();
  await sandbox?.close();
});

/** The arguments a read needs, by endpoint name (none for the others). */
const ARGS: Record<string, () => string> = {
  'services.detail': () => 'GPT4',
  'service-plans.detail': () => '1',
  'users.get': () => '1',
  'audit.user': () => '1',
  'roles.members': () => 'admin',
  'roles.of': () => '1',
  'referrals.info': () => '1',
  'referrals.admin-user-referred': () => String(referrer.user_id),
  'referrals.admin-user-stats': () => String(referrer.user_id),
  'me.access': () => 'GPT4',
};

/** Who reads: an end user for `me`, the top referrer for the caller's own referrals, else the superadmin. */
function whoFor(name: string): string {
  if (name.startsWith('me.')) return 'enduser';
  if (['referrals.mine', 'referrals.stats', 'referrals.referred'].includes(name)) return referrer.username;
  return 'superadmin';
}

const lineOf = (r: { name: string; command: string }) => `${r.command} ${ARGS[r.name]?.() ?? ''}`.trim();

async function runOn(url: string, args: string, name: string, opts: RunOptions = {}): Promise<RunResult> {
  const env = { SUBCTL_BASE_URL: url, SUBCTL_TOKEN: sandbox.tokenFor(whoFor(name)), SUBCTL_STRICT: undefined, ...opts.env };
  return runCli(args, { ...opts, env });
}

const BAD = /\[object Object\]|\bundefined\b|\bNaN\b|Invalid Date/;

/** The command's four forms on the third platform: each exits 0 and shows nothing broken. */
async function forms(line: string, name: string, extra = ''): Promise<Record<'json' | 'csv' | 'tsv' | 'tty', RunResult>> {
  const f = {
    json: await runOn(third.url, `${line} ${extra} -o json`, name),
    csv: await runOn(third.url, `${line} ${extra} -o csv`, name),
    tsv: await runOn(third.url, `${line} ${extra} -o table`, name),
    tty: await runOn(third.url, `${line} ${extra} -o table --no-pager --no-color`, name, { tty: true, columns: 400 }),
  };
  for (const [form, r] of Object.entries(f)) {
    expect(r.code, `${line} ${extra} (${form}): ${said(r)}`).toBe(0);
    expect(r.stdout, `${line} ${extra} (${form})`).not.toMatch(BAD);
  }
  return f;
}

const records = (csv: string) => parse(csv) as string[][];
/** CSV records, or undefined for a command that prints other than CSV under `-o csv` (a view: JSON). */
const csvOrNot = (csv: string) => {
  try {
    return records(csv);
  } catch {
    return undefined;
  }
};

/**
 * Fields the contract does not type, by the start of the command line (a field of a listed path
 * too): printed as the platform sent them, `Y` where the sandbox sent `true`.
 */
const UNTYPED: Record<string, string[]> = {
  'users list': ['is_verified'],
  // The audit log's details are any JSON (the readable change is built from them).
  audit: ['change'],
  'users show': ['account.is_verified'],
  'profile get': ['is_verified'],
  referrals: ['is_active', 'is_expired', 'user_details.role', 'user_summary.role'],
  'me test-services': ['requires_auth'],
  'service-plans get': ['service_is_active', 'plan_is_active', 'auto_renewal'],
  dashboard: ['generated_at'],
};
const untyped = (line: string, field: string) =>
  Object.entries(UNTYPED).some(([start, fields]) => line.startsWith(start) && fields.some((f) => field === f || field.startsWith(`${f}.`)));

/** A cell's words (a sub-table's row, `amount=25 payment_method=card`), a date-time one word. */
const words = (cell: string) => cell.split(/\t|=|, |: | (?!\d{2}:\d{2}:\d{2})/);

/** Two printed words the same: the same text, number or instant (to the second: the third platform sends whole seconds). */
function sameWord(ref: string, got: string): boolean {
  if (ref === got) return true;
  const [x, y] = [readNumber(ref), readNumber(got)];
  if (x !== undefined && y !== undefined) return x === y;
  const [s, t] = [readDate(ref), readDate(got)];
  return s !== undefined && t !== undefined && Math.abs(s - t) < 1000;
}

/** Two printed cells the same, word by word; nested JSON (the answer as received) is not compared. */
function sameCell(ref: string, got: string): boolean {
  if (/^[[{]/.test(ref) || /^[[{]/.test(got)) return true;
  const [x, y] = [words(ref), words(got)];
  return x.length === y.length && x.every((w, i) => sameWord(w, y[i]));
}

/**
 * The third platform's table (header, then rows of cells) against the sandbox's own, cell by
 * cell; `byRow`: an object's `key<TAB>value` lines, where each line's first cell names the field.
 */
function sameTable(ref: string[][], got: string[][], line: string, byRow: boolean): string[] {
  if (got.length !== ref.length) return [`${line}: ${got.length} lines, the sandbox's own ${ref.length}`];
  const differ: string[] = [];
  ref.forEach((row, i) =>
    row.forEach((cell, j) => {
      // An object's indented lines (a view's audit entries: their details are any JSON) are only counted.
      if (byRow && /^\s/.test(row[0])) return;
      const field = (byRow ? row[0] : ref[0][j]) ?? '';
      if ((byRow ? j > 0 : i > 0) && untyped(line, field)) return;
      if (!sameCell(cell, got[i][j] ?? ''))
        differ.push(`${line} row ${i} ${field}: ${JSON.stringify(got[i][j])}, the sandbox's own ${JSON.stringify(cell)}`);
    }),
  );
  return differ.slice(0, 3);
}
const tsvCells = (text: string) => tsvLines(text).map((l) => (l.includes('\t') ? l.split('\t') : l.split(/: (.*)/)));
const tsvLines = (text: string) => text.split('\n').filter((l) => l !== '');
const ttyLines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
/** Ids as one spelling each (`7`, `"7"`), sorted. */
const idSet = (rows: Array<Record<string, unknown>>, key: string) => rows.map((r) => String(readId(r[key]))).sort();

describe('the read commands are the contract', () => {
  it('lists every GET endpoint, lists and the rest', () => {
    expect(reads.length).toBeGreaterThan(30);
    expect(reads.some((r) => endpointByName(r.name).paging)).toBe(true);
  });
});

describe('every read command on the third platform', () => {
  // The names are known only once `api endpoints` has answered: one test walks them all, naming each in its assertions.
  it('shows every answer in every form, as the sandbox answering its own way shows it, and --all reads every row', async () => {
    const failures: string[] = [];
    for (const r of reads) {
      const line = lineOf(r);
      const ep = endpointByName(r.name);
      try {
        const f = await forms(line, r.name);
        if (ep.paging) {
          const rows = printedRows(f.json);
          expect(records(f.csv.stdout).length, `${line} -o csv: a record a row`).toBe(rows.length + 1);
          expect(tsvLines(f.tsv.stdout).length, `${line} -o table: a line a row`).toBe(rows.length + 1);
          expect(ttyLines(f.tty.stdout).length, `${line} -o table on a terminal: a line a row`).toBe(rows.length + 1);
        } else expect(f.json.stdout.trim(), `${line}: JSON`).not.toBe('');
        // A list's first page is the platform's own size: the lists are compared whole.
        const extra = ep.paging ? '--all' : '';
        const before = third.requests.length;
        const got = ep.paging ? await forms(line, r.name, extra) : f;
        if (ep.paging) {
          // What is sent stays the client's own: the contract's largest page, whatever the platform served.
          const sizes = third.requests
            .slice(before)
            .filter((q) => matchEndpoint(q.method, q.path)?.endpoint.name === r.name)
            .map((q) => q.query[ep.paging!.size]);
          expect(new Set(sizes), `${line} --all: the page size sent`).toEqual(new Set([String(ep.paging.maxSize)]));
        }
        const ref = {
          json: await runOn(sandbox.url, `${line} ${extra} -o json`, r.name),
          csv: await runOn(sandbox.url, `${line} ${extra} -o csv`, r.name),
          tsv: await runOn(sandbox.url, `${line} ${extra} -o table`, r.name),
        };
        expect(ref.json.code, said(ref.json)).toBe(0);
        const refCsv = csvOrNot(ref.csv.stdout);
        if (refCsv) failures.push(...sameTable(refCsv, records(got.csv.stdout), `${line} ${extra} -o csv`, false));
        // Off a terminal an object is `key<TAB>value` lines, a list a header and a line a row.
        const byRow = !Array.isArray(jsonValues(ref.json.stdout)[0]);
        failures.push(...sameTable(tsvCells(ref.tsv.stdout), tsvCells(got.tsv.stdout), `${line} ${extra} -o table`, byRow));
        if (!ep.paging) continue;
        const want = printedRows(ref.json);
        const all = printedRows(got.json);
        const id = Object.keys(want[0] ?? {}).find((k) => k.endsWith('_id') || k === 'id') ?? '';
        expect(all.length, `${line} --all: every row`).toBe(want.length);
        if (id) expect(idSet(all, id), `${line} --all: the rows by ${id}`).toEqual(idSet(want, id));
      } catch (e) {
        failures.push(String((e as Error).message).split('\n')[0]);
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);
});

describe('--strict and --verbose on the third platform', () => {
  it("each read: exit 6 under --strict naming the first departure, each listed under --verbose; the sandbox's own answer passes", async () => {
    const failures: string[] = [];
    for (const r of reads) {
      const line = lineOf(r);
      const ep = endpointByName(r.name);
      const own = await runOn(sandbox.url, `${line} -o json --strict`, r.name);
      if (own.code !== 0) failures.push(`${line} on the sandbox: exit ${own.code} ${said(own)}`);
      const strict = await runOn(third.url, `${line} --strict`, r.name);
      if (
        strict.code !== 6 ||
        !/^error: unexpected answer from GET \S+ \(HTTP 200\): status: expected boolean, received string "success"/m.test(strict.stderr)
      )
        failures.push(`${line} --strict: exit ${strict.code} ${said(strict)}`);
      const verbose = await runOn(third.url, `${line} -o json --verbose`, r.name);
      const deviations = verbose.stderr.split('\n').filter((l) => l.startsWith('deviation: '));
      if (verbose.code !== 0 || !deviations.some((l) => l.endsWith(': status: expected boolean, received string "success"')))
        failures.push(`${line} --verbose: exit ${verbose.code}, ${JSON.stringify(deviations)}`);
      // A paged list's rows moved under `records` are named where the documents put them.
      const items = ep.paging?.items;
      if (items && !deviations.some((l) => l.includes(`: data.${items}: expected a list, received nothing (rows under data.records)`)))
        failures.push(`${line} --verbose: the rows' key not said: ${JSON.stringify(deviations)}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});

describe('catalog export on the third platform', () => {
  it('exports the catalog the sandbox exports in its own dialect', async () => {
    const own = await runOn(sandbox.url, 'catalog export -o json', 'superadmin');
    const got = await runOn(third.url, 'catalog export -o json', 'superadmin');
    expect(own.code, said(own)).toBe(0);
    expect(got.code, said(got)).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual(JSON.parse(own.stdout));
  });
});

describe('completion on the third platform', () => {
  it('completes the service codes the sandbox completes in its own dialect', async () => {
    const codes = async (url: string) => {
      const env = { SUBCTL_CONFIG_DIR: tempConfigDir(), SUBCTL_BASE_URL: url, SUBCTL_TOKEN: sandbox.tokenFor('superadmin') };
      const r = await runCli(['__complete', '--', '4', 'subctl', 'services', 'get', '--service-code', ''], { env });
      expect(r.code, said(r)).toBe(0);
      return r.stdout.split('\n').filter(Boolean);
    };
    const own = await codes(sandbox.url);
    expect(own.length).toBeGreaterThan(PAGE_CAP);
    expect(await codes(third.url)).toEqual(own);
  });
});

describe('the third platform pages as it says', () => {
  it('serves fewer rows than asked and says whether a page follows', async () => {
    const r = await fetch(`${third.url}/admin/services?page_number=1&page_size=100`, {
      headers: { authorization: `Bearer ${sandbox.tokenFor('superadmin')}` },
    });
    const body = (await r.json()) as { status: string; data: { records: unknown[]; pagination: Record<string, unknown> } };
    expect(body.status).toBe('success');
    expect(body.data.records).toHaveLength(PAGE_CAP);
    expect(body.data.pagination.has_next_page).toBe('Y');
    expect(body.data.pagination).not.toHaveProperty('total_records');
  });
});

describe('pages shorter than asked, by a platform of stubs', () => {
  const services = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ service_id: from + i, service_code: `S${from + i}` }));
  async function exportFrom(reply: (page: number) => unknown): Promise<{ r: RunResult; sent: Array<Record<string, string>> }> {
    const stub = await startStubServer((req) => ok(reply(Number(req.query.page_number))));
    try {
      const r = await runCli('services list --all -o json', { env: { SUBCTL_BASE_URL: stub.url, SUBCTL_TOKEN: 'tok' } });
      return { r, sent: stub.requests.map((q) => q.query) };
    } finally {
      await stub.close();
    }
  }

  it('a row count and the page size served: every page read, each asked at the size the client asks', async () => {
    const { r, sent } = await exportFrom((page) => ({
      pagination: { current_page: page, page_size: 7, total_records: '20' },
      services: services((page - 1) * 7 + 1, page < 3 ? 7 : page === 3 ? 6 : 0),
    }));
    expect(r.code, said(r)).toBe(0);
    expect(printedRows(r).map((x) => x.service_id)).toEqual(services(1, 20).map((x) => x.service_id));
    // Pages after the last may have been asked ahead (no page count announced); none was printed.
    expect(sent.slice(0, 3).map((q) => q.page_number)).toEqual(['1', '2', '3']);
    expect(new Set(sent.map((q) => q.page_size))).toEqual(new Set(['100']));
  });

  it('a platform that says a page follows and then serves an empty one: the export ends there', async () => {
    const { r, sent } = await exportFrom((page) => ({
      pagination: { has_next_page: 'Y' },
      services: page === 1 ? services(1, 7) : [],
    }));
    expect(r.code, said(r)).toBe(0);
    expect(printedRows(r)).toHaveLength(7);
    expect(sent.length).toBeLessThan(6);
  });

  it('on a terminal, one page of a platform that only says a page follows: the note says how to see the others', async () => {
    const stub = await startStubServer(() =>
      ok({ pagination: { page_number: 2, page_size: 7, has_next_page: 'Y' }, services: services(8, 7) }),
    );
    try {
      const r = await runCli('services list --page-number 2', {
        env: { SUBCTL_BASE_URL: stub.url, SUBCTL_TOKEN: 'tok', FORCE_COLOR: '0' },
        tty: true,
        columns: 120,
      });
      expect(r.code, said(r)).toBe(0);
      expect(r.stderr).toMatch(/showing rows 8-14; --page-number 3 for the next page, --all for every row/);
    } finally {
      await stub.close();
    }
  });
});
