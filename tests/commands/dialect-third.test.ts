/**
 * Every read command against a third reading of the API documents (tests/commands/dialect-third.ts:
 * JSend's envelope without a message, booleans as Y/N, times with an offset, `null` for empty
 * lists, paged lists that only say whether a next page follows and serve fewer rows than asked).
 * The commands are the contract's GET endpoints, as `api endpoints` lists them. For each:
 * - `-o json`, `-o csv` and the table (off and on a terminal) exit 0 and show no
 *   `[object Object]`, `undefined`, `NaN` or `Invalid Date`;
 * - a list's forms hold a row for each row of its JSON, and `--all` prints every row the sandbox
 *   behind the platform holds, by id (read in the sandbox's own dialect, the reference);
 * - `--strict` exits 6 (the answers depart from the contract).
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointByName } from '../../src/api/contract/index.js';
import { readId } from '../../src/api/read-values.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startTestSandbox } from '../support/sandbox.js';
import { runCli, type RunOptions, type RunResult } from '../support/run-cli.js';
import { printedRows, said } from './dialect-cases.js';
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
  it('shows every answer in every form, and --all reads every row', async () => {
    const failures: string[] = [];
    for (const r of reads) {
      const line = lineOf(r);
      const ep = endpointByName(r.name);
      try {
        const f = await forms(line, r.name);
        if (!ep.paging) {
          expect(f.json.stdout.trim(), `${line}: JSON`).not.toBe('');
          expect(records(f.csv.stdout).length, `${line} -o csv: a header and a record`).toBeGreaterThanOrEqual(2);
          continue;
        }
        const rows = printedRows(f.json);
        expect(records(f.csv.stdout).length, `${line} -o csv: a record a row`).toBe(rows.length + 1);
        expect(tsvLines(f.tsv.stdout).length, `${line} -o table: a line a row`).toBe(rows.length + 1);
        expect(ttyLines(f.tty.stdout).length, `${line} -o table on a terminal: a line a row`).toBe(rows.length + 1);
        const all = await forms(line, r.name, '--all');
        const reference = await runOn(sandbox.url, `${line} --all -o json`, r.name);
        expect(reference.code, said(reference)).toBe(0);
        const want = printedRows(reference);
        const got = printedRows(all.json);
        const id = Object.keys(want[0] ?? {}).find((k) => k.endsWith('_id') || k === 'id') ?? '';
        expect(got.length, `${line} --all: every row`).toBe(want.length);
        if (id) expect(idSet(got, id), `${line} --all: the rows by ${id}`).toEqual(idSet(want, id));
        expect(records(all.csv.stdout).length, `${line} --all -o csv`).toBe(want.length + 1);
        expect(tsvLines(all.tsv.stdout).length, `${line} --all -o table`).toBe(want.length + 1);
      } catch (e) {
        failures.push(String((e as Error).message).split('\n')[0]);
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);
});

describe('--strict on the third platform', () => {
  it('exits 6 on the deviations of each read', async () => {
    const failures: string[] = [];
    for (const r of reads) {
      const res = await runOn(third.url, `${lineOf(r)} -o json --strict`, r.name);
      if (res.code !== 6) failures.push(`${lineOf(r)}: exit ${res.code} ${said(res)}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);
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
