/**
 * Pasted text in the console (ink-testing-library against the stub platform): the terminal's
 * bracketed paste (`ESC [200~` … `ESC [201~`) is typed into the prompt open, its line breaks as
 * spaces, and is never run as keys (a pasted `y` does not confirm, a pasted `q` does not quit).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KeyReader } from '../../src/ui/keys.js';
import { KEY, startConsole, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const pasted = (text: string) => `\u001b[200~${text}\u001b[201~`;

describe('console: pasted text', () => {
  it('lines pasted into the filter prompt are one filter, the prompt still open; Enter sends both pairs', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('/', pasted('status=paused\r\nusername=user005\r\n'));
    expect(h.frame()).toContain('/ status=paused username=user005');
    expect(h.frame()).toContain('filters of subscriptions');
    await h.press(KEY.enter);
    await h.waitFor('filter status=paused');
    expect(h.requests('GET', '/admin/subscriptions').at(-1)!.query).toMatchObject({ status: 'paused', username: 'user005' });
  });

  it('a paste on the table is not keys; in a form field it is the text (its line break does not submit); on [y/N] it does not confirm', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press(pasted('pq\r'));
    expect(h.frame()).toContain('pasted text is taken only by a prompt');
    expect(h.frame()).toContain('user010');
    await h.press('p');
    await h.waitFor('reason*');
    await h.press(pasted('ticket 42\r\nsee notes\r\n'));
    expect(h.frame()).toMatch(/reason\* +ticket 42 see notes/);
    expect(h.frame()).not.toContain('Proceed?');
    await h.press(KEY.enter);
    await h.waitFor('Proceed? [y/N]');
    await h.press(pasted('y'));
    expect(h.frame()).toContain('Proceed? [y/N]');
    expect(h.requests('PUT')).toHaveLength(0);
    await h.press('y');
    await h.waitFor(() => h!.requests('PUT').length === 1);
    expect(h.requests('PUT')[0].body).toEqual({ action: 'pause', reason: 'ticket 42 see notes' });
  });

  it('KeyReader: the text between the markers is one key press, whatever the chunks; keys before and after stay keys', () => {
    const r = new KeyReader();
    const none = {} as never;
    expect(r.read('j', none)).toEqual([expect.objectContaining({ input: 'j' })]);
    expect(r.read('[200~', none)).toEqual([]);
    expect(r.read('a=1', none)).toEqual([]);
    expect(r.read('', { return: true } as never)).toEqual([]);
    expect(r.read('b=2\tc\r', none)).toEqual([]);
    expect(r.read('u', { ctrl: true } as never)).toEqual([]);
    expect(r.read('[201~', none)).toEqual([{ input: 'a=1 b=2 c', paste: true }]);
    expect(r.read('q', none)).toEqual([expect.objectContaining({ input: 'q' })]);
    expect(r.read('[200~', none)).toEqual([]);
    expect(r.read('\r\n', none)).toEqual([]);
    expect(r.read('[201~', none)).toEqual([]);
  });
});
