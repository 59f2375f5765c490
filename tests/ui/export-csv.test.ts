/**
 * The console's Ctrl-S export when the file cannot be written: the error names the file (not
 * the printer's "standard output"), a partial file it created is removed, and a file that was
 * already there is left alone. A full disk is a file-size limit here (`ulimit -f`, in a child).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportCsv, exportFileName } from '../../src/ui/export-csv.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(__dirname, '../..');
const at = new Date(2026, 10, 22, 15, 30, 12);
const rows = Array.from({ length: 3000 }, (_, i) => ({ subscription_id: i + 1, username: `user${i}`, note: 'x'.repeat(40) }));
let child: string;

beforeAll(async () => {
  const dir = tempDir('subctl-export-child-');
  const entry = join(dir, 'child.ts');
  writeFileSync(
    entry,
    `import { exportCsv } from ${JSON.stringify(join(root, 'src/ui/export-csv.ts'))};
const rows = Array.from({ length: 3000 }, (_, i) => ({ subscription_id: i + 1, username: 'user' + i, note: 'x'.repeat(40) }));
exportCsv(rows, { resource: 'subscriptions', dir: process.argv[2], at: new Date(2026, 10, 22, 15, 30, 12) }).then(
  (r) => console.log(JSON.stringify({ ok: r.count })),
  (e) => console.log(JSON.stringify({ message: e.message, type: e.type, code: e.code })),
);
`,
  );
  child = join(dir, 'child.cjs');
  await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: child, logLevel: 'error' });
});

describe('console export to CSV', () => {
  it('writes the file whole', async () => {
    const dir = tempDir('subctl-export-');
    const r = await exportCsv(rows, { resource: 'subscriptions', dir, at });
    expect(r).toEqual({ path: join(dir, exportFileName('subscriptions', at)), count: 3000 });
    expect(readFileSync(r.path, 'utf8').trim().split('\n')).toHaveLength(3001);
    // Users' emails and names: readable by its owner only, as every file subctl writes (it was 0644).
    expect(statSync(r.path).mode & 0o777).toBe(0o600);
  });

  it('the disk cannot hold it: the error names the file and the reason, the partial file is removed', () => {
    const dir = tempDir('subctl-export-');
    const r = spawnSync('bash', ['-c', `ulimit -f 16 && exec '${process.execPath}' '${child}' '${dir}'`], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim());
    expect(out).toEqual({
      message: `cannot write ${join(dir, exportFileName('subscriptions', at))}: file too large (EFBIG)`,
      type: 'local',
      code: 'EFBIG',
    });
    expect(readdirSync(dir)).toEqual([]);
    // The same export with room writes the file.
    const again = spawnSync(process.execPath, [child, dir], { encoding: 'utf8' });
    expect(JSON.parse(again.stdout.trim())).toEqual({ ok: 3000 });
  });

  it('a file of that name already there is left as it was: the export gets the next free name (-2, -3 …)', async () => {
    const dir = tempDir('subctl-export-');
    const path = join(dir, exportFileName('subscriptions', at));
    writeFileSync(path, 'mine\n');
    const r = await exportCsv(rows, { resource: 'subscriptions', dir, at });
    expect(r.path).toBe(path.replace(/\.csv$/, '-2.csv'));
    expect(readFileSync(path, 'utf8')).toBe('mine\n');
    const again = await exportCsv(rows.slice(0, 2), { resource: 'subscriptions', dir, at });
    expect(again).toEqual({ path: path.replace(/\.csv$/, '-3.csv'), count: 2 });
    expect(readFileSync(r.path, 'utf8').trim().split('\n')).toHaveLength(3001);
  });
});
