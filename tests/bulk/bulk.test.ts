/**
 * Bulk input on write verbs: validation first (line and field named, nothing sent), flags as
 * defaults, CSV and NDJSON from files or stdin, reports, exit codes, journal and --restart.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

let server: StubServer;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startStubServer();
  // A bulk manage reads its subscriptions' state before sending: unless a test's handler lists
  // some, this platform lists none (the rows are sent without a record).
  const setHandler = server.setHandler.bind(server);
  server.setHandler = (h) =>
    setHandler(async (req, n) => {
      const reply = await h(req, n);
      const listed = (reply.json as { data?: { subscriptions?: unknown } } | undefined)?.data?.subscriptions !== undefined;
      return req.method === 'GET' && req.path === '/admin/subscriptions' && !listed
        ? ok({
            pagination: {
              current_page: 1,
              page_size: 100,
              total_pages: 1,
              total_records: 0,
              has_next_page: false,
              has_previous_page: false,
            },
            subscriptions: [],
          })
        : reply;
    });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler((req) =>
    ok({ subscription_id: Number(req.path.split('/')[3]), action: (req.body as { action?: string })?.action, message: 'ok' }),
  );
  dir = tempDir('subctl-bulk-');
  env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't', SUBCTL_CONFIG_DIR: join(dir, 'cfg') };
});

/** The writes the server received: a bulk run also reads the targets' state before sending (GET). */
const sent = () => server.requests.filter((q) => q.method !== 'GET');

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const rows = (n: number, extra = '') =>
  `subscription_id,action,reason,extend_days\n${Array.from({ length: n }, (_, i) => `${100 + i},extend,ticket ${i}${extra},30`).join('\n')}\n`;

describe('bad bulk input: exit 2, line and field named, nothing sent', () => {
  it('a reason of 501 characters on line 7', async () => {
    const lines = rows(10).split('\n');
    lines[6] = `105,extend,${'x'.repeat(501)},30`;
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('a.csv', lines.join('\n')), '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 7: reason \(--reason\): Too big: expected string to have <=500 characters/);
    expect(sent()).toHaveLength(0);
  });

  it('a bad enum names its line and field', async () => {
    const text = rows(4).replace('101,extend', '101,refund');
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('b.csv', text), '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 3: action \(--action\): Invalid option/);
    expect(sent()).toHaveLength(0);
  });

  it('two columns for one field (a flag name beside the field name, an alias beside the id): exit 2 naming both, nothing sent; CSV and NDJSON alike', async () => {
    const csv = await runCli(
      [
        'subscriptions',
        'manage',
        '--from-csv',
        file('twice.csv', 'subscription_id,action,reason,extend_days,extend-days\n1037,extend,a,1,30\n'),
        '--yes',
      ],
      { env },
    );
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain("error: line 2: columns 'extend_days' and 'extend-days' both give extend_days: keep one of each");
    const nd = await runCli(['subscriptions', 'manage', '--from-ndjson', '-', '--yes'], {
      env,
      stdin: '{"subscription_id":1037,"id":5,"action":"extend","reason":"a","extend_days":1}\n',
    });
    expect(nd.code).toBe(2);
    expect(nd.stderr).toContain("error: line 1: columns 'subscription_id' and 'id' both give id: keep one of each");
    expect(sent()).toHaveLength(0);
  });

  it("--dry-run of a create counts its rows by the verb's action: nothing sent", async () => {
    const f = file('svc.csv', 'service_code,service_name\nAA,One\nBB,Two\n');
    const r = await runCli(
      [
        'services',
        'create',
        '--from-csv',
        f,
        '--service-type',
        'HYBRID',
        '--provider-name',
        'P',
        '--base-service-url',
        'https://x.example',
        '--access-pattern',
        '/*',
        '--credit-reset-cycle',
        'monthly',
        '--dry-run',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('dry run: 2 rows (create 2) checked, nothing sent');
    expect(sent()).toHaveLength(0);
  });

  it('a missing column: every row says which field is required', async () => {
    const text = 'subscription_id,action,extend_days\n1,extend,3\n2,extend,3\n';
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('c.csv', text), '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 2: reason \(--reason\)/);
    expect(r.stderr).toMatch(/line 3: reason \(--reason\)/);
    expect(sent()).toHaveLength(0);
  });

  it('an unknown column is refused with the fields the verb takes', async () => {
    const r = await runCli(
      ['subscriptions', 'manage', '--from-csv', file('d.csv', 'subscription_id,action,reason,colour\n1,pause,r,red\n'), '--yes'],
      { env },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown column 'colour'/);
    expect(sent()).toHaveLength(0);
  });

  it("a spreadsheet saved with ';' or tabs between cells: the hint says so, nothing sent", async () => {
    for (const [name, sep, said] of [
      ['semi.csv', ';', "';'"],
      ['tabs.csv', '\t', 'tabs'],
    ] as const) {
      const text = ['subscription_id', 'action', 'reason'].join(sep) + '\n' + ['1', 'pause', 'r'].join(sep) + '\n';
      const r = await runCli(['subscriptions', 'manage', '--from-csv', file(name, text), '--yes'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`hint: the header is split by ${said}, not commas: save the file as comma-separated CSV\n`);
    }
    expect(sent()).toHaveLength(0);
  });

  it('a file that is not UTF-8 (a Latin-1 export): exit 2, its line and byte named, nothing sent', async () => {
    const text = Buffer.concat([Buffer.from(rows(3)), Buffer.from('103,extend,Caf'), Buffer.from([0xe9]), Buffer.from(' ticket,7\n')]);
    const p = join(dir, 'latin1.csv');
    writeFileSync(p, text);
    const r = await runCli(['subscriptions', 'manage', '--from-csv', p, '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${p}: line 5: not valid UTF-8 (byte 0xE9 at byte 15 of the line)\n`);
    expect(r.stderr).toMatch(/^hint: save the file as UTF-8/m);
    expect(sent()).toHaveLength(0);
  });

  it('NDJSON on stdin with a bad byte on line 2: exit 2, nothing sent; UTF-8 text (é, 中, 😀, a BOM) goes through as it is', async () => {
    const bad = Buffer.concat([
      Buffer.from(
        '{"subscription_id":1,"action":"extend","reason":"ok","extend_days":1}\n{"subscription_id":2,"action":"extend","reason":"',
      ),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('","extend_days":1}\n'),
    ]);
    const r = await runCli(['subscriptions', 'manage', '--from-ndjson', '-', '--yes'], { env, stdin: bad });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: standard input: line 2: not valid UTF-8 (byte 0xC3 at byte 50 of the line)\n');
    expect(sent()).toHaveLength(0);
    const good = `\ufeffsubscription_id,action,reason,extend_days\n1,extend,"Café 中 😀",1\n`;
    const ok = await runCli(['subscriptions', 'manage', '--from-csv', file('utf8.csv', good), '--yes'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect((sent()[0].body as { reason: string }).reason).toBe('Café 中 😀');
    // NDJSON with a byte-order mark, as a Windows editor saves it: read as CSV with one is.
    const nd = await runCli(['subscriptions', 'manage', '--from-ndjson', '-', '--yes'], {
      env,
      stdin: '\ufeff{"subscription_id":3,"action":"extend","reason":"bom","extend_days":1}\n',
    });
    expect(nd.code, nd.stderr).toBe(0);
    expect(sent().at(-1)!.path).toBe('/admin/subscriptions/3/manage');
  });

  it('a missing file is a usage error', async () => {
    const r = await runCli(['subscriptions', 'manage', '--from-csv', join(dir, 'nope.csv'), '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no such file/);
  });
});

describe('the report file', () => {
  it('one that cannot be written is found before anything is sent: exit 2, the file named', async () => {
    const report = join(dir, 'missing-dir', 'report.csv');
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('r.csv', rows(3)), '--yes', '--report', report], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: cannot write the report ${report}: ENOENT: no such file or directory\n`);
    expect(r.stderr).toMatch(/^hint: check that its directory exists/m);
    expect(sent()).toHaveLength(0);
  });

  it.skipIf(!existsSync('/dev/full'))(
    'one the disk cannot hold: the rows run, the summary is printed without it, exit 1 naming it',
    async () => {
      const r = await runCli(['subscriptions', 'manage', '--from-csv', file('r.csv', rows(3)), '--yes', '--report', '/dev/full'], { env });
      expect(sent()).toHaveLength(3);
      expect(r.stderr).toContain('subscriptions manage: 3 rows: 3 applied, 0 failed, 0 unknown\n');
      expect(r.stderr).toContain('error: cannot write the report /dev/full: no space left on device (ENOSPC)\n');
      expect(r.stderr).not.toContain('this is a bug');
      expect(r.code).toBe(1);
    },
  );
});

describe('running', () => {
  it('--report naming the input file (by any path) is refused before anything is read or sent: the input is left as it was', async () => {
    const f = file('same.csv', rows(2));
    const { symlinkSync } = await import('node:fs');
    symlinkSync(f, join(dir, 'link.csv'));
    for (const report of [f, join(dir, '.', 'same.csv'), join(dir, 'link.csv')]) {
      const r = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--report', report], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: --report ${report} is the input file: name another file for the report`);
    }
    expect(readFileSync(f, 'utf8')).toBe(rows(2));
    expect(sent()).toHaveLength(0);
  });

  it('flags on the command line are defaults for every row; columns may use flag names', async () => {
    const text = 'subscription_id,--extend-days\n1,5\n2,\n';
    const r = await runCli(
      [
        'subscriptions',
        'manage',
        '--from-csv',
        file('e.csv', text),
        '--action',
        'extend',
        '--reason',
        'rota',
        '--extend-days',
        '9',
        '--yes',
      ],
      { env },
    );
    expect(r.code).toBe(0);
    const bodies = sent()
      .map((q) => [q.path, q.body])
      .sort();
    expect(bodies).toEqual([
      ['/admin/subscriptions/1/manage', { action: 'extend', reason: 'rota', extend_days: 5 }],
      ['/admin/subscriptions/2/manage', { action: 'extend', reason: 'rota', extend_days: 9 }],
    ]);
  });

  it('NDJSON from stdin, typed values kept', async () => {
    const text =
      '{"subscription_id":7,"action":"add_credits","reason":"gift","extend_credits":250}\n{"id":8,"action":"pause","reason":"hold"}\n';
    const r = await runCli(['subscriptions', 'manage', '--from-ndjson', '-', '--yes'], { env, stdin: text });
    expect(r.code).toBe(0);
    const byPath = Object.fromEntries(sent().map((q) => [q.path, q.body]));
    expect(byPath['/admin/subscriptions/7/manage']).toEqual({ action: 'add_credits', reason: 'gift', extend_credits: 250 });
    expect(byPath['/admin/subscriptions/8/manage']).toEqual({ action: 'pause', reason: 'hold' });
  });

  it('off a terminal a bulk run needs --yes and sends nothing without it', async () => {
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('f.csv', rows(2))], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes required/);
    expect(sent()).toHaveLength(0);
  });

  it('--dry-run prints the plan and sends no write', async () => {
    server.setHandler(() =>
      ok({
        pagination: { total_pages: 1, total_records: 1 },
        subscriptions: [{ subscription_id: 100, status: 'active', end_date: '2026-12-01T00:00:00.000Z' }],
      }),
    );
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('g.csv', rows(2)), '--dry-run', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan).toHaveLength(2);
    expect(plan[0]).toMatchObject({
      line: 2,
      key: 'id=100',
      request: 'PUT /admin/subscriptions/100/manage',
      body: { action: 'extend', reason: 'ticket 0', extend_days: 30 },
    });
    expect(plan[0].change).toBe('active, ends 2026-12-01: end_date: 2026-12-01 -> 2026-12-31');
    expect(plan[1].change).toMatch(/not found/);
    expect(server.requests.every((q) => q.method === 'GET')).toBe(true);
  });

  it('some rows rejected: exit 8, the report accounts for each row, the server message kept', async () => {
    server.setHandler((req) =>
      req.path.includes('/102/')
        ? fail(400, 'cannot extend a cancelled subscription')
        : ok({ subscription_id: Number(req.path.split('/')[3]), message: 'extended' }),
    );
    const report = join(dir, 'report.csv');
    const r = await runCli(
      ['subscriptions', 'manage', '--from-csv', file('h.csv', rows(4)), '--yes', '--report', report, '--concurrency', '2'],
      { env },
    );
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/4 rows: 3 applied, 1 failed, 0 unknown/);
    expect(readFileSync(report, 'utf8')).toBe(
      'line,key,outcome,attempt,http_status,message,created_id\n' +
        '2,id=100,applied,1,200,OK,100\n' +
        '3,id=101,applied,1,200,OK,101\n' +
        '4,id=102,failed,1,400,cannot extend a cancelled subscription,\n' +
        '5,id=103,applied,1,200,OK,103\n',
    );
  });

  it('the same command again resumes: nothing is sent twice; --restart runs it all again', async () => {
    const f = file('i.csv', rows(3));
    const first = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes'], { env });
    expect(first.code).toBe(0);
    expect(sent()).toHaveLength(3);
    const again = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/this run of these rows finished at .*, 3 rows: nothing sent/);
    expect(sent()).toHaveLength(3);
    const restarted = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--restart'], { env });
    expect(restarted.code).toBe(0);
    expect(sent()).toHaveLength(6);
  });

  it('a second run of the same rows started while the first is running (overlapping cron jobs) stops at once, exit 5: no row sent twice', async () => {
    server.setHandler((req) => ({ ...ok({ subscription_id: Number(req.path.split('/')[3]) }), delayMs: 60 }));
    const f = file('overlap.csv', rows(10));
    const first = runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--concurrency', '1'], { env });
    while (sent().length === 0) await new Promise((r) => setTimeout(r, 10));
    const second = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--concurrency', '1', '-o', 'json'], { env });
    expect(second.code).toBe(5);
    const err = JSON.parse(second.stderr.trim().split('\n').pop()!) as { error: { type: string; message: string } };
    expect(err.error.type).toBe('locked');
    expect(err.error.message).toMatch(
      /^another subctl subscriptions manage run of these 10 rows is running \(pid \d+, since [0-9T:.-]+Z\); lock: .*\.jsonl\.lock$/,
    );
    expect((await first).code).toBe(0);
    expect(sent()).toHaveLength(10);
    expect(new Set(sent().map((q) => q.path)).size).toBe(10);
    // The lock went with the first run: the same rows again resume (nothing to send).
    const again = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/finished at .*, 10 rows: nothing sent/);
    expect(sent()).toHaveLength(10);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(join(dir, 'cfg', 'state', 'bulk')).filter((n) => n.endsWith('.lock'))).toEqual([]);
  });

  it('the same rows from another file (reversed, a blank line, columns reordered) started while the first runs stop at once too, exit 5 (both sent every row)', async () => {
    server.setHandler((req) => ({ ...ok({ subscription_id: Number(req.path.split('/')[3]) }), delayMs: 60 }));
    const text = rows(10);
    const f = file('set.csv', text);
    const [header, ...body] = text.trim().split('\n');
    const copies = [
      file('set-reversed.csv', `${header}\n${[...body].reverse().join('\n')}\n`),
      file('set-blank.csv', `${header}\n\n${body.join('\n')}\n`),
      file(
        'set-columns.csv',
        `reason,extend_days,action,subscription_id\n${body
          .map((l) => l.split(','))
          .map(([id, a, r, d]) => `${r},${d},${a},${id}`)
          .join('\n')}\n`,
      ),
    ];
    const first = runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--concurrency', '1'], { env });
    while (sent().length === 0) await new Promise((r) => setTimeout(r, 10));
    for (const copy of copies) {
      const second = await runCli(['subscriptions', 'manage', '--from-csv', copy, '--yes', '--concurrency', '1'], { env });
      expect(second.code, copy).toBe(5);
      expect(second.stderr, copy).toMatch(/another subctl subscriptions manage run of these 10 rows is running \(pid \d+/);
    }
    expect((await first).code).toBe(0);
    expect(sent()).toHaveLength(10);
    expect(new Set(sent().map((q) => q.path)).size).toBe(10);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(join(dir, 'cfg', 'state', 'bulk')).filter((n) => n.endsWith('.lock'))).toEqual([]);
  });

  it('--skip-applied skips as many rows of a request as earlier runs applied: a request twice in the file, applied once before, is sent once more', async () => {
    const once = file('once.csv', 'subscription_id,action,reason,extend_days\n2000,extend,dup2,5\n');
    expect((await runCli(['subscriptions', 'manage', '--from-csv', once, '--yes'], { env })).code).toBe(0);
    const twice = file(
      'twice.csv',
      'subscription_id,action,reason,extend_days\n2000,extend,dup2,5\n2000,extend,dup2,5\n2001,extend,dup2,5\n',
    );
    expect((await runCli(['subscriptions', 'manage', '--from-csv', twice, '--yes'], { env })).code).toBe(2);
    server.requests.length = 0;
    const r = await runCli(
      ['subscriptions', 'manage', '--from-csv', twice, '--yes', '--skip-applied', '--report', join(dir, 'twice.rep')],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(sent().map((q) => q.path)).toEqual(['/admin/subscriptions/2000/manage', '/admin/subscriptions/2001/manage']);
    const report = readFileSync(join(dir, 'twice.rep'), 'utf8');
    expect(report.split('\n').filter((l) => /applied by an earlier run/.test(l))).toHaveLength(1);
  });

  it('the earlier runs of the same command on the same platform are found whatever other runs came after (200 runs of other commands hid them)', async () => {
    const f = file('small.csv', rows(3, ' small'));
    expect((await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes'], { env })).code).toBe(0);
    // 210 other runs' row files, newer: another platform.
    const bulk = join(dir, 'cfg', 'state', 'bulk');
    const { readdirSync, utimesSync } = await import('node:fs');
    const mine = readdirSync(bulk).filter((n) => n.endsWith('.rows'));
    expect(mine).toHaveLength(1);
    const later = new Date(Date.now() + 60_000);
    for (let i = 0; i < 210; i++) {
      const p = join(bulk, `subscriptions-manage-other${i}.jsonl.rows`);
      writeFileSync(
        p,
        `${JSON.stringify({ v: 2, command: 'subscriptions manage', endpoint: 'subscriptions.manage', target: 'https://elsewhere.example', created_at: later.toISOString(), rows: [[2, 'x'.repeat(32)]] })}\n`,
      );
      writeFileSync(p.slice(0, -'.rows'.length), '');
      utimesSync(p, later, later);
    }
    const [header, ...body] = rows(3, ' small').trim().split('\n');
    // Two of the three rows, in another order: another run, whose rows an earlier run applied.
    const fewer = file('small-rev.csv', `${header}\n${[...body].reverse().slice(0, 2).join('\n')}\n`);
    server.requests.length = 0;
    const r = await runCli(['subscriptions', 'manage', '--from-csv', fewer, '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/2 of these 2 rows were already/);
    expect(sent()).toHaveLength(0);
  });

  it('the file run again with its failed row fixed or taken out: the rows already applied are not sent again unasked (exit 2, named); --skip-applied sends the rest; --restart all', async () => {
    server.setHandler((req) => {
      const id = Number(req.path.split('/')[3]);
      return id === 102
        ? fail(400, 'cannot extend a cancelled subscription')
        : ok({ subscription_id: id, action: 'extend', message: 'ok' });
    });
    const first = await runCli(['subscriptions', 'manage', '--from-csv', file('fix.csv', rows(5)), '--yes'], { env });
    expect(first.code).toBe(8);
    expect(sent()).toHaveLength(5);
    // Row 102 taken out: the other four were applied by the first run.
    const without = rows(5)
      .split('\n')
      .filter((l) => !l.startsWith('102,'))
      .join('\n');
    const again = await runCli(['subscriptions', 'manage', '--from-csv', file('fix.csv', without), '--yes', '-o', 'json'], { env });
    expect(again.code).toBe(2);
    const refused = JSON.parse(again.stderr).error;
    expect(refused.message).toMatch(
      /^4 of these 4 rows were already sent to this platform by an earlier run of subscriptions manage with another input \(started [0-9T:.-]+Z\): line 2 \(id=100\), line 3 \(id=101\), line 4 \(id=103\), line 5 \(id=104\); nothing was sent$/,
    );
    expect(refused.hint).toBe(
      '--skip-applied sends only the rows no earlier run sent; --run-id NAME starts a new run that sends every row; --restart sends every row again',
    );
    expect(sent()).toHaveLength(5);
    // The row fixed, one row added: --skip-applied sends those two only; the report accounts for all.
    const fixed = `${without}105,extend,ticket 5,30\n102,extend,ticket 2 fixed,30\n`;
    server.setHandler((req) => ok({ subscription_id: Number(req.path.split('/')[3]), action: 'extend', message: 'ok' }));
    const report = join(dir, 'fix-report.csv');
    const skip = await runCli(
      ['subscriptions', 'manage', '--from-csv', file('fix.csv', fixed), '--yes', '--skip-applied', '--report', report],
      { env },
    );
    expect(skip.code, skip.stderr).toBe(0);
    expect(skip.stderr).toContain('--skip-applied: 4 rows applied by earlier runs skipped');
    expect(
      sent()
        .slice(5)
        .map((q) => q.path)
        .sort(),
    ).toEqual(['/admin/subscriptions/102/manage', '/admin/subscriptions/105/manage']);
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines.filter((l) => /,applied,,,applied by an earlier run \(started [^)]+\); skipped,$/.test(l))).toHaveLength(4);
    // The first requests once more, in another order: the same rows, so the first run, which
    // finished (its 102 failed as it is): nothing is sent, and it says so; --restart sends all again.
    const [header, ...body] = rows(5).trim().split('\n');
    const reordered = `${[header, ...body.reverse()].join('\n')}\n`;
    const fourth = await runCli(['subscriptions', 'manage', '--from-csv', file('again.csv', reordered), '--yes'], { env });
    expect(fourth.code).toBe(8);
    expect(fourth.stderr).toMatch(/this run of these rows finished at .*, 5 rows: nothing sent/);
    const restarted = await runCli(['subscriptions', 'manage', '--from-csv', file('again.csv', reordered), '--yes', '--restart'], { env });
    expect(restarted.code).toBe(0);
    expect(sent()).toHaveLength(12);
  });

  it('the same requests with the columns in another order, or a value moved from a column to a flag, are not sent again unasked', async () => {
    const first = await runCli(
      [
        'subscriptions',
        'manage',
        '--from-csv',
        file('order1.csv', 'subscription_id,action,reason,extend_days\n1127,extend,reorder,1\n728,extend,moved,1\n'),
        '--yes',
      ],
      { env },
    );
    expect(first.code).toBe(0);
    const reordered = await runCli(
      [
        'subscriptions',
        'manage',
        '--from-csv',
        file('order2.csv', 'extend_days,reason,action,subscription_id\n1,reorder,extend,1127\n'),
        '--yes',
      ],
      { env },
    );
    expect(reordered.code).toBe(2);
    expect(reordered.stderr).toMatch(/1 of these 1 rows was already sent .*line 2 \(id=1127\)/);
    const moved = await runCli(
      [
        'subscriptions',
        'manage',
        '--from-csv',
        file('order3.csv', 'subscription_id,action,reason\n728,extend,moved\n'),
        '--extend-days',
        '1',
        '--yes',
      ],
      { env },
    );
    expect(moved.code).toBe(2);
    expect(moved.stderr).toMatch(/line 2 \(id=728\)/);
    expect(sent()).toHaveLength(2);
  });

  it('--dry-run says what a run would do with rows an earlier run or the run it resumes already sent, and writes nothing', async () => {
    server.setHandler((req) => {
      if (req.method === 'GET') return ok({ pagination: { total_pages: 1, total_records: 0 }, subscriptions: [] });
      const id = Number(req.path.split('/')[3]);
      return id === 102
        ? fail(400, 'cannot extend a cancelled subscription')
        : ok({ subscription_id: id, action: 'extend', message: 'ok' });
    });
    const first = await runCli(['subscriptions', 'manage', '--from-csv', file('dry.csv', rows(5)), '--yes'], { env });
    expect(first.code).toBe(8);
    const writes = () => server.requests.filter((q) => q.method !== 'GET').length;
    const bulkDir = join(dir, 'cfg', 'state', 'bulk');
    const { readdirSync } = await import('node:fs');
    const filesBefore = readdirSync(bulkDir).sort();
    const plan = (r: { stdout: string }) => (JSON.parse(r.stdout) as Array<{ line: number; run?: string }>).map((p) => [p.line, p.run]);

    // Row 102 taken out: a run would stop; the dry run says so row by row, exit 0.
    const without = rows(5)
      .split('\n')
      .filter((l) => !l.startsWith('102,'))
      .join('\n');
    const stop = await runCli(['subscriptions', 'manage', '--from-csv', file('dry2.csv', without), '--dry-run', '-o', 'json'], { env });
    expect(stop.code, stop.stderr).toBe(0);
    for (const [, run] of plan(stop)) expect(run).toMatch(/^stop: applied by an earlier run \(started [0-9T:.-]+Z\)$/);
    expect(stop.stderr).toContain(
      'dry run: 4 rows (extend 4) checked, nothing sent; a run stops before sending anything (exit 2): 4 rows were sent by an earlier run with another input (--skip-applied sends only the others; --run-id NAME or --restart sends every row)',
    );

    // Fixed and extended, with --skip-applied: the four are skipped, the two new requests sent.
    const fixed = `${without}105,extend,ticket 5,30\n102,extend,ticket 2 fixed,30\n`;
    const skip = await runCli(
      ['subscriptions', 'manage', '--from-csv', file('dry3.csv', fixed), '--dry-run', '--skip-applied', '-o', 'json'],
      { env },
    );
    expect(skip.code).toBe(0);
    expect(plan(skip).map(([line, run]) => [line, String(run).replace(/\(started [^)]+\)/, '(started T)')])).toEqual([
      [2, 'skip: applied by an earlier run (started T)'],
      [3, 'skip: applied by an earlier run (started T)'],
      [4, 'skip: applied by an earlier run (started T)'],
      [5, 'skip: applied by an earlier run (started T)'],
      [6, 'send'],
      [7, 'send'],
    ]);
    expect(skip.stderr).toContain('--skip-applied: a run skips 4 rows an earlier run sent and sends 2');

    // The first file again: a run resumes its journal; the failed row stays failed.
    const resume = await runCli(['subscriptions', 'manage', '--from-csv', file('dry.csv', rows(5)), '--dry-run', '-o', 'json'], { env });
    expect(resume.code).toBe(0);
    expect(plan(resume)).toEqual([
      [2, 'skip: applied by an earlier attempt of this run'],
      [3, 'skip: applied by an earlier attempt of this run'],
      [4, 'skip: failed in an earlier attempt of this run (correct the row to send it again)'],
      [5, 'skip: applied by an earlier attempt of this run'],
      [6, 'skip: applied by an earlier attempt of this run'],
    ]);
    expect(resume.stderr).toMatch(
      /dry run: 5 rows \(extend 5\) checked, nothing sent; a run resumes the journal .*\.jsonl: 4 applied, 1 failed\n/,
    );
    // --restart: nothing known, the plan as before.
    const restart = await runCli(
      ['subscriptions', 'manage', '--from-csv', file('dry.csv', rows(5)), '--dry-run', '--restart', '-o', 'json'],
      { env },
    );
    expect(plan(restart).every(([, run]) => run === 'send')).toBe(true);
    expect(restart.stderr).toContain('dry run: 5 rows (extend 5) checked, nothing sent; --restart: a run sends every row\n');

    // None of it sent a write or left a file (no journal, row file or lock).
    expect(writes()).toBe(5);
    expect(readdirSync(bulkDir).sort()).toEqual(filesBefore);
  });

  it('the same file sent to another platform is another run: staging then production sends every row to both', async () => {
    const f = file('two.csv', rows(3));
    const production = await startStubServer();
    try {
      production.setHandler((req) => ok({ subscription_id: Number(req.path.split('/')[3]), action: 'extend', message: 'ok' }));
      const staging = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes'], { env });
      expect(staging.code).toBe(0);
      expect(sent()).toHaveLength(3);
      // The same config directory (so the same state directory), another base address.
      const prod = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes'], {
        env: { ...env, SUBCTL_BASE_URL: `${production.url}/` },
      });
      expect(prod.code, prod.stderr).toBe(0);
      expect(prod.stderr).not.toMatch(/resuming/);
      expect(production.requests.filter((q) => q.method !== 'GET')).toHaveLength(3);
      // Back to the first: that run is finished, nothing is sent again; a trailing slash is the same address.
      const again = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes'], {
        env: { ...env, SUBCTL_BASE_URL: `${server.url}/` },
      });
      expect(again.stderr).toMatch(/finished at .*, 3 rows: nothing sent/);
      expect(sent()).toHaveLength(3);
    } finally {
      await production.close();
    }
  });

  it('the credential expires mid-run: the run stops at the 401 (exit 3, sign in again); the next run sends the rows not applied, none twice', async () => {
    const f = file('expire.csv', rows(20));
    let expired = false;
    server.setHandler((req) => {
      if (expired || sent().length > 5) {
        expired = true;
        return fail(401, 'token expired');
      }
      return ok({ subscription_id: Number(req.path.split('/')[3]), action: 'extend', message: 'ok' });
    });
    const first = await runCli(
      ['subscriptions', 'manage', '--from-csv', f, '--yes', '--concurrency', '1', '--report', join(dir, 'expire-report.csv')],
      { env },
    );
    expect(first.code).toBe(3);
    expect(sent()).toHaveLength(6);
    expect(first.stderr).toContain(
      'subscriptions manage: 20 rows: 5 applied, 1 failed, 0 unknown, 14 not run (the credential was refused)',
    );
    expect(first.stderr).toContain('error: token expired (HTTP 401)');
    expect(first.stderr).toMatch(/^hint: .*subctl auth login/m);
    const report = readFileSync(join(dir, 'expire-report.csv'), 'utf8').trim().split('\n');
    expect(report.filter((l) => l.includes(',applied,'))).toHaveLength(5);
    expect(report.filter((l) => l.includes(',failed,1,401,'))).toHaveLength(1);
    expect(report.filter((l) => l.includes(',pending,'))).toHaveLength(14);

    // Signed in again: the 15 rows not applied are sent, the 5 applied are not.
    expired = false;
    server.setHandler((req) => ok({ subscription_id: Number(req.path.split('/')[3]), action: 'extend', message: 'ok' }));
    const sentBefore = sent().map((r) => r.path);
    const again = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--concurrency', '1'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/5 rows finished earlier, 15 to run/);
    const resent = sent()
      .slice(sentBefore.length)
      .map((r) => r.path);
    expect(resent).toHaveLength(15);
    const applied = new Set(sentBefore.slice(0, 5));
    expect(resent.filter((p) => applied.has(p))).toEqual([]);
  });

  it('--concurrency N holds at most N connections to the server, reused row after row', async () => {
    server.connections = 0;
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('conn.csv', rows(200)), '--yes', '--concurrency', '4'], { env });
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(200);
    expect(server.connections).toBeGreaterThan(0);
    expect(server.connections).toBeLessThanOrEqual(4);
  });

  it('--concurrency is bounded 1-32', async () => {
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('j.csv', rows(1)), '--yes', '--concurrency', '64'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--concurrency expects 1-32/);
  });

  it('bulk works on other write verbs too: services create from CSV', async () => {
    server.setHandler((req) =>
      ok({ service_id: 50 + sent().length, message: `created ${(req.body as { service_code: string }).service_code}` }),
    );
    const text =
      'service_code,service_name,service_type,provider_name,base_service_url,access_pattern,credit_reset_cycle\n' +
      'A1,"Alpha, one",HYBRID,P,https://a,/a/*,daily\n' +
      'B2,Beta,TIME_BASED,P,https://b,/b/*,monthly\n';
    const report = join(dir, 'svc.csv');
    const r = await runCli(['services', 'create', '--from-csv', file('k.csv', text), '--yes', '--report', report, '--concurrency', '1'], {
      env,
    });
    expect(r.code).toBe(0);
    expect(sent().map((q) => (q.body as { service_name: string }).service_name)).toEqual(['Alpha, one', 'Beta']);
    expect(readFileSync(report, 'utf8')).toMatch(/^2,service_code=A1,applied,1,200,OK,51$/m);
  });

  it('usage-codes generate from CSV prints the codes it created, in the chosen format, and the report carries each batch', async () => {
    server.setHandler((req) => {
      const b = req.body as { batch_id: string; code_count: number };
      return ok({
        batch_id: b.batch_id,
        generated_count: b.code_count,
        expiry_date: '2027-01-01',
        codes: Array.from({ length: b.code_count }, (_, i) => ({
          code_id: i + 1,
          code_value: `${b.batch_id}-C${i}`,
          expiry_date: '2027-01-01',
        })),
      });
    });
    const report = join(dir, 'codes-report.csv');
    const f = file('batches.csv', 'batch_id,code_count,expiration_days,service_plan_id\nDEC-A,2,30,7\nDEC-B,1,30,7\n');
    const r = await runCli(['usage-codes', 'generate', '--from-csv', f, '--yes', '-o', 'csv', '--concurrency', '1', '--report', report], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      'code_value,batch_id,expiry_date,code_id\nDEC-A-C0,DEC-A,2027-01-01,1\nDEC-A-C1,DEC-A,2027-01-01,2\nDEC-B-C0,DEC-B,2027-01-01,1\n',
    );
    expect(readFileSync(report, 'utf8')).toMatch(/^2,batch_id=DEC-A service_plan_id=7,applied,1,200,OK,DEC-A$/m);
  });

  it('a row answered 429 (rate limited, not processed) waits its Retry-After and is sent again in the same run', async () => {
    const tries = new Map<string, number>();
    server.setHandler((req) => {
      if (req.method === 'GET') return ok({});
      const n = (tries.get(req.path) ?? 0) + 1;
      tries.set(req.path, n);
      return n === 1
        ? { ...fail(429, 'rate limited'), headers: { 'retry-after': '0' } }
        : ok({ subscription_id: Number(req.path.split('/')[3]) });
    });
    const report = join(dir, 'r429.csv');
    const r = await runCli(['subscriptions', 'manage', '--from-csv', file('r.csv', rows(6)), '--yes', '--report', report], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(12);
    expect([...tries.values()].every((n) => n === 2)).toBe(true);
    expect(readFileSync(report, 'utf8').match(/,applied,/g)).toHaveLength(6);
  });

  it('Ctrl-C while rows wait out a 429: exit 130 at once, nothing sent after the signal; the next run sends them', async () => {
    server.setHandler((req) => (req.method === 'GET' ? ok({}) : { ...fail(429, 'rate limited'), headers: { 'retry-after': '30' } }));
    const f = file('w.csv', rows(4));
    const ac = new AbortController();
    let abortedAt = Infinity;
    const waiting = setInterval(() => {
      if (sent().length < 4) return;
      clearInterval(waiting);
      abortedAt = Date.now();
      ac.abort();
    }, 20);
    const t0 = Date.now();
    const r = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--concurrency', '4'], { env, signal: ac.signal });
    clearInterval(waiting);
    expect(r.code, r.stderr).toBe(130);
    expect(Date.now() - t0).toBeLessThan(25_000);
    expect(sent()).toHaveLength(4);
    expect(sent().every((q) => q.at <= abortedAt)).toBe(true);
    server.setHandler((req) => ok({ subscription_id: Number(req.path.split('/')[3]) }));
    const again = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(sent()).toHaveLength(8);
  });

  it('Ctrl-C: exit 130, rows in flight are awaited, the journal is flushed; the next run finishes the rest, none twice', async () => {
    server.setHandler((req) => ({ ...ok({ subscription_id: Number(req.path.split('/')[3]) }), delayMs: 150 }));
    const f = file('l.csv', rows(20));
    const ac = new AbortController();
    const running = runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--concurrency', '2'], { env, signal: ac.signal });
    await vi.waitFor(() => expect(sent().length).toBeGreaterThanOrEqual(2), { timeout: 20_000, interval: 10 });
    ac.abort();
    const r = await running;
    expect(r.code).toBe(130);
    const sentFirst = sent().length;
    expect(sentFirst).toBeGreaterThan(0);
    expect(sentFirst).toBeLessThan(20);
    expect(r.stderr).toMatch(/not run \(interrupted\)/);
    // Every request that left was answered and recorded: the rerun sends only the others.
    const again = await runCli(['subscriptions', 'manage', '--from-csv', f, '--yes', '--concurrency', '2'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`${sentFirst} rows finished earlier, ${20 - sentFirst} to run`));
    expect(sent()).toHaveLength(20);
    expect(new Set(sent().map((q) => q.path)).size).toBe(20);
  });
});
