/**
 * Creates resume: a stub platform that holds services, plans, service-plan links, roles and
 * users, applies each create, and then answers as a faulty gateway would (503 or a reset
 * connection after applying, 503 without applying). A create whose answer was lost is settled
 * by looking it up by what the row named it: found as the row asked, applied (its id in the
 * report, never sent again); not found, sent again by the next run; found with other fields, or
 * only under another case of its name, unknown. The stub's filters match by part, as searches
 * do, and it holds near names, so an exact match is the client's own. A redirect to a create
 * says nothing either (a web server answers 303 See Other after applying it, a gateway 308
 * without passing it on): it is settled the same way, and stops the run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type RecordedRequest, type StubReply, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

type Item = Record<string, unknown>;
type Fault = 'applied-503' | 'applied-reset' | 'refused-503' | 'applied-303' | 'moved-308';

interface Verb {
  name: string;
  args: string[];
  post: string;
  /** The CSV header and the i-th row. */
  header: string;
  row: (i: number) => string;
  /** The item's name on the platform (its key fields), from a create body or a stored item. */
  keyOf: (b: Item) => string;
  idField: string;
  /** An item the platform holds whose name holds the i-th row's name (a near miss). */
  near: (i: number) => Item;
  /** Changes a stored item's fields as someone else's create of the same name would have them. */
  differ: (item: Item) => void;
  /** Answers the look-ups (GET). */
  get: (req: RecordedRequest, items: Item[]) => StubReply;
  /** The command the report names for an undecidable row, for the i-th row. */
  check: (i: number) => string;
}

/** A filter as searches read it: by part, case aside. */
const has = (v: unknown, part: string | undefined) =>
  part === undefined ||
  String(v ?? '')
    .toLowerCase()
    .includes(part.toLowerCase());

/** One page of `items`, with its paging as `shape` writes it. */
function page(items: Item[], pageNo: number, size: number, shape: (rows: Item[], pages: number) => Item): StubReply {
  const pages = Math.ceil(items.length / size);
  return ok(shape(items.slice((pageNo - 1) * size, pageNo * size), pages));
}

const VERBS: Verb[] = [
  {
    name: 'services create',
    args: ['services', 'create'],
    post: '/admin/services',
    header: 'service_code,service_name,service_type,provider_name,base_service_url,access_pattern,credit_reset_cycle',
    row: (i) => `SVC${i},Service ${i},HYBRID,Acme,https://svc${i}.example,/v1/*,monthly`,
    keyOf: (b) => String(b.service_code),
    idField: 'service_id',
    near: (i) => ({ service_id: 900 + i, service_code: `SVC${i}X`, service_name: 'near' }),
    differ: (item) => (item.service_name = 'Someone else'),
    // A get by code: exact, as the contract's detail is.
    get: (req, items) => {
      const s = items.find((x) => x.service_code === req.query.service_code);
      return s ? ok({ service_info: { ...s, is_active: 1 }, service_plans: [] }) : fail(404, 'service not found');
    },
    check: (i) => `subctl services get --service-code SVC${i}`,
  },
  {
    name: 'plans create',
    args: ['plans', 'create'],
    post: '/admin/subscription-plans',
    header: 'plan_code,plan_name,price,currency,duration,duration_unit,credit_amount,credit_unit',
    row: (i) => `PLAN${i},Plan ${i},9.99,USD,1,months,100,requests`,
    keyOf: (b) => String(b.plan_code),
    idField: 'plan_id',
    near: (i) => ({ plan_id: 900 + i, plan_code: `PLAN${i}-OLD`, plan_name: 'near', price: 1 }),
    differ: (item) => (item.price = 19.99),
    // Money as text, as some platforms write it.
    get: (req, items) =>
      page(
        items.filter((p) => has(p.plan_code, req.query.plan_code)).map((p) => ({ ...p, price: Number(p.price).toFixed(2) })),
        Number(req.query.page_number ?? 1),
        Number(req.query.page_size ?? 20),
        (rows, pages) => ({
          pagination: { current_page: Number(req.query.page_number ?? 1), total_pages: pages },
          subscription_plans: rows,
        }),
      ),
    check: (i) => `subctl plans list --plan-code PLAN${i}`,
  },
  {
    name: 'service-plans create',
    args: ['service-plans', 'create'],
    post: '/admin/service-plans',
    header: 'service_code,plan_code,is_available',
    row: (i) => `SVC${i},PLAN${i},true`,
    keyOf: (b) => `${String(b.service_code)}/${String(b.plan_code)}`,
    idField: 'service_plan_id',
    near: (i) => ({ service_plan_id: 900 + i, service_code: `SVC${i}`, plan_code: `PLAN${i}0`, is_available: true }),
    differ: (item) => (item.is_available = false),
    get: (req, items) =>
      page(
        items.filter((l) => has(l.service_code, req.query.service_code) && has(l.plan_code, req.query.plan_code)),
        Number(req.query.page_number ?? 1),
        Number(req.query.page_size ?? 20),
        (rows, pages) => ({ pagination: { current_page: Number(req.query.page_number ?? 1), total_pages: pages }, service_plans: rows }),
      ),
    check: (i) => `subctl service-plans list --service-code SVC${i} --plan-code PLAN${i}`,
  },
  {
    name: 'roles create',
    args: ['roles', 'create'],
    post: '/cms/roles',
    header: 'role_name,display_name,priority',
    row: (i) => `team${i},Team ${i},5`,
    keyOf: (b) => String(b.role_name),
    idField: 'role_id',
    near: (i) => ({ role_id: 900 + i, role_name: `team${i}-lead`, display_name: 'near', priority: 5 }),
    differ: (item) => (item.display_name = 'Someone else'),
    // No filter: the list is read whole (seeded with 150 roles, so over more than one page).
    get: (req, items) =>
      page(items, Number(req.query.page ?? 1), Number(req.query.page_size ?? 20), (rows, pages) => ({
        roles: rows,
        current_page: Number(req.query.page ?? 1),
        total_pages: pages,
        total_rows: items.length,
      })),
    check: (i) => `subctl roles list --all -o json | jq '.[] | select(.role_name == "team${i}")'`,
  },
  {
    name: 'users create',
    args: ['users', 'create'],
    post: '/users',
    header: 'username,email,role,password,full_name',
    row: (i) => `member${i},member${i}@example.com,support,Pw-${i}-long-enough,Member ${i}`,
    keyOf: (b) => String(b.username),
    idField: 'user_id',
    near: (i) => ({ user_id: 900 + i, username: `member${i}-old`, email: `member${i}-old@example.com`, role: 'support' }),
    differ: (item) => (item.email = 'someone@example.com'),
    // A search by part of the username or email; the role as an object, as some platforms write it.
    get: (req, items) =>
      page(
        items
          .filter((u) => has(u.username, req.query.search) || has(u.email, req.query.search))
          .map(({ password: _p, ...u }) => ({ ...u, role: { role_name: u.role } })),
        Number(req.query.page ?? 1),
        Number(req.query.limit ?? 20),
        (rows, pages) => ({ users: rows, page: Number(req.query.page ?? 1), total_pages: pages }),
      ),
    check: (i) => `subctl roles assignments --search member${i}`,
  },
];

let server: StubServer;
let dir: string;
let env: Record<string, string>;
let verb: Verb;
let items: Item[];
let nextId: number;
let faults: Map<string, Fault>;
/** Run after a create is applied, before it is answered. */
let onApplied: (item: Item) => void;

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  faults = new Map();
  onApplied = () => {};
  nextId = 101;
  dir = tempDir('subctl-bulk-creates-');
  env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', SUBCTL_CONFIG_DIR: join(dir, 'cfg') };
  server.setHandler(platform);
});

function platform(req: RecordedRequest): StubReply {
  if (req.method === 'GET') return verb.get(req, items);
  if (req.method !== 'POST' || req.path !== verb.post) return fail(404, `no route ${req.method} ${req.path}`);
  const body = req.body as Item;
  const key = verb.keyOf(body);
  const fault = faults.get(key);
  if (fault === 'refused-503') return fail(503, 'upstream unavailable');
  if (fault === 'moved-308') return { status: 308, headers: { location: `https://new.example.com${req.path}` }, raw: '' };
  if (items.some((x) => verb.keyOf(x) === key)) return fail(409, `${key} already exists`);
  const item = { [verb.idField]: nextId++, ...body };
  items.push(item);
  onApplied(item);
  if (fault === 'applied-503') return fail(503, 'upstream connection reset');
  if (fault === 'applied-reset') return { reset: true };
  if (fault === 'applied-303') return { status: 303, headers: { location: `${req.path}/${String(item[verb.idField])}` }, raw: '' };
  return ok({ [verb.idField]: item[verb.idField], message: 'created' });
}

const posts = (key: string) => server.requests.filter((r) => r.method === 'POST' && verb.keyOf(r.body as Item) === key).length;
const report = () => join(dir, 'report.csv');
/** The rows of the last file written, in order. */
let written: number[] = [];
/** The report's line of the i-th row. */
const reported = (i: number) =>
  readFileSync(report(), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${written.indexOf(i) + 2},`))!;
const keyOfRow = (i: number) => verb.keyOf(Object.fromEntries(verb.header.split(',').map((h, n) => [h, verb.row(i).split(',')[n]])));

function csv(rows: number[]): string {
  const p = join(dir, 'rows.csv');
  written = rows;
  writeFileSync(p, `${verb.header}\n${rows.map(verb.row).join('\n')}\n`);
  return p;
}
const args = (file: string, concurrency = 2) => [
  ...verb.args,
  '--from-csv',
  file,
  '--yes',
  '--concurrency',
  String(concurrency),
  '--report',
  report(),
  '--timeout',
  '1000',
];

for (const v of VERBS) {
  describe(v.name, () => {
    beforeEach(() => {
      verb = v;
      items = [];
      if (v.name === 'roles create')
        for (let n = 0; n < 150; n++) items.push({ role_id: 1000 + n, role_name: `seeded${n}`, display_name: 'S' });
      items.push(v.near(3));
    });

    it('answers lost after the create was applied: settled applied by looking it up, its id reported, never sent again; one not applied is sent again by the next run', async () => {
      faults.set(keyOfRow(2), 'applied-503');
      faults.set(keyOfRow(4), 'applied-reset');
      faults.set(keyOfRow(3), 'refused-503');
      const f = csv([1, 2, 3, 4, 5]);
      const first = await runCli(args(f), { env });
      expect(first.code, first.stderr).toBe(8);
      expect(first.stderr).toContain('5 rows: 4 applied, 1 failed, 0 unknown');
      for (const i of [2, 4]) {
        const id = items.find((x) => verb.keyOf(x) === keyOfRow(i))![verb.idField];
        expect(reported(i)).toMatch(new RegExp(`^${i + 1},.*,applied,1,(503)?,applied \\(.*confirmed on the platform\\),${String(id)}$`));
      }
      expect(reported(3)).toMatch(
        /,failed,1,503,not applied \(HTTP 503 without saying whether it was applied; confirmed on the platform\)/,
      );
      faults.clear();
      const second = await runCli(args(f), { env });
      expect(second.code, second.stderr).toBe(0);
      expect(reported(3)).toMatch(
        new RegExp(`,applied,2,20[01],OK,${String(items.find((x) => verb.keyOf(x) === keyOfRow(3))![verb.idField])}$`),
      );
      for (const i of [1, 2, 3, 4, 5]) expect(posts(keyOfRow(i)), `row ${i}`).toBe(i === 3 ? 2 : 1);
      expect(items.filter((x) => verb.keyOf(x) === keyOfRow(3))).toHaveLength(1);
    });

    it('a redirect to a create stops the run: 303 after applying it is settled applied, 308 without passing it on is sent again by the next run', async () => {
      faults.set(keyOfRow(2), 'applied-303');
      const f = csv([1, 2, 3]);
      const one = args(f, 1);
      const first = await runCli(one, { env });
      expect(first.code, first.stderr).toBe(6);
      expect(first.stderr).toContain('3 rows: 2 applied, 0 failed, 0 unknown, 1 not run (the platform redirected a row elsewhere)');
      expect(first.stderr).toMatch(/redirected POST .* \(HTTP 303\)/);
      expect(first.stderr).toContain('a server may answer a write it applied with a redirect (303 See Other)');
      const id = items.find((x) => verb.keyOf(x) === keyOfRow(2))![verb.idField];
      expect(reported(2)).toMatch(
        new RegExp(`,applied,1,303,applied \\(HTTP 303 without saying whether it was applied; confirmed on the platform\\),${String(id)}$`),
      );
      expect(reported(3)).toMatch(/^4,.*,pending,/);
      faults.set(keyOfRow(3), 'moved-308');
      const second = await runCli(one, { env });
      expect(second.code, second.stderr).toBe(6);
      expect(second.stderr).toContain('3 rows: 2 applied (2 finished in earlier attempts), 1 failed, 0 unknown');
      expect(second.stderr).toContain('https://new.example.com');
      expect(reported(3)).toMatch(
        /,failed,1,308,not applied \(HTTP 308 without saying whether it was applied; confirmed on the platform\): the next run sends it again/,
      );
      faults.clear();
      const third = await runCli(one, { env });
      expect(third.code, third.stderr).toBe(0);
      for (const i of [1, 2, 3]) expect(posts(keyOfRow(i)), `row ${i}`).toBe(i === 3 ? 2 : 1);
      expect(items.filter((x) => verb.keyOf(x) === keyOfRow(2))).toHaveLength(1);
    });

    it('the name found with other fields than the row asked (someone else created it): unknown, the command that checks it named, never sent again', async () => {
      faults.set(keyOfRow(5), 'applied-503');
      onApplied = (item) => {
        if (verb.keyOf(item) === keyOfRow(5)) verb.differ(item);
      };
      const f = csv([5, 6]);
      const first = await runCli(args(f), { env });
      expect(first.code, first.stderr).toBe(8);
      expect(reported(5)).toContain(`,unknown,1,503,`);
      // CSV doubles the quotes of a field.
      expect(reported(5).replace(/""/g, '"')).toContain(`check with: ${verb.check(5)}`);
      const again = await runCli(args(f), { env });
      expect(again.code).toBe(8);
      expect(again.stderr).toMatch(/finished at .*nothing sent/);
      expect(posts(keyOfRow(5))).toBe(1);
    });
  });
}

describe('a name the platform keeps under another case', () => {
  it('plans create: found only as PLAN7 for the row plan7: unknown (the platform spelling it so, or someone else), never sent again', async () => {
    verb = VERBS.find((x) => x.name === 'plans create')!;
    items = [];
    faults.set('plan7', 'applied-503');
    onApplied = (item) => (item.plan_code = String(item.plan_code).toUpperCase());
    const p = join(dir, 'rows.csv');
    written = [7];
    writeFileSync(p, `${verb.header}\nplan7,Plan 7,9.99,USD,1,months,100,requests\n`);
    const first = await runCli(args(p), { env });
    expect(first.code).toBe(8);
    expect(reported(7)).toContain(',unknown,1,503,');
    expect(posts('plan7')).toBe(1);
  });
});
