/**
 * The console's catalog view: the plan's lines drawn read-only and scrolled by key, closed by q;
 * and `subctl console --catalog` off a terminal is exit 2 with the reason.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { CatalogScreen } from '../../src/ui/screens/CatalogScreen.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

const tick = (ms = 60) => new Promise((r) => setTimeout(r, ms));
const strip = (s: string | undefined) => (s ?? '').replace(/\x1b\[[0-9;]*m/g, '');

describe('console --catalog', () => {
  it('draws the plan, scrolls a line with j and a page with space, closes with q', async () => {
    const lines = [
      'plans',
      '  ~ update BASIC-M',
      '      price: 9.99 -> 10.49',
      ...Array.from({ length: 20 }, (_, i) => `  + create P${i}`),
      '',
      'Plan: 20 to create, 1 to update, 0 to delete.',
    ];
    let closed = false;
    const ui = render(
      createElement(CatalogScreen, {
        title: 'catalog c.yaml against local (SANDBOX): 21 changes',
        lines,
        rows: 10,
        onClose: () => (closed = true),
      }),
    );
    await tick();
    let frame = strip(ui.lastFrame());
    expect(frame).toContain('catalog c.yaml against local (SANDBOX): 21 changes');
    expect(frame).toContain('  ~ update BASIC-M');
    expect(frame).toContain('lines 1-7 of 25');
    expect(frame).not.toContain('P10');
    ui.stdin.write('j');
    await tick();
    frame = strip(ui.lastFrame());
    expect(frame).not.toContain('\nplans\n');
    expect(frame).toContain('lines 2-8 of 25');
    ui.stdin.write(' ');
    await tick();
    expect(strip(ui.lastFrame())).toContain('lines 9-15 of 25');
    ui.stdin.write('G');
    await tick();
    frame = strip(ui.lastFrame());
    expect(frame).toContain('Plan: 20 to create, 1 to update, 0 to delete.');
    expect(frame).toContain('lines 19-25 of 25');
    ui.stdin.write('q');
    await tick(100);
    expect(closed).toBe(true);
    ui.unmount();
  });

  it('off a terminal: exit 2, the console needs one', async () => {
    const file = join(tempDir('subctl-catalog-ui-'), 'c.yaml');
    writeFileSync(file, 'plans: []\n');
    const r = await runCli(['console', '--catalog', file], { env: { SUBCTL_BASE_URL: 'http://127.0.0.1:9', SUBCTL_TOKEN: 'x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the console needs a terminal');
  });
});
