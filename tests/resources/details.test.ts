/**
 * A detail's sections are named once (src/resources/services.ts, service-plans.ts) and drawn by
 * two sides: `services get` / `service-plans get` as tables on stdout, and the console's detail
 * screen (src/ui/resources.ts, then src/ui/detail-lines.ts, as DetailScreen draws it). Against
 * one sandbox, both show the same titles, row counts and columns, in the order the shared
 * definition gives, and the same fields of the record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { DetailShape } from '../../src/resources/details.js';
import { SERVICE_PLAN_DETAIL } from '../../src/resources/service-plans.js';
import { SERVICE_DETAIL } from '../../src/resources/services.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { detailLines, type DetailLine } from '../../src/ui/detail-lines.js';
import { resourceByName } from '../../src/ui/resources.js';
import { runCli } from '../support/run-cli.js';
import { startTestSandbox } from '../support/sandbox.js';

let sb: Sandbox;
/** The command line's environment and the console's client, both signed in as the sandbox's admin. */
let env: Record<string, string>;
let api: ApiClient;
beforeAll(async () => {
  sb = await startTestSandbox();
  const token = sb.tokenFor('admin');
  env = { SUBCTL_BASE_URL: sb.url, SUBCTL_TOKEN: token, FORCE_COLOR: '0' };
  api = new ApiClient({ baseUrl: sb.url, token, retries: 0, timeoutMs: 10_000 });
});
afterAll(() => sb?.close());

interface Table {
  title: string;
  count: number;
  columns: string[];
}

/** The command's tables: `Title (n)` after a blank line, then the tab-separated header when n > 0. */
function commandTables(stdout: string): Table[] {
  return [...stdout.matchAll(/\n\n(.+) \((\d+)\)\n([^\n]*)/g)].map(([, title, count, header]) => ({
    title,
    count: Number(count),
    columns: Number(count) ? header.split('\t') : [],
  }));
}

/** The record's fields on the command line: the key of each line before the first section. */
const commandRecord = (stdout: string) =>
  stdout
    .split('\n\n')[0]
    .split('\n')
    .map((l) => l.split('\t')[0]);

/** The console's tables: a title line `Title (n)`, then its header line (a title line too). */
function consoleTables(lines: DetailLine[]): Table[] {
  const out: Table[] = [];
  lines.forEach((l, i) => {
    const m = l.title ? /^(\S.*) \((\d+)\)$/.exec(l.text) : null;
    if (!m) return;
    const count = Number(m[2]);
    out.push({ title: m[1], count, columns: count ? lines[i + 1].text.trim().split(/\s+/) : [] });
  });
  return out;
}

/** The console's record: its title line, then `  key  value` lines up to the first blank one. */
function consoleRecord(lines: DetailLine[]): { title: string; fields: string[] } {
  const end = lines.findIndex((l) => l.text === '');
  return { title: lines[0].text, fields: lines.slice(1, end).map((l) => l.text.trim().split(/\s+/)[0]) };
}

/** What the console draws for a row of `resource`: its own request for the detail, its own sections. */
async function consoleDetail(resource: string, row: Record<string, unknown>) {
  const detail = resourceByName(resource)!.detail!;
  const data = await api.call(detail.endpoint, detail.input(row) as never);
  return detailLines(detail.sections(data), 4000);
}

const CASES: Array<{ name: string; command: () => string; row: () => Record<string, unknown>; shape: () => DetailShape }> = [
  {
    name: 'services',
    command: () => 'services get GPT4',
    row: () => ({ service_id: 1, service_code: 'GPT4' }),
    shape: () => ({ ...SERVICE_DETAIL, tables: [...SERVICE_DETAIL.tables, SERVICE_DETAIL.usage] }),
  },
  {
    name: 'service-plans',
    command: () => `service-plans get ${firstServicePlan()}`,
    row: () => ({ service_plan_id: firstServicePlan() }),
    shape: () => SERVICE_PLAN_DETAIL,
  },
];

/** A link with subscriptions and fewer than 100 codes (the detail's cut), some used: every column filled. */
function firstServicePlan(): number {
  const codes = (cond: string) => `(SELECT COUNT(*) FROM usage_codes c WHERE c.service_plan_id = sp.service_plan_id${cond})`;
  const row = sb.db
    .prepare(
      `SELECT service_plan_id FROM service_plans sp
       WHERE EXISTS (SELECT 1 FROM subscriptions x WHERE x.service_plan_id = sp.service_plan_id)
         AND ${codes('')} <= 100 AND ${codes(' AND c.used_by IS NOT NULL')} > 0
       ORDER BY service_plan_id LIMIT 1`,
    )
    .get() as { service_plan_id: number };
  return row.service_plan_id;
}

describe('detail sections: the command line and the console draw one definition', () => {
  it.each(CASES)('$name: the same titles, counts and columns on both sides, in the shared order', async (c) => {
    const shape = c.shape();
    const cli = await runCli(c.command(), { env });
    expect(cli.code, cli.stderr).toBe(0);
    const fromCli = commandTables(cli.stdout);
    const lines = await consoleDetail(c.name, c.row());
    const fromConsole = consoleTables(lines);

    // Every list of the definition has rows here, so that every column is drawn on both sides.
    expect(fromCli.map((t) => t.title)).toEqual(shape.tables.map((t) => t.title));
    for (const t of fromCli) expect(t.count, t.title).toBeGreaterThan(0);
    expect(fromCli.map((t) => t.columns)).toEqual(shape.tables.map((t) => t.columns));
    expect(fromConsole).toEqual(fromCli);

    // The record: the console's titled key/values hold the fields `get` prints first.
    const record = consoleRecord(lines);
    expect(record.title).toBe(shape.record.title);
    expect(record.fields).toEqual(commandRecord(cli.stdout));
    expect(record.fields.length).toBeGreaterThan(3);
  });
});
