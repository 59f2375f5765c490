/**
 * The dashboard's lists in the console (ink-testing-library against the stub platform): a list
 * cut to 20 items says where it is read whole in words that work from the console.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../support/stub-server.js';
import { KEY, platform, startConsole, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('console: a dashboard list longer than 20 items', () => {
  it('says how many more and names the command that shows them all (not a flag the console has not)', async () => {
    const base = platform();
    const recent_activity = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, action: `act-${i + 1}` }));
    h = await startConsole({ handler: (req) => (req.path === '/admin/dashboard' ? ok({ recent_activity }) : base(req)) });
    await h.waitFor('recent_activity (25)');
    await h.press(KEY.pageDown, KEY.pageDown);
    const f = await h.waitFor('5 more');
    expect(f).toContain('… 5 more (`subctl dashboard -o json` shows them all)');
    expect(f).toContain('act-20');
    expect(f).not.toContain('act-21');
  });
});
