/**
 * The sandbox's HTTP framework: the contract served over node:http on a loopback port.
 *
 * Each request (handle.ts): route by the contract (404 unknown path, 405 known path with
 * another method; routing.ts), authenticate the bearer token (401/403), parse and validate path
 * params, query and JSON body with the endpoint's own zod schemas (400 envelope naming each
 * field; request.ts), check X-Device-ID where the endpoint needs it, call the area's handler,
 * and answer the envelope `{status, message, data, error, meta}` (envelope.ts). Successful
 * mutations leave an audit entry. This file opens the data file, listens and closes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { routes } from '../api/contract/routes.js';
import { embeddedToken, issueToken } from './auth.js';
import { chaosActive, type ChaosOptions } from './chaos.js';
import { writeBatcher } from './batch.js';
import { damageError, dataFileFailure, openDatabase, prep } from './db.js';
import type { Dialect } from './dialect.js';
import { requestListener, type Served } from './handle.js';
import { adminHandlers } from './handlers/admin.js';
import { userHandlers } from './handlers/user.js';
import { seedDatabase } from './seed.js';
import { tokenCache } from './token-cache.js';
import type { DB, HandlerTable } from './types.js';

export interface SandboxOptions {
  /** SQLite file; created, migrated and seeded when new. */
  dataFile: string;
  /**
   * How the user named dataFile (`--data`), for its errors (exit 2: a file that cannot be a
   * sandbox's is never written into). Unset, the file is subctl's own, in its data directory.
   */
  dataFlag?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Seed scale for a new file (default 1). */
  scale?: number;
  /** PRNG seed for a new file (default 42). */
  seed?: number;
  chaos?: ChaosOptions;
  /** The sandbox clock (default: the real one). */
  now?: () => Date;
  /** No stderr output (500s are logged otherwise). */
  quiet?: boolean;
  /** Handlers to use instead of the built-in ones (tests). */
  handlers?: HandlerTable;
  /** How answers are written (dialect.ts; default 'default'). */
  dialect?: Dialect;
}

export interface Sandbox {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  port: number;
  db: DB;
  close(): Promise<void>;
  /** A fresh bearer token for a seeded (or any existing) account, e.g. `tokenFor('admin')`. */
  tokenFor(username: string): string;
  /** The CLI's embedded sandbox signing in as `username`: a token it issued itself and that is still good, else a new one (`embeddedToken`). */
  embeddedTokenFor(username: string): string;
}

/**
 * Starts the sandbox: opens (creating, migrating, seeding) the data file and listens.
 *
 * @example
 *   const sb = await startSandbox({ dataFile: '/tmp/s.db' });
 *   // sb.url -> 'http://127.0.0.1:43121'; curl -H "authorization: Bearer $(sb.tokenFor('admin'))" $URL/admin/services
 */
export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const now = opts.now ?? (() => new Date());
  const db = openSeeded(opts, now);
  const writes = writeBatcher(db);
  const served: Served = {
    db,
    handlers: opts.handlers ?? { ...userHandlers, ...adminHandlers },
    chaos: chaosActive(opts.chaos) ? opts.chaos : undefined,
    alt: opts.dialect === 'alt',
    now,
    writes,
    tokens: tokenCache(db),
    routedTo: new WeakMap(),
  };
  const server = http.createServer({ keepAlive: true }, requestListener(served, opts.quiet ?? false));
  // Clients keep connections 4 s (undici); stay open a little longer than that.
  server.keepAliveTimeout = 10_000;
  server.headersTimeout = 15_000;
  await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1');
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;

  const accountId = (username: string): number => {
    const u = prep(db, 'SELECT user_id FROM users WHERE username = ?').get(username) as { user_id: number } | undefined;
    if (!u) throw new Error(`sandbox: no account named ${username}`);
    return u.user_id;
  };
  let closed = false;
  return {
    url: `http://${host}:${addr.port}`,
    port: addr.port,
    db,
    tokenFor(username: string): string {
      return issueToken(db, accountId(username), { now: now() }).token;
    },
    embeddedTokenFor(username: string): string {
      return embeddedToken(db, accountId(username), now());
    },
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // Writes whose requests were read are done, as they would be without batching.
      writes.flush();
      db.close();
    },
  };
}

/**
 * Opens (creating and migrating) and seeds the data file. A file that cannot be a sandbox's, a
 * damaged one, a full disk or a read-only directory: named with the file (dataFileFailure).
 */
function openSeeded(opts: SandboxOptions, now: () => Date): DB {
  let db: DB;
  try {
    db = openDatabase(opts.dataFile);
  } catch (err) {
    throw dataFileFailure(err, opts.dataFile, opts.dataFlag);
  }
  try {
    seedDatabase(db, { scale: opts.scale ?? 1, seed: opts.seed, now: now() });
  } catch (err) {
    db.close();
    throw dataFileFailure(damageError(err, opts.dataFile), opts.dataFile, opts.dataFlag);
  }
  return db;
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Every endpoint name of the contract without a handler in `table` (for tests and `sandbox serve`). */
export function missingHandlers(table: HandlerTable = { ...userHandlers, ...adminHandlers }): string[] {
  return routes.filter(([, , name]) => !table[name]).map(([, , name]) => name);
}
