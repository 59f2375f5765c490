/**
 * Credentials (bearer token, CMS session id): in the OS keyring where one answers, otherwise
 * `credentials.json` (0600, in the 0700 config directory) with a one-time warning per config dir.
 *
 * The keyring binding (`@napi-rs/keyring`, native) is loaded lazily: only when a credential is
 * stored, or read/deleted for a profile whose `credential_store` is 'keyring'.
 * On Linux it is pinned to the Secret Service (GNOME Keyring, KWallet ...): the binding's
 * default falls back to the kernel keyutils store, which does not survive a reboot, is not
 * shared with cron's sessions, and on containers answers AccessDenied after writing.
 */
import * as fs from 'node:fs';
import { UsageError } from '../api/errors.js';
import { builtin } from '../builtin.js';
import { FILE_MODE, DIR_MODE, readTextFile, repairMode, writeFileAtomic, type Paths } from './paths.js';
import { parseJsonStore, validateProfileName, withConfigLock, type ConfigStore } from './store.js';

export interface Credential {
  token?: string;
  session_id?: string;
  expires_at?: string;
  user_id?: number;
  username?: string;
  role?: string;
  /** Where it was issued: the base address signed in to, or `sandbox` (absent: not known). */
  base_url?: string;
}

export interface KeyringLike {
  get(service: string, account: string): string | null;
  set(service: string, account: string, secret: string): void;
  delete(service: string, account: string): void;
}

const KEYRING_SERVICE = 'subctl';

function defaultWarn(msg: string): void {
  process.stderr.write(msg.endsWith('\n') ? msg : msg + '\n');
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0] : String(e);
}

/** The real OS keyring through `@napi-rs/keyring` (sync API). Throws when the binding cannot load. */
export function loadNativeKeyring(): KeyringLike {
  // node:module when the keyring is wanted: loading it also loads Node's ES module loader.
  const req = builtin('node:module').createRequire(import.meta.url);
  const mod = req('@napi-rs/keyring') as {
    Entry: new (
      service: string,
      account: string,
      options?: unknown,
    ) => {
      getPassword(): string | null;
      setPassword(p: string): void;
      deletePassword(): boolean;
    };
  };
  const options = process.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined;
  const entry = (s: string, a: string) => new mod.Entry(s, a, options);
  return {
    get: (s, a) => entry(s, a).getPassword(),
    set: (s, a, secret) => entry(s, a).setPassword(secret),
    delete: (s, a) => {
      entry(s, a).deletePassword();
    },
  };
}

function parseCredential(text: string): Credential | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Credential) : undefined;
  } catch {
    return undefined;
  }
}

export class CredentialStore {
  private readonly paths: Paths;
  private readonly store: ConfigStore;
  private readonly warnFn: (msg: string) => void;
  /** null: never use a keyring; undefined: not loaded yet. */
  private keyring: KeyringLike | null | undefined;
  /** The caller said never to use a keyring. */
  private readonly keyringDisabled: boolean;
  private keyringFailed = false;
  private readWarned = false;

  constructor(paths: Paths, store: ConfigStore, opts: { keyring?: KeyringLike | null; warn?: (msg: string) => void } = {}) {
    this.paths = paths;
    this.store = store;
    this.keyring = opts.keyring;
    this.keyringDisabled = opts.keyring === null;
    this.warnFn = opts.warn ?? defaultWarn;
  }

  /** The keyring, loading the binding on first need; null when none (disabled or the binding failed to load). */
  private getKeyring(): KeyringLike | null {
    if (this.keyring === undefined) {
      try {
        this.keyring = loadNativeKeyring();
      } catch {
        this.keyring = null;
      }
    }
    return this.keyring;
  }

  // --- credentials.json -------------------------------------------------------------------

  private readFile(): Record<string, Credential> {
    repairMode(this.paths.configDir, DIR_MODE);
    const file = this.paths.credentialsFile;
    const text = readTextFile(file);
    if (text === undefined) return Object.create(null) as Record<string, Credential>;
    repairMode(file, FILE_MODE);
    const data = parseJsonStore(file, text, 'credentials file', `remove it and log in again: rm ${file}`);
    return data.profiles as Record<string, Credential>;
  }

  private writeFile(profiles: Record<string, Credential>): void {
    const file = this.paths.credentialsFile;
    if (Object.keys(profiles).length === 0) {
      // Nothing left: remove the file rather than keep an empty one around.
      if (fs.existsSync(file)) {
        try {
          fs.rmSync(file, { force: true });
          return;
        } catch {
          /* fall through and write an empty store */
        }
      } else {
        return;
      }
    }
    writeFileAtomic(file, JSON.stringify({ profiles: { ...profiles } }, null, 2) + '\n', FILE_MODE);
  }

  private fileGet(profile: string): Credential | undefined {
    const all = this.readFile();
    return Object.prototype.hasOwnProperty.call(all, profile) ? all[profile] : undefined;
  }

  // Changes of credentials.json hold the config lock (store.ts): parallel logins of several
  // profiles each keep their token.
  private fileSet(profile: string, cred: Credential): void {
    withConfigLock(this.paths, () => {
      const all = this.readFile();
      all[profile] = cred;
      this.writeFile(all);
    });
  }

  private fileDelete(profile: string): void {
    withConfigLock(this.paths, () => {
      const all = this.readFile();
      if (!Object.prototype.hasOwnProperty.call(all, profile)) return;
      delete all[profile];
      this.writeFile(all);
    });
  }

  // --- public ------------------------------------------------------------------------------

  /** From the keyring when the profile's credential_store is 'keyring', else credentials.json. */
  get(profile: string): Credential | undefined {
    const p = this.store.getProfile(profile);
    if (p?.credential_store === 'keyring') {
      const kr = this.keyringFailed ? null : this.getKeyring();
      if (kr) {
        try {
          const secret = kr.get(KEYRING_SERVICE, profile);
          if (secret === null) return undefined;
          const cred = parseCredential(secret);
          if (cred) return cred;
          this.warnRead(profile, 'the stored entry is not readable');
          return undefined;
        } catch (e) {
          this.keyringFailed = true;
          this.warnRead(profile, reason(e));
        }
      } else {
        this.warnRead(profile, 'no OS keyring is available');
      }
      return this.fileGet(profile);
    }
    return this.fileGet(profile);
  }

  private warnRead(profile: string, why: string): void {
    if (this.readWarned) return;
    this.readWarned = true;
    this.warnFn(
      `warning: the credentials of profile "${profile}" are in the OS keyring, which did not answer (${why}); log in again to store them in ${this.paths.credentialsFile} (mode 0600)`,
    );
  }

  /**
   * Tries the keyring first (service 'subctl', account = profile), falls back to the file with a
   * warning once per config dir; records credential_store on the profile.
   */
  set(profile: string, cred: Credential): 'keyring' | 'file' {
    validateProfileName(profile);
    const clean: Credential = JSON.parse(JSON.stringify(cred)) as Credential;
    const kr = this.keyringFailed ? null : this.getKeyring();
    if (kr) {
      try {
        kr.set(KEYRING_SERVICE, profile, JSON.stringify(clean));
        this.fileDelete(profile); // no stale copy of a secret left in the file
        this.store.upsertProfile(profile, { credential_store: 'keyring' });
        return 'keyring';
      } catch {
        this.keyringFailed = true;
      }
    }
    this.fileSet(profile, clean);
    const warn = this.store.change((data) => {
      const prof = Object.prototype.hasOwnProperty.call(data.profiles, profile) ? data.profiles[profile] : {};
      data.profiles[profile] = { ...prof, credential_store: 'file' };
      const first = data.file_store_warned !== true;
      if (first) data.file_store_warned = true;
      return first;
    });
    if (warn) {
      this.warnFn(
        this.keyringDisabled
          ? `warning: the OS keyring is not used; credentials are stored in ${this.paths.credentialsFile} (mode 0600)`
          : `warning: no OS keyring answered; credentials are stored in ${this.paths.credentialsFile} (mode 0600)`,
      );
    }
    return 'file';
  }

  /** Forgets the profile's credential wherever it is; keeps the profile itself. */
  delete(profile: string): void {
    const p = this.store.getProfile(profile);
    let keyringError: unknown;
    if (p?.credential_store === 'keyring') {
      const kr = this.getKeyring();
      if (kr) {
        try {
          kr.delete(KEYRING_SERVICE, profile);
        } catch (e) {
          keyringError = e;
        }
      }
    }
    this.fileDelete(profile);
    if (p?.credential_store !== undefined) this.store.upsertProfile(profile, { credential_store: undefined });
    if (keyringError !== undefined) {
      this.warnFn(
        `warning: could not remove the credentials of profile "${profile}" from the OS keyring (${reason(keyringError)}); remove the entry "${KEYRING_SERVICE}/${profile}" with your keyring tool`,
      );
    }
  }

  /** Human text for `auth status`: 'OS keyring' or the file path. */
  where(profile: string): string {
    return this.store.getProfile(profile)?.credential_store === 'keyring' ? 'OS keyring' : this.paths.credentialsFile;
  }
}

// ---------------------------------------------------------------------------------------------
// What a request sends

/**
 * Token precedence: SUBCTL_TOKEN > --token-file contents (trimmed) > stored credential token.
 * A token file readable by group or others is used, with a warning.
 */
export function resolveToken(
  env: NodeJS.ProcessEnv,
  tokenFile: string | undefined,
  stored: Credential | undefined,
  opts: { warn?: (msg: string) => void } = {},
): { token?: string; source: 'env' | 'token-file' | 'profile' | 'none' } {
  const fromEnv = env.SUBCTL_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: 'env' };
  if (tokenFile !== undefined && tokenFile !== '')
    return { token: readTokenFile(tokenFile, opts.warn ?? defaultWarn), source: 'token-file' };
  if (stored?.token) return { token: stored.token, source: 'profile' };
  return { source: 'none' };
}

function readTokenFile(file: string, warn: (msg: string) => void): string {
  let text: string;
  let mode: number;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const st = fs.fstatSync(fd);
      if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      mode = st.mode;
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? reason(e);
    throw new UsageError(`cannot read --token-file ${file}: ${code}`, { hint: 'pass a readable file holding the token alone' });
  }
  const token = text.trim();
  if (token === '') throw new UsageError(`--token-file ${file} is empty`, { hint: 'the file must hold the token alone' });
  if (/\s/.test(token)) throw new UsageError(`--token-file ${file} must hold a single token (it contains spaces or several lines)`);
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    warn(
      `warning: token file ${file} is readable by other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); run: chmod 600 ${file}`,
    );
  }
  return token;
}

/** Session id: SUBCTL_SESSION_ID > stored session_id. */
export function resolveSessionId(env: NodeJS.ProcessEnv, stored: Credential | undefined): string | undefined {
  const fromEnv = env.SUBCTL_SESSION_ID?.trim();
  if (fromEnv) return fromEnv;
  return stored?.session_id || undefined;
}
