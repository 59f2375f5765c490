import { afterEach, describe, it } from 'vitest';
import { KEY, startConsole, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('smoke', () => {
  it('tour', async () => {
    h = await startConsole({});
    console.log(await h.waitFor('active_subscriptions'));
    await h.press(':', 's', 'e');
    console.log(h.frame());
    await h.press(KEY.tab, KEY.enter);
    console.log(await h.waitFor('GPT-4 access'));
    await h.press(KEY.enter);
    console.log(await h.waitFor('Top users'));
    await h.press(KEY.esc, ':subscriptions\r');
    await h.waitFor('user001');
    await h.press('/', 'status=paid');
    await h.press(KEY.enter);
    console.log(h.frame());
    await h.press(KEY.esc, '?');
    console.log(h.frame());
    await h.press('x', KEY.enter);
    console.log(h.frame());
  });
});
