/**
 * Deep paging: list pages read from the nearest remembered page boundary (keyset) answer
 * exactly what a plain LIMIT/OFFSET query answers: same rows, same order, same pagination
 * block, for every sort (ASC/DESC, ties, NULLs, collations) and filter, walking pages in
 * order, in reverse and at random, and after writes between page requests (this connection,
 * another connection, HTTP handlers).
 *
 * Two layers: `pageRows` itself over a synthetic table built for ties and NULLs, and the list
 * endpoints over HTTP against a reference query run on the database, and against a second
 * sandbox on the same file that reads every page with a plain OFFSET.
 */
import { openKept } from '../../src/sandbox/keep.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Where, type SortColumn } from '../../src/sandbox/handlers/admin-util.js';
import { MAX_PAGE_BOUNDARIES, pageBoundaryCount, pageReads, pageRows, setDeepPaging } from '../../src/sandbox/handlers/admin-pages.js';
import { openDatabase } from '../../src/sandbox/db.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { DB } from '../../src/sandbox/types.js';
import { mulberry32 } from '../../src/sandbox/seed.js';
import { call, closeAllTestSandboxes, startTestSandbox, tempDataFile } from '../support/sandbox.js';

/** Deterministic PRNG: the seeders' own. */
const rng = mulberry32;

function shuffled<T>(xs: T[], r: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** Page numbers of a walk over `pages` pages: in order (one past the end too), in reverse, or shuffled with repeats and pages past the end. */
function walk(kind: 'forward' | 'reverse' | 'random', pages: number, r: () => number): number[] {
  const all = Array.from({ length: pages }, (_, i) => i + 1);
  if (kind === 'forward') return [...all, pages + 1];
  if (kind === 'reverse') return all.reverse();
  return [...shuffled(all, r), ...Array.from({ length: Math.ceil(pages / 4) }, () => 1 + Math.floor(r() * (pages + 2)))];
}

const readsSnapshot = () => ({ ...pageReads });
const keysetReads = (before: typeof pageReads) => pageReads.after - before.after + (pageReads.before - before.before);

// ---------------------------------------------------------------------------------------------
// pageRows over a synthetic table

describe('pageRows against plain OFFSET (synthetic table: ties, NULLs, collations, joins)', () => {
  let db: DB;
  const N = 1200;

  beforeAll(() => {
    db = openKept(':memory:');
    db.exec(`
      CREATE TABLE g (gid INTEGER PRIMARY KEY, gname TEXT NOT NULL COLLATE NOCASE);
      CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, gid INTEGER, name TEXT NOT NULL COLLATE NOCASE, score REAL, day TEXT, kind TEXT NOT NULL);
      CREATE INDEX t_score ON t(score);
      CREATE INDEX t_day ON t(day);
      CREATE INDEX t_kind_day ON t(kind, day);
      CREATE INDEX t_name ON t(name);
    `);
    const gi = db.prepare('INSERT INTO g (gid, gname) VALUES (?, ?)');
    ['alpha', 'Beta', 'beta2', 'GAMMA', 'delta', 'Émile'].forEach((n, i) => gi.run(i + 1, n));
    const r = rng(7);
    const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
    const ins = db.prepare('INSERT INTO t (gid, name, score, day, kind) VALUES (?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < N; i++) {
        ins.run(
          // NULL, a group, or a group that does not exist (the LEFT JOIN gives NULL).
          pick([null, 1, 2, 3, 4, 5, 6, 6, 99]),
          pick(['ann', 'Ann', 'ANN', 'bob', 'Bob', 'carl', 'émile', 'Zed', 'zed']),
          pick([null, null, 0, 1, 1.5, 2, 2, 10, -3.25]),
          r() < 0.3 ? null : `2025-0${1 + Math.floor(r() * 3)}-1${Math.floor(r() * 4)}T00:00:00.000Z`,
          pick(['a', 'b', 'c']),
        );
      }
    })();
  });
  afterAll(() => db.close());

  const FROM = 't LEFT JOIN g ON g.gid = t.gid';
  const SELECT = 't.id, t.name, t.score, t.day, t.kind, g.gname';
  const sorts: Record<string, SortColumn[]> = {
    id: [],
    name: [{ expr: 't.name' }],
    nameBinary: [{ expr: 't.name COLLATE BINARY' }],
    score: [{ expr: 't.score', nullable: true }],
    day: [{ expr: 't.day', nullable: true }],
    kindDay: [{ expr: 't.kind' }, { expr: 't.day', nullable: true }],
    dayScore: [
      { expr: 't.day', nullable: true },
      { expr: 't.score', nullable: true },
    ],
    gname: [{ expr: 'g.gname', nullable: true }],
  };
  const filters: Record<string, (w: Where) => Where> = {
    none: (w) => w,
    kind: (w) => w.add('t.kind = ?', 'b'),
    // A clause with a top-level OR: the boundary condition must not bind into it.
    orClause: (w) => w.add('t.score >= ? OR t.score IS NULL', 1),
    dayNull: (w) => w.add('t.day IS NULL'),
    joined: (w) => w.add("g.gname LIKE 'b%'"),
  };

  function expected(sort: SortColumn[], dir: 'ASC' | 'DESC', w: Where, page: number, size: number): number[] {
    const order = [...sort.map((s) => s.expr), 't.id'].map((e) => `${e} ${dir}`).join(', ');
    return db
      .prepare(`SELECT t.id FROM ${FROM} ${w.sql} ORDER BY ${order} LIMIT ? OFFSET ?`)
      .pluck()
      .all(...w.args, size, (page - 1) * size) as number[];
  }

  function actual(sort: SortColumn[], dir: 'ASC' | 'DESC', w: Where, page: number, size: number) {
    return pageRows(db, { select: SELECT, from: FROM, where: w, sort, tiebreak: 't.id', order: dir, page, size, cache: false });
  }

  /** A write that changes nothing: the database's change stamp moves, so every boundary is dropped. */
  function forgetBoundaries(): void {
    db.prepare('UPDATE g SET gname = gname WHERE gid = 1').run();
    expect(pageBoundaryCount(db)).toBe(0);
  }

  function total(w: Where): number {
    return db
      .prepare(`SELECT COUNT(*) FROM ${FROM} ${w.sql}`)
      .pluck()
      .get(...w.args) as number;
  }

  it('every sort × direction × filter, walked in order, in reverse and at random, with page sizes 23 and 100', () => {
    const r = rng(11);
    const before = readsSnapshot();
    let pagesChecked = 0;
    for (const [sortName, sort] of Object.entries(sorts)) {
      for (const dir of ['ASC', 'DESC'] as const) {
        for (const [filterName, f] of Object.entries(filters)) {
          const w = f(new Where());
          for (const size of [23, 100]) {
            const pages = Math.ceil(total(w) / size);
            for (const kind of ['forward', 'reverse', 'random'] as const) {
              forgetBoundaries();
              for (const p of walk(kind, pages, r)) {
                const got = actual(sort, dir, w, p, size);
                const want = expected(sort, dir, w, p, size);
                const ids = got.map((x) => x.id);
                if (JSON.stringify(ids) !== JSON.stringify(want)) {
                  throw new Error(
                    `sort ${sortName} ${dir}, filter ${filterName}, size ${size}, ${kind} walk, page ${p}: got ${ids.join(',')} want ${want.join(',')}`,
                  );
                }
                pagesChecked++;
              }
            }
          }
        }
      }
    }
    expect(pagesChecked).toBeGreaterThan(8000);
    // The boundaries were used (not everything read with a plain OFFSET), in both directions.
    expect(pageReads.after - before.after).toBeGreaterThan(5000);
    expect(pageReads.before - before.before).toBeGreaterThan(1000);
  });

  it('answers the same row objects as the plain OFFSET read (columns, values, booleans)', () => {
    const sort = sorts.kindDay;
    const w = new Where();
    const before = readsSnapshot();
    for (const p of [1, 2, 3, 40, 39, 93, 92, 80, 94]) {
      const got = actual(sort, 'DESC', w, p, 13);
      setDeepPaging(db, false);
      const ref = actual(sort, 'DESC', w, p, 13);
      setDeepPaging(db, true);
      expect(got).toEqual(ref);
      if (p < 94) expect(Object.keys(got[0])).toEqual(['id', 'name', 'score', 'day', 'kind', 'gname']);
      else expect(got).toEqual([]);
    }
    expect(keysetReads(before)).toBeGreaterThan(3);
  });

  it('stays exact when rows are inserted, deleted or re-keyed between page requests', () => {
    const r = rng(5);
    for (const [sortName, sort] of Object.entries(sorts)) {
      for (const dir of ['ASC', 'DESC'] as const) {
        const w = new Where();
        const size = 17;
        let p = 1;
        const before = readsSnapshot();
        while (p <= Math.ceil(total(w) / size) + 1) {
          const got = actual(sort, dir, w, p, size).map((x) => x.id);
          expect(got, `${sortName} ${dir} page ${p}`).toEqual(expected(sort, dir, w, p, size));
          if (p % 9 === 4) {
            // Every few pages, something that moves rows across page boundaries.
            const op = Math.floor(r() * 4);
            if (op === 0) {
              db.prepare('INSERT INTO t (gid, name, score, day, kind) VALUES (?, ?, ?, ?, ?)').run(null, 'aaa', null, null, 'a');
            } else if (op === 1) {
              db.prepare('DELETE FROM t WHERE id = (SELECT id FROM t ORDER BY random() LIMIT 1)').run();
            } else if (op === 2) {
              db.prepare('UPDATE t SET score = ?, day = ?, name = ? WHERE id = (SELECT id FROM t ORDER BY random() LIMIT 1)').run(
                r() < 0.5 ? null : 1,
                r() < 0.5 ? null : '2025-02-12T00:00:00.000Z',
                'Bob',
              );
            } else {
              db.prepare('UPDATE g SET gname = ? WHERE gid = ?').run(r() < 0.5 ? 'zz' : 'AA', 1 + Math.floor(r() * 6));
            }
          }
          p++;
        }
        expect(keysetReads(before)).toBeGreaterThan(0);
      }
    }
  });

  it(`keeps at most ${MAX_PAGE_BOUNDARIES} boundaries and stays exact past that`, () => {
    const w = new Where();
    const n = total(w);
    const walks: Array<[SortColumn[], 'ASC' | 'DESC']> = [
      [sorts.score, 'ASC'],
      [sorts.day, 'DESC'],
      [sorts.name, 'ASC'],
      [sorts.gname, 'DESC'],
      [sorts.id, 'ASC'],
    ];
    // One row per page: two boundaries per page, five walks over every row.
    expect(2 * n * walks.length).toBeGreaterThan(2 * MAX_PAGE_BOUNDARIES);
    for (const [sort, dir] of walks) for (let p = 1; p <= n; p++) actual(sort, dir, w, p, 1);
    expect(pageBoundaryCount(db)).toBe(MAX_PAGE_BOUNDARIES);
    const r = rng(3);
    for (const [sort, dir] of walks) {
      for (let i = 0; i < 200; i++) {
        const p = 1 + Math.floor(r() * n);
        expect(actual(sort, dir, w, p, 1).map((x) => x.id)).toEqual(expected(sort, dir, w, p, 1));
      }
    }
    expect(pageBoundaryCount(db)).toBeLessThanOrEqual(MAX_PAGE_BOUNDARIES);
  });
});

// ---------------------------------------------------------------------------------------------
// The list endpoints over HTTP

interface ListCase {
  name: string;
  path: string;
  query: Record<string, unknown>;
  /** Query parameter of the page number. */
  pageParam: 'page_number' | 'page';
  items: string;
  id: string;
  /** The reference query's id column, FROM, WHERE (with args) and ORDER BY, written here independently. */
  ref: { id: string; from: string; where: string; args: unknown[]; order: string };
}

const WALLET_FROM = 'wallet_transactions w JOIN users u ON u.user_id = w.user_id';
const SUB_FROM = 'subscriptions x JOIN users u ON u.user_id = x.user_id LEFT JOIN services s ON s.service_id = x.service_id';
const CODE_FROM =
  'usage_codes c LEFT JOIN service_plans sp ON sp.service_plan_id = c.service_plan_id LEFT JOIN services s ON s.service_id = sp.service_id';

function cases(now: string): ListCase[] {
  const wallet = (name: string, query: Record<string, unknown>, order: string, where = '', args: unknown[] = []): ListCase => ({
    name: `wallet ${name}`,
    path: '/admin/wallet-transactions/list',
    query,
    pageParam: 'page_number',
    items: 'transactions',
    id: 'transaction_id',
    ref: { id: 'w.transaction_id', from: WALLET_FROM, where, args, order },
  });
  const subs = (name: string, query: Record<string, unknown>, order: string, where = '', args: unknown[] = []): ListCase => ({
    name: `subscriptions ${name}`,
    path: '/admin/subscriptions',
    query,
    pageParam: 'page_number',
    items: 'subscriptions',
    id: 'subscription_id',
    ref: { id: 'x.subscription_id', from: SUB_FROM, where, args, order },
  });
  const codes = (name: string, query: Record<string, unknown>, order: string, where = '', args: unknown[] = []): ListCase => ({
    name: `usage codes ${name}`,
    path: '/admin/usage-codes/list',
    query: { include_summary: true, ...query },
    pageParam: 'page_number',
    items: 'usage_codes',
    id: 'code_id',
    ref: { id: 'c.code_id', from: CODE_FROM, where, args, order },
  });
  const audit = (name: string, query: Record<string, unknown>, where = '', args: unknown[] = []): ListCase => ({
    name: `audit ${name}`,
    path: '/audit',
    query,
    pageParam: 'page',
    items: 'logs',
    id: 'id',
    ref: { id: 'id', from: 'audit_logs', where, args, order: 'id DESC' },
  });
  return [
    wallet('default (date, newest first)', {}, 'w.transaction_date DESC, w.transaction_id DESC'),
    wallet('date ASC', { sort_by: 'TransactionDate', sort_order: 'ASC' }, 'w.transaction_date ASC, w.transaction_id ASC'),
    wallet('amount ASC (ties)', { sort_by: 'Amount', sort_order: 'ASC' }, 'w.amount ASC, w.transaction_id ASC'),
    wallet('amount DESC (ties)', { sort_by: 'Amount', sort_order: 'DESC' }, 'w.amount DESC, w.transaction_id DESC'),
    wallet(
      'username ASC (case-insensitive, ties)',
      { sort_by: 'Username', sort_order: 'ASC' },
      'u.username COLLATE NOCASE ASC, w.transaction_id ASC',
    ),
    wallet('username DESC', { sort_by: 'Username', sort_order: 'DESC' }, 'u.username COLLATE NOCASE DESC, w.transaction_id DESC'),
    wallet(
      'type ASC',
      { sort_by: 'TransactionType', sort_order: 'ASC' },
      'w.transaction_type ASC, w.transaction_date ASC, w.transaction_id ASC',
    ),
    wallet(
      'deduct by amount DESC',
      { transaction_type: 'deduct', sort_by: 'Amount', sort_order: 'DESC' },
      'w.amount DESC, w.transaction_id DESC',
      'w.transaction_type = ?',
      ['deduct'],
    ),
    wallet(
      'card, amount range, date ASC',
      { payment_method: 'card', amount_from: 5, amount_to: 60, sort_by: 'TransactionDate', sort_order: 'ASC' },
      'w.transaction_date ASC, w.transaction_id ASC',
      'w.payment_method = ? AND w.amount >= ? AND w.amount <= ?',
      ['card', 5, 60],
    ),
    wallet(
      'username filter',
      { username: 'a' },
      'w.transaction_date DESC, w.transaction_id DESC',
      "w.user_id IN (SELECT user_id FROM users WHERE lower(username) LIKE '%a%')",
    ),
    subs('default (created, newest first)', {}, 'x.created_date DESC, x.subscription_id DESC'),
    subs(
      'service code ASC (NULLs first)',
      { sort_by: 'ServiceCode', sort_order: 'ASC' },
      's.service_code COLLATE NOCASE ASC, x.subscription_id ASC',
    ),
    subs(
      'service code DESC (NULLs last)',
      { sort_by: 'ServiceCode', sort_order: 'DESC' },
      's.service_code COLLATE NOCASE DESC, x.subscription_id DESC',
    ),
    subs('username ASC', { sort_by: 'Username', sort_order: 'ASC' }, 'u.username COLLATE NOCASE ASC, x.subscription_id ASC'),
    subs(
      'active by end ASC',
      { status: 'active', sort_by: 'EndDate', sort_order: 'ASC' },
      'x.end_date ASC, x.subscription_id ASC',
      "x.status = 'active'",
    ),
    subs(
      'expired (clock)',
      { is_expired: true, sort_by: 'StartDate', sort_order: 'DESC' },
      'x.start_date DESC, x.subscription_id DESC',
      'x.end_date < ?',
      [now],
    ),
    codes('default (created, newest first)', {}, 'c.created_date DESC, c.code_id DESC'),
    codes('used date ASC (NULLs first)', { sort_by: 'UsedDate', sort_order: 'ASC' }, 'c.used_date ASC, c.code_id ASC'),
    codes('used date DESC (NULLs last)', { sort_by: 'UsedDate', sort_order: 'DESC' }, 'c.used_date DESC, c.code_id DESC'),
    codes(
      'service code ASC (NULLs first)',
      { sort_by: 'ServiceCode', sort_order: 'ASC' },
      's.service_code COLLATE NOCASE ASC, c.code_id ASC',
    ),
    codes(
      'service code DESC (NULLs last)',
      { sort_by: 'ServiceCode', sort_order: 'DESC' },
      's.service_code COLLATE NOCASE DESC, c.code_id DESC',
    ),
    codes('code value ASC', { sort_by: 'CodeValue', sort_order: 'ASC' }, 'c.code_value COLLATE NOCASE ASC, c.code_id ASC'),
    codes(
      'unused by batch DESC',
      { is_used: false, sort_by: 'BatchID', sort_order: 'DESC' },
      'c.batch_id DESC, c.code_id DESC',
      'c.is_used = 0',
    ),
    codes(
      'unexpired (clock) by used date DESC',
      { is_expired: false, sort_by: 'UsedDate', sort_order: 'DESC' },
      'c.used_date DESC, c.code_id DESC',
      'c.expiry_date > ?',
      [now],
    ),
    audit('all', {}),
    audit('one module', { module: 'subscriptions' }, "module = 'subscriptions'"),
  ];
}

describe('list endpoints over HTTP against a reference query and a plain-OFFSET sandbox', () => {
  let sb: Sandbox;
  let plain: Sandbox;
  let other: DB;
  const NOW = new Date();
  const nowIso = NOW.toISOString();

  beforeAll(async () => {
    const file = tempDataFile('deep-paging');
    sb = await startTestSandbox({ dataFile: file, now: () => NOW });
    // The same file through another connection, reading every page with a plain OFFSET.
    plain = await startTestSandbox({ dataFile: file, now: () => NOW });
    setDeepPaging(plain.db, false);
    // A third connection: its commits reach the sandboxes through data_version only.
    other = openDatabase(file);
    const db = sb.db;
    db.transaction(() => {
      // A third of the wallet (about 3,300 transactions) keeps the walks quick.
      db.exec('DELETE FROM wallet_transactions WHERE transaction_id % 3 <> 0');
      // Ties on dates: groups of transactions at one instant.
      db.exec(`UPDATE wallet_transactions SET transaction_date = (SELECT MIN(w2.transaction_date) FROM wallet_transactions w2
        WHERE w2.transaction_id >= wallet_transactions.transaction_id / 21 * 21 AND w2.transaction_id < wallet_transactions.transaction_id / 21 * 21 + 21)`);
      // Subscriptions and codes whose service is gone: NULL service codes through the LEFT JOINs.
      db.exec('UPDATE subscriptions SET service_id = NULL WHERE subscription_id % 13 = 0');
      db.exec('UPDATE usage_codes SET service_plan_id = NULL WHERE code_id % 11 = 0');
    })();
    // Audit entries for the audit walks.
    for (let i = 0; i < 30; i++) {
      const id = db.prepare("SELECT subscription_id FROM subscriptions WHERE status = 'active' LIMIT 1 OFFSET ?").pluck().get(i) as number;
      await call(sb, 'PUT', `/admin/subscriptions/${id}/manage`, {
        as: 'admin',
        body: { action: 'add_credits', extend_credits: 1, reason: 'deep paging test' },
      });
    }
  });
  afterAll(async () => {
    other?.close();
    await closeAllTestSandboxes();
  });

  /** The reference: the page's ids by a plain LIMIT/OFFSET query on the database, and the count (unless given). */
  function reference(c: ListCase, page: number, size: number, knownTotal?: number): { ids: number[]; total: number } {
    const where = c.ref.where ? `WHERE ${c.ref.where}` : '';
    const ids = sb.db
      .prepare(`SELECT ${c.ref.id} FROM ${c.ref.from} ${where} ORDER BY ${c.ref.order} LIMIT ? OFFSET ?`)
      .pluck()
      .all(...c.ref.args, size, (page - 1) * size) as number[];
    const total =
      knownTotal ??
      (sb.db
        .prepare(`SELECT COUNT(*) FROM ${c.ref.from} ${where}`)
        .pluck()
        .get(...c.ref.args) as number);
    return { ids, total };
  }

  /**
   * One page from the sandbox: its ids and pagination block against the reference and, with
   * `plainToo`, the whole answer against the plain-OFFSET sandbox's.
   */
  async function checkPage(
    c: ListCase,
    page: number,
    size: number,
    label: string,
    o: { plainToo: boolean; total?: number },
  ): Promise<void> {
    const query = { ...c.query, page_size: size, [c.pageParam]: page };
    const [a, b] = await Promise.all([
      call(sb, 'GET', c.path, { as: 'admin', query }),
      o.plainToo ? call(plain, 'GET', c.path, { as: 'admin', query }) : undefined,
    ]);
    expect(a.status, `${label}: ${JSON.stringify(a.json?.error)}`).toBe(200);
    const ref = reference(c, page, size, o.total);
    const ids = (a.json.data[c.items] as Array<Record<string, number>>).map((x) => x[c.id]);
    if (JSON.stringify(ids) !== JSON.stringify(ref.ids)) throw new Error(`${label}: got ids ${ids.join(',')}, want ${ref.ids.join(',')}`);
    const totalPages = Math.ceil(ref.total / size);
    if (c.pageParam === 'page') {
      expect(
        {
          page: a.json.data.page,
          page_size: a.json.data.page_size,
          total_items: a.json.data.total_items,
          total_pages: a.json.data.total_pages,
        },
        label,
      ).toEqual({
        page,
        page_size: size,
        total_items: ref.total,
        total_pages: totalPages,
      });
    } else {
      expect(a.json.data.pagination, label).toEqual({
        current_page: page,
        page_size: size,
        total_pages: totalPages,
        total_records: ref.total,
        has_next_page: page < totalPages,
        has_previous_page: page > 1,
      });
    }
    // The whole answer (every field of every row, summaries) is the plain OFFSET one.
    if (b && JSON.stringify(a.json.data) !== JSON.stringify(b.json.data)) expect(a.json.data, label).toEqual(b.json.data);
  }

  it('every list, sort and filter: pages in order, in reverse and at random give the reference rows', async () => {
    const r = rng(99);
    const before = readsSnapshot();
    let checked = 0;
    for (const c of cases(nowIso)) {
      // A different page size per walk: the page cache never answers for the boundaries, and
      // boundaries left by one page size serve another.
      const plan: Array<['forward' | 'reverse' | 'random', number]> = [
        ['forward', c.items === 'transactions' ? 47 : 41],
        ['reverse', c.items === 'transactions' ? 53 : 37],
        ['random', c.items === 'transactions' ? 59 : 43],
      ];
      for (const [kind, size] of plan) {
        const total = reference(c, 1, size).total;
        const pages = Math.ceil(total / size);
        for (const p of walk(kind, pages, r)) {
          // Whole answers against the plain-OFFSET sandbox on the walk in order; ids and
          // pagination against the reference query on every walk.
          await checkPage(c, p, size, `${c.name}, ${kind} walk, size ${size}, page ${p}`, { plainToo: kind === 'forward', total });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
    expect(pageReads.after - before.after).toBeGreaterThan(500);
    expect(pageReads.before - before.before).toBeGreaterThan(100);
  }, 180_000);

  it('a write between page requests (this connection, another connection, an HTTP handler) never leaves stale pages', async () => {
    const r = rng(1234);
    const db = sb.db;
    const writes: Array<[string, () => Promise<void> | void]> = [
      [
        'insert a newest transaction (same connection)',
        () => {
          db.prepare(
            `INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, currency, payment_method, status, transaction_date, created_date)
           VALUES (6, 'topup', 12.5, 0, 12.5, 'USD', 'card', 'completed', ?, ?)`,
          ).run('2999-01-01T00:00:00.000Z', nowIso);
        },
      ],
      [
        'delete a transaction in the middle (other connection)',
        () => {
          other
            .prepare(
              'DELETE FROM wallet_transactions WHERE transaction_id = (SELECT transaction_id FROM wallet_transactions ORDER BY transaction_date DESC LIMIT 1 OFFSET 200)',
            )
            .run();
        },
      ],
      [
        'change an amount (other connection)',
        () => {
          other
            .prepare(
              'UPDATE wallet_transactions SET amount = amount + 0.5 WHERE transaction_id = (SELECT transaction_id FROM wallet_transactions ORDER BY amount LIMIT 1 OFFSET 300)',
            )
            .run();
        },
      ],
      [
        'top up over HTTP',
        async () => {
          const t = await call(sb, 'POST', '/user/wallet/topup', {
            as: 'enduser',
            body: { amount: 7, payment_method: 'card' },
            headers: { 'x-device-id': 'deep-paging-test' },
          });
          expect(t.status, JSON.stringify(t.json?.error)).toBe(200);
        },
      ],
      [
        'manage a subscription over HTTP (new audit entry on top, subscription changed)',
        async () => {
          const id = db
            .prepare("SELECT subscription_id FROM subscriptions WHERE status = 'active' ORDER BY random() LIMIT 1")
            .pluck()
            .get() as number;
          const m = await call(sb, 'PUT', `/admin/subscriptions/${id}/manage`, {
            as: 'admin',
            body: { action: 'extend', extend_days: 3, reason: 'deep paging test' },
          });
          expect(m.status).toBe(200);
        },
      ],
      [
        'orphan a subscription and a code (other connection)',
        () => {
          other
            .prepare(
              'UPDATE subscriptions SET service_id = NULL WHERE subscription_id = (SELECT subscription_id FROM subscriptions WHERE service_id IS NOT NULL ORDER BY random() LIMIT 1)',
            )
            .run();
          other
            .prepare(
              'UPDATE usage_codes SET service_plan_id = NULL WHERE code_id = (SELECT code_id FROM usage_codes WHERE service_plan_id IS NOT NULL ORDER BY random() LIMIT 1)',
            )
            .run();
        },
      ],
      [
        'use a code (same connection)',
        () => {
          db.prepare(
            "UPDATE usage_codes SET is_used = 1, used_date = '2000-01-01T00:00:00.000Z', used_by = 6 WHERE code_id = (SELECT code_id FROM usage_codes WHERE is_used = 0 ORDER BY random() LIMIT 1)",
          ).run();
        },
      ],
    ];
    const before = readsSnapshot();
    for (const c of cases(nowIso)) {
      const size = c.items === 'transactions' ? 31 : 29;
      const pages = Math.ceil(reference(c, 1, size).total / size);
      // Forward up to a point, a write, on; then back from the end, a write, on.
      let w = 0;
      for (const p of [
        ...Array.from({ length: Math.min(pages, 12) }, (_, i) => i + 1),
        ...Array.from({ length: Math.min(pages, 12) }, (_, i) => pages - i),
      ]) {
        if (p === 6 || p === pages - 5) {
          const [name, write] = writes[(w++ + Math.floor(r() * writes.length)) % writes.length];
          await write();
          await checkPage(c, p, size, `${c.name}, size ${size}, page ${p} after: ${name}`, { plainToo: true });
        } else await checkPage(c, p, size, `${c.name}, size ${size}, page ${p}`, { plainToo: true });
      }
    }
    expect(keysetReads(before)).toBeGreaterThan(100);
  }, 180_000);
});
