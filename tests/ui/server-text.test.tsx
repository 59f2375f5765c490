/**
 * Server text with control characters and escape sequences in the console (ink-testing-library
 * against the stub platform): the bytes Ink writes hold none of them raw, every line stays one
 * line, and a code holding one can still be typed to confirm a delete.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ok, type RecordedRequest, type StubReply } from '../support/stub-server.js';
import { KEY, startConsole, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CODE = 'EVIL\u001b[31mX';
const NAME = 'Red\u001b[2J\u001b]0;pwned\u0007 name\ttab\nsecond line';

const service = {
  service_id: 14,
  service_code: CODE,
  service_name: NAME,
  service_type: 'HYBRID',
  provider_name: 'P\u001b[5mblink',
  is_active: true,
  base_service_url: 'https://x.example',
  access_pattern: '/v1/*',
  credit_reset_cycle: 'daily',
};

function evilPlatform(req: RecordedRequest): StubReply {
  if (req.method === 'GET' && req.path === '/admin/services')
    return ok({ pagination: { current_page: 1, page_size: 10, total_pages: 1, total_records: 1 }, services: [service] });
  if (req.method === 'GET' && req.path === '/admin/services/detail')
    return ok({ service_info: service, service_plans: [], active_subscriptions: [], top_users: [], usage_statistics: [] });
  if (req.method === 'DELETE') return { status: 200, json: { status: true, message: 'service deleted', data: { affected_records: 1 } } };
  return { status: 404, json: { status: false, message: `no stub for ${req.method} ${req.path}` } };
}

/** What Ink wrote for the frame, its own styling taken out: the server's bytes that remain. */
// eslint-disable-next-line no-control-regex
const INK_STYLES = /\u001b\[(?:\d+;)*\d*m/g;
const rawFrame = (h: Harness) => h.ui.lastFrame() ?? '';
function expectNoRawControls(frame: string): void {
  // Ink styles text with SGR sequences (`ESC [ 1 m`); the server's `ESC [ 31 m` would be one of
  // them, so the server's own text is looked for by its neighbours.
  expect(frame).not.toContain('EVIL\u001b');
  expect(frame).not.toContain('\u001b[2J');
  expect(frame).not.toContain('\u001b]0;');
  expect(frame).not.toContain('\u0007');
  expect(frame).not.toContain('\u001b[5m');
  // eslint-disable-next-line no-control-regex
  expect(frame.replace(INK_STYLES, '')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
}

describe('console: server text with control characters', () => {
  it('the delete confirmation shows the code escaped, nothing raw; typing the code as shown sends the DELETE of the real code', async () => {
    h = await startConsole({ resource: 'services', handler: evilPlatform });
    await h.waitFor('EVIL\\x1b[31mX');
    expectNoRawControls(rawFrame(h));
    await h.press('d');
    const f = await h.waitFor('to confirm');
    expect(f).toContain('type EVIL\\x1b[31mX to confirm');
    expectNoRawControls(rawFrame(h));
    await h.press('EVILX', KEY.enter);
    expect(h.frame()).toContain("'EVILX' does not match EVIL\\x1b[31mX");
    expect(h.requests('DELETE')).toHaveLength(0);
    await h.press('EVIL\\x1b[31mX', KEY.enter);
    await h.waitFor('service deleted');
    expect(h.requests('DELETE', '/admin/services')[0].body).toEqual({ service_code: CODE });
  });

  it('the edit form draws a value holding a newline on its one line (\\n), escapes shown, nothing raw', async () => {
    h = await startConsole({ resource: 'services', handler: evilPlatform });
    await h.waitFor('EVIL\\x1b[31mX');
    await h.press('e');
    const f = await h.waitFor('edit service');
    expectNoRawControls(rawFrame(h));
    const line = f.split('\n').find((l) => l.includes('service_name'));
    expect(line).toContain('Red\\x1b[2J\\x1b]0;pwned\\x07 name\\ttab\\nsecond line');
    // The hint stays on the field's line, and no line of the form starts with the value's rest.
    expect(line).toContain('max 200');
    expect(f.split('\n').some((l) => l.startsWith('second line'))).toBe(false);
  });

  it('the detail, its title and the header show escapes; a pasted-in control in the filter prompt is drawn escaped', async () => {
    h = await startConsole({
      resource: 'services',
      handler: evilPlatform,
      session: { profile: 'p\u001b[31m', target: 'http://x', user: 'ad\u001b]0;x\u0007min', role: 'admin' },
    });
    await h.waitFor('EVIL\\x1b[31mX');
    expect(h.frame()).toContain('profile p\\x1b[31m');
    expect(h.frame()).toContain('ad\\x1b]0;x\\x07min (admin)');
    await h.press(KEY.enter);
    const f = await h.waitFor('provider_name');
    expect(f).toContain('P\\x1b[5mblink');
    expectNoRawControls(rawFrame(h));
    await h.press(KEY.esc, '/', 'service_type=\u009b\u202e');
    expect(h.frame()).toContain('/ service_type=\\x9b\\u202e');
    expectNoRawControls(rawFrame(h));
  });
});
