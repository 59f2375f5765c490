/**
 * The console in process (ink-testing-library, 100 columns) against the stub platform with a
 * real ApiClient: what each key sends over the wire and what the screen then shows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fail, ok } from '../support/stub-server.js';
import { KEY, makeSubscriptions, platform, startConsole, tick, type Harness } from './harness.js';
import { tempDir } from '../support/tmp.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const listed = (h: Harness) => h.requests('GET', '/admin/subscriptions');

describe('console: paging on the server', () => {
  it('PgDn asks the server for page 2 and shows page n of N with the total', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    let f = await h.waitFor('user010');
    expect(f).toContain('page 1 of 10, total 95');
    expect(listed(h)).toHaveLength(1);
    expect(listed(h)[0].query).toMatchObject({ page_number: '1', page_size: '10' });

    await h.press(KEY.pageDown);
    f = await h.waitFor('user011');
    expect(f).toContain('page 2 of 10, total 95');
    expect(f).not.toContain('user010');
    expect(listed(h)).toHaveLength(2);
    expect(listed(h)[1].query).toMatchObject({ page_number: '2', page_size: '10' });
  });

  it('G goes to the last page, g to the first; past the last page nothing is asked', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('G');
    let f = await h.waitFor('user095');
    expect(f).toContain('page 10 of 10');
    expect(listed(h).at(-1)!.query.page_number).toBe('10');
    const before = listed(h).length;
    await h.press(KEY.pageDown);
    expect(h.frame()).toContain('last page');
    expect(listed(h)).toHaveLength(before);
    await h.press('g');
    f = await h.waitFor('user001');
    expect(f).toContain('page 1 of 10');
  });

  it('a taller or shorter terminal gets pages of its height, on the page of the row that was selected (unless --page-size)', async () => {
    h = await startConsole({ resource: 'subscriptions', pageSize: undefined });
    const setRows = (rows: number) => {
      Object.defineProperty(h!.ui.stdout, 'rows', { get: () => rows, configurable: true });
      h!.ui.stdout.emit('resize');
    };
    // 24 rows: pages of 17. Page 2, fourth row: the 21st subscription.
    await h.waitFor('user017');
    expect(h.frame()).toContain('page 1 of 6, total 95');
    await h.press(KEY.pageDown);
    await h.waitFor('user018');
    await h.press(KEY.down, KEY.down, KEY.down);
    expect(h.frame()).toMatch(/^> 21\s+user021/m);
    // 40 rows: pages of 33; the 21st is on page 1, still selected.
    setRows(40);
    await h.waitFor('page 1 of 3, total 95');
    let f = await h.waitFor('user033');
    expect(f).toMatch(/^> 21\s+user021/m);
    expect(listed(h).at(-1)!.query).toMatchObject({ page_number: '1', page_size: '33' });
    // 12 rows: pages of 5; the 21st is the first of page 5.
    setRows(12);
    await h.waitFor('page 5 of 19, total 95');
    f = await h.waitFor('user025');
    expect(f).toMatch(/^> 21\s+user021/m);
    expect(f).not.toContain('user026');
    expect(listed(h).at(-1)!.query).toMatchObject({ page_number: '5', page_size: '5' });
    // A burst of resizes (a window's edge dragged) asks for the last size only.
    const before = listed(h).length;
    for (const rows of [13, 14, 15, 16, 17]) setRows(rows);
    await h.waitFor('page 3 of 10, total 95');
    await tick(200);
    expect(
      listed(h)
        .slice(before)
        .map((q) => q.query.page_size),
    ).toEqual(['10']);
    // Resized while another resource was on screen: back on the list, pages of the new height.
    await h.press(':', 'services', KEY.enter);
    await h.waitFor('GPT-4 access');
    setRows(24);
    await tick(200);
    await h.press(':', 'subscriptions', KEY.enter);
    await h.waitFor('page 2 of 6, total 95');
    f = await h.waitFor('user034');
    expect(f).toMatch(/^> 21\s+user021/m);
  });

  it('with --page-size the pages keep their size when the terminal changes', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    Object.defineProperty(h.ui.stdout, 'rows', { get: () => 40, configurable: true });
    h.ui.stdout.emit('resize');
    await tick(300);
    expect(h.frame()).toContain('page 1 of 10, total 95');
    expect(listed(h)).toHaveLength(1);
  });

  it('arrows move the selection within the page; Home/End jump', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    expect(h.frame()).toMatch(/^> 1\s+user001/m);
    await h.press(KEY.down, KEY.down);
    expect(h.frame()).toMatch(/^> 3\s+user003/m);
    await h.press(KEY.up);
    expect(h.frame()).toMatch(/^> 2\s+user002/m);
  });
});

describe('console: filter', () => {
  it('a valid filter is sent to the server', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('/', 'status=paused');
    await h.press(KEY.enter);
    const f = await h.waitFor(/page 1 of 2, total 19/);
    expect(listed(h).at(-1)!.query).toMatchObject({ status: 'paused', page_number: '1' });
    expect(f).toContain('filter status=paused');
    expect(f).toContain('user005');
    expect(f).not.toContain('user001 ');
  });

  it('an invalid filter is shown inline and nothing is sent', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    const before = h.server.requests.length;
    await h.press('/', 'status=paid');
    await h.press(KEY.enter);
    let f = h.frame();
    expect(f).toContain('status: Invalid option: expected one of "active"|"expired"|"cancelled"|"paused"');
    await h.press(KEY.esc, '/', 'colour=red', KEY.enter);
    f = h.frame();
    expect(f).toContain('colour: not a filter of subscriptions');
    await h.press(KEY.esc, '/', 'end_date_from=2026-13-01', KEY.enter);
    expect(h.frame()).toContain('end_date_from: Invalid date: expected YYYY-MM-DD');
    await tick(50);
    expect(h.server.requests.length).toBe(before);
  });
});

describe('console: sort', () => {
  it('s cycles the sort_by values and flips sort_order when it wraps', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    expect(h.frame()).toContain('sort CreatedDate DESC');
    // CreatedDate is the last value: the next one wraps to the first and flips the order.
    await h.press('s');
    await h.waitFor('sort Username ASC');
    await h.waitFor(() => listed(h!).length === 2);
    expect(listed(h).at(-1)!.query).toMatchObject({ sort_by: 'Username', sort_order: 'ASC' });
    await h.press('s');
    await h.waitFor('sort ServiceCode ASC');
    await h.waitFor(() => listed(h!).length === 3);
    expect(listed(h).at(-1)!.query).toMatchObject({ sort_by: 'ServiceCode', sort_order: 'ASC' });
    for (let i = 0; i < 4; i++) await h.press('s');
    await h.waitFor('sort Username DESC');
    await h.waitFor(() => listed(h!).at(-1)!.query.sort_order === 'DESC');
    expect(listed(h).at(-1)!.query).toMatchObject({ sort_by: 'Username', sort_order: 'DESC' });
  });
});

describe('console: detail', () => {
  it('Enter on a service fetches its detail; Esc goes back to the table', async () => {
    h = await startConsole({ resource: 'services' });
    await h.waitFor('GPT-4 access');
    await h.press(KEY.enter);
    const f = await h.waitFor('Top users (1)');
    const detail = h.requests('GET', '/admin/services/detail');
    expect(detail).toHaveLength(1);
    expect(detail[0].query).toEqual({ service_code: 'GPT4' });
    expect(f).toContain('provider_name');
    expect(f).toContain('Plans (1)');
    await h.press(KEY.esc);
    const back = await h.waitFor('page 1 of 1');
    expect(back).toContain('service_name');
    expect(back).not.toContain('Top users');
  });

  it('Enter on a subscription shows the row as key/values (no detail endpoint)', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    const before = h.server.requests.length;
    await h.press(KEY.down, KEY.enter);
    const f = h.frame();
    expect(f).toContain('subscriptions › 2');
    expect(f).toMatch(/username\s+user002/);
    expect(f).toMatch(/remaining_credits\s+998/);
    expect(h.server.requests.length).toBe(before);
    await h.press(KEY.esc);
    expect(h.frame()).toMatch(/^> 2\s+user002/m);
  });
});

describe('console: actions', () => {
  it('extend: form with inline validation, confirmation naming the profile, the PUT, the table asked again', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press(KEY.down, KEY.down, 'e');
    let f = h.frame();
    expect(f).toContain('extend subscription 3 (user003, GPT4/PRO-M, active)');
    expect(f).toContain('reason*');
    expect(f).toContain('extend_days*');

    // Submitting empty: the contract's message names the field; nothing is sent.
    await h.press(KEY.enter);
    f = h.frame();
    expect(f).toContain('reason: required: expected string');
    expect(f).toContain('extend_days: Required');
    expect(h.requests('PUT')).toHaveLength(0);

    await h.press('support ticket 981', KEY.tab, '30', KEY.enter);
    f = h.frame();
    expect(f).toContain('extend subscription 3');
    expect(f).toContain(`profile: test (${h.server.url})`);
    expect(f).toContain('end_date: 2026-12-01 -> 2026-12-31');
    expect(f).toContain('reason: support ticket 981');
    expect(f).toContain('Proceed? [y/N]');
    expect(h.requests('PUT')).toHaveLength(0);

    const gets = listed(h).length;
    await h.press('y');
    await h.waitFor('extended by 30 day(s)');
    const puts = h.requests('PUT', '/admin/subscriptions/3/manage');
    expect(puts).toHaveLength(1);
    expect(puts[0].body).toEqual({ action: 'extend', reason: 'support ticket 981', extend_days: 30 });
    await h.waitFor(() => listed(h!).length === gets + 1);
    expect(listed(h).at(-1)!.at).toBeGreaterThanOrEqual(puts[0].at);
    expect(listed(h).at(-1)!.query).toMatchObject({ page_number: '1' });
  });

  it('Ctrl-Z in a half-filled form suspends (the terminal given back) and leaves the form as it was; typing goes on after fg', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    const suspended: string[] = [];
    h.controller.setSuspend(() => suspended.push(h!.frame()));
    await h.press(KEY.down, 'e', 'support tic');
    await h.press(KEY.ctrlZ);
    expect(suspended).toHaveLength(1);
    expect(suspended[0]).toContain('extend subscription 2');
    await h.press('ket 7', KEY.tab, '5', KEY.enter);
    const f = h.frame();
    expect(f).toContain('reason: support ticket 7');
    expect(f).toContain('Proceed? [y/N]');
    // On the table, too; nothing was sent by either.
    await h.press(KEY.esc, KEY.esc, KEY.ctrlZ);
    expect(suspended).toHaveLength(2);
    expect(h.requests('PUT')).toHaveLength(0);
  });

  it('n on the confirmation cancels: nothing is sent', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('p', 'customer asked', KEY.enter);
    expect(h.frame()).toContain('status: active -> paused');
    await h.press('n');
    expect(h.frame()).toContain('pause: cancelled, nothing was sent');
    expect(h.requests('PUT')).toHaveLength(0);
  });

  it('Enter on the [y/N] confirmation takes the default, no: nothing is sent (it did nothing)', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('p', 'customer asked', KEY.enter);
    expect(h.frame()).toContain('Proceed? [y/N]');
    await h.press(KEY.enter);
    expect(h.frame()).toContain('pause: cancelled, nothing was sent');
    expect(h.frame()).not.toContain('Proceed? [y/N]');
    expect(h.requests('PUT')).toHaveLength(0);
  });

  it('a server rejection is shown in the status line without leaving the table', async () => {
    const base = platform();
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) =>
        req.method === 'PUT'
          ? fail(400, 'cannot resume a subscription that is active', {
              code: 'INVALID_TRANSITION',
              fields: [{ field: 'action', message: 'resume is not allowed when the status is active' }],
            })
          : base(req),
    });
    await h.waitFor('user010');
    await h.press('u', 'oops', KEY.enter, 'y');
    const f = await h.waitFor('resume failed');
    // Wider than the terminal: cut, saying where the rest is.
    expect(f).toMatch(/^✗ resume failed: cannot resume a subscription that is active \(HTTP 400\): action: res.*… \(! shows all\)$/m);
    expect(f).toContain('user010');
  });

  it('marked rows: one form, one confirmation, a request per row with progress, marks cleared', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press(' ', ' ', KEY.down, ' ');
    let f = h.frame();
    expect(f).toContain('3 marked');
    expect(f).toMatch(/^ \*1\s+user001/m);
    await h.press('p', 'maintenance window', KEY.enter);
    f = h.frame();
    expect(f).toContain('pause 3 subscriptions:');
    expect(f).toContain('subscription 4 (user004');
    await h.press('y');
    await h.waitFor('pause: 3 done');
    const puts = h
      .requests('PUT')
      .map((r) => r.path)
      .sort();
    expect(puts).toEqual(['/admin/subscriptions/1/manage', '/admin/subscriptions/2/manage', '/admin/subscriptions/4/manage']);
    expect(h.frame()).not.toContain('marked');
  });

  it('delete asks to type the code: a wrong code (or case) sends nothing and says so, the right one sends the DELETE', async () => {
    const base = platform();
    h = await startConsole({
      resource: 'services',
      handler: (req) =>
        req.method === 'DELETE'
          ? { status: 200, json: { status: true, message: 'service GPT4 deleted', data: { affected_records: 1 } } }
          : base(req),
    });
    await h.waitFor('GPT-4 access');
    await h.press('d');
    expect(h.frame()).toContain('type GPT4 to confirm');
    await h.press('GPT5', KEY.enter);
    expect(h.frame()).toContain("✗ 'GPT5' does not match GPT4 (exactly, case included); nothing deleted");
    expect(h.frame()).toContain('type GPT4 to confirm');
    await h.press('gpt4', KEY.enter);
    expect(h.frame()).toContain("✗ 'gpt4' does not match GPT4");
    expect(h.requests('DELETE')).toHaveLength(0);
    await h.press('GPT4', KEY.enter);
    await h.waitFor('service GPT4 deleted');
    expect(h.requests('DELETE', '/admin/services')[0].body).toEqual({ service_code: 'GPT4' });
  });

  it('read-only: action keys do nothing but say so, and are not offered', async () => {
    h = await startConsole({ resource: 'subscriptions', readOnly: true });
    const f = await h.waitFor('user010');
    expect(f).toContain('READ-ONLY');
    expect(f).not.toContain('e extend');
    const before = h.server.requests.length;
    await h.press('e', 'p', 'c', '+', 'u');
    expect(h.frame()).not.toContain('reason');
    expect(h.frame()).toContain('user010');
    expect(h.frame()).toContain('resume: not available in a read-only console (--read-only)');
    await tick(50);
    expect(h.requests('PUT')).toHaveLength(0);
    expect(h.server.requests.length).toBe(before);
  });
});

describe('console: cache', () => {
  it('going back to a page seen within 5 minutes makes no request', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press(KEY.pageDown);
    await h.waitFor('user020');
    const before = h.server.requests.length;
    h.clock.now += 20_000;
    await h.press(KEY.pageUp);
    expect(h.frame()).toContain('user001');
    await h.press(':', 'services', KEY.enter);
    await h.waitFor('GPT-4 access');
    const afterServices = h.server.requests.length;
    await h.press(':', 'subscriptions', KEY.enter);
    expect(h.frame()).toContain('user001');
    await tick(50);
    expect(afterServices - before).toBe(1); // the services list, seen for the first time
    expect(h.server.requests.length).toBe(afterServices);
    expect(h.cache.requests).toBe(h.server.requests.length);
  });

  it('an older page shows at once and refreshes in the background; past 5 minutes it is asked again', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press(KEY.pageDown);
    await h.waitFor('user020');
    h.clock.now += 45_000;
    let n = listed(h).length;
    await h.press(KEY.pageUp);
    expect(h.frame()).toContain('user001');
    await h.waitFor(() => listed(h!).length === n + 1);
    h.clock.now += 6 * 60_000;
    n = listed(h).length;
    await h.press(KEY.pageDown);
    await h.waitFor(() => listed(h!).length === n + 1);
  });

  it('r asks the server again; the status line says refreshing… until the answer is in, then refreshed', async () => {
    const base = platform();
    let n = 0;
    // Every answer after the first takes 100 ms: the refresh is seen while it runs.
    h = await startConsole({ resource: 'subscriptions', handler: (req) => ({ ...base(req), delayMs: n++ > 0 ? 100 : 0 }) });
    await h.waitFor('user010');
    await h.press('r');
    expect(h.frame()).toContain('… refreshing…');
    await h.waitFor(() => listed(h!).length === 2);
    const f = await h.waitFor('✓ refreshed');
    expect(f).not.toContain('refreshing');
  });
});

describe('console: switcher, export, errors, help, resize', () => {
  it(': completes resource names with Tab', async () => {
    h = await startConsole({});
    await h.waitFor('dashboard');
    await h.press(':', 'subs');
    expect(h.frame()).toContain('> subscriptions');
    await h.press(KEY.tab);
    expect(h.frame()).toMatch(/^:subscriptions/m);
    await h.press(KEY.enter);
    await h.waitFor('user010');
  });

  it('the dashboard is drawn with charts and refreshed in place; a toggles the refresh', async () => {
    h = await startConsole({ refreshMs: 60 });
    let f = await h.waitFor('new_subscriptions');
    expect(f).toContain('▁█▅');
    expect(f).toContain('auto-refresh on');
    const n = () => h!.requests('GET', '/admin/dashboard').length;
    await h.waitFor(() => n() >= 3);
    await h.press('a');
    f = h.frame();
    expect(f).toContain('auto-refresh off');
    const stopped = n();
    await tick(200);
    expect(n()).toBe(stopped);
  });

  it('ctrl-s writes the page on screen to a CSV file and says where', async () => {
    const dir = tempDir('subctl-export-');
    h = await startConsole({ resource: 'subscriptions', cwd: dir, now: () => new Date(2026, 10, 22, 15, 30, 12) });
    await h.waitFor('user010');
    await h.press(KEY.ctrlS);
    const f = await h.waitFor('exported 10 rows');
    expect(readdirSync(dir)).toEqual(['subctl-subscriptions-20261122-153012.csv']);
    expect(f).toContain(join(dir, 'subctl-subscriptions-20261122-153012.csv').slice(0, 40));
    const csv = readFileSync(join(dir, 'subctl-subscriptions-20261122-153012.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('subscription_id,username,service_code,plan_code,status,end_date,remaining_credits');
    expect(csv).toHaveLength(11);
    expect(csv[1]).toBe('1,user001,GPT4,PRO-M,active,2026-12-01T00:00:00Z,999');
  });

  it('a 401 says to sign in again, then r; ! shows it whole', async () => {
    h = await startConsole({ resource: 'subscriptions', handler: () => fail(401, 'token expired') });
    let f = await h.waitFor('token expired');
    expect(f).toContain('subctl │ profile test');
    // 100 columns: the line is cut, and says where the rest is.
    expect(f).toMatch(/^✗ token expired \(HTTP 401\) — sign in again with `subctl auth login --profile test`.*… \(! shows all\)$/m);
    expect(f).toContain('! error');
    await h.press('!');
    f = h.frame().replace(/\s*\n\s*/g, ' ');
    expect(f).toContain('The last error');
    expect(f).toContain(
      'token expired (HTTP 401) — sign in again with `subctl auth login --profile test` (in another shell), then press r',
    );
    await h.press('x');
    expect(h.frame()).not.toContain('The last error');
  });

  it('an error cut on the status line is read whole with !, also after the status line moved on', async () => {
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) =>
        req.method === 'PUT'
          ? fail(400, 'cannot pause a subscription that is cancelled', {
              fields: [{ field: 'action', message: 'pause is not allowed when the status is cancelled; resume or extend it first' }],
            })
          : platform()(req),
    });
    await h.waitFor('user010');
    await h.press('p', 'maintenance', KEY.enter, 'y');
    let f = await h.waitFor('pause failed');
    expect(f).toMatch(/^✗ pause failed: cannot pause a subscription that is cancelled \(HTTP 400\).*… \(! shows all\)$/m);
    // Something else said meanwhile: ! still shows the last error.
    await h.press('r');
    await h.waitFor('✓ refreshed');
    await h.press('!');
    f = h.frame().replace(/\s*\n\s*/g, ' ');
    expect(f).toContain(
      'pause failed: cannot pause a subscription that is cancelled (HTTP 400): action: pause is not allowed when the status is cancelled; resume or extend it first',
    );
  });

  it('? lists every key; any other key closes it', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('?');
    const f = h.frame();
    expect(f).toContain('switch to a resource');
    expect(f).toContain('next / previous page');
    await h.press('x');
    expect(h.frame()).toContain('user010');
  });

  it('a narrower terminal drops columns from the right and cuts cells with …', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    expect(h.frame()).toContain('remaining_credits');
    Object.defineProperty(h.ui.stdout, 'columns', { get: () => 50, configurable: true });
    h.ui.stdout.emit('resize');
    // The header of the id column gives way to the values first ('subscription_id' over short ids).
    const f = await h.waitFor(/^ *subs\w*… /m);
    expect(f).not.toContain('remaining');
    for (const line of f.split('\n')) expect(line.length).toBeLessThanOrEqual(50);
  });
});

describe('console: keys that arrive together (one chunk, as tmux send-keys or fast typing sends them)', () => {
  it('Ctrl-U then text in one chunk clears the filter prompt first; Ctrl-U Enter clears the filter', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('/', 'status=paused', KEY.enter);
    await h.waitFor('page 1 of 2, total 19');
    await h.press('/');
    expect(h.frame()).toMatch(/^\/ status=paused/m);
    await h.press('\u0015status=active');
    expect(h.frame()).toMatch(/^\/ status=active\s*$/m);
    await h.press('\u0015\r');
    await h.waitFor('filter cleared');
    const f = await h.waitFor('page 1 of 10, total 95');
    expect(f).toContain('user001');
    expect(f).not.toContain('filter status');
  });

  it('Esc typed with the next letter in one chunk counts as Esc, then that letter (not as Alt and the letter)', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('/', 'status=paus');
    expect(h.frame()).toMatch(/^\/ status=paus/m);
    // Esc closes the filter prompt (nothing applied), then j moves the selection down.
    // (Ink drops an ESC before a character that is not a letter, `\x1b:`: that one is lost.)
    await h.press('\u001bj');
    const f = h.frame();
    expect(f).not.toMatch(/^\/ status=paus/m);
    expect(f).toMatch(/^> 2 /m);
    expect(h.requests('GET', '/admin/subscriptions').every((q) => q.query.status === undefined)).toBe(true);
  });

  it('Ctrl-S typed with other keys exports each time; j Ctrl-S moves and exports', async () => {
    const dir = tempDir('subctl-export-');
    let t = new Date(2026, 10, 22, 15, 30, 0).getTime();
    h = await startConsole({ resource: 'subscriptions', cwd: dir, now: () => new Date((t += 1000)) });
    await h.waitFor('user010');
    await h.press(`j${KEY.ctrlS}`);
    await h.waitFor('exported 10 rows');
    expect(h.frame()).toMatch(/^> 2\s+user002/m);
    expect(readdirSync(dir)).toHaveLength(1);
    await h.press(KEY.ctrlS + KEY.ctrlS);
    await h.waitFor(() => readdirSync(dir).length === 3);
    expect(readdirSync(dir).sort()).toEqual([
      'subctl-subscriptions-20261122-153001.csv',
      'subctl-subscriptions-20261122-153002.csv',
      'subctl-subscriptions-20261122-153003.csv',
    ]);
  });
});

describe('console: exports within one second', () => {
  it('Ctrl-S three times in one chunk writes three files (-2, -3 on the same second), each said', async () => {
    const dir = tempDir('subctl-export-');
    h = await startConsole({ resource: 'subscriptions', cwd: dir, now: () => new Date(2026, 10, 23, 5, 28, 17) });
    await h.waitFor('user010');
    await h.press(KEY.ctrlS + KEY.ctrlS + KEY.ctrlS);
    await h.waitFor(() => readdirSync(dir).length === 3);
    expect(readdirSync(dir).sort()).toEqual([
      'subctl-subscriptions-20261123-052817-2.csv',
      'subctl-subscriptions-20261123-052817-3.csv',
      'subctl-subscriptions-20261123-052817.csv',
    ]);
    for (const name of readdirSync(dir)) expect(readFileSync(join(dir, name), 'utf8').trim().split('\n')).toHaveLength(11);
    const f = await h.waitFor('exported 10 rows');
    expect(f).not.toContain('failed');
    // One more press, later: the next free name.
    await h.press(KEY.ctrlS);
    await h.waitFor(() => readdirSync(dir).length === 4);
    expect(readdirSync(dir)).toContain('subctl-subscriptions-20261123-052817-4.csv');
  });
});

describe('console: page keys while a page loads', () => {
  it('Enter or an action key pressed while the page loads acts once it is in (they were dropped)', async () => {
    const base = platform();
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => ({ ...base(req), delayMs: Number(req.query.page_number ?? 1) > 1 ? 300 : 0 }),
    });
    await h.waitFor('user010');
    await h.press(KEY.pageDown, KEY.enter);
    expect(h.frame()).toContain('loading');
    // The first row of page 2 opens once page 2 is in: its record, not the table.
    const f = await h.waitFor((): boolean => h!.frame().includes('user011') && !/page \d+ of/.test(h!.frame()));
    expect(f).toMatch(/subscription_id\s+11\b/);
    await h.press(KEY.esc, KEY.pageDown, 'p');
    await h.waitFor('reason*');
    expect(h.frame()).toContain('pause subscription 21');
  });

  it('PgDn three times after a filter moves three pages even while the pages load (and ]]] as one chunk)', async () => {
    const base = platform();
    // Pages past the first answer slowly: every PgDn after the first comes while a page loads.
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => ({ ...base(req), delayMs: Number(req.query.page_number ?? 1) > 1 ? 150 : 0 }),
    });
    await h.waitFor('user010');
    await h.press('/', 'status=active', KEY.enter);
    await h.waitFor('page 1 of 8, total 76');
    await h.waitFor((): boolean => !h!.frame().includes('loading'));
    await h.press(KEY.pageDown, KEY.pageDown, KEY.pageDown);
    await h.waitFor('page 4 of 8, total 76');
    let f = await h.waitFor((): boolean => !h!.frame().includes('loading'));
    // The 31st active subscription (every fifth is paused) starts page 4.
    expect(f).toMatch(/^> 38\s+user038/m);
    await h.press(']]]');
    await h.waitFor('page 7 of 8, total 76');
    await h.waitFor((): boolean => !h!.frame().includes('loading'));
    expect(listed(h).at(-1)!.query).toMatchObject({ status: 'active', page_number: '7' });
    // Past the last page, still while loading: it stops there and says so.
    await h.press(KEY.pageDown, KEY.pageDown, KEY.pageDown);
    f = await h.waitFor('page 8 of 8, total 76');
    expect(f).toContain('last page');
  });
});

describe('console: a page that cannot be loaded', () => {
  it('PgDn onto a page that fails stays on the page shown and says so; keys, Enter and actions act on the rows shown', async () => {
    const base = platform();
    let down = false;
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => (down && req.path === '/admin/subscriptions' ? { reset: true } : base(req)),
    });
    await h.waitFor('user010');
    await h.press(KEY.pageDown);
    await h.waitFor('user011');
    // The server goes away: page 3 cannot be loaded.
    down = true;
    await h.press(KEY.pageDown);
    let f = await h.waitFor('page 3 could not be loaded');
    // The number shown is that of the rows shown: page 2's.
    expect(f).toContain('page 2 of 10, total 95');
    expect(f).toMatch(/^> 11\s+user011/m);
    expect(f).toMatch(/still on page 2\): /);
    // Moving and marking work on them.
    await h.press('j', ' ');
    f = h.frame();
    expect(f).toMatch(/^ \*12\s+user012/m);
    expect(f).toMatch(/^> 13\s+user013/m);
    // The server is back: Enter opens the highlighted row, an action runs on the marked one.
    down = false;
    await h.press(KEY.enter);
    f = h.frame();
    expect(f).toMatch(/^subscription_id\s+13$/m);
    await h.press(KEY.esc, 'p');
    await h.waitFor('reason*');
    expect(h.frame()).toContain('pause subscription 12 (user012');
    // Page 3 again, a key typed with PgDn: it waits for the page, which is asked again.
    await h.press(KEY.esc, `${KEY.pageDown}j`);
    f = await h.waitFor('user021');
    expect(f).toContain('page 3 of 10, total 95');
    expect(f).toMatch(/^> 22\s+user022/m);
  });

  it('a page older than 5 minutes, gone back to, is not acted on until it is in again: Enter opens the row as then shown', async () => {
    const subs = makeSubscriptions(95);
    const base = platform(subs);
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => ({ ...base(req), delayMs: Number(req.query.page_number ?? 1) > 1 ? 150 : 0 }),
    });
    await h.waitFor('user010');
    await h.press(KEY.pageDown);
    await h.waitFor('user011');
    await h.press(KEY.pageUp);
    await h.waitFor('user001');
    // Six minutes on: page 2's answer is too old to show, and row 11 has changed meanwhile.
    h.clock.now += 6 * 60_000;
    subs[10].username = 'changed011';
    await h.press(KEY.pageDown + KEY.enter);
    const f = await h.waitFor(/^username\s+changed011$/m);
    expect(f).not.toContain('user011');
  });

  it('a first page that fails shows its error and no rows of another page; Ctrl-S says why nothing is exported; r loads it', async () => {
    const base = platform();
    let down = true;
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => (down && req.path === '/admin/subscriptions' ? fail(503, 'down for maintenance') : base(req)),
    });
    let f = await h.waitFor('down for maintenance');
    expect(f).toContain('could not load page 1 (! says why); r tries again');
    await h.press(KEY.ctrlS);
    expect(h.frame()).toContain('nothing to export: this page could not be loaded (r tries again)');
    down = false;
    await h.press('r');
    f = await h.waitFor('user010');
    expect(f).toMatch(/^> 1\s+user001/m);
  });
});

describe('console: keys typed while a page loads', () => {
  it('PgDn j j Space in one chunk onto a page not loaded yet: page 2, its third row marked, the selection below it', async () => {
    const base = platform();
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => ({ ...base(req), delayMs: Number(req.query.page_number ?? 1) > 1 ? 200 : 0 }),
    });
    await h.waitFor('user010');
    await h.press(`${KEY.pageDown}jj `);
    expect(h.frame()).toContain('loading');
    const f = await h.waitFor((): boolean => h!.frame().includes('user020') && !h!.frame().includes('loading'));
    expect(f).toContain('page 2 of 10, total 95');
    expect(f).toMatch(/^ \*13\s+user013/m);
    expect(f).toMatch(/^> 14\s+user014/m);
    expect(f).toContain('1 marked');
    // The action runs on the marked row.
    await h.press('p');
    await h.waitFor('reason*');
    expect(h.frame()).toContain('pause subscription 13 (user013');
  });

  it('keys after a page key wait in order: PgDn j PgDn j is the second row of page 3; Esc cancels keys still waiting', async () => {
    const base = platform();
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => ({ ...base(req), delayMs: Number(req.query.page_number ?? 1) > 1 ? 150 : 0 }),
    });
    await h.waitFor('user010');
    await h.press(`${KEY.pageDown}j${KEY.pageDown}j`);
    let f = await h.waitFor((): boolean => h!.frame().includes('user030') && !h!.frame().includes('loading'));
    expect(f).toContain('page 3 of 10, total 95');
    expect(f).toMatch(/^> 22\s+user022/m);
    await h.press(`${KEY.pageDown}jj`, KEY.esc);
    f = await h.waitFor((): boolean => h!.frame().includes('user040') && !h!.frame().includes('loading'));
    expect(f).toContain('2 keys typed while the page loaded were cancelled (Esc)');
    expect(f).toMatch(/^> 31\s+user031/m);
  });
});

describe('console: the switcher on a short terminal', () => {
  it('at 60x15 the : list scrolls to keep the choice in view', async () => {
    h = await startConsole({});
    Object.defineProperty(h.ui.stdout, 'rows', { get: () => 15, configurable: true });
    Object.defineProperty(h.ui.stdout, 'columns', { get: () => 60, configurable: true });
    h.ui.stdout.emit('resize');
    await h.waitFor('dashboard');
    await h.press(':');
    let f = h.frame();
    expect(f).toMatch(/^> home/m);
    expect(f).not.toContain('roles');
    expect(f).toContain('1-8 of 15');
    for (let i = 0; i < 10; i++) await h.press(KEY.down);
    f = h.frame();
    // The 11th name, roles, chosen and on screen; the first ones scrolled away.
    expect(f).toMatch(/^> roles\s+GET/m);
    expect(f).not.toMatch(/^ {2}home/m);
    expect(f).toContain('4-11 of 15');
    for (let i = 0; i < 10; i++) await h.press(KEY.up);
    expect(h.frame()).toMatch(/^> home/m);
    await h.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter);
    await h.waitFor('subscriptions  page 1 of 10');
  });
});

describe('console: the status line says what just happened', () => {
  it('is cleared on going to another resource or screen, and when an action starts', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press(':', 'q', KEY.enter);
    expect(h.frame()).toContain("✗ no resource named 'q'");
    await h.press(':', 'services', KEY.enter);
    let f = await h.waitFor('GPT-4 access');
    expect(f).not.toContain('no resource named');

    // A filter's status on one resource is not shown on another's confirmation.
    await h.press(':', 'subscriptions', KEY.enter, '/', 'status=paused', KEY.enter);
    await h.waitFor('filter: status=paused');
    await h.press(':', 'services', KEY.enter);
    await h.waitFor('GPT-4 access');
    await h.press('d');
    f = h.frame();
    expect(f).toContain('type GPT4 to confirm');
    expect(f).not.toContain('filter:');
    await h.press(KEY.esc);

    // The sort's status is not carried into the record.
    await h.press(':', 'subscriptions', KEY.enter, 's');
    await h.waitFor('sorted by');
    await h.waitFor(() => !h!.frame().includes('loading'));
    await h.press(KEY.enter);
    f = h.frame();
    expect(f).toContain('subscriptions › 5');
    expect(f).not.toContain('sorted by');
    await h.press(KEY.esc);

    // The last action's outcome is gone once the next action's form opens.
    await h.press('/', KEY.ctrlU, KEY.enter, 'e', 'ticket 1', KEY.tab, '3', KEY.enter, 'y');
    await h.waitFor('extended by 3 day(s)');
    await h.press('p');
    f = h.frame();
    expect(f).toContain('pause subscription');
    expect(f).not.toContain('extended by');
  });
});

describe('console: edit forms start from the whole record', () => {
  it('e on a service fills the form from its detail (fields the list lacks included); saving sends only what changed', async () => {
    const base = platform();
    h = await startConsole({
      resource: 'services',
      handler: (req) => {
        if (req.method === 'GET' && req.path === '/admin/services/detail') {
          return ok({
            service_info: {
              service_id: 1,
              service_code: 'GPT4',
              service_name: 'GPT-4 access',
              service_type: 'USAGE_BASED',
              provider_name: 'OpenAI',
              is_active: true,
              base_service_url: 'https://api.example/v1/gpt4',
              access_pattern: '/gpt4/*',
              credit_reset_cycle: 'monthly',
              description: 'Chat completions',
            },
            service_plans: [],
            active_subscriptions: [],
            top_users: [],
            usage_statistics: [],
          });
        }
        if (req.method === 'PUT') return ok({ service_id: 1 }, 'service GPT4 updated');
        return base(req);
      },
    });
    await h.waitFor('GPT-4 access');
    await h.press('e');
    let f = await h.waitFor('edit service GPT4');
    expect(f).toMatch(/base_service_url\s+https:\/\/api\.example\/v1\/gpt4/);
    expect(f).toMatch(/access_pattern\s+\/gpt4\/\*/);
    expect(f).toMatch(/credit_reset_cycle\s+monthly/);
    expect(f).toMatch(/description\s+Chat completions/);
    expect(h.requests('GET', '/admin/services/detail')[0].query).toEqual({ service_code: 'GPT4' });
    await h.press(KEY.ctrlU, 'GPT-4o access', KEY.enter);
    f = h.frame();
    expect(f).toContain('service_name: GPT-4 access -> GPT-4o access');
    expect(f).not.toContain('description:');
    await h.press('y');
    await h.waitFor('service GPT4 updated');
    expect(h.requests('PUT', '/admin/services/1')[0].body).toEqual({ service_name: 'GPT-4o access' });
  });

  it('e on a plan (no detail endpoint) marks the fields the list lacks as kept unless typed, and does not send them', async () => {
    const base = platform();
    const plan = {
      plan_id: 7,
      plan_code: 'PRO-M',
      plan_name: 'Pro monthly',
      price: 19.99,
      currency: 'USD',
      duration: 1,
      duration_unit: 'months',
      credit_amount: 1000,
      credit_unit: 'requests',
      is_active: true,
    };
    h = await startConsole({
      resource: 'plans',
      handler: (req) => {
        if (req.method === 'GET' && req.path === '/admin/subscription-plans')
          return ok({ pagination: { current_page: 1, page_size: 10, total_pages: 1, total_records: 1 }, subscription_plans: [plan] });
        if (req.method === 'PUT') return ok({ plan_id: 7 }, 'plan PRO-M updated');
        return base(req);
      },
    });
    await h.waitFor('Pro monthly');
    await h.press('e');
    const f = h.frame();
    expect(f).toMatch(/plan_name\s+Pro monthly/);
    expect(f).toMatch(/auto_renewal\s+true\|false, not in the list: kept as it is unless typed/);
    expect(f).toMatch(/max_usage_per_day\s+integer.*not in the list: kept as it is unless typed/);
    expect(f).not.toMatch(/plan_name .*not in the list/);
    await h.press(KEY.tab, KEY.tab, KEY.ctrlU, '24.99', KEY.enter, 'y');
    await h.waitFor('plan PRO-M updated');
    expect(h.requests('PUT', '/admin/subscription-plans/7')[0].body).toEqual({ price: 24.99, plan_id: 7 });
  });
});

describe('console: the dashboard scrolls', () => {
  it('a dashboard taller than the screen says which lines are shown and scrolls with ↓ and PgDn to its last sections', async () => {
    const base = platform();
    const totals = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`figure_${String(i + 1).padStart(2, '0')}`, i * 10]));
    const dashboard = {
      totals,
      top_services: [
        { service_code: 'GPT4', active_subscriptions: 30 },
        { service_code: 'DALLE', active_subscriptions: 12 },
      ],
      recent_activity: [
        { action: 'extend', at: 'x' },
        { action: 'pause', at: 'y' },
        { action: 'LAST-ACTIVITY', at: 'z' },
      ],
    };
    h = await startConsole({ handler: (req) => (req.path === '/admin/dashboard' ? ok(dashboard) : base(req)) });
    let f = await h.waitFor('figure_01');
    // 24 rows: 18 lines of the dashboard under its title.
    expect(f).toMatch(/lines 1-18 of 3\d \(↑↓ PgUp\/PgDn\)/);
    expect(f).not.toContain('recent_activity');
    expect(f).toContain('↑↓ PgUp/PgDn scroll');
    await h.press(KEY.down);
    f = h.frame();
    expect(f).toMatch(/lines 2-19 of/);
    expect(f).not.toMatch(/^totals/m);
    await h.press(KEY.pageDown);
    f = h.frame();
    expect(f).toContain('recent_activity (3)');
    expect(f).toContain('LAST-ACTIVITY');
    expect(f).toMatch(/lines \d+-(3\d) of \1/);
    await h.press(KEY.pageUp, KEY.pageUp);
    expect(h.frame()).toMatch(/^totals/m);
  });
});

describe('console: narrow terminals hide columns rather than cut numbers and dates', () => {
  const long = makeSubscriptions(30).map((s, i) => ({
    ...s,
    username: `emma.de.la.cruz${i}`,
    service_code: 'TRANSLATE-API',
    plan_code: 'ENTERPRISE-Y',
    status: 'cancelled',
    end_date: '2026-10-23T09:30:00Z',
    remaining_credits: 3506512 + i,
  }));
  const resize = (h: Harness, columns: number, rows: number) => {
    Object.defineProperty(h.ui.stdout, 'columns', { get: () => columns, configurable: true });
    Object.defineProperty(h.ui.stdout, 'rows', { get: () => rows, configurable: true });
    h.ui.stdout.emit('resize');
  };
  const rowLines = (f: string) => f.split('\n').filter((l) => /^[> ][ *]\d+ /.test(l));

  it('at 80 columns text is cut but end_date and remaining_credits are whole', async () => {
    h = await startConsole({ resource: 'subscriptions', handler: platform(long) });
    await h.waitFor('emma.de.la.cruz0');
    resize(h, 80, 24);
    const f = await h.waitFor(
      (): boolean => rowLines(h!.frame()).length > 0 && rowLines(h!.frame()).every((l) => l.length <= 80) && h!.frame().includes('…'),
    );
    expect(f).not.toContain('hidden');
    for (const l of rowLines(f)) expect(l).toMatch(/ \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} {2,}35065\d\d$/);
    expect(f).not.toMatch(/\d…/);
  });

  it('at 60x15 the rightmost columns are hidden and said so; no number or date is cut', async () => {
    h = await startConsole({ resource: 'subscriptions', handler: platform(long) });
    await h.waitFor('emma.de.la.cruz0');
    resize(h, 60, 15);
    // end_date to the second no longer fits beside the text columns at 60.
    const f = await h.waitFor('2 columns hidden');
    expect(f).not.toContain('remaining');
    expect(f).not.toContain('3506512');
    for (const l of rowLines(f)) {
      expect(l.length).toBeLessThanOrEqual(60);
      expect(l).toMatch(/ (active|cancelled|paused|expired)$/);
    }
    expect(f).not.toMatch(/\d…/);
  });
});

describe('console: small things the screen says', () => {
  it('an empty result says no rows (not page 1 of 0)', async () => {
    h = await startConsole({ resource: 'subscriptions', handler: platform([]) });
    const f = await h.waitFor('subscriptions  no rows');
    expect(f).not.toContain('page 1 of');
  });

  it('the footer offers s sort only where the server sorts: not on audit', async () => {
    const base = platform();
    h = await startConsole({
      resource: 'audit',
      handler: (req) =>
        req.path === '/audit' ? ok({ logs: [{ id: 1, action: 'login', username: 'ana' }], total: 1, page: 1, page_size: 10 }) : base(req),
    });
    let f = await h.waitFor('login');
    expect(f).toContain('/ filter');
    expect(f).not.toContain('s sort');
    await h.press(':', 'subscriptions', KEY.enter);
    f = await h.waitFor('user010');
    expect(f).toContain('s sort');
  });

  it('the create form is titled new service', async () => {
    h = await startConsole({ resource: 'services' });
    await h.waitFor('GPT-4 access');
    await h.press('n');
    const f = h.frame();
    expect(f).toMatch(/^new service$/m);
    expect(f).not.toContain('new a new');
  });

  it('a bulk pause previews each row, and marks the rows the server is likely to refuse (not active), all still sent', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    // Rows 4, 5 (paused) and 6.
    await h.press(KEY.down, KEY.down, KEY.down, ' ', ' ', ' ');
    await h.press('p', 'maintenance', KEY.enter);
    const f = h.frame();
    expect(f).toContain('pause 3 subscriptions:');
    expect(f).toContain('subscription 4 (user004, DALLE/PRO-M, active) — status: active -> paused');
    expect(f).toMatch(/^✗ subscription 5 \(user005, GPT4\/PRO-M, paused\): likely refused \(pause needs status active\)$/m);
    expect(f).toContain('1 of 3 likely refused (their status does not allow pause); every row is sent, and the server decides');
    expect(f).not.toContain('first:');
    expect(f).not.toContain('paused -> paused');
    await h.press(KEY.esc, KEY.esc, KEY.up, KEY.up, 'p', 'x', KEY.enter);
    expect(h.frame()).toContain('subscription 5 (user005');
    expect(h.frame()).toMatch(/^✗ likely refused by the server: pause needs status active$/m);
    expect(h.frame()).not.toContain('paused -> paused');
  });
});

describe('console: a confirmation for many rows', () => {
  it('lists every marked row as the screen holds them and scrolls to the rest with ↓ and PgDn, saying which are shown', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    // 33 rows marked over four pages.
    for (const last of ['user020', 'user030', 'user040']) {
      await h.press(' '.repeat(10), KEY.pageDown);
      await h.waitFor(last);
    }
    await h.press('   ');
    await h.waitFor('33 marked');
    await h.press('p', 'maintenance', KEY.enter);
    let f = await h.waitFor('Proceed? [y/N]');
    expect(f).toContain('pause 33 subscriptions:');
    // 24 lines: 12 rows of the list, the line saying so, then what the confirmation ends with.
    expect(f).toContain('rows 1-12 of 33 (↑↓ PgUp/PgDn)');
    expect(f).toContain('subscription 12 (user012');
    expect(f).not.toContain('subscription 13 (user013');
    expect(f).toContain('profile: test (');
    expect(f).toContain('reason: maintenance');
    expect(f).not.toContain('more');
    await h.press(KEY.down);
    f = h.frame();
    expect(f).toContain('rows 2-13 of 33');
    expect(f).not.toContain('subscription 1 (user001');
    expect(f).toContain('subscription 13 (user013');
    await h.press(KEY.pageDown, KEY.pageDown, KEY.pageDown);
    f = h.frame();
    expect(f).toContain('rows 22-33 of 33');
    expect(f).toContain('subscription 33 (user033');
    await h.press(KEY.pageUp, KEY.up);
    expect(h.frame()).toContain('rows 10-21 of 33');
    // y still sends every row.
    await h.press('y');
    await h.waitFor('pause: 33 done');
    expect(h.requests('PUT').length).toBe(33);
  });
});

describe('console: the footer at 80 columns', () => {
  it('keeps ? help, q quit and r refresh whole (less important hints give way), and the table its 17 rows', async () => {
    h = await startConsole({ resource: 'subscriptions', pageSize: undefined, viewport: { columns: 80, rows: 24 } });
    Object.defineProperty(h.ui.stdout, 'columns', { get: () => 80, configurable: true });
    h.ui.stdout.emit('resize');
    const footer = () => h!.frame().split('\n').slice(-2);
    const f = await h.waitFor(() => h!.frame().includes('user017') && footer().every((l) => l.length <= 80));
    for (const line of footer()) {
      expect(line.length).toBeLessThanOrEqual(80);
      expect(line).not.toContain('…');
    }
    expect(footer()[0]).toContain('r refresh');
    expect(footer()[0]).toContain('Enter open');
    expect(footer()[0]).toContain('p pause');
    expect(footer()[1]).toMatch(/\? help {2}q quit$/);
    expect(f).toContain('page 1 of 6, total 95');
    expect(f.split('\n').filter((l) => /^[> ][ *]\d+ /.test(l))).toHaveLength(17);
    expect(f.split('\n')).toHaveLength(23);
    // Home and a record too.
    await h.press(KEY.enter);
    await h.waitFor('subscription_id');
    expect(footer()[1]).toMatch(/\? help {2}q quit$/);
    await h.press(KEY.esc, KEY.esc);
    await h.waitFor('auto-refresh');
    expect(footer()[1]).toMatch(/\? help {2}q quit$/);
    expect(footer()[0]).toContain('r refresh');
  });
});

describe('console: referral and role-assignment tables', () => {
  const use = (i: number) => ({
    referral_use_id: i,
    referral_id: 40 + i,
    referral_code: `REF-ABC${i}`,
    code_status: 'active',
    referral_date: '2026-11-01T10:00:00Z',
    referrer_id: 7,
    referrer_username: 'ana',
    referrer_full_name: 'Ana Lopez',
    referrer_email: 'ana@example.com',
    user_id: 100 + i,
    username: `new${i}`,
    full_name: `New User ${i}`,
    email: `new${i}@example.com`,
    status: 'Active',
  });
  const handler = (req: { method: string; path: string }) => {
    const pagination = { current_page: 1, page_size: 10, total_pages: 1, total_records: 3 };
    if (req.path === '/cms/admin/referrals') return ok({ referrals: [1, 2, 3].map(use), pagination });
    if (req.path === '/cms/users/roles')
      return ok({
        users: [
          {
            user_id: 3,
            email: 'bob.the.builder@example.com',
            full_name: 'Bob The Builder',
            status: 'Active',
            created_date: '2026-01-01T00:00:00Z',
            username: 'bob',
            role: 'manager',
            role_level: 50,
            permissions: [],
            assigned_at: '2026-02-01T00:00:00Z',
            last_login: '2026-02-03T00:00:00Z',
          },
        ],
        summary: { admins: 0, agents: 0, managers: 1, super_admins: 0, support: 0, total_users: 1, unassigned_role: 0, users: 0 },
        pagination,
      });
    return platform()(req as never);
  };

  it('at 80 columns referral headers can be told apart, the id and names first', async () => {
    h = await startConsole({ resource: 'referrals', handler: handler as never });
    Object.defineProperty(h.ui.stdout, 'columns', { get: () => 80, configurable: true });
    h.ui.stdout.emit('resize');
    const f = await h.waitFor(/^ {2}use_id/m);
    expect(f).toMatch(/^ {2}use_id +referred +referrer +code +date/m);
    expect(f).not.toContain('refer…');
    expect(f).toMatch(/^> 1 +new1 +ana +REF-ABC1 /m);
  });

  it("role-assignments shows the command line's columns that the rows have", async () => {
    h = await startConsole({ resource: 'role-assignments', handler: handler as never });
    const f = await h.waitFor('bob');
    // is_active is a column of `roles assignments`; these rows do not have it.
    expect(f).toMatch(/^ {2}id +\S+ +email +full_name +role +level +last_login$/m);
    expect(f).toMatch(/^> 3 +bob +bob\.the\.builder@example\.com +Bob The Builder +manager +50 +2026-02-03 \d{2}:00:00$/m);
    // Times to the second; their one zone said once on the title line.
    expect(f).toMatch(/^role-assignments .*times [+-]\d{2}:\d{2}/m);
  });
});

describe('console: zero-width characters', () => {
  it('a value with a zero-width space is drawn whole, in the table, the record and the confirmation', async () => {
    const subs = makeSubscriptions(12);
    subs[0].username = 'zw a\u200bb END';
    h = await startConsole({ resource: 'subscriptions', handler: platform(subs) });
    let f = await h.waitFor('user002');
    expect(f).toMatch(/^> 1\s+zw ab END\s+GPT4/m);
    await h.press(KEY.enter);
    f = h.frame();
    expect(f).toMatch(/^username\s+zw ab END$/m);
    await h.press(KEY.esc, 'p');
    expect(h.frame()).toMatch(/^pause subscription 1 \(zw ab END, GPT4\/PRO-M, active\)$/m);
    await h.press('x', KEY.enter);
    f = h.frame();
    expect(f).toContain('Proceed? [y/N]');
    expect(f).toMatch(/^pause subscription 1 \(zw ab END, GPT4\/PRO-M, active\)$/m);
  });
});

describe('console: a platform that serves fewer rows than asked and only says a page follows', () => {
  it('PgDn past a short page asks for the next one while the platform says it follows, and stops where it says none does', async () => {
    const subs = makeSubscriptions(12);
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => {
        const page = Number(req.query.page_number ?? 1);
        return ok({
          pagination: { page_number: page, has_next_page: page < 2 ? 'Y' : 'N' },
          subscriptions: subs.slice((page - 1) * 7, page * 7),
        });
      },
    });
    await h.waitFor('user007');
    await h.press(KEY.pageDown);
    await h.waitFor('user012');
    expect(listed(h).map((r) => r.query.page_number)).toEqual(['1', '2']);
    await h.press(KEY.pageDown);
    expect(h.frame()).toContain('last page');
    expect(listed(h)).toHaveLength(2);
  });
});
