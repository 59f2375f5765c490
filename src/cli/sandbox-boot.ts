/**
 * The embedded sandbox as a run's target: started in this process (loaded only then), signed in
 * as its seeded admin when no credential was given, and said on stderr.
 */
import type { Paths } from '../config/paths.js';
import type { Profile } from '../config/store.js';
import type { IO } from '../io.js';
import type { GlobalOptions } from './globals.js';
import { signedOutOfSandbox, type Target } from './target.js';

export interface BootedSandbox {
  target: Target;
  /** The token requests carry: the given one, or the seeded admin's. */
  token?: string;
  /** The seeded admin's token, lent to every command but signing in and registering. */
  sandboxAdmin?: string;
  close: () => Promise<void>;
}

export async function bootSandbox(opts: {
  io: IO;
  globals: GlobalOptions;
  paths: Paths;
  name: string;
  profile: Profile | undefined;
  /** Signing in or registering: the sandbox lends none of its admin's tokens. */
  anonymous: boolean;
  /** The token resolved from SUBCTL_TOKEN, --token-file or the profile's sign-in. */
  token: string | undefined;
  tokenSource: Target['tokenSource'];
  withheldFrom: string | undefined;
}): Promise<BootedSandbox> {
  const { io, globals, profile, withheldFrom } = opts;
  let token = opts.token;
  const { startEmbeddedSandbox } = await import('../sandbox/embedded.js');
  const sb = await startEmbeddedSandbox({ dataDir: opts.paths.dataDir, quiet: globals.quiet === true, env: io.env });
  // The seeded admin's token, unless this is a sandbox profile someone signed in to (it has
  // a username): signed out (or its token revoked), it is not signed in, and its commands
  // are refused (exit 3) rather than run as the admin.
  const signedOut = signedOutOfSandbox(profile);
  const sandboxAdmin = opts.anonymous ? undefined : sb.adminToken;
  if (!token && !signedOut && sandboxAdmin) token = sandboxAdmin;
  // Asked for (--sandbox, a profile on `sandbox`): quiet with -q. Fallen back to because no
  // profile points at a platform: said even with -q, since a cron job with the wrong HOME
  // or config directory would otherwise "succeed" against a throwaway local database.
  const implicit = !globals.sandbox && profile?.base_url !== 'sandbox';
  if (!globals.quiet || implicit) {
    io.stderr.write(
      `[sandbox] ${implicit ? `no profile points at a platform (config ${opts.paths.configDir}): this ran on the ` : ''}local platform at ${sb.url} (data ${sb.dataFile})${token === sb.adminToken ? '; signed in as admin' : ''}\n`,
    );
  }
  const target: Target = {
    profile: opts.name,
    baseUrl: sb.url,
    sandbox: true,
    sandboxAdminToken: token === sb.adminToken ? token : undefined,
    tokenSource: opts.tokenSource,
    ...(withheldFrom !== undefined ? { withheldFrom } : {}),
  };
  return { target, token, sandboxAdmin, close: sb.close };
}
