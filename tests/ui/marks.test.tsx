/**
 * The console acts only on what it shows: a filter or sort change clears the marks, so a
 * pause key after a filter acts on the row in view, not on rows the filter hides; the list's
 * header keeps the marked count and the loading state in view at 80 columns; the confirmation
 * wraps the change rather than cutting it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, startConsole, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const narrow = (h: Harness, columns: number) => {
  Object.defineProperty(h.ui.stdout, 'columns', { get: () => columns, configurable: true });
  h.ui.stdout.emit('resize');
};

describe('console: marks and what is shown', () => {
  it('a filter change clears the marks: p then acts on the visible row only', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press(' ', ' ');
    expect(h.frame()).toContain('2 marked');
    await h.press('/', 'status=paused', KEY.enter);
    const f = await h.waitFor(/page 1 of 2, total 19/);
    expect(f).not.toContain('marked');
    await h.press('p', 'window', KEY.enter);
    const c = h.frame();
    // The first paused row in view (5), not the marked active rows 1 and 2.
    expect(c).toContain('pause subscription 5 (user005');
    expect(c).not.toMatch(/pause 2 subscriptions/);
    await h.press('y');
    await h.waitFor(() => h!.requests('PUT').length > 0);
    expect(h.requests('PUT').map((r) => r.path)).toEqual(['/admin/subscriptions/5/manage']);
  });

  it('a sort change clears the marks too', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press(' ');
    expect(h.frame()).toContain('1 marked');
    await h.press('s');
    const f = await h.waitFor(/sort \w+ (ASC|DESC)/);
    expect(f).not.toContain('marked');
  });

  it('at 80 columns the header keeps the marked count and loading in view', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    narrow(h, 80);
    await h.press('/', 'status=paused', KEY.enter);
    await h.waitFor(/page 1 of 2/);
    await h.press(' ');
    const f = h.frame();
    const head = f.split('\n').find((l) => l.startsWith('subscriptions'))!;
    expect(head.length).toBeLessThanOrEqual(80);
    expect(head).toMatch(/^subscriptions {2}1 marked {2}· {2}page 1 of 2/);
  });

  it('the confirmation wraps the change at 80 columns instead of cutting it', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    narrow(h, 80);
    await h.press('e', 'a reason long enough to need the whole width of an eighty column terminal and more', KEY.tab, '30', KEY.enter);
    const f = h.frame();
    expect(f).toContain('end_date: 2026-12-01 -> 2026-12-31');
    const flat = f.replace(/\s*\n\s*/g, ' ');
    expect(flat).toContain('reason: a reason long enough to need the whole width of an eighty column terminal and more');
    for (const l of f.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
  });
});
