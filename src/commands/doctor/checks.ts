/**
 * The doctor's checks, in the order they run: each reads what the ones before it found (the
 * address, whether the server answered). The printed order is `PRINTED_ORDER`.
 */
import type { Ctx } from '../../cli/context.js';
import { checkClock } from './clock.js';
import { checkCredential } from './credential.js';
import { checkFileModes, snapshotModesFirst } from './file-modes.js';
import { checkProxy, checkReachability } from './network.js';
import { checkBaseUrl, checkProfile } from './profile.js';
import { checkTls } from './tls.js';
import { DOCTOR_TIMEOUT_MS, type Check, type DoctorCheck, type DoctorRun } from './types.js';

const CHECKS: DoctorCheck[] = [
  // Modes first: loading the configuration repairs them.
  { name: 'config-files (before)', run: snapshotModesFirst },
  { name: 'profile', run: checkProfile },
  { name: 'base-url', run: checkBaseUrl },
  { name: 'proxy', run: checkProxy },
  { name: 'reachability', run: checkReachability },
  { name: 'tls', run: checkTls },
  { name: 'clock', run: checkClock },
  { name: 'credential', run: checkCredential },
  { name: 'config-files', run: checkFileModes },
];

const PRINTED_ORDER = ['profile', 'config-files', 'base-url', 'proxy', 'reachability', 'tls', 'clock', 'credential'];

export async function runChecks(ctx: Ctx, raw: Record<string, unknown>): Promise<Check[]> {
  const g = ctx.globals;
  const checks: Check[] = [];
  const s: DoctorRun = {
    ctx,
    raw,
    env: ctx.io.env,
    g,
    timeoutMs: g.timeout ?? DOCTOR_TIMEOUT_MS,
    checks,
    add: (check, status, detail, fix = null) => {
      checks.push({ check, status, detail, fix: status === 'ok' ? null : fix });
    },
    configOk: true,
    name: g.profile ?? 'default',
    profile: undefined,
    unconfigured: false,
    where: { sandbox: false },
    proxyApplies: false,
  };
  for (const c of CHECKS) await c.run(s);
  return checks.sort((a, b) => PRINTED_ORDER.indexOf(a.check) - PRINTED_ORDER.indexOf(b.check));
}
