/**
 * The real `@napi-rs/keyring` binding: loaded lazily, and on a headless Linux machine (no D-Bus
 * session, as in CI and cron) it fails and the credentials go to the 0600 file with one warning.
 * The binding is never exercised where a real keyring could answer (a desktop session).
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CredentialStore, loadNativeKeyring } from '../../src/config/credentials.js';
import { resolvePaths } from '../../src/config/paths.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir } from '../support/tmp.js';

const root = tempDir('subctl-native-test-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const bindingLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes(`${path.sep}@napi-rs${path.sep}keyring`));
const headlessLinux = process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS;

describe('lazy keyring binding', () => {
  it('reading a file-stored credential does not load the binding', () => {
    const paths = resolvePaths({ SUBCTL_CONFIG_DIR: path.join(root, 'a') });
    const store = new ConfigStore(paths);
    new CredentialStore(paths, store, { keyring: null, warn: () => {} }).set('default', { token: 't' });
    const c = new CredentialStore(paths, store); // keyring: undefined -> lazy
    expect(c.get('default')).toEqual({ token: 't' });
    expect(c.get('unknown')).toBeUndefined();
    expect(c.where('default')).toBe(paths.credentialsFile);
    expect(bindingLoaded()).toBe(false);
  });

  it.runIf(headlessLinux)('without D-Bus the binding throws and set falls back to the file, warning once', () => {
    expect(() => loadNativeKeyring().get('subctl', 'subctl-test-probe')).toThrow();
    const paths = resolvePaths({ SUBCTL_CONFIG_DIR: path.join(root, 'b') });
    const warnings: string[] = [];
    const c = new CredentialStore(paths, new ConfigStore(paths), { warn: (m) => warnings.push(m) });
    expect(c.set('default', { token: 'tok_native' })).toBe('file');
    expect(new CredentialStore(paths, new ConfigStore(paths), { warn: (m) => warnings.push(m) }).set('other', { token: 'x' })).toBe('file');
    expect(bindingLoaded()).toBe(true);
    expect(warnings).toEqual([`warning: no OS keyring answered; credentials are stored in ${paths.credentialsFile} (mode 0600)`]);
    expect(c.get('default')).toEqual({ token: 'tok_native' });
    expect(fs.statSync(paths.credentialsFile).mode & 0o777).toBe(0o600);
  });
});
