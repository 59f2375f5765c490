/**
 * The embedded sandbox: with `--sandbox`, or on a machine with no profile configured, subctl
 * serves the local platform inside its own process on a loopback port, over the data file in
 * the user's data directory, and signs in as the seeded admin.
 */
import { join } from 'node:path';
import { UsageError } from '../api/errors.js';
import { ensurePrivateDir, FILE_MODE, repairMode } from '../config/paths.js';
import { DIALECT_ENV, DIALECTS, isDialect, type Dialect } from './dialect.js';
import { startSandbox } from './server.js';

export interface EmbeddedSandbox {
  url: string;
  dataFile: string;
  adminToken: string;
  close(): Promise<void>;
}

/** The dialect `SUBCTL_SANDBOX_DIALECT` names in `env` (unset or empty: the default one). */
function dialectFromEnv(env: Record<string, string | undefined> | undefined): Dialect {
  const v = env?.[DIALECT_ENV];
  if (v === undefined || v === '') return 'default';
  if (!isDialect(v)) throw new UsageError(`${DIALECT_ENV} expects one of ${DIALECTS.join(', ')}, got '${v}'`);
  return v;
}

export async function startEmbeddedSandbox(opts: {
  dataDir: string;
  quiet?: boolean;
  dataFile?: string;
  /** The environment, for its SUBCTL_SANDBOX_DIALECT. */
  env?: Record<string, string | undefined>;
}): Promise<EmbeddedSandbox> {
  const dialect = dialectFromEnv(opts.env);
  ensurePrivateDir(opts.dataDir);
  const dataFile = opts.dataFile ?? join(opts.dataDir, 'sandbox.db');
  // subctl's own data file (and its -wal and -shm), whatever mode it was found with: private,
  // as the README promises of every file of subctl's.
  if (!opts.dataFile) for (const f of [dataFile, `${dataFile}-wal`, `${dataFile}-shm`]) repairMode(f, FILE_MODE);
  const sb = await startSandbox({ dataFile, port: 0, host: '127.0.0.1', quiet: true, dialect });
  return { url: sb.url, dataFile, adminToken: sb.embeddedTokenFor('admin'), close: () => sb.close() };
}
