/**
 * Files are subctl's own (issue 26, point 4): a symbolic link planted where subctl reads or
 * writes one of its files is refused with an error naming it, and the link's target (outside
 * subctl's directories) is neither written nor chmod-ed. A malformed credentials file's error
 * names the file and the line, never its content.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRowsFile } from '../../src/bulk/earlier.js';
import { Journal } from '../../src/bulk/journal.js';
import { acquireLock } from '../../src/config/lock.js';
import { writeFileAtomic } from '../../src/config/paths.js';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/tmp.js';

/** A config directory, and a file outside it (mode 0644) that a link will point at. */
function plant(name: string, inDir = ''): { dir: string; link: string; target: string; before: string } {
  const dir = tempDir('subctl-links-');
  const outside = tempDir('subctl-outside-');
  const target = join(outside, 'victim');
  const before = 'precious\n';
  fs.writeFileSync(target, before, { mode: 0o644 });
  fs.chmodSync(target, 0o644);
  const at = join(dir, inDir);
  fs.mkdirSync(at, { recursive: true, mode: 0o700 });
  const link = join(at, name);
  fs.symlinkSync(target, link);
  return { dir, link, target, before };
}

function untouched(p: { link: string; target: string; before: string }): void {
  expect(fs.lstatSync(p.link).isSymbolicLink()).toBe(true);
  expect(fs.readFileSync(p.target, 'utf8')).toBe(p.before);
  expect(fs.statSync(p.target).mode & 0o777).toBe(0o644);
}

const refused = (link: string) => `${link} is a symbolic link: subctl reads and writes only files of its own there, never through a link`;

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer(() => ok({ subscription_id: 1 }));
});
afterAll(() => server.close());

describe('a symlink planted in place of', () => {
  it('config.json: `config list` and `config set` are refused (exit 2), the target neither read nor chmod-ed', async () => {
    const p = plant('config.json');
    for (const cmd of ['config list', 'config set base-url https://api.example.com']) {
      const r = await runCli(cmd, { env: { SUBCTL_CONFIG_DIR: p.dir } });
      expect(r.code, cmd).toBe(2);
      expect(r.stderr, cmd).toContain(`error: ${refused(p.link)}`);
      expect(r.stderr, cmd).not.toContain('precious');
      untouched(p);
    }
  });

  it('credentials.json: a command reading the sign-in is refused, the target untouched', async () => {
    const p = plant('credentials.json');
    fs.writeFileSync(join(p.dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: server.url } } }), { mode: 0o600 });
    const r = await runCli('auth status', { env: { SUBCTL_CONFIG_DIR: p.dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(refused(p.link));
    untouched(p);
  });

  it('a lock: refused, not taken over as stale nor removed', () => {
    const p = plant('cleanup-0123456789abcdef.lock', 'state');
    expect(() => acquireLock(p.link, { command: 'subctl cleanup' })).toThrow(refused(p.link));
    untouched(p);
  });

  it('the bulk journal: no record appended to the target', () => {
    const dir = tempDir('subctl-journal-');
    const j = new Journal(dir, 'subscriptions manage', 'abc');
    const outside = join(tempDir('subctl-outside-'), 'victim');
    fs.writeFileSync(outside, 'precious\n', { mode: 0o644 });
    fs.symlinkSync(outside, j.path);
    expect(() => j.append({ line: 1, state: 'applied', at: 0 } as never)).toThrow(refused(j.path));
    expect(fs.readFileSync(outside, 'utf8')).toBe('precious\n');
  });

  it('the bulk report (--report): refused before anything is sent', async () => {
    const p = plant('report.ndjson');
    const csv = join(p.dir, 'in.csv');
    fs.writeFileSync(csv, 'subscription_id,action,reason\n1,pause,x\n');
    server.requests.length = 0;
    const r = await runCli(['subscriptions', 'manage', '--from-csv', csv, '--yes', '--report', p.link], {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(refused(p.link));
    expect(server.requests).toHaveLength(0);
    untouched(p);
  });

  it("the bulk journal's row file: a link at its temporary name is replaced, never written through", () => {
    const p = plant(`run.journal.rows.${process.pid}.tmp`);
    const journal = join(p.dir, 'run.journal');
    writeRowsFile(
      journal,
      { command: 'subscriptions manage', endpoint: 'POST /admin/subscriptions/{id}/manage', platform: 'http://127.0.0.1:1' } as never,
      [[2, 'x']],
    );
    expect(fs.readFileSync(p.target, 'utf8')).toBe(p.before);
    expect(fs.statSync(p.target).mode & 0o777).toBe(0o644);
    expect(JSON.parse(fs.readFileSync(`${journal}.rows`, 'utf8')).rows).toEqual([[2, 'x']]);
  });

  it('a cache file written atomically (completion cache): refused', () => {
    const p = plant('services.json', 'cache');
    expect(() => writeFileAtomic(p.link, '{}')).toThrow(refused(p.link));
    untouched(p);
  });

  it("a symlinked config directory (dotfiles) is used, its target directory's mode left alone", async () => {
    const real = tempDir('subctl-real-');
    fs.chmodSync(real, 0o755);
    const link = join(tempDir('subctl-home-'), 'subctl');
    fs.symlinkSync(real, link);
    const r = await runCli(`config set base-url ${server.url}`, { env: { SUBCTL_CONFIG_DIR: link } });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(join(real, 'config.json'))).toBe(true);
    expect(fs.statSync(real).mode & 0o777).toBe(0o755);
  });
});

describe('a malformed credentials file', () => {
  it('names the file and the line, never its content', async () => {
    const dir = tempDir('subctl-badcred-');
    fs.writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: server.url } } }), { mode: 0o600 });
    fs.writeFileSync(join(dir, 'credentials.json'), '{\n  "profiles": {\n    "default": { "token": eyJSECRET-abcdef }\n  }\n}\n', {
      mode: 0o600,
    });
    const r = await runCli('auth status', { env: { SUBCTL_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`credentials file ${join(dir, 'credentials.json')} is not valid JSON (line 3, column 27)`);
    expect(r.stderr).not.toContain('eyJ');
    expect(r.stderr).not.toContain('SECRET');
  });
});

describe('jsonErrorPlace', () => {
  it('places the fault by line and column for each kind of V8 message, never quoting the text', async () => {
    const { jsonErrorPlace } = await import('../../src/config/safe-files.js');
    const place = (t: string) => {
      try {
        JSON.parse(t);
      } catch (e) {
        return jsonErrorPlace(t, e);
      }
    };
    expect(place('{"a": tok}')).toBe('line 1, column 8'); // V8 stops at the 'o' of a would-be true
    expect(place('{\n  "profiles": {\n    "default": { "token": "eyJSECRET-1234567890" x }\n}')).toBe('line 3, column 50');
    expect(place('{"a": 1')).toBe('line 1, column 8');
    expect(place('{"a": 1}')).toBeUndefined();
  });
});
