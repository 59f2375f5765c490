/** What the doctor's checks share: the result type, and the state one run passes along. */
import type { ProxySettings } from '../../api/transport.js';
import type { Ctx } from '../../cli/context.js';

export type Status = 'ok' | 'warn' | 'fail';

export interface Check {
  check: string;
  status: Status;
  detail: string;
  fix: string | null;
}

/** Default per-request time-out of the doctor's own requests (`--timeout` overrides). */
export const DOCTOR_TIMEOUT_MS = 5_000;

interface Where {
  /** `sandbox`, an address, or undefined when none is usable. */
  sandbox: boolean;
  url?: URL;
}

export interface Probe {
  ok: boolean;
  ms: number;
  status?: number;
  date?: string;
  /** Local time at the middle of the exchange. */
  localMid: number;
  error?: string;
  code?: string;
  tlsError?: boolean;
}

export interface ModeSnapshot {
  path: string;
  want: number;
  mode?: number;
  uid?: number;
}

/**
 * One run of the doctor: what the checks found so far. A later check reads what an earlier one
 * found (the address, whether the server answered), so the list runs in order.
 */
export interface DoctorRun {
  ctx: Ctx;
  /** The options as given, to tell `--profile` and `--base-url` from their variables. */
  raw: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  g: Ctx['globals'];
  timeoutMs: number;
  checks: Check[];
  add(check: string, status: Status, detail: string, fix?: string | null): void;
  modesBefore?: ModeSnapshot[];
  configOk: boolean;
  name: string;
  profile: ReturnType<Ctx['profile']>;
  unconfigured: boolean;
  /** Where an address given outside the profile comes from, if one was. */
  baseFrom?: string;
  where: Where;
  proxy?: ProxySettings;
  proxyApplies: boolean;
  reached?: Probe;
  api?: Awaited<ReturnType<Ctx['api']>>;
}

/** One check: its name, and what it adds to the run. */
export interface DoctorCheck {
  name: string;
  run(s: DoctorRun): Promise<void> | void;
}
