/**
 * What every command's `run` receives: IO, the parsed globals, the abort signal, and lazy
 * access to configuration and the API client (created only when a command needs it, so that
 * local commands never pay for the HTTP stack).
 */
import type { Dispatcher } from 'undici';
import type { ApiClient } from '../api/client.js';
import { InterruptedError, RefusedError, UsageError } from '../api/errors.js';
import { builtin } from '../builtin.js';
import { CredentialStore, resolveSessionId, resolveToken, type Credential } from '../config/credentials.js';
import { resolvePaths, type Paths } from '../config/paths.js';
import { ConfigStore, type Profile } from '../config/store.js';
import type { IO } from '../io.js';
import { useColor } from '../io.js';
import type { GlobalOptions } from './globals.js';
import { terminalSafeText } from '../output/terminal-safe.js';

interface Target {
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

export interface Ctx {
  io: IO;
  globals: GlobalOptions;
  signal: AbortSignal;
  now: () => Date;
  paths(): Paths;
  config(): ConfigStore;
  credentials(): CredentialStore;
  profileName(): string;
  profile(): Profile | undefined;
  /** The API client for the active profile (starting the embedded sandbox when that is the target). */
  /** `anonymous`: no token is needed (signing in, registering): the embedded sandbox lends none of its admin's. */
  api(opts?: { anonymous?: boolean }): Promise<ApiClient>;
  /**
   * Reads the profile's sign-in again, by the rules api() used, and hands it to the client when it
   * changed (signed in again in another shell): true then. For a session that outlives a token
   * (the console).
   */
  renewSignIn(): boolean;
  /**
   * The profile's stored sign-in where it may be used: for the platform requests go to (the one
   * it was issued for), else undefined with `withheldFrom` naming where it was issued. Every
   * command that reads the stored credential goes through this (auth status, refresh and doctor
   * put the token in a request's body, and sent it to any address given).
   */
  usableSignIn(): { stored?: Credential; withheldFrom?: string };
  /** Where requests go, once api() has run. */
  target(): Target | undefined;
  /** Where requests will go: `sandbox` (embedded), a base address, or undefined (nowhere yet). */
  plannedTarget(): string | undefined;
  /** A note on stderr (suppressed by --quiet). */
  note(text: string): void;
  /** A warning on stderr (shown even with --quiet). */
  warn(text: string): void;
  /** Whether prompting is allowed: stdin and stdout are terminals and --no-input is not set. */
  interactive(): boolean;
  /** Asks a yes/no question on a terminal; refuses off one unless --yes. `what` names the target. */
  confirm(what: string): Promise<void>;
  /** Reads a secret: a masked prompt on a terminal, else refuses naming the stdin flag. */
  promptSecret(label: string, stdinFlag: string): Promise<string>;
  /** Reads a plain line from a terminal prompt. */
  promptLine(label: string): Promise<string>;
  color(stream: 'stdout' | 'stderr'): boolean;
  /** Closes what was opened (HTTP pool, embedded sandbox). */
  close(): Promise<void>;
}

export interface CtxDeps {
  io: IO;
  globals: GlobalOptions;
  signal: AbortSignal;
  dispatcher?: Dispatcher;
  now?: () => Date;
}

/** True while no profile points at a real platform (a base address other than `sandbox`). */
export function noRealPlatform(config: ConfigStore): boolean {
  return Object.values(config.load().profiles).every((p) => !p.base_url || p.base_url === 'sandbox');
}

/** Whether two targets (base addresses, or `sandbox`, the embedded one) are the same platform: scheme, host and port. */
function sameTarget(a: string, b: string): boolean {
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
function signedOutOfSandbox(p: Profile | undefined): boolean {
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
function onTerminal(io: IO): boolean {
  return io.stdinIsTTY || io.stderrIsTTY;
}

/** Off a terminal with no platform configured: the two ways out. Exit 2, before anything is made. */
function noPlatform(configDir: string): UsageError {
  return new UsageError(
    `no platform configured: no profile in ${configDir} points at one, and neither --base-url nor SUBCTL_BASE_URL is set`,
    {
      code: 'no_platform',
      hint: 'configure one (`subctl config set base-url https://... --profile NAME`, then --profile NAME or SUBCTL_PROFILE=NAME), or pass --sandbox to run on the local sandbox',
    },
  );
}

export function createContext(deps: CtxDeps): Ctx {
  const { io, globals, signal } = deps;
  let paths: Paths | undefined;
  let store: ConfigStore | undefined;
  let creds: CredentialStore | undefined;
  let client: ApiClient | undefined;
  let target: Target | undefined;
  let closeSandbox: (() => Promise<void>) | undefined;
  /** The sign-in the client holds, and how api() reads it (for renewSignIn). */
  let signIn: { token?: string; sessionId?: string } | undefined;
  let renew: (() => { token?: string; sessionId?: string; source: Target['tokenSource']; admin: boolean }) | undefined;

  const ctx: Ctx = {
    io,
    globals,
    signal,
    now: deps.now ?? (() => new Date()),
    paths() {
      if (!paths) paths = resolvePaths(io.env);
      return paths;
    },
    config() {
      if (!store) store = new ConfigStore(ctx.paths());
      return store;
    },
    credentials() {
      if (!creds) creds = new CredentialStore(ctx.paths(), ctx.config(), { warn: (m: string) => ctx.warn(m) });
      return creds;
    },
    profileName() {
      return ctx.config().activeProfileName(globals.profile, io.env);
    },
    profile() {
      return ctx.config().getProfile(ctx.profileName());
    },
    target: () => target,
    usableSignIn() {
      const c = ctx.credentials().get(ctx.profileName());
      if (!c) return {};
      const planned = ctx.plannedTarget();
      const issuedFor = c.base_url || ctx.profile()?.base_url || 'sandbox';
      return planned === undefined || sameTarget(planned, issuedFor) ? { stored: c } : { withheldFrom: issuedFor };
    },
    renewSignIn() {
      if (!client || !renew || !signIn) return false;
      const now = renew();
      if (now.token === signIn.token && now.sessionId === signIn.sessionId) return false;
      signIn = { token: now.token, sessionId: now.sessionId };
      client.useSignIn(now.token, now.sessionId);
      if (target) {
        target.tokenSource = now.source;
        target.sandboxAdminToken = now.admin ? now.token : undefined;
      }
      return true;
    },
    plannedTarget() {
      const profile = ctx.profile();
      if (globals.sandbox) return 'sandbox';
      if (globals.baseUrl) return globals.baseUrl;
      if (profile?.base_url) return profile.base_url;
      // No profile points at a real platform yet: a newcomer's first command uses the sandbox.
      return noRealPlatform(ctx.config()) ? 'sandbox' : undefined;
    },
    async api(opts: { anonymous?: boolean } = {}) {
      if (client) return client;
      const name = ctx.profileName();
      const profile = ctx.profile();
      // A --profile or SUBCTL_PROFILE that names no profile is a typo, or a cron job run with the
      // wrong HOME: not a reason to run on the sandbox as its admin (when every profile was a
      // sandbox one, or there was none at all, or --sandbox was given, it fell back there, exit
      // 0). Signing in or registering (`auth login --profile new`) makes the profile, so it may
      // name a new one.
      if (globals.profile !== undefined && !profile) {
        const known = Object.keys(ctx.config().load().profiles);
        // Signing in makes it, where it says where (--sandbox, --base-url) or on a new machine.
        const makes = opts.anonymous === true && (globals.sandbox || globals.baseUrl !== undefined || known.length === 0);
        if (!makes) throw noSuchProfile(name, known);
      }
      let baseUrl: string | undefined = ctx.plannedTarget();
      const wantSandbox = baseUrl === 'sandbox';
      // The sandbox fallen back to, off a terminal: a cron job with the wrong HOME or config
      // directory, which must not "succeed" against a throwaway local database.
      if (wantSandbox && !globals.sandbox && profile?.base_url !== 'sandbox' && !onTerminal(io)) throw noPlatform(ctx.paths().configDir);
      // A profile's sign-in belongs to the platform it was made on (recorded with it, else the
      // profile's address): another one, named by --base-url or SUBCTL_BASE_URL or set
      // on the profile since (`config set base-url`), gets neither its token nor its session.
      const { withheldFrom, stored } = ctx.usableSignIn();
      const resolved = resolveToken(io.env, globals.tokenFile, stored);
      let { token } = resolved;
      let sandboxAdmin: string | undefined;
      if (wantSandbox) {
        const { startEmbeddedSandbox } = await import('../sandbox/embedded.js');
        const sb = await startEmbeddedSandbox({ dataDir: ctx.paths().dataDir, quiet: globals.quiet === true, env: io.env });
        closeSandbox = sb.close;
        baseUrl = sb.url;
        // The seeded admin's token, unless this is a sandbox profile someone signed in to (it has
        // a username): signed out (or its token revoked), it is not signed in, and its commands
        // are refused (exit 3) rather than run as the admin.
        const signedOut = signedOutOfSandbox(profile);
        if (!opts.anonymous) sandboxAdmin = sb.adminToken;
        if (!token && !signedOut && sandboxAdmin) token = sandboxAdmin;
        // Asked for (--sandbox, a profile on `sandbox`): quiet with -q. Fallen back to because no
        // profile points at a platform: said even with -q, since a cron job with the wrong HOME
        // or config directory would otherwise "succeed" against a throwaway local database.
        const implicit = !globals.sandbox && profile?.base_url !== 'sandbox';
        if (!globals.quiet || implicit) {
          io.stderr.write(
            `[sandbox] ${implicit ? `no profile points at a platform (config ${ctx.paths().configDir}): this ran on the ` : ''}local platform at ${sb.url} (data ${sb.dataFile})${token === sb.adminToken ? '; signed in as admin' : ''}\n`,
          );
        }
        target = {
          profile: name,
          baseUrl: sb.url,
          sandbox: true,
          sandboxAdminToken: token === sb.adminToken ? token : undefined,
          tokenSource: resolved.source,
          ...(withheldFrom !== undefined ? { withheldFrom } : {}),
        };
      } else {
        if (!baseUrl && !profile) {
          // A misspelt --profile or SUBCTL_PROFILE is that, not a profile to give an address.
          throw noSuchProfile(name, Object.keys(ctx.config().load().profiles));
        }
        if (!baseUrl) {
          throw new UsageError(`profile '${name}' has no base address`, {
            hint: `set one with \`subctl config set base-url https://... --profile ${name}\`, pass --base-url, or use --sandbox`,
          });
        }
        target = {
          profile: name,
          baseUrl,
          sandbox: false,
          tokenSource: resolved.source,
          ...(withheldFrom !== undefined ? { withheldFrom } : {}),
        };
      }
      const sessionId = resolveSessionId(io.env, stored);
      signIn = { token, sessionId };
      renew = () => {
        // As above, read again: the profile (its username says whether it signed in), its stored
        // credential, SUBCTL_TOKEN and --token-file first.
        const p = ctx.profile();
        const again = ctx.usableSignIn().stored;
        const r = resolveToken(io.env, globals.tokenFile, again);
        const out = signedOutOfSandbox(p);
        const t = r.token ?? (!out ? sandboxAdmin : undefined);
        return { token: t, sessionId: resolveSessionId(io.env, again), source: r.source, admin: t !== undefined && t === sandboxAdmin };
      };
      const { ApiClient } = await import('../api/client.js');
      client = new ApiClient({
        baseUrl: baseUrl!,
        token,
        sessionId,
        deviceId: profile?.device_id,
        timeoutMs: globals.timeout ?? profile?.timeout ?? 10_000,
        retries: globals.retries ?? profile?.retries ?? 3,
        dispatcher: deps.dispatcher,
        env: io.env,
        // The embedded sandbox listens in this process: a proxy could not reach it.
        direct: target!.sandbox,
        signal,
        // The exchange shows the server's text: escaped, never raw to a terminal (terminal-safe.ts).
        log: globals.verbose ? (line: string) => io.stderr.write(`${terminalSafeText(line)}\n`) : undefined,
        strict: globals.strict,
      });
      return client;
    },
    note(text) {
      if (!globals.quiet) io.stderr.write(`${terminalSafeText(text)}\n`);
    },
    warn(text) {
      io.stderr.write(`${terminalSafeText(text)}\n`);
    },
    interactive() {
      return io.stdinIsTTY && io.stdoutIsTTY && !globals.noInput && io.env.TERM !== 'dumb';
    },
    async confirm(what) {
      if (globals.yes) return;
      if (!ctx.interactive()) {
        throw new RefusedError(
          `--yes required when not running interactively (${what})`,
          'add --yes to confirm, after checking the profile and the target',
        );
      }
      const where = target ? `${target.profile} (${target.sandbox ? 'SANDBOX' : target.baseUrl})` : ctx.profileName();
      const answer = await ctx.promptLine(`${what}\n  profile: ${where}\nProceed? [y/N] `);
      if (!/^y(es)?$/i.test(answer.trim())) throw new RefusedError('cancelled: nothing was changed');
    },
    async promptLine(label) {
      if (!ctx.interactive()) throw new UsageError(`cannot prompt for ${label.trim()} when not running interactively`);
      // node:readline is loaded for a prompt, not by every command.
      const { createInterface } = builtin('node:readline');
      const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
      try {
        return await new Promise<string>((resolve, reject) => {
          const onAbort = () => reject(new InterruptedError());
          signal.addEventListener('abort', onAbort, { once: true });
          // Ctrl-C at the prompt: the terminal is raw, so readline sees it, not the process (with
          // no listener here it only paused, and the command hung until a second Ctrl-C).
          rl.once('SIGINT', () => {
            signal.removeEventListener('abort', onAbort);
            io.stderr.write('\n');
            reject(new InterruptedError());
          });
          rl.question(label, (a) => {
            signal.removeEventListener('abort', onAbort);
            resolve(a);
          });
        });
      } finally {
        rl.close();
      }
    },
    async promptSecret(label, stdinFlag) {
      if (!ctx.interactive()) {
        throw new UsageError(`${label} must come from a terminal prompt or standard input`, { hint: `pipe it in with ${stdinFlag}` });
      }
      return readMasked(io, `${label}: `, signal);
    },
    color(stream) {
      return useColor(io, stream, globals.noColor);
    },
    async close() {
      await client?.close();
      await closeSandbox?.();
    },
  };
  return ctx;
}

/** A masked prompt: echoes '*' per character, Enter ends, Ctrl-C aborts. */
async function readMasked(io: IO, label: string, signal: AbortSignal): Promise<string> {
  const stdin = io.stdin as NodeJS.ReadStream;
  io.stderr.write(label);
  const wasRaw = stdin.isRaw;
  stdin.setRawMode?.(true);
  stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onAbort = () => finish(new InterruptedError());
      const onData = (buf: Buffer) => {
        for (const ch of buf.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return finish();
          if (ch === '\u0003') return finish(new InterruptedError());
          if (ch === '\u007f' || ch === '\b') {
            if (value.length) {
              value = value.slice(0, -1);
              io.stderr.write('\b \b');
            }
          } else {
            value += ch;
            io.stderr.write('*');
          }
        }
      };
      function finish(err?: Error) {
        stdin.off('data', onData);
        signal.removeEventListener('abort', onAbort);
        io.stderr.write('\n');
        if (err) reject(err);
        else resolve(value);
      }
      stdin.on('data', onData);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    stdin.setRawMode?.(wasRaw ?? false);
    stdin.pause();
  }
}
