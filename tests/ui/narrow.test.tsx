/**
 * The console on small terminals (ink-testing-library against the stub platform, resized as a
 * terminal is): the help is read whole, wrapped rather than cut, and scrolls within its lines;
 * a form's field shows what is typed; what the status line cuts is read whole with `!`; a
 * detail's long value wraps.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { ok, type RecordedRequest, type StubReply } from '../support/stub-server.js';
import { KEY, platform, startConsole, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function resize(h: Harness, columns: number, rows: number): void {
  Object.defineProperty(h.ui.stdout, 'rows', { get: () => rows, configurable: true });
  Object.defineProperty(h.ui.stdout, 'columns', { get: () => columns, configurable: true });
  h.ui.stdout.emit('resize');
}

/** The help's lines on screen: between the header and the line saying which are shown. */
const helpShown = (f: string) =>
  f.split('\n').slice(
    1,
    f.split('\n').findIndex((l) => /^lines \d+-\d+ of \d+$/.test(l)),
  );

describe('console: the help on a narrow terminal', () => {
  it('at 40x15 each key’s text is wrapped under it, nothing cut; the help says which lines are shown', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    resize(h, 40, 15);
    await h.waitFor((): boolean => h!.frame().split('\n')[0].length <= 40);
    await h.press('?');
    const f = await h.waitFor(/^lines 1-\d+ of \d+$/m);
    for (const line of f.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    const shown = helpShown(f);
    expect(shown.join('\n')).toContain('  :\n      switch to a resource (Tab\n      completes, ↑↓ choose, Enter');
    expect(shown.some((l) => l.includes('…'))).toBe(false);
  });

  it('at 80 columns a long text wraps beside its key; ↓ past the end stops at the last line, and ↑ moves back at once', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    resize(h, 80, 24);
    await h.waitFor((): boolean => h!.frame().split('\n')[0].length <= 80);
    await h.press('?');
    let f = await h.waitFor(/^lines 1-\d+ of \d+$/m);
    expect(f).toContain('  :                      switch to a resource (Tab completes, ↑↓ choose, Enter\n');
    expect(f).toContain('\n                         opens; `home` for the dashboard)\n');
    const total = Number(/^lines 1-\d+ of (\d+)$/m.exec(f)![1]);
    await h.press(KEY.down.repeat(3 * total));
    f = h.frame();
    const last = /^lines (\d+)-(\d+) of \d+$/m.exec(f)!;
    expect(Number(last[2])).toBe(total);
    expect(f).toContain('cancel: nothing is sent');
    await h.press(KEY.up);
    expect(h.frame()).toMatch(new RegExp(`^lines ${Number(last[1]) - 1}-${total - 1} of ${total}$`, 'm'));
  });
});

describe('console: a form on a narrow terminal', () => {
  it('at 40 columns the field being typed shows the end of its value, by the cursor, when the value is longer than its room', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    resize(h, 40, 15);
    await h.waitFor((): boolean => h!.frame().split('\n')[0].length <= 40);
    await h.press('p');
    await h.waitFor('reason*');
    await h.press('customer asked on ticket 4711 to pause it');
    // The cursor's cell after the end typed, then the '…' of the hint cut.
    const f = await h.waitFor(/^> reason\* +…[^\n]*to pause it …$/m);
    for (const l of f.split('\n')) expect(l.length).toBeLessThanOrEqual(40);
    // The value itself is whole: sent as typed.
    await h.press(KEY.enter);
    await h.waitFor('Proceed? [y/N]');
    await h.press('y');
    await h.waitFor(() => h!.requests('PUT').length === 1);
    expect(h.requests('PUT')[0].body).toEqual({ action: 'pause', reason: 'customer asked on ticket 4711 to pause it' });
  });
});

describe('console: what the status line cuts', () => {
  it('at 80 columns an export’s file name is cut, saying ! shows all: ! shows that line whole, not an older error', async () => {
    const dir = join(tempDir('subctl-export-'), 'a-directory-with-a-rather-long-name', 'and-another');
    mkdirSync(dir, { recursive: true });
    h = await startConsole({ resource: 'subscriptions', cwd: dir, now: () => new Date(2026, 10, 22, 15, 30, 12) });
    await h.waitFor('user010');
    resize(h, 80, 24);
    await h.waitFor((): boolean => h!.frame().split('\n')[0].length <= 80);
    // An error first: `!` used to show it, whatever the status line said since.
    await h.press(':', 'nothing-of-that-name', KEY.enter);
    await h.waitFor("no resource named 'nothing-of-that-name'");
    await h.press(KEY.ctrlS);
    const f = await h.waitFor('(! shows all)');
    expect(f).toMatch(/^✓ exported 10 rows \(page 1\) to .*… \(! shows all\)$/m);
    await h.press('!');
    const whole = await h.waitFor('The status line');
    expect(whole.replace(/\n/g, '')).toContain(join(dir, 'subctl-subscriptions-20261122-153012.csv'));
    expect(whole).not.toContain('nothing-of-that-name');
    // Once closed, the error is still there to read with ! when the status line moved on.
    await h.press('x', 'r');
    await h.waitFor('✓ refreshed');
    await h.press('!');
    await h.waitFor('The last error');
    expect(h.frame()).toContain("no resource named 'nothing-of-that-name'");
  });
});

describe('console: a detail on a narrow terminal', () => {
  const description =
    'Chat completions for the support team, billed per token; ask the platform team before changing the plan links of this service.';
  const base = platform();
  const handler = (req: RecordedRequest): StubReply =>
    req.method === 'GET' && req.path === '/admin/services/detail'
      ? ok({
          service_info: { service_id: 1, service_code: 'GPT4', service_name: 'GPT-4 access', provider_name: 'OpenAI', description },
          service_plans: [],
          active_subscriptions: [],
          top_users: [],
          usage_statistics: [],
        })
      : base(req);

  it('at 60 columns a long value wraps under itself, whole, rather than being cut', async () => {
    h = await startConsole({ resource: 'services', handler });
    await h.waitFor('GPT-4 access');
    resize(h, 60, 30);
    await h.waitFor((): boolean => h!.frame().split('\n')[0].length <= 60);
    await h.press(KEY.enter);
    const f = await h.waitFor('description');
    for (const l of f.split('\n')) expect(l.length).toBeLessThanOrEqual(60);
    const lines = f.split('\n');
    const at = lines.findIndex((l) => /^\s*description\s/.test(l));
    const column = lines[at].indexOf('Chat');
    const value = [lines[at].slice(column)];
    for (let i = at + 1; i < lines.length && /^\s+\S/.test(lines[i]) && lines[i].search(/\S/) === column; i++)
      value.push(lines[i].slice(column));
    expect(value.length).toBeGreaterThan(1);
    // Broken at spaces (the frame drops a line's trailing space).
    expect(value.join(' ')).toBe(description);
  });
});

describe('console: a terminal shorter than the frame', () => {
  it('at 8 lines one line says the terminal is too small (the frame would scroll it into pieces); taller again, the list is back; q still quits', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    resize(h, 30, 8);
    const f = await h.waitFor('terminal too small');
    // Only that, wrapped to the width: no piece of the list's frame.
    expect(f.replace(/\s+/g, ' ')).toBe('terminal too small: 8 lines, the console needs 10 (q quits)');
    for (const l of f.split('\n')) expect(l.length).toBeLessThanOrEqual(30);
    resize(h, 60, 12);
    await h.waitFor((): boolean => /^subscriptions {2}page 1 of/m.test(h!.frame()) && h!.frame().includes('user001'));
    resize(h, 60, 9);
    await h.waitFor('terminal too small: 9 lines');
    let quit = false;
    h.controller.setExit(() => (quit = true));
    await h.press('q');
    expect(quit).toBe(true);
  });
});
