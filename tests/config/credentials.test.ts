import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { CredentialStore, resolveSessionId, resolveToken, type KeyringLike } from '../../src/config/credentials.js';
import { resolvePaths } from '../../src/config/paths.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir } from '../support/tmp.js';

const made: string[] = [];
function setup() {
  const root = tempDir('subctl-cred-test-');
  made.push(root);
  const paths = resolvePaths({ SUBCTL_CONFIG_DIR: path.join(root, 'cfg') });
  return { root, paths, store: new ConfigStore(paths) };
}
const modeOf = (p: string) => fs.statSync(p).mode & 0o777;
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** The failure this machine's real binding gives without D-Bus. */
function brokenKeyring(): KeyringLike & { calls: number } {
  const fail = () => {
    k.calls++;
    throw new Error("Couldn't access platform storage: AccessDenied");
  };
  const k = { calls: 0, get: fail, set: fail, delete: fail };
  return k;
}

function memoryKeyring(): KeyringLike & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get: (s, a) => map.get(`${s}/${a}`) ?? null,
    set: (s, a, v) => void map.set(`${s}/${a}`, v),
    delete: (s, a) => void map.delete(`${s}/${a}`),
  };
}

const TOKEN = 'tok_abcdef0123456789';

describe('CredentialStore without a keyring that answers', () => {
  it('falls back to credentials.json (0600 in 0700) and warns exactly once per config dir', () => {
    const { paths, store } = setup();
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    const a = new CredentialStore(paths, store, { keyring: brokenKeyring(), warn });
    expect(a.set('default', { token: TOKEN, username: 'ops' })).toBe('file');
    const b = new CredentialStore(paths, new ConfigStore(paths), { keyring: brokenKeyring(), warn });
    expect(b.set('prod', { token: 'other', session_id: 'sess-1' })).toBe('file');
    expect(b.set('default', { token: TOKEN + '2' })).toBe('file');

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBe(`warning: no OS keyring answered; credentials are stored in ${paths.credentialsFile} (mode 0600)`);
    expect(modeOf(paths.credentialsFile)).toBe(0o600);
    expect(modeOf(paths.configDir)).toBe(0o700);
    expect(store.load().file_store_warned).toBe(true);
    expect(store.getProfile('default')?.credential_store).toBe('file');
    expect(a.get('default')).toEqual({ token: TOKEN + '2' });
    expect(a.get('prod')).toEqual({ token: 'other', session_id: 'sess-1' });
    expect(a.where('prod')).toBe(paths.credentialsFile);
    // the token never lands in config.json
    expect(fs.readFileSync(paths.configFile, 'utf8')).not.toContain('tok_');
    expect(fs.readdirSync(paths.configDir).sort()).toEqual(['config.json', 'credentials.json']);
  });

  it('a later keyring failure after the warning stays silent, and a keyring that fails once is not retried', () => {
    const { paths, store } = setup();
    const warnings: string[] = [];
    const kr = brokenKeyring();
    const c = new CredentialStore(paths, store, { keyring: kr, warn: (m) => warnings.push(m) });
    c.set('a', { token: 't1' });
    c.set('b', { token: 't2' });
    expect(kr.calls).toBe(1);
    expect(warnings).toHaveLength(1);
  });

  it('keyring: null never touches a keyring and still says once where credentials are', () => {
    const { paths, store } = setup();
    const warnings: string[] = [];
    const c = new CredentialStore(paths, store, { keyring: null, warn: (m) => warnings.push(m) });
    expect(c.set('default', { token: TOKEN })).toBe('file');
    expect(c.set('default', { token: TOKEN })).toBe('file');
    expect(warnings).toEqual([`warning: the OS keyring is not used; credentials are stored in ${paths.credentialsFile} (mode 0600)`]);
  });

  it('repairs a 0644 credentials file on read', () => {
    const { paths, store } = setup();
    const c = new CredentialStore(paths, store, { keyring: null, warn: () => {} });
    c.set('default', { token: TOKEN });
    fs.chmodSync(paths.credentialsFile, 0o644);
    fs.chmodSync(paths.configDir, 0o755);
    expect(c.get('default')?.token).toBe(TOKEN);
    expect(modeOf(paths.credentialsFile)).toBe(0o600);
    expect(modeOf(paths.configDir)).toBe(0o700);
  });

  it('delete removes the file entry (and the file when empty) and keeps the profile', () => {
    const { paths, store } = setup();
    const c = new CredentialStore(paths, store, { keyring: null, warn: () => {} });
    c.set('default', { token: TOKEN });
    store.upsertProfile('default', { base_url: 'https://x.example' });
    c.delete('default');
    expect(c.get('default')).toBeUndefined();
    expect(fs.existsSync(paths.credentialsFile)).toBe(false);
    expect(store.getProfile('default')).toEqual({ base_url: 'https://x.example' });
    c.delete('never-existed'); // no throw, no profile created
    expect(store.getProfile('never-existed')).toBeUndefined();
  });

  it('a corrupt credentials file is a UsageError naming it, without its content', () => {
    const { paths, store } = setup();
    fs.mkdirSync(paths.configDir, { recursive: true });
    fs.writeFileSync(paths.credentialsFile, '{"profiles":{"default":{"token":"tok_secret"');
    const c = new CredentialStore(paths, store, { keyring: null });
    let err: unknown;
    try {
      c.get('default');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain(paths.credentialsFile);
    expect((err as Error).message).not.toContain('tok_secret');
  });
});

describe('CredentialStore with a working keyring', () => {
  it('stores the credential in the keyring, not in any file', () => {
    const { paths, store } = setup();
    const kr = memoryKeyring();
    const warnings: string[] = [];
    const c = new CredentialStore(paths, store, { keyring: kr, warn: (m) => warnings.push(m) });
    expect(c.set('prod', { token: TOKEN, session_id: 's-1', user_id: 7 })).toBe('keyring');
    expect(warnings).toEqual([]);
    expect([...kr.map.keys()]).toEqual(['subctl/prod']);
    expect(fs.existsSync(paths.credentialsFile)).toBe(false);
    expect(fs.readFileSync(paths.configFile, 'utf8')).not.toContain(TOKEN);
    expect(store.getProfile('prod')?.credential_store).toBe('keyring');
    expect(c.where('prod')).toBe('OS keyring');
    // a fresh process (new stores) reads it back from the keyring
    const again = new CredentialStore(paths, new ConfigStore(paths), { keyring: kr });
    expect(again.get('prod')).toEqual({ token: TOKEN, session_id: 's-1', user_id: 7 });
    again.delete('prod');
    expect(kr.map.size).toBe(0);
    expect(again.get('prod')).toBeUndefined();
    expect(store.getProfile('prod')?.credential_store).toBeUndefined();
  });

  it('moving from the file to the keyring leaves no copy in the file', () => {
    const { paths, store } = setup();
    new CredentialStore(paths, store, { keyring: brokenKeyring(), warn: () => {} }).set('default', { token: 'old-token' });
    expect(fs.readFileSync(paths.credentialsFile, 'utf8')).toContain('old-token');
    const kr = memoryKeyring();
    expect(new CredentialStore(paths, store, { keyring: kr }).set('default', { token: TOKEN })).toBe('keyring');
    expect(fs.existsSync(paths.credentialsFile)).toBe(false);
  });

  it('a keyring that stops answering: get warns once and falls back to the file', () => {
    const { paths, store } = setup();
    const kr = memoryKeyring();
    new CredentialStore(paths, store, { keyring: kr }).set('default', { token: TOKEN });
    const warnings: string[] = [];
    const c = new CredentialStore(paths, store, { keyring: brokenKeyring(), warn: (m) => warnings.push(m) });
    expect(c.get('default')).toBeUndefined();
    expect(c.get('default')).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/profile "default" are in the OS keyring, which did not answer/);
  });
});

describe('resolveToken / resolveSessionId', () => {
  function tokenFile(content: string, mode = 0o600): string {
    const { root } = setup();
    const f = path.join(root, 'token');
    fs.writeFileSync(f, content, { mode });
    fs.chmodSync(f, mode);
    return f;
  }

  it('SUBCTL_TOKEN > --token-file > stored > none', () => {
    const f = tokenFile('from-file\n');
    const stored = { token: 'from-profile' };
    expect(resolveToken({ SUBCTL_TOKEN: 'from-env' }, f, stored)).toEqual({ token: 'from-env', source: 'env' });
    expect(resolveToken({}, f, stored)).toEqual({ token: 'from-file', source: 'token-file' });
    expect(resolveToken({ SUBCTL_TOKEN: '' }, undefined, stored)).toEqual({ token: 'from-profile', source: 'profile' });
    expect(resolveToken({}, undefined, undefined)).toEqual({ source: 'none' });
    expect(resolveToken({}, undefined, { session_id: 's' })).toEqual({ source: 'none' });
  });

  it('reads the token file trimmed; warns when group/world readable', () => {
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    const tight = tokenFile('  tok_123 \r\n');
    expect(resolveToken({}, tight, undefined, { warn }).token).toBe('tok_123');
    expect(warnings).toEqual([]);
    const loose = tokenFile('tok_456\n', 0o644);
    expect(resolveToken({}, loose, undefined, { warn }).token).toBe('tok_456');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(loose);
    expect(warnings[0]).toContain('0644');
    expect(warnings[0]).not.toContain('tok_456');
  });

  it('a missing, empty or multi-token file is a UsageError naming the file', () => {
    const { root } = setup();
    const missing = path.join(root, 'nope');
    expect(() => resolveToken({}, missing, undefined)).toThrow(UsageError);
    expect(() => resolveToken({}, missing, undefined)).toThrow(missing);
    const empty = tokenFile(' \n');
    expect(() => resolveToken({}, empty, undefined)).toThrow(/empty/);
    const two = tokenFile('a\nb\n');
    expect(() => resolveToken({}, two, undefined)).toThrow(/single token/);
    expect(() => resolveToken({}, root, undefined)).toThrow(UsageError);
  });

  it('session id: SUBCTL_SESSION_ID > stored', () => {
    expect(resolveSessionId({ SUBCTL_SESSION_ID: 'env-s' }, { session_id: 'stored-s' })).toBe('env-s');
    expect(resolveSessionId({}, { session_id: 'stored-s' })).toBe('stored-s');
    expect(resolveSessionId({ SUBCTL_SESSION_ID: '' }, undefined)).toBeUndefined();
  });
});
