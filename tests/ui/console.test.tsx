/**
 * The console in process (ink-testing-library, 100 columns) against the stub platform with a
 * real ApiClient: what each key sends over the wire and what the screen then shows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fail } from '../support/stub-server.js';
import { KEY, platform, startConsole, tick, type Harness } from './harness.js';
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

  it("a taller or shorter terminal gets pages of its height, on the page of the row that was selected (unless --page-size)", async () => {
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
    let f = await h.waitFor('page 1 of 3, total 95');
    f = await h.waitFor('user033');
    expect(f).toMatch(/^> 21\s+user021/m);
    expect(listed(h).at(-1)!.query).toMatchObject({ page_number: '1', page_size: '33' });
    // 12 rows: pages of 5; the 21st is the first of page 5.
    setRows(12);
    f = await h.waitFor('page 5 of 19, total 95');
    f = await h.waitFor('user025');
    expect(f).toMatch(/^> 21\s+user021/m);
    expect(f).not.toContain('user026');
    expect(listed(h).at(-1)!.query).toMatchObject({ page_number: '5', page_size: '5' });
    // A burst of resizes (a window's edge dragged) asks for the last size only.
    const before = listed(h).length;
    for (const rows of [13, 14, 15, 16, 17]) setRows(rows);
    await h.waitFor('page 3 of 10, total 95');
    await tick(200);
    expect(listed(h).slice(before).map((q) => q.query.page_size)).toEqual(['10']);
    // Resized while another resource was on screen: back on the list, pages of the new height.
    await h.press(':', 'services', KEY.enter);
    await h.waitFor('GPT-4 access');
    setRows(24);
    await tick(200);
    await h.press(':', 'subscriptions', KEY.enter);
    f = await h.waitFor('page 2 of 6, total 95');
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
    f = await h.waitFor('extended by 30 day(s)');
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

  it('a server rejection is shown in the status line without leaving the table', async () => {
    const base = platform();
    h = await startConsole({
      resource: 'subscriptions',
      handler: (req) => (req.method === 'PUT' ? fail(400, 'cannot resume a subscription that is active', { code: 'INVALID_TRANSITION', fields: [{ field: 'action', message: 'resume is not allowed when the status is active' }] }) : base(req)),
    });
    await h.waitFor('user010');
    await h.press('u', 'oops', KEY.enter, 'y');
    const f = await h.waitFor('resume failed');
    expect(f).toContain('✗ resume failed: cannot resume a subscription that is active (HTTP 400): action: resume is not');
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
    const puts = h.requests('PUT').map((r) => r.path).sort();
    expect(puts).toEqual(['/admin/subscriptions/1/manage', '/admin/subscriptions/2/manage', '/admin/subscriptions/4/manage']);
    expect(h.frame()).not.toContain('marked');
  });

  it('delete asks to type the code: a wrong code sends nothing, the right one sends the DELETE', async () => {
    const base = platform();
    h = await startConsole({ resource: 'services', handler: (req) => (req.method === 'DELETE' ? { status: 200, json: { status: true, message: 'service GPT4 deleted', data: { affected_records: 1 } } } : base(req)) });
    await h.waitFor('GPT-4 access');
    await h.press('d');
    expect(h.frame()).toContain('type GPT4 to confirm');
    await h.press('GPT5', KEY.enter);
    expect(h.requests('DELETE')).toHaveLength(0);
    await h.press('GPT4', KEY.enter);
    await h.waitFor('service GPT4 deleted');
    expect(h.requests('DELETE', '/admin/services')[0].body).toEqual({ service_code: 'GPT4' });
  });

  it('read-only: action keys do nothing and are not offered', async () => {
    h = await startConsole({ resource: 'subscriptions', readOnly: true });
    const f = await h.waitFor('user010');
    expect(f).toContain('READ-ONLY');
    expect(f).not.toContain('e extend');
    const before = h.server.requests.length;
    await h.press('e', 'p', 'c', '+', 'u');
    expect(h.frame()).not.toContain('reason');
    expect(h.frame()).toContain('user010');
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

  it('r asks the server again', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('r');
    await h.waitFor(() => listed(h!).length === 2);
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
    await h.waitFor(() => n() >= 3, 3000);
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

  it('a 401 is shown in the status line with the command that signs in again', async () => {
    h = await startConsole({ resource: 'subscriptions', handler: () => fail(401, 'token expired') });
    const f = await h.waitFor('token expired');
    expect(f).toContain('token expired (HTTP 401) — run: subctl auth login --profile test');
    expect(f).toContain('subctl │ profile test');
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
