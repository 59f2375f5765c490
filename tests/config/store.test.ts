import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { resolvePaths } from '../../src/config/paths.js';
import { ConfigStore, parseSetting, settingField } from '../../src/config/store.js';
import { tempDir } from '../support/tmp.js';

const made: string[] = [];
function setup() {
  const root = tempDir('subctl-store-test-');
  made.push(root);
  const env = { SUBCTL_CONFIG_DIR: path.join(root, 'cfg') };
  const paths = resolvePaths(env);
  return { root, env, paths, store: new ConfigStore(paths) };
}
const modeOf = (p: string) => fs.statSync(p).mode & 0o777;
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('ConfigStore files', () => {
  it('a missing file loads as no profiles and creates nothing', () => {
    const { store, paths } = setup();
    expect(store.load()).toEqual({ profiles: {} });
    expect(fs.existsSync(paths.configDir)).toBe(false);
  });

  it('save creates the directory 0700 and the file 0600, atomically (no tmp file left)', () => {
    const { store, paths } = setup();
    store.save({ profiles: { prod: { base_url: 'https://api.example.com' } }, current_profile: 'prod' });
    expect(modeOf(paths.configDir)).toBe(0o700);
    expect(modeOf(paths.configFile)).toBe(0o600);
    expect(fs.readdirSync(paths.configDir)).toEqual(['config.json']);
    expect(JSON.parse(fs.readFileSync(paths.configFile, 'utf8'))).toEqual({
      current_profile: 'prod',
      profiles: { prod: { base_url: 'https://api.example.com' } },
    });
    expect(store.load().profiles.prod.base_url).toBe('https://api.example.com');
  });

  it('load repairs a 0644 file and a 0755 directory', () => {
    const { store, paths } = setup();
    fs.mkdirSync(paths.configDir, { mode: 0o755 });
    fs.chmodSync(paths.configDir, 0o755);
    fs.writeFileSync(paths.configFile, JSON.stringify({ profiles: { a: {} } }), { mode: 0o644 });
    fs.chmodSync(paths.configFile, 0o644);
    expect(modeOf(paths.configDir)).toBe(0o755);
    expect(modeOf(paths.configFile)).toBe(0o644);
    expect(store.getProfile('a')).toEqual({});
    expect(modeOf(paths.configDir)).toBe(0o700);
    expect(modeOf(paths.configFile)).toBe(0o600);
  });

  it('save repairs a 0755 directory and replaces a 0644 file with a 0600 one', () => {
    const { store, paths } = setup();
    fs.mkdirSync(paths.configDir, { mode: 0o755 });
    fs.chmodSync(paths.configDir, 0o755);
    fs.writeFileSync(paths.configFile, '{"profiles":{}}', { mode: 0o644 });
    fs.chmodSync(paths.configFile, 0o644);
    store.save({ profiles: {} });
    expect(modeOf(paths.configDir)).toBe(0o700);
    expect(modeOf(paths.configFile)).toBe(0o600);
  });

  it('corrupt JSON throws a UsageError naming the file', () => {
    const { store, paths } = setup();
    fs.mkdirSync(paths.configDir, { recursive: true });
    fs.writeFileSync(paths.configFile, '{"profiles": {');
    const e = thrown(() => store.load());
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).exitCode).toBe(2);
    expect((e as UsageError).message).toContain(paths.configFile);
    fs.writeFileSync(paths.configFile, '[1,2]');
    expect(() => store.load()).toThrow(paths.configFile);
    fs.writeFileSync(paths.configFile, '{"profiles": {"a": 3}}');
    expect(() => store.load()).toThrow(/profiles/);
  });

  it('keeps unknown top-level keys written by a newer version', () => {
    const { store, paths } = setup();
    fs.mkdirSync(paths.configDir, { recursive: true });
    fs.writeFileSync(paths.configFile, JSON.stringify({ profiles: {}, future_key: 1 }));
    store.upsertProfile('a', { output: 'json' });
    expect(JSON.parse(fs.readFileSync(paths.configFile, 'utf8')).future_key).toBe(1);
  });
});

describe('profiles', () => {
  it('activeProfileName: explicit > SUBCTL_PROFILE > current_profile > default', () => {
    const { store } = setup();
    expect(store.activeProfileName(undefined, {})).toBe('default');
    store.upsertProfile('cur', {});
    store.useProfile('cur');
    expect(store.activeProfileName(undefined, {})).toBe('cur');
    expect(store.activeProfileName(undefined, { SUBCTL_PROFILE: 'envp' })).toBe('envp');
    expect(store.activeProfileName('flag', { SUBCTL_PROFILE: 'envp' })).toBe('flag');
    expect(store.activeProfileName('', { SUBCTL_PROFILE: '' })).toBe('cur');
  });

  it('upsert merges, undefined removes a key; remove clears current_profile', () => {
    const { store } = setup();
    store.upsertProfile('p', { base_url: 'https://a.example', output: 'json' });
    expect(store.upsertProfile('p', { timeout: 5000, output: undefined })).toEqual({ base_url: 'https://a.example', timeout: 5000 });
    expect(store.getProfile('p')).toEqual({ base_url: 'https://a.example', timeout: 5000 });
    store.useProfile('p');
    expect(store.removeProfile('p')).toBe(true);
    expect(store.removeProfile('p')).toBe(false);
    expect(store.load()).toEqual({ profiles: {} });
  });

  it('useProfile of an unknown profile is a UsageError; bad names are refused', () => {
    const { store } = setup();
    store.upsertProfile('known', {});
    const e = thrown(() => store.useProfile('nope'));
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toMatch(/nope.*known/);
    expect(() => store.upsertProfile('__proto__', {})).toThrow(UsageError);
    expect(() => store.upsertProfile('a b', {})).toThrow(UsageError);
    expect(store.getProfile('__proto__')).toBeUndefined();
    expect(store.getProfile('toString')).toBeUndefined();
  });

  it('isUnconfigured until some profile has a base_url', () => {
    const { store } = setup();
    expect(store.isUnconfigured()).toBe(true);
    store.upsertProfile('a', { output: 'csv' });
    expect(store.isUnconfigured()).toBe(true);
    store.upsertProfile('b', { base_url: 'https://x.example' });
    expect(store.isUnconfigured()).toBe(false);
  });

  it('deviceId is a uuid v4, stable across loads and stores, distinct per profile', () => {
    const { store, paths } = setup();
    const id = store.deviceId('default');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(store.deviceId('default')).toBe(id);
    expect(new ConfigStore(paths).deviceId('default')).toBe(id);
    expect(new ConfigStore(paths).getProfile('default')?.device_id).toBe(id);
    expect(store.deviceId('other')).not.toBe(id);
  });
});

describe('parseSetting', () => {
  it('normalizes valid settings', () => {
    expect(parseSetting('base-url', 'https://API.example.com/v1/')).toEqual(['base_url', 'https://api.example.com/v1']);
    expect(parseSetting('base_url', 'http://localhost:8080')).toEqual(['base_url', 'http://localhost:8080']);
    expect(parseSetting('output', 'JSON')).toEqual(['output', 'json']);
    expect(parseSetting('timeout', '15000')).toEqual(['timeout', 15000]);
    expect(parseSetting('retries', '0')).toEqual(['retries', 0]);
    expect(parseSetting('retries', '10')).toEqual(['retries', 10]);
    expect(settingField('BASE_URL')).toBe('base_url');
  });

  it.each([
    ['base-url', 'ftp://x.example', /base-url/],
    ['base-url', 'not a url', /base-url.*http/],
    ['base_url', 'https://user:pw@x.example', /base_url.*user name or password/],
    ['output', 'xml', /output.*table, json, ndjson, csv/],
    ['timeout', '0', /timeout.*> 0/],
    ['timeout', '1.5', /timeout/],
    ['timeout', '-3', /timeout/],
    ['retries', '11', /retries.*0 to 10/],
    ['retries', 'two', /retries/],
    ['colour', 'on', /unknown setting "colour".*base-url, output, timeout, retries/],
    ['device_id', 'x', /unknown setting "device_id"/],
  ])('%s=%s is a UsageError naming the key', (key, value, re) => {
    const e = thrown(() => parseSetting(key, value));
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toMatch(re);
  });

  it('the password of a URL is not echoed in the error', () => {
    for (const url of ['https://user:hunter2@x.example', 'ftp://user:hunter2@x.example']) {
      const e = thrown(() => parseSetting('base-url', url));
      expect((e as Error).message).not.toContain('hunter2');
    }
  });
});
