/**
 * The interactive screens (Ink), loaded only on interactive paths: `subctl console` (and a bare
 * `subctl` on a terminal) and the forms a create/update command opens on a terminal when its
 * required flags are missing. Nothing outside src/commands/console and that one hook in
 * src/cli/verbs.ts loads this module, and both load it with `loadUi()` (src/ui/load.ts: an
 * `await import()` with Ink's CI detection out of the way).
 */
import { createElement } from 'react';
import type { AnyEndpoint, FieldInfo } from '../api/contract/common.js';
import { describeObject } from '../api/contract/common.js';
import { InterruptedError } from '../api/errors.js';
import type { Profile } from '../config/store.js';
import type { IO } from '../io.js';
import { ConsoleController } from './controller.js';
import type { ApiLike, Session } from './session.js';
import { formFields, newForm, schemaProblems, type FormField } from './form-model.js';
import { QueryCache } from './query-cache.js';
import { consoleReducer, initialState } from './state/console-state.js';
import { createStore } from './state/store.js';
import { ConsoleApp } from './screens/ConsoleApp.js';
import { FormApp } from './screens/FormApp.js';
import { ALT_SCREEN_OFF, ALT_SCREEN_ON, PASTE_OFF, PASTE_ON, restoreOnHangup, suspendTerminal } from './suspend.js';

export { runActionOnRows, type Progress, type RowOutcome } from './actions.js';
export { QueryCache, CACHE_TTL_MS, CACHE_STALE_MS } from './query-cache.js';
export { ConsoleController } from './controller.js';
export type { ApiLike, Session } from './session.js';

/**
 * What the console uses of a command's context (src/cli/context.ts's `Ctx` has all of it): the
 * terminal, the client, and the profile's facts for the header. Declared here so that the
 * console depends on no more than it uses, and not on the command line.
 */
export interface ConsoleContext {
  io: IO;
  globals: { baseUrl?: string; tokenFile?: string };
  signal: AbortSignal;
  now: () => Date;
  api(): Promise<ApiLike & { preferThroughput(): void }>;
  renewSignIn(): boolean;
  profileName(): string;
  profile(): Profile | undefined;
  credentials(): { get(profile: string): { username?: string; role?: string } | undefined };
  /** Where requests go, once api() has run. */
  target(): { baseUrl: string; sandbox: boolean } | undefined;
}

export interface ConsoleOptions {
  api: ApiLike;
  session: Session;
  readOnly?: boolean;
  /** Resource to open first (default: the dashboard). */
  resource?: string;
  /** Where ctrl-s writes CSV files (default: the working directory). */
  cwd?: string;
  now?: () => Date;
  /** A cache to share (tests pass one with an injected clock). */
  cache?: QueryCache;
  /** Rows per server page (default: what fits the terminal). */
  pageSize?: number;
  /** Dashboard auto-refresh period, default 30 s. */
  refreshMs?: number;
  signal?: AbortSignal;
  /** The terminal's size before the first draw (it decides the page size). */
  viewport?: { columns: number; rows: number };
  /** Reads the profile's sign-in again (ctx.renewSignIn): `r` after a 401 uses a new sign-in. */
  renewSignIn?: () => boolean;
}

/** The console's controller and its element, ready for Ink's `render` (or ink-testing-library's). */
export function createConsole(o: ConsoleOptions) {
  const cache = o.cache ?? new QueryCache((spec) => o.api.call(spec.endpoint, spec.input, { signal: o.signal }));
  const store = createStore(consoleReducer, initialState({ readOnly: o.readOnly ?? false }));
  const controller = new ConsoleController({
    store,
    cache,
    api: o.api,
    session: o.session,
    cwd: o.cwd ?? process.cwd(),
    now: o.now ?? (() => new Date()),
    pageSize: o.pageSize,
    signal: o.signal,
    renewSignIn: o.renewSignIn,
  });
  controller.setViewport(o.viewport ?? { columns: 100, rows: 24 });
  if (o.resource && !controller.openResource(o.resource)) throw new Error(`unknown resource ${o.resource}`);
  const element = createElement(ConsoleApp, { controller, session: o.session, refreshMs: o.refreshMs });
  return { controller, cache, store, element };
}

/** The header's facts from the context: profile, where requests go, who is signed in. */
export function sessionOf(ctx: ConsoleContext): Session {
  const profile = ctx.profileName();
  const t = ctx.target();
  const target = t ? (t.sandbox ? 'SANDBOX' : t.baseUrl) : (ctx.globals.baseUrl ?? ctx.profile()?.base_url ?? '?');
  let stored: { username?: string; role?: string } | undefined;
  try {
    stored = ctx.credentials().get(profile);
  } catch {
    stored = undefined;
  }
  if (ctx.io.env.SUBCTL_TOKEN) return { profile, target, user: 'token from SUBCTL_TOKEN', tokenFrom: 'env' };
  if (ctx.globals.tokenFile) return { profile, target, user: `token from ${ctx.globals.tokenFile}`, tokenFrom: 'token-file' };
  const p = ctx.profile();
  const user = stored?.username ?? p?.username;
  const role = stored?.role ?? p?.role;
  if (user) return { profile, target, user, role };
  if (t?.sandbox) return { profile, target, user: 'admin', role: 'admin' };
  return { profile, target, user: 'not signed in' };
}

/** Ink's options for the console: at 120 fps the wait between a page's data and its frame is at most ~8 ms (Ink's default 30 fps could add 33 ms). */
export const RENDER_OPTIONS = { exitOnCtrlC: false, patchConsole: true, maxFps: 120 } as const;

/**
 * Runs the console on the context's terminal until `q` or Ctrl-C (0), or a signal (130).
 * The caller has checked that stdin and stdout are terminals.
 */
export async function openConsole(
  ctx: ConsoleContext,
  opts: { resource?: string; readOnly?: boolean; pageSize?: number; cache?: QueryCache; viewport?: { columns: number; rows: number } } = {},
): Promise<number> {
  const api = await ctx.api();
  // A session of many requests: the transport that is faster per request.
  api.preferThroughput();
  const session = sessionOf(ctx);
  const stdout = ctx.io.stdout as NodeJS.WriteStream;
  const { render } = await import('ink');
  const { element, controller } = createConsole({
    api,
    session,
    readOnly: opts.readOnly,
    resource: opts.resource,
    pageSize: opts.pageSize,
    cache: opts.cache,
    now: ctx.now,
    signal: ctx.signal,
    viewport: opts.viewport ?? { columns: stdout.columns || 80, rows: stdout.rows || 24 },
    renewSignIn: () => ctx.renewSignIn(),
  });
  // The alternate screen, like less and top: the shell's scrollback is left as it was.
  stdout.write(ALT_SCREEN_ON + PASTE_ON);
  const stopHangup = restoreOnHangup(stdout);
  const instance = render(element, {
    stdin: ctx.io.stdin as NodeJS.ReadStream,
    stdout,
    stderr: ctx.io.stderr as NodeJS.WriteStream,
    ...RENDER_OPTIONS,
  });
  controller.setSuspend(() => suspendTerminal(ctx.io.stdin as NodeJS.ReadStream, stdout, () => controller.repaint(), { altScreen: true }));
  const onAbort = () => instance.unmount();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await instance.waitUntilExit();
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    stopHangup();
    stdout.write(PASTE_OFF + ALT_SCREEN_OFF);
  }
  return ctx.signal.aborted ? 130 : 0;
}

export interface OpenFormSpec {
  title: string;
  /** Fields as `describeObject` gives them, or prepared form fields. */
  fields: Array<[string, FieldInfo]> | FormField[];
  initial?: Record<string, unknown>;
  /** Fields required beyond the schema's own. */
  require?: string[];
  /** Problems by field ('' = the whole form); an empty object when the values are good. */
  validate?: (values: Record<string, unknown>) => Record<string, string>;
  /** Streams (default: the process's). */
  io?: Pick<IO, 'stdin' | 'stdout' | 'stderr'>;
}

/**
 * A form on the terminal; resolves to the typed values (JSON-typed like flags), or undefined
 * when the user pressed Esc.
 * `await openForm({ title: 'create service', fields: describeObject(servicesCreate.body) })`
 */
export async function openForm(spec: OpenFormSpec): Promise<Record<string, unknown> | undefined> {
  const { render } = await import('ink');
  const fields: FormField[] =
    spec.fields.length && Array.isArray(spec.fields[0])
      ? formFields(spec.fields as Array<[string, FieldInfo]>, { require: spec.require })
      : (spec.fields as FormField[]);
  let result: Record<string, unknown> | undefined;
  let interrupted = false;
  const stdin = (spec.io?.stdin ?? process.stdin) as NodeJS.ReadStream;
  const stdout = (spec.io?.stdout ?? process.stdout) as NodeJS.WriteStream;
  // The alternate screen, as the console's: the shell's screen comes back as it was, after the
  // form and around a Ctrl-Z.
  stdout.write(ALT_SCREEN_ON + PASTE_ON);
  const stopHangup = restoreOnHangup(stdout);
  try {
    const instance = render(
      createElement(FormApp, {
        form: newForm(spec.title, fields, spec.initial),
        validate: spec.validate,
        onDone: (v, i) => {
          result = v;
          interrupted = i === true;
        },
        onSuspend: (repaint) => suspendTerminal(stdin, stdout, repaint, { altScreen: true }),
      }),
      { stdin, stdout, stderr: (spec.io?.stderr ?? process.stderr) as NodeJS.WriteStream, exitOnCtrlC: false, patchConsole: false },
    );
    await instance.waitUntilExit();
  } finally {
    stopHangup();
    stdout.write(PASTE_OFF + ALT_SCREEN_OFF);
  }
  // Ctrl-C ends the command as it does at a prompt (exit 130); Esc cancels (undefined).
  if (interrupted) throw new InterruptedError();
  return result;
}

/**
 * The form a create/update command opens on a terminal when required body fields are missing:
 * every body field of the endpoint (those given on the command line filled in), checked with
 * the contract's schema as the user submits. Resolves to the whole body, or undefined (Esc).
 */
export async function openVerbForm(
  io: IO,
  ep: AnyEndpoint,
  body: Record<string, unknown>,
  opts: { title?: string; hide?: string[] } = {},
): Promise<Record<string, unknown> | undefined> {
  const hide = new Set(opts.hide ?? []);
  const fields = describeObject(ep.body).filter(([k]) => !hide.has(k));
  const fixed = Object.fromEntries(Object.entries(body).filter(([k]) => hide.has(k)));
  const values = await openForm({
    title: opts.title ?? `${ep.summary} (${ep.method} ${ep.path})`,
    fields,
    initial: body,
    validate: (v) => schemaProblems(ep.body, { ...v, ...fixed }),
    io,
  });
  return values && { ...values, ...fixed };
}
