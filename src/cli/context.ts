/**
 * What every command's `run` receives: IO, the parsed globals, the abort signal, and lazy
 * access to configuration and the API client (created only when a command needs it, so that
 * local commands never pay for the HTTP stack). The concerns live beside it: where requests go
 * (target.ts), the embedded sandbox (sandbox-boot.ts), which sign-in goes where (sign-in.ts),
 * prompts (prompts.ts); createContext assembles them.
 */
import type { Dispatcher } from 'undici';
import type { ApiClient } from '../api/client.js';
import { CredentialStore, resolveSessionId, resolveToken, type Credential } from '../config/credentials.js';
import { resolvePaths, type Paths } from '../config/paths.js';
import { ConfigStore, type Profile } from '../config/store.js';
import type { IO } from '../io.js';
import { useColor } from '../io.js';
import type { GlobalOptions } from './globals.js';
import { terminalSafeText } from '../output/terminal-safe.js';
import { confirmOnTerminal, mayPrompt, noSecretPrompt, readLine, readMasked } from './prompts.js';
import { UsageError } from '../api/errors.js';
import { bootSandbox } from './sandbox-boot.js';
import { signInReader, usableSignInFor, type SignInNow } from './sign-in.js';
import { addressTarget, checkProfileNamed, noPlatform, onTerminal, plannedTarget, type Target } from './target.js';

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
   * put the token in a request's body, which would otherwise carry it to any address given).
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

/**
 * One object literal of the context's methods, each a few lines over the concerns in the files
 * named above: kept whole so that the Ctx interface reads against it method by method.
 */
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
  let renew: (() => SignInNow) | undefined;

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
      return c ? usableSignInFor(c, ctx.plannedTarget(), ctx.profile()) : {};
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
      return plannedTarget(globals, ctx.profile(), ctx.config());
    },
    async api(opts: { anonymous?: boolean } = {}) {
      if (client) return client;
      const name = ctx.profileName();
      const profile = ctx.profile();
      const anonymous = opts.anonymous === true;
      checkProfileNamed(globals, name, profile, ctx.config(), anonymous);
      const planned = ctx.plannedTarget();
      // The sandbox fallen back to, off a terminal: a cron job with the wrong HOME or config
      // directory, which must not "succeed" against a throwaway local database.
      if (planned === 'sandbox' && !globals.sandbox && profile?.base_url !== 'sandbox' && !onTerminal(io))
        throw noPlatform(ctx.paths().configDir);
      const { withheldFrom, stored } = ctx.usableSignIn();
      const resolved = resolveToken(io.env, globals.tokenFile, stored);
      let token = resolved.token;
      let sandboxAdmin: string | undefined;
      if (planned === 'sandbox') {
        const sb = await bootSandbox({
          io,
          globals,
          paths: ctx.paths(),
          name,
          profile,
          anonymous,
          token,
          tokenSource: resolved.source,
          withheldFrom,
        });
        ({ token, sandboxAdmin, target } = sb);
        closeSandbox = sb.close;
      } else {
        target = addressTarget(name, planned, profile, ctx.config(), resolved.source, withheldFrom);
      }
      const sessionId = resolveSessionId(io.env, stored);
      signIn = { token, sessionId };
      renew = signInReader(io, globals, { profile: () => ctx.profile(), stored: () => ctx.usableSignIn().stored }, sandboxAdmin);
      client = await openClient(deps, profile, target, token, sessionId);
      return client;
    },
    note(text) {
      if (!globals.quiet) io.stderr.write(`${terminalSafeText(text)}\n`);
    },
    warn(text) {
      io.stderr.write(`${terminalSafeText(text)}\n`);
    },
    interactive() {
      return mayPrompt(io, globals.noInput);
    },
    async confirm(what) {
      if (globals.yes) return;
      const where = target ? `${target.profile} (${target.sandbox ? 'SANDBOX' : target.baseUrl})` : ctx.profileName();
      await confirmOnTerminal(what, where, ctx.interactive(), (label) => ctx.promptLine(label));
    },
    async promptLine(label) {
      if (!ctx.interactive()) throw new UsageError(`cannot prompt for ${label.trim()} when not running interactively`);
      return readLine(io, label, signal);
    },
    async promptSecret(label, stdinFlag) {
      if (!ctx.interactive()) throw noSecretPrompt(label, stdinFlag);
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

/** The API client for a target (its module loaded only then), with the profile's and the options' settings. */
async function openClient(
  deps: CtxDeps,
  profile: Profile | undefined,
  target: Target,
  token: string | undefined,
  sessionId: string | undefined,
): Promise<ApiClient> {
  const { io, globals, signal } = deps;
  const { ApiClient } = await import('../api/client.js');
  return new ApiClient({
    baseUrl: target.baseUrl,
    token,
    sessionId,
    deviceId: profile?.device_id,
    timeoutMs: globals.timeout ?? profile?.timeout ?? 10_000,
    retries: globals.retries ?? profile?.retries ?? 3,
    dispatcher: deps.dispatcher,
    env: io.env,
    // The embedded sandbox listens in this process: a proxy could not reach it.
    direct: target.sandbox,
    signal,
    // The exchange shows the server's text: escaped, never raw to a terminal (terminal-safe.ts).
    log: globals.verbose ? (line: string) => io.stderr.write(`${terminalSafeText(line)}\n`) : undefined,
    strict: globals.strict,
    // Tables, CSV and text read values as the contract types them; JSON prints them as received,
    // and so does a --fields path into an object (`role.role_name`), which names the answer's own shape.
    typed: (globals.output === 'table' || globals.output === 'csv') && !globals.fields?.some((f) => f.includes('.')),
  });
}
