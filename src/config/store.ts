/**
 * Profiles: `config.json` in the config directory, 0600 in a 0700 directory.
 * No secrets live here (they go to the keyring or credentials.json, see credentials.ts).
 *
 * Every call reads the file afresh and every change is written atomically, so the store is
 * always what is on disk. A change (read, modify, write) holds the config directory's lock
 * (`withConfigLock`), so two processes changing it at once both land (parallel `auth login`s of
 * several profiles keep every profile and its base address).
 */
import { UsageError } from '../api/errors.js';
import { builtin } from '../builtin.js';
import { acquireLockWaiting } from './lock.js';
import { jsonErrorPlace } from './safe-files.js';
import { ensurePrivateDir, FILE_MODE, DIR_MODE, readTextFile, repairMode, writeFileAtomic, type Paths } from './paths.js';

/** Lock files held by this process, by path, with how deeply (a change that calls another). */
const held = new Map<string, number>();

/**
 * Runs `fn` (a read-modify-write of config.json or credentials.json) holding the config
 * directory's lock (`<config dir>/.lock`), waiting up to 5 s for another process's change to
 * end. Re-entrant within the process.
 */
export function withConfigLock<T>(paths: Paths, fn: () => T): T {
  const file = `${paths.configDir}/.lock`;
  const depth = held.get(file) ?? 0;
  if (depth > 0) {
    held.set(file, depth + 1);
    try {
      return fn();
    } finally {
      held.set(file, depth);
    }
  }
  ensurePrivateDir(paths.configDir);
  const lock = acquireLockWaiting(file, { command: 'config change' });
  held.set(file, 1);
  try {
    return fn();
  } finally {
    held.delete(file);
    lock.release();
  }
}

export interface Profile {
  base_url?: string;
  output?: string;
  timeout?: number;
  retries?: number;
  device_id?: string;
  username?: string;
  role?: string;
  credential_store?: 'keyring' | 'file';
}

export interface ConfigData {
  current_profile?: string;
  profiles: Record<string, Profile>;
  file_store_warned?: boolean;
}

const DEFAULT_PROFILE = 'default';

/** Profile names: also keyring account names and JSON keys. */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name "${name}": use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  }
  return name;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses a JSON file of the shape `{ profiles: { <name>: object } , ... }`; UsageError naming the file otherwise. */
export function parseJsonStore(
  file: string,
  text: string,
  what: string,
  hint: string,
): Record<string, unknown> & { profiles: Record<string, Record<string, unknown>> } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    // Where, never what: V8's message quotes the text, and a credentials file holds tokens.
    const at = jsonErrorPlace(text, e);
    throw new UsageError(`${what} ${file} is not valid JSON${at ? ` (${at})` : ''}`, { hint });
  }
  if (!isPlainObject(raw)) throw new UsageError(`${what} ${file} is not a JSON object`, { hint });
  const profiles = raw.profiles ?? {};
  if (!isPlainObject(profiles) || !Object.values(profiles).every(isPlainObject)) {
    throw new UsageError(`${what} ${file}: "profiles" must be an object of objects`, { hint });
  }
  // Rebuild without a prototype so a key such as "__proto__" stays a plain entry.
  const clean: Record<string, Record<string, unknown>> = Object.create(null);
  for (const [k, v] of Object.entries(profiles)) clean[k] = { ...(v as Record<string, unknown>) };
  return { ...raw, profiles: clean };
}

export class ConfigStore {
  readonly paths: Paths;

  constructor(paths: Paths) {
    this.paths = paths;
  }

  /** Missing file: `{ profiles: {} }`. Corrupt file: UsageError naming it. Repairs loose modes. */
  load(): ConfigData {
    const file = this.paths.configFile;
    repairMode(this.paths.configDir, DIR_MODE);
    const text = readTextFile(file);
    if (text === undefined) return { profiles: {} };
    repairMode(file, FILE_MODE);
    const data = parseJsonStore(file, text, 'config file', `fix it, or remove it to start again (profiles are lost; log in again)`);
    return data as unknown as ConfigData;
  }

  /**
   * Writes the config. The only profile of a config with no active one (none chosen, no
   * `default`) becomes the active one: `auth login --base-url URL --profile prod` on a new
   * machine, then `subctl services list`, uses prod (it looked for a `default` profile that did
   * not exist, and failed).
   */
  save(data: ConfigData): void {
    ensurePrivateDir(this.paths.configDir);
    const names = Object.keys(data.profiles);
    if (!data.current_profile && names.length === 1 && names[0] !== DEFAULT_PROFILE) data.current_profile = names[0];
    const out: Record<string, unknown> = {};
    if (data.current_profile !== undefined) out.current_profile = data.current_profile;
    out.profiles = { ...data.profiles };
    for (const [k, v] of Object.entries(data)) if (!(k in out) && v !== undefined) out[k] = v;
    writeFileAtomic(this.paths.configFile, JSON.stringify(out, null, 2) + '\n', FILE_MODE);
  }

  /** The profile name in force: explicit (--profile) > env SUBCTL_PROFILE > current_profile > 'default'. */
  activeProfileName(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
    if (explicit !== undefined && explicit !== '') return explicit;
    if (env.SUBCTL_PROFILE !== undefined && env.SUBCTL_PROFILE !== '') return env.SUBCTL_PROFILE;
    const current = this.load().current_profile;
    if (current !== undefined && current !== '') return current;
    return DEFAULT_PROFILE;
  }

  getProfile(name: string): Profile | undefined {
    const { profiles } = this.load();
    return Object.prototype.hasOwnProperty.call(profiles, name) ? profiles[name] : undefined;
  }

  /** Creates or updates; a key set to `undefined` in `patch` is removed (`config unset`). */
  upsertProfile(name: string, patch: Partial<Profile>): Profile {
    validateProfileName(name);
    return this.change((data) => {
      const next: Record<string, unknown> = { ...(Object.prototype.hasOwnProperty.call(data.profiles, name) ? data.profiles[name] : {}) };
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) delete next[k];
        else next[k] = v;
      }
      data.profiles[name] = next as Profile;
      return next as Profile;
    });
  }

  /** Reads, lets `fn` change the data, writes it: all under the config lock. */
  change<T>(fn: (data: ConfigData) => T): T {
    return withConfigLock(this.paths, () => {
      const data = this.load();
      const out = fn(data);
      this.save(data);
      return out;
    });
  }

  /** Removes the profile (and `current_profile` when it named it). Credentials are CredentialStore.delete's job. */
  removeProfile(name: string): boolean {
    return withConfigLock(this.paths, () => {
      const data = this.load();
      if (!Object.prototype.hasOwnProperty.call(data.profiles, name)) return false;
      delete data.profiles[name];
      if (data.current_profile === name) delete data.current_profile;
      this.save(data);
      return true;
    });
  }

  useProfile(name: string): void {
    this.change((data) => this.#use(data, name));
  }

  #use(data: ConfigData, name: string): void {
    if (!Object.prototype.hasOwnProperty.call(data.profiles, name)) {
      const known = Object.keys(data.profiles);
      throw new UsageError(`no profile named "${name}"${known.length ? ` (profiles: ${known.join(', ')})` : ''}`, {
        hint: `create it with: subctl config set base-url URL --profile ${name}`,
      });
    }
    data.current_profile = name;
  }

  /** true when no profile has a base_url (the embedded sandbox is then the default). */
  isUnconfigured(): boolean {
    return !Object.values(this.load().profiles).some((p) => typeof p.base_url === 'string' && p.base_url !== '');
  }

  /** A stable device id per profile (uuid v4), created and saved on first use. */
  deviceId(name: string): string {
    const existing = this.getProfile(name)?.device_id;
    if (typeof existing === 'string' && existing !== '') return existing;
    return this.change((data) => {
      // Another process may have made one meanwhile: that one stays.
      const now = Object.prototype.hasOwnProperty.call(data.profiles, name) ? data.profiles[name] : undefined;
      if (typeof now?.device_id === 'string' && now.device_id !== '') return now.device_id;
      validateProfileName(name);
      // node:crypto is loaded here, when an id is made, not by every command (it is slow to load).
      const id = builtin('node:crypto').randomUUID();
      data.profiles[name] = { ...(now ?? {}), device_id: id };
      return id;
    });
  }
}

// ---------------------------------------------------------------------------------------------
// `subctl config set|get|unset KEY`

const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;

/** User-facing setting names (kebab-case) and the profile field each maps to. */
export const SETTINGS: ReadonlyArray<{ key: string; field: keyof Profile; allowed: string }> = [
  { key: 'base-url', field: 'base_url', allowed: 'an http:// or https:// URL' },
  { key: 'output', field: 'output', allowed: OUTPUT_FORMATS.join('|') },
  { key: 'timeout', field: 'timeout', allowed: 'an integer number of milliseconds > 0' },
  { key: 'retries', field: 'retries', allowed: 'an integer from 0 to 10' },
];

/** `base-url` / `base_url` / `output` ... -> the profile field; UsageError listing the keys otherwise. */
export function settingField(key: string): keyof Profile {
  const k = key.trim().toLowerCase().replace(/_/g, '-');
  const s = SETTINGS.find((x) => x.key === k);
  if (!s) {
    throw new UsageError(`unknown setting "${key}"; settable keys: ${SETTINGS.map((x) => x.key).join(', ')}`, {
      hint: 'subctl config set KEY VALUE, e.g. subctl config set output json',
    });
  }
  return s.field;
}

function bad(key: string, value: string, allowed: string): UsageError {
  return new UsageError(`invalid value for ${key}: "${value}" (allowed: ${allowed})`);
}

/** Validates and normalizes `subctl config set KEY VALUE`: returns [field, value]. */
export function parseSetting(key: string, value: string): [keyof Profile, string | number] {
  const field = settingField(key);
  const v = value.trim();
  switch (field) {
    case 'base_url': {
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        throw bad(key, value, 'an http:// or https:// URL');
      }
      if (u.username !== '' || u.password !== '') {
        throw new UsageError(
          `invalid value for ${key}: a URL must not carry a user name or password (secrets are never stored in the config)`,
          {
            hint: 'set the address alone, then run: subctl auth login',
          },
        );
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad(key, value, 'an http:// or https:// URL');
      if (u.search !== '' || u.hash !== '') throw bad(key, value, 'an http:// or https:// URL without ?query or #fragment');
      return [field, u.toString().replace(/\/+$/, '')];
    }
    case 'output': {
      const o = v.toLowerCase();
      if (!(OUTPUT_FORMATS as readonly string[]).includes(o)) throw bad(key, value, OUTPUT_FORMATS.join(', '));
      return [field, o];
    }
    case 'timeout': {
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n) || n <= 0 || n > 2_147_483_647) throw bad(key, value, 'an integer number of milliseconds > 0');
      return [field, n];
    }
    case 'retries': {
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isInteger(n) || n < 0 || n > 10) throw bad(key, value, 'an integer from 0 to 10');
      return [field, n];
    }
    default:
      throw new UsageError(`setting "${key}" cannot be set`);
  }
}
