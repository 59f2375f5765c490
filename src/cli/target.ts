/**
 * Where a run's requests go: the planned target (`sandbox`, an address, or nowhere yet), the
 * refusals that come before anything is made (a misspelt profile, no platform configured off a
 * terminal, a profile with no address), and the target record for an address.
 */
import { UsageError } from '../api/errors.js';
import type { ConfigStore, Profile } from '../config/store.js';
import type { IO } from '../io.js';
import type { GlobalOptions } from './globals.js';

export interface Target {
  profile: string;
  baseUrl: string;
  /** Embedded sandbox in this process. */
  sandbox: boolean;
  /** The embedded sandbox signed in as its seeded admin because no credential was given: that token. */
  sandboxAdminToken?: string;
  /** Where the token came from (a 401's hint names it: `auth login` cannot mend SUBCTL_TOKEN). */
  tokenSource?: 'env' | 'token-file' | 'profile' | 'none';
  /** Where the profile's sign-in was issued, when it is not sent to this other address. */
  withheldFrom?: string;
}

/** True while no profile points at a real platform (a base address other than `sandbox`). */
export function noRealPlatform(config: ConfigStore): boolean {
  return Object.values(config.load().profiles).every((p) => !p.base_url || p.base_url === 'sandbox');
}

/** Whether two targets (base addresses, or `sandbox`, the embedded one) are the same platform: scheme, host and port. */
export function sameTarget(a: string, b: string): boolean {
  if (a === 'sandbox' || b === 'sandbox') return a === b;
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * A sandbox profile someone signed in to (it has a username) with no token now: signed out, not
 * a reason to run as the embedded sandbox's admin.
 */
export function signedOutOfSandbox(p: Profile | undefined): boolean {
  return p?.base_url === 'sandbox' && typeof p.username === 'string' && p.username !== '';
}

/** A profile name that matches none of `known`: a typo, said with the ones there are. */
export function noSuchProfile(name: string, known: string[]): UsageError {
  return new UsageError(`no profile named "${name}"${known.length ? ` (profiles: ${known.join(', ')})` : ''}`, {
    hint: `subctl config list shows them; create one with \`subctl config set base-url https://... --profile ${name}\``,
  });
}

/**
 * Whether a person may be at the keyboard: stdin or stderr is a terminal (stdout alone may be
 * piped into another program). Cron, CI and `env -i` runs have neither.
 */
export function onTerminal(io: IO): boolean {
  return io.stdinIsTTY || io.stderrIsTTY;
}

/** Off a terminal with no platform configured: the two ways out. Exit 2, before anything is made. */
export function noPlatform(configDir: string): UsageError {
  return new UsageError(
    `no platform configured: no profile in ${configDir} points at one, and neither --base-url nor SUBCTL_BASE_URL is set`,
    {
      code: 'no_platform',
      hint: 'configure one (`subctl config set base-url https://... --profile NAME`, then --profile NAME or SUBCTL_PROFILE=NAME), or pass --sandbox to run on the local sandbox',
    },
  );
}

/** Where requests will go: `sandbox` (embedded), a base address, or undefined (nowhere yet). */
export function plannedTarget(globals: GlobalOptions, profile: Profile | undefined, config: ConfigStore): string | undefined {
  if (globals.sandbox) return 'sandbox';
  if (globals.baseUrl) return globals.baseUrl;
  if (profile?.base_url) return profile.base_url;
  // No profile points at a real platform yet: a newcomer's first command uses the sandbox.
  return noRealPlatform(config) ? 'sandbox' : undefined;
}

/**
 * A --profile or SUBCTL_PROFILE that names no profile is a typo, or a cron job run with the
 * wrong HOME: not a reason to run on the sandbox as its admin. Signing in or registering
 * (`auth login --profile new`, `anonymous`) makes the profile where it says where (--sandbox,
 * --base-url) or on a new machine, so it may name a new one.
 */
export function checkProfileNamed(
  globals: GlobalOptions,
  name: string,
  profile: Profile | undefined,
  config: ConfigStore,
  anonymous: boolean,
): void {
  if (globals.profile === undefined || profile) return;
  const known = Object.keys(config.load().profiles);
  const makes = anonymous && (globals.sandbox || globals.baseUrl !== undefined || known.length === 0);
  if (!makes) throw noSuchProfile(name, known);
}

/** The target for a base address (not the sandbox): refused when there is no address. */
export function addressTarget(
  name: string,
  baseUrl: string | undefined,
  profile: Profile | undefined,
  config: ConfigStore,
  tokenSource: Target['tokenSource'],
  withheldFrom: string | undefined,
): Target & { baseUrl: string } {
  if (!baseUrl && !profile) {
    // A misspelt --profile or SUBCTL_PROFILE is that, not a profile to give an address.
    throw noSuchProfile(name, Object.keys(config.load().profiles));
  }
  if (!baseUrl) {
    throw new UsageError(`profile '${name}' has no base address`, {
      hint: `set one with \`subctl config set base-url https://... --profile ${name}\`, pass --base-url, or use --sandbox`,
    });
  }
  return {
    profile: name,
    baseUrl,
    sandbox: false,
    tokenSource,
    ...(withheldFrom !== undefined ? { withheldFrom } : {}),
  };
}
