import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, homeDir, resolvePaths, writeFileAtomic } from '../../src/config/paths.js';
import { tempDir } from '../support/tmp.js';

const made: string[] = [];
function tmp(): string {
  const d = tempDir('subctl-paths-test-');
  made.push(d);
  return d;
}
const modeOf = (p: string) => fs.statSync(p).mode & 0o777;
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('resolvePaths', () => {
  it('SUBCTL_CONFIG_DIR relocates everything', () => {
    const p = resolvePaths({ SUBCTL_CONFIG_DIR: '/x/cfg', HOME: '/home/u', XDG_CONFIG_HOME: '/ignored', XDG_STATE_HOME: '/ignored' });
    expect(p).toEqual({
      configDir: '/x/cfg',
      configFile: '/x/cfg/config.json',
      credentialsFile: '/x/cfg/credentials.json',
      stateDir: '/x/cfg/state',
      dataDir: '/x/cfg/data',
      cacheDir: '/x/cfg/cache',
    });
  });

  it('a relative SUBCTL_CONFIG_DIR is made absolute', () => {
    expect(resolvePaths({ SUBCTL_CONFIG_DIR: 'rel/cfg' }).configDir).toBe(path.resolve('rel/cfg'));
  });

  it('uses the XDG variables', () => {
    const p = resolvePaths({ HOME: '/home/u', XDG_CONFIG_HOME: '/c', XDG_STATE_HOME: '/s', XDG_DATA_HOME: '/d', XDG_CACHE_HOME: '/k' });
    expect(p).toEqual({
      configDir: '/c/subctl',
      configFile: '/c/subctl/config.json',
      credentialsFile: '/c/subctl/credentials.json',
      stateDir: '/s/subctl',
      dataDir: '/d/subctl',
      cacheDir: '/k/subctl',
    });
  });

  it('defaults under HOME; empty or relative XDG values are ignored', () => {
    const p = resolvePaths({ HOME: '/home/u', XDG_CONFIG_HOME: '', XDG_STATE_HOME: 'relative/state' });
    expect(p.configFile).toBe('/home/u/.config/subctl/config.json');
    expect(p.credentialsFile).toBe('/home/u/.config/subctl/credentials.json');
    expect(p.stateDir).toBe('/home/u/.local/state/subctl');
    expect(p.dataDir).toBe('/home/u/.local/share/subctl');
    expect(p.cacheDir).toBe('/home/u/.cache/subctl');
  });

  it('HOME unset (cron with env -i): the password database home', () => {
    expect(resolvePaths({}, { homedir: () => '/pw/home' }).configDir).toBe('/pw/home/.config/subctl');
    // and without injection, whatever os.homedir() says
    expect(resolvePaths({}).stateDir).toBe(path.join(os.homedir(), '.local', 'state', 'subctl'));
  });

  it('no home at all: os.tmpdir()/subctl-<uid>', () => {
    const uid = String(process.getuid!());
    const none = { homedir: () => '', tmpdir: () => '/tmpx' };
    expect(homeDir({}, none)).toBe(`/tmpx/subctl-${uid}`);
    expect(resolvePaths({}, none).configDir).toBe(`/tmpx/subctl-${uid}/.config/subctl`);
    const throwing = {
      homedir: () => {
        throw new Error('no passwd entry');
      },
      tmpdir: () => '/tmpy',
    };
    expect(resolvePaths({}, throwing).cacheDir).toBe(`/tmpy/subctl-${uid}/.cache/subctl`);
  });
});

describe('private files and directories', () => {
  it.skipIf(!fs.existsSync('/proc/self'))(
    'a directory where the parent refuses children (/proc) is an error at once, not a spin (Node recursive mkdir loops there)',
    () => {
      const t = performance.now();
      expect(() => ensurePrivateDir('/proc/subctl-test/cfg')).toThrow(/cannot create the directory \/proc\/subctl-test\/cfg: ENOENT/);
      expect(performance.now() - t).toBeLessThan(1000);
    },
  );

  it('ensurePrivateDir creates nested directories 0700', () => {
    const d = path.join(tmp(), 'a', 'b', 'c');
    ensurePrivateDir(d);
    expect(modeOf(d)).toBe(0o700);
    expect(modeOf(path.dirname(d))).toBe(0o700);
  });

  it('ensurePrivateDir repairs a 0755 directory', () => {
    const d = path.join(tmp(), 'loose');
    fs.mkdirSync(d, { mode: 0o755 });
    fs.chmodSync(d, 0o755);
    expect(modeOf(d)).toBe(0o755);
    ensurePrivateDir(d);
    expect(modeOf(d)).toBe(0o700);
  });

  it('ensurePrivateDir refuses a regular file', () => {
    const f = path.join(tmp(), 'file');
    fs.writeFileSync(f, 'x');
    expect(() => ensurePrivateDir(f)).toThrow(/not a directory/);
  });

  it('writeFileAtomic writes 0600, leaves no tmp file, and replaces a 0644 file with a 0600 one', () => {
    const d = tmp();
    const f = path.join(d, 'x.json');
    fs.writeFileSync(f, 'old', { mode: 0o644 });
    fs.chmodSync(f, 0o644);
    writeFileAtomic(f, 'new');
    expect(fs.readFileSync(f, 'utf8')).toBe('new');
    expect(modeOf(f)).toBe(0o600);
    expect(fs.readdirSync(d)).toEqual(['x.json']);
  });

  it('writeFileAtomic removes a leftover tmp file of a crashed process with our pid', () => {
    const d = tmp();
    const f = path.join(d, 'x.json');
    fs.writeFileSync(`${f}.${process.pid}.tmp`, 'junk');
    writeFileAtomic(f, 'ok');
    expect(fs.readdirSync(d)).toEqual(['x.json']);
  });

  it('writeFileAtomic refuses a symlink in place of the file: the link and its target are left as they were', () => {
    const d = tmp();
    const target = path.join(d, 'real.json');
    const link = path.join(d, 'link.json');
    fs.writeFileSync(target, '1');
    fs.symlinkSync(target, link);
    expect(() => writeFileAtomic(link, '2')).toThrow(
      `${link} is a symbolic link: subctl reads and writes only files of its own there, never through a link`,
    );
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('1');
  });
});
