/**
 * A real sandbox on a loopback port over a fresh data file, for tests.
 *
 * Seeding (scale 1) happens once per test file, into a template file; every sandbox then
 * starts on its own copy of the template, so tests can mutate freely and still start in
 * milliseconds.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { openDatabase } from '../../src/sandbox/db.js';
import { seedDatabase } from '../../src/sandbox/seed.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { tempDir } from './tmp.js';

export type TestSandboxOptions = Omit<SandboxOptions, 'dataFile'> & { dataFile?: string };

let dir: string | undefined;
const templates = new Map<number, string>();
const open = new Set<Sandbox>();

/** This file's directory of data files, removed after its last test (`tempDir`). */
function sandboxDir(): string {
  if (!dir || !existsSync(dir)) {
    dir = tempDir('subctl-sandbox-test-');
    templates.clear();
  }
  return dir;
}

/** A seeded data file at `scale`, made once per process; WAL checkpointed so one file holds it all. */
function template(scale: number): string {
  let f = templates.get(scale);
  if (!f) {
    f = join(sandboxDir(), `template-${scale}.db`);
    const db = openDatabase(f);
    seedDatabase(db, { scale });
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    templates.set(scale, f);
  }
  return f;
}

let n = 0;
/** A new data file path in the test's temp directory (not created). */
export function tempDataFile(name = 'sandbox'): string {
  return join(sandboxDir(), `${name}-${process.pid}-${++n}.db`);
}

/**
 * Starts a sandbox on port 0 over a copy of the seeded template (or `opts.dataFile` as is).
 *
 * @example
 *   const sb = await startTestSandbox();
 *   const r = await call(sb, 'GET', '/admin/services', { as: 'admin' });
 */
export async function startTestSandbox(opts: TestSandboxOptions = {}): Promise<Sandbox> {
  let dataFile = opts.dataFile;
  if (!dataFile) {
    dataFile = tempDataFile();
    copyFileSync(template(opts.scale ?? 1), dataFile);
  }
  const sb = await startSandbox({ quiet: true, ...opts, dataFile });
  open.add(sb);
  const close = sb.close.bind(sb);
  sb.close = async () => {
    open.delete(sb);
    await close();
  };
  return sb;
}

/** Closes every sandbox this file started (for an `afterAll`). */
export async function closeAllTestSandboxes(): Promise<void> {
  await Promise.all([...open].map((s) => s.close()));
}

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON envelope. */
  json: any;
}

const tokens = new WeakMap<Sandbox, Map<string, string>>();

/** A token for a seeded account, issued once per sandbox. */
export function tokenOf(sb: Sandbox, username: string): string {
  let m = tokens.get(sb);
  if (!m) tokens.set(sb, (m = new Map()));
  let t = m.get(username);
  if (!t) m.set(username, (t = sb.tokenFor(username)));
  return t;
}

/**
 * One HTTP request to the sandbox with undici. `as` signs in as a seeded account; `query`
 * values are stringified; `body` is sent as JSON (a string is sent as is).
 */
export async function call(
  sb: Sandbox,
  method: string,
  path: string,
  o: { as?: string; token?: string; query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const qs = o.query
    ? new URLSearchParams(
        Object.entries(o.query)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, String(v)] as [string, string]),
      ).toString()
    : '';
  const token = o.token ?? (o.as ? tokenOf(sb, o.as) : undefined);
  const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...o.headers };
  let body: string | undefined;
  if (o.body !== undefined) {
    body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    headers['content-type'] = 'application/json';
  }
  const r = await request(`${sb.url}${path}${qs ? `?${qs}` : ''}`, { method: method as 'GET', headers, body });
  const text = await r.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.statusCode, headers: r.headers, json };
}

/** The audit log's writes since `from` (an audit id), as `module action service/plan code` with how often each came. */
export function writesSince(sb: Sandbox, from: number): Map<string, number> {
  const rows = sb.db.prepare('SELECT module, action, details FROM audit_logs WHERE id > ? ORDER BY id').all(from) as Array<{
    module: string;
    action: string;
    details: string;
  }>;
  const times = new Map<string, number>();
  for (const w of rows) {
    const d = JSON.parse(w.details) as { plan_code?: string; service_code?: string };
    const k = `${w.module} ${w.action} ${[d.service_code, d.plan_code].filter(Boolean).join('/')}`;
    times.set(k, (times.get(k) ?? 0) + 1);
  }
  return times;
}
