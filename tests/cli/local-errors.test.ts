/**
 * A failure of the machine (a full disk, a file-size limit, a read-only file system) is named
 * for what it is, with the file or stream and a hint, exit 1, and without the request to report
 * a bug that an unexpected error gets. The real binary; stdout on /dev/full, or `ulimit -f`.
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, LocalError, localError } from '../../src/api/errors.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { run } from '../chaos/binary.js';
import { startTestSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

describe('failures of the machine', () => {
  const platform = () => ({
    PATH: process.env.PATH,
    HOME: tempDir('subctl-home-'),
    SUBCTL_CONFIG_DIR: tempDir('subctl-cfg-'),
    SUBCTL_BASE_URL: sb.url,
    SUBCTL_TOKEN: sb.tokenFor('admin'),
  });

  it.skipIf(!existsSync('/dev/full'))(
    'standard output on a full device: exit 1, the stream and the reason named, a hint, no bug report',
    async () => {
      for (const [format, json] of [
        ['csv', false],
        ['json', true],
      ] as const) {
        const full = openSync('/dev/full', 'w');
        const r = await run(['services', 'list', '-o', format], platform(), { stdout: full });
        closeSync(full);
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).not.toContain('this is a bug');
        if (json) {
          // -o json: one JSON object, the hint inside.
          const only = JSON.parse(r.stderr);
          expect(only.error).toMatchObject({
            type: 'local',
            code: 'ENOSPC',
            message: 'cannot write to standard output: no space left on device (ENOSPC)',
          });
          expect(only.error.hint).toMatch(/^free some disk space/);
        } else {
          expect(r.stderr).toContain('error: cannot write to standard output: no space left on device (ENOSPC)\n');
          expect(r.stderr).toMatch(/^hint: free some disk space/m);
        }
      }
    },
  );

  it('the embedded sandbox cannot write its data file: named with its path, exit 1; with room, the next run seeds and answers', async () => {
    const home = tempDir('subctl-home-');
    const env = { PATH: process.env.PATH, HOME: home, SUBCTL_CONFIG_DIR: join(home, 'cfg') };
    const data = join(home, 'cfg', 'data', 'sandbox.db');
    const r = await run(['--sandbox', 'services', 'list'], env, { limitKb: 256 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: cannot write the sandbox data file ${data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*\\(SQLITE_(FULL|IOERR\\w*)\\)$`,
        'm',
      ),
    );
    expect(r.stderr).toContain('hint: ');
    expect(r.stderr).not.toContain('this is a bug');
    const again = await run(['--sandbox', 'services', 'list', '-o', 'json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).length).toBeGreaterThan(5);
  });

  it('localError: the codes of a failing machine become a LocalError; other errors are left alone', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const e = localError(enospc, 'the bulk journal /s/j.jsonl')!;
    expect(e).toBeInstanceOf(LocalError);
    expect(e).toBeInstanceOf(CliError);
    expect([e.message, e.exitCode, e.type, e.code]).toEqual([
      'cannot write the bulk journal /s/j.jsonl: no space left on device (ENOSPC)',
      1,
      'local',
      'ENOSPC',
    ]);
    expect(e.cause).toBe(enospc);
    const rofs = localError(Object.assign(new Error('x'), { code: 'EROFS', path: '/ro/config.json' }))!;
    expect(rofs.message).toBe('read-only file system (EROFS): /ro/config.json');
    expect(rofs.hint).toContain('read-only');
    const sqlite = localError(
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      'the sandbox data file /d.db',
    )!;
    expect(sqlite.message).toBe('cannot write the sandbox data file /d.db: database or disk is full (SQLITE_FULL)');
    expect(sqlite.hint).toMatch(/^free some disk space/);
    for (const other of [
      new Error('plain'),
      Object.assign(new Error('x'), { code: 'ENOENT' }),
      Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT' }),
      null,
      'text',
      new CliError('usage', 2, 'bad'),
    ]) {
      expect(localError(other, 'x')).toBeUndefined();
    }
  });
});
