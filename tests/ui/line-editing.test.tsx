/**
 * The prompts' line editing: Backspace takes off the last character as the terminal draws it,
 * in the function and in the console's filter prompt (ink-testing-library, stub platform).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { editLine } from '../../src/ui/keys.js';
import { KEY, startConsole, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const backspace = { input: '', backspace: true };

describe('prompts: Backspace', () => {
  it('takes off a whole flag, emoji sequence, accented letter or CJK character, and one ASCII letter', () => {
    expect(editLine('name=JP🇯🇵', backspace)).toBe('name=JP');
    expect(editLine('dev👩‍💻', backspace)).toBe('dev');
    expect(editLine('cafe\u0301', backspace)).toBe('caf');
    expect(editLine('❤️', backspace)).toBe('');
    expect(editLine('日本', backspace)).toBe('日');
    expect(editLine('abc', backspace)).toBe('ab');
    expect(editLine('', backspace)).toBe('');
  });

  it('in the filter prompt, an emoji typed then erased leaves nothing of it', async () => {
    h = await startConsole({ resource: 'subscriptions' });
    await h.waitFor('user010');
    await h.press('/', 'username=a👩‍💻');
    expect(h.frame()).toContain('/ username=a👩‍💻');
    await h.press(KEY.backspace);
    expect(h.frame()).toMatch(/^\/ username=a *$/m);
    await h.press(KEY.enter);
    await h.waitFor(() => h!.requests('GET', '/admin/subscriptions').some((r) => r.query.username !== undefined));
    expect(h.requests('GET', '/admin/subscriptions').at(-1)!.query).toMatchObject({ username: 'a' });
  });
});
