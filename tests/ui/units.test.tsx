/**
 * The console's pure parts: the query cache's rules, filters, forms, table layout, the runner
 * of actions on marked rows, the form outside the console, and where the console refuses to run.
 */
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { plansCreate } from '../../src/api/contract/admin-plans.js';
import { subscriptionsList, subscriptionsManage } from '../../src/api/contract/admin-subscriptions.js';
import { describeObject } from '../../src/api/contract/common.js';
import { HttpError, ValidationError } from '../../src/api/errors.js';
import { onlyMissingBody } from '../../src/cli/verb-exec.js';
import { runActionOnRows } from '../../src/ui/actions.js';
import { describeError } from '../../src/ui/session.js';
import { footerKeys, helpLines } from '../../src/ui/help.js';
import { initialState } from '../../src/ui/state/console-state.js';
import { filtersText, parseFilters } from '../../src/ui/filters.js';
import { formFields, formKey, formValues, newForm, schemaProblems, typedProblems } from '../../src/ui/form-model.js';
import { FormView } from '../../src/ui/components/FormView.js';
import { keyPresses } from '../../src/ui/keys.js';
import { QueryCache } from '../../src/ui/query-cache.js';
import { completeResource, RESOURCES, resourceByName, sortInfo } from '../../src/ui/resources.js';
import { FormApp } from '../../src/ui/screens/FormApp.js';
import { columnsFor, layoutTable } from '../../src/ui/table-layout.js';
import { runCli } from '../support/run-cli.js';
import { KEY, strip, tick } from './harness.js';

const subs = resourceByName('subscriptions')!;
const spec = (page: number) => ({ endpoint: subscriptionsList, input: { query: { page_number: page } } });

describe('QueryCache', () => {
  function make() {
    const clock = { now: 0 };
    const calls: number[] = [];
    const cache = new QueryCache(
      async (s) => {
        calls.push(Number(s.input.query?.page_number));
        return { page: s.input.query?.page_number, at: clock.now };
      },
      { now: () => clock.now },
    );
    return { clock, calls, cache };
  }

  it('a result younger than 30 s is served with no request; 30 s to 5 min: served, refreshed in the background', async () => {
    const { clock, calls, cache } = make();
    await cache.load(spec(1));
    expect(calls).toEqual([1]);
    clock.now = 29_000;
    await cache.load(spec(1));
    expect(calls).toEqual([1]);
    expect(cache.requests).toBe(1);
    clock.now = 31_000;
    const p = cache.load(spec(1));
    // The old result is there at once while the refresh runs.
    expect(cache.peek(spec(1)).data).toEqual({ page: 1, at: 0 });
    await p;
    await tick(1);
    expect(calls).toEqual([1, 1]);
    expect(cache.peek(spec(1)).data).toEqual({ page: 1, at: 31_000 });
  });

  it('past 5 minutes a result is not shown and is asked again; force always asks', async () => {
    const { clock, calls, cache } = make();
    await cache.load(spec(2));
    clock.now = 5 * 60_000 + 1;
    expect(cache.peek(spec(2)).data).toBeUndefined();
    expect(cache.peek(spec(2), { expired: true }).data).toEqual({ page: 2, at: 0 });
    await cache.load(spec(2));
    expect(calls).toEqual([2, 2]);
    await cache.load(spec(2), { force: true });
    expect(calls).toEqual([2, 2, 2]);
  });

  it('keys ignore the order of query fields; concurrent loads share one request', async () => {
    const { calls, cache } = make();
    const a = { endpoint: subscriptionsList, input: { query: { page_number: 3, status: 'active' } } };
    const b = { endpoint: subscriptionsList, input: { query: { status: 'active', page_number: 3 } } };
    await Promise.all([cache.load(a), cache.load(b), cache.load(a)]);
    expect(calls).toEqual([3]);
  });

  it('invalidate refetches what is on screen and forgets the rest', async () => {
    const { calls, cache } = make();
    await cache.load(spec(1));
    await cache.load(spec(2));
    const unwatch = cache.watch(spec(1));
    cache.invalidate((name) => name === 'subscriptions.list');
    await tick(5);
    expect(calls).toEqual([1, 2, 1]);
    expect(cache.peek(spec(2)).data).toBeUndefined();
    unwatch();
  });

  it('a failed request keeps the error and the last good data', async () => {
    let fail = false;
    const cache = new QueryCache(async () => {
      if (fail) throw new Error('boom');
      return 'ok';
    });
    await cache.load(spec(1));
    fail = true;
    await cache.load(spec(1), { force: true });
    expect(cache.peek(spec(1))).toMatchObject({ data: 'ok', loading: false });
    expect((cache.peek(spec(1)).error as Error).message).toBe('boom');
  });
});

describe('filters', () => {
  it('field=value pairs, converted to the field types and checked with the contract', () => {
    expect(parseFilters(subs, 'status=active user_id=17 auto-renewal=true')).toEqual({
      ok: true,
      filters: { status: 'active', user_id: 17, auto_renewal: true },
    });
    expect(parseFilters(subs, 'username="ana maria"')).toEqual({ ok: true, filters: { username: 'ana maria' } });
    expect(parseFilters(subs, '')).toEqual({ ok: true, filters: {} });
    const bad = parseFilters(subs, 'status=paid');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors[0]).toMatch(/^status: Invalid option/);
    const unknown = parseFilters(subs, 'page_number=3');
    expect(!unknown.ok && unknown.errors[0]).toMatch(/^page_number: not a filter of subscriptions/);
    expect(filtersText({ status: 'active', username: 'ana maria' })).toBe("status=active username='ana maria'");
  });

  it('numbers only in decimals: price_from=0x10 is refused as typed, not read as 16', () => {
    const plans = resourceByName('plans')!;
    expect(parseFilters(plans, 'price_from=0x10 price_to=0b11')).toEqual({
      ok: false,
      errors: ["price_from: expected a number, got '0x10'", "price_to: expected a number, got '0b11'"],
    });
    expect(parseFilters(subs, 'user_id=0x11')).toEqual({ ok: false, errors: ["user_id: expected a whole number, got '0x11'"] });
    expect(parseFilters(plans, 'price_from=2.50 price_to=1e3')).toEqual({ ok: true, filters: { price_from: 2.5, price_to: 1000 } });
  });

  it('sorting comes from the sort_by enum with its defaults', () => {
    expect(sortInfo(subs)).toEqual({
      values: ['Username', 'ServiceCode', 'StartDate', 'EndDate', 'CreatedDate'],
      defaultBy: 'CreatedDate',
      defaultOrder: 'DESC',
    });
    expect(sortInfo(resourceByName('users')!)).toBeUndefined();
  });

  it('the switcher completes names, prefix matches first', () => {
    expect(completeResource('sub')).toEqual(['subscriptions']);
    expect(completeResource('serv')).toEqual(['services', 'service-plans']);
    expect(completeResource('codes')[0]).toBe('usage-codes');
  });
});

describe('table layout', () => {
  it('fits the width: cells cut with …, columns dropped from the right', () => {
    const rows = [{ id: 1, name: 'A rather long service name', type: 'USAGE_BASED', extra: 'x' }];
    const wide = layoutTable(rows, ['id', 'name', 'type', 'extra'], 80);
    expect(wide.lines[0]).toBe('1   A rather long service name  USAGE_BASED  x');
    const narrow = layoutTable(rows, ['id', 'name', 'type', 'extra'], 30);
    expect(narrow.lines[0].length).toBeLessThanOrEqual(30);
    expect(narrow.lines[0]).toContain('…');
    const tiny = layoutTable(rows, ['id', 'name', 'type', 'extra'], 16);
    expect(tiny.hidden.length).toBeGreaterThan(0);
    expect(tiny.columns[0]).toBe('id');
  });

  it("columns: the resource's that the page has, in its order; else the first row's keys", () => {
    const cols = ['user_id', 'username', 'email', 'last_login'];
    // A column only a later row has is kept; one no row has is left out.
    expect(
      columnsFor(
        [
          { username: 'a', user_id: 1 },
          { user_id: 2, last_login: 'x' },
        ],
        cols,
      ),
    ).toEqual(['user_id', 'username', 'last_login']);
    // Another platform's names: none of the resource's, so its own keys.
    expect(columnsFor([{ uid: 1, login: 'a' }], cols)).toEqual(['uid', 'login']);
    // An empty page draws the resource's headers.
    expect(columnsFor([], cols)).toEqual(cols);
    expect(columnsFor([{ a: 1 }])).toEqual(['a']);
  });
});

describe('forms from the contract', () => {
  it('fields, conversion to JSON types, required-by-the-form fields', () => {
    const fields = formFields(describeObject(subscriptionsManage.body), { only: ['reason', 'extend_days'], require: ['extend_days'] });
    expect(fields.map((f) => [f.name, f.required])).toEqual([
      ['reason', true],
      ['extend_days', true],
    ]);
    let form = newForm('extend', fields);
    for (const k of keyPresses('ticket 9', { tab: false } as never)) form = formKey(form, k).form;
    form = formKey(form, { input: '', tab: true }).form;
    form = formKey(form, { input: '30' }).form;
    expect(formValues(form)).toEqual({ reason: 'ticket 9', extend_days: 30 });
    expect(formKey(form, { input: '', ret: true }).submit).toBe(true);
    expect(formKey(form, { input: '', escape: true }).cancel).toBe(true);
  });

  it('a number typed otherwise than in decimals is said as the command line says it: a whole number for an integer', () => {
    const fields = formFields(describeObject(subscriptionsManage.body), { only: ['reason', 'extend_days'], require: ['extend_days'] });
    const form = { ...newForm('extend', fields), values: { reason: 'x', extend_days: '1e3' } };
    expect(typedProblems(form)).toEqual({ extend_days: "expected a whole number, got '1e3'" });
    expect(typedProblems({ ...form, values: { reason: 'x', extend_days: ' 30 ' } })).toEqual({});
  });

  it('the hints stand in one column, whatever was typed (typing does not push its own hint away)', async () => {
    const fields = formFields(describeObject(subscriptionsManage.body), { only: ['reason', 'extend_days'], require: ['extend_days'] });
    const ui = render(
      createElement(FormView, { form: { ...newForm('extend', fields), values: { reason: 'abc', extend_days: '' } }, height: 10 }),
    );
    const lines = strip(ui.lastFrame()).split('\n');
    const reason = lines.find((l) => l.includes('reason*'))!;
    const days = lines.find((l) => l.includes('extend_days*'))!;
    expect(reason.indexOf('max 500')).toBeGreaterThan(0);
    expect(reason.indexOf('max 500')).toBe(days.indexOf('integer'));
    ui.unmount();
  });

  it('schema problems name the field with zod’s message', () => {
    expect(schemaProblems(subscriptionsManage.body, { action: 'extend', reason: 'x', extend_days: 'ten' })).toEqual({
      extend_days: 'Invalid input: expected number, received string',
    });
  });

  it('the verbs hook opens a form only when every problem is a missing body field', () => {
    const missing = new ValidationError([{ field: 'plan_name', message: 'Invalid input: expected string, received undefined' }]);
    expect(onlyMissingBody(missing, plansCreate, { plan_code: 'X' })).toBe(true);
    const bad = new ValidationError([{ field: 'price', message: 'Too small' }]);
    expect(onlyMissingBody(bad, plansCreate, { price: -1 })).toBe(false);
    expect(onlyMissingBody(new Error('x'), plansCreate, {})).toBe(false);
  });

  it('openForm’s screen: inline errors from the validator, values on Enter, undefined on Esc', async () => {
    const fields = formFields(describeObject(plansCreate.body));
    let result: Record<string, unknown> | undefined | 'pending' = 'pending';
    const ui = render(
      createElement(FormApp, {
        form: newForm('create plan', fields, { plan_code: 'PRO-X' }),
        validate: (v) => schemaProblems(plansCreate.body, v),
        onDone: (v) => (result = v),
      }),
    );
    await tick();
    expect(strip(ui.lastFrame())).toContain('> plan_name*');
    const type = async (...keys: string[]) => {
      for (const k of keys) {
        ui.stdin.write(k);
        await tick();
      }
    };
    await type('Pro X', KEY.tab, '-5', KEY.enter);
    expect(strip(ui.lastFrame())).toContain('price: Too small: expected number to be >=0');
    expect(result).toBe('pending');
    await type(
      KEY.backspace,
      KEY.backspace,
      '9.5',
      KEY.tab,
      'USD',
      KEY.tab,
      '1',
      KEY.tab,
      KEY.right,
      KEY.tab,
      '100',
      KEY.tab,
      KEY.right,
      KEY.enter,
    );
    expect(result).toEqual({
      plan_code: 'PRO-X',
      plan_name: 'Pro X',
      price: 9.5,
      currency: 'USD',
      duration: 1,
      duration_unit: 'days',
      credit_amount: 100,
      credit_unit: 'requests',
    });
    ui.unmount();

    let cancelled: unknown = 'pending';
    const ui2 = render(createElement(FormApp, { form: newForm('create plan', fields), onDone: (v) => (cancelled = v) }));
    await tick();
    ui2.stdin.write(KEY.esc);
    await tick(30);
    expect(cancelled).toBeUndefined();
    ui2.unmount();
  });
});

describe('runActionOnRows', () => {
  it('runs every row with bounded concurrency, reports progress, keeps going after a failure', async () => {
    let inflight = 0;
    let peak = 0;
    const progress: string[] = [];
    const out = await runActionOnRows(
      [1, 2, 3, 4, 5, 6, 7],
      async (n) => {
        inflight++;
        peak = Math.max(peak, inflight);
        await tick(5);
        inflight--;
        if (n === 3) throw new Error('three');
        return n * 10;
      },
      (p) => progress.push(`${p.done}/${p.total}/${p.failed}`),
      { concurrency: 3 },
    );
    expect(peak).toBe(3);
    expect(out.map((o) => o.ok)).toEqual([true, true, false, true, true, true, true]);
    expect(out[1].result).toBe(20);
    expect(progress).toHaveLength(7);
    expect(progress.at(-1)).toBe('7/7/1');
  });
});

describe('subctl console off a terminal', () => {
  it('exits 2 saying why, without loading the screens', async () => {
    const r = await runCli('console --base-url http://127.0.0.1:9', { env: { SUBCTL_TOKEN: 't' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the console needs a terminal: standard input and output are not terminals');
    expect(r.stderr).toContain('subctl subscriptions list');
  });

  it('--no-input and TERM=dumb refuse too; an unknown resource is named', async () => {
    let r = await runCli('console --no-input', { tty: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--no-input was given');
    r = await runCli('console', { tty: true, env: { TERM: 'dumb' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('TERM is dumb');
    r = await runCli('console bogus', { tty: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown resource 'bogus'");
  });

  it('a bare subctl off a terminal prints help', async () => {
    const r = await runCli('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('console');
  });
});

describe('help', () => {
  it('the ? page offers s only on tables the server sorts (not audit)', () => {
    const base = initialState({ readOnly: false });
    expect(helpLines({ ...base, view: 'list', resource: 'subscriptions' }).join('\n')).toContain('cycle the sort field');
    expect(helpLines({ ...base, view: 'list', resource: 'audit' }).join('\n')).not.toContain('cycle the sort field');
  });
});

describe('the footer at 80 columns', () => {
  it('every screen keeps ? help and q quit whole on the second line, r refresh on the first, and fits', () => {
    const base = initialState({ readOnly: false });
    const states = [
      { ...base, view: 'home' as const },
      ...RESOURCES.flatMap((r) => [
        { ...base, view: 'list' as const, resource: r.name },
        { ...base, view: 'detail' as const, resource: r.name },
      ]),
    ];
    for (const s of states) {
      for (const error of [false, true]) {
        const [a, b] = footerKeys(s, 80, { error });
        expect(a.length, a).toBeLessThanOrEqual(80);
        expect(b.length, b).toBeLessThanOrEqual(80);
        expect(b).toMatch(/\? help {2}q quit$/);
        expect(a).toContain('r refresh');
        if (error) expect(b).toContain('! error');
      }
    }
  });
});

describe('a refused token', () => {
  it('the 401 hint says what mends it: a sign-in then r, or the token the console was given', () => {
    const e = new HttpError(401, 'token expired');
    expect(describeError(e, 'prod')).toContain('sign in again with `subctl auth login --profile prod` (in another shell), then press r');
    expect(describeError(e, 'prod', 'env')).toContain('SUBCTL_TOKEN was refused: set a valid one, then restart the console');
    expect(describeError(e, 'prod', 'token-file')).toContain('the token file was refused: put a valid token in it, then press r');
  });
});

describe('consoleSafe: server text drawn by the console', () => {
  it('escapes CSI, OSC 52, OSC title, DCS, C1 and bidi overrides; keeps newlines and text', async () => {
    const { consoleSafe, drawable } = await import('../../src/ui/drawable.js');
    expect(drawable('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(drawable('\u001b]52;c;SGVsbG8=\u0007')).toBe('\\x1b]52;c;SGVsbG8=\\x07');
    expect(drawable('\u001b]0;title\u001b\\')).toBe('\\x1b]0;title\\x1b\\');
    expect(drawable('\u001bPq#0\u001b\\')).toBe('\\x1bPq#0\\x1b\\');
    expect(drawable('x\u009b31my')).toBe('x\\x9b31my');
    expect(drawable('user\u202etxt.exe')).toBe('user\\u202etxt.exe');
    expect(drawable('\u2066iso\u2069')).toBe('\\u2066iso\\u2069');
    expect(consoleSafe('line 1\nline 2\tend')).toBe('line 1\nline 2\\tend');
    expect(drawable('Żak, Emma 日本')).toBe('Żak, Emma 日本');
  });
});
