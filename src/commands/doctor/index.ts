/**
 * `subctl doctor`: checks what a command needs before it can work and says what to do about
 * each problem. One line a check, `ok|warn|fail  <check>: <detail>`, a `fix:` line under each
 * warning or failure; `-o json` prints the checks as an array of {check, status, detail, fix}.
 *
 * Exit code: 2 when the configuration is unusable (profile, base address, no platform configured),
 * 7 when the platform cannot be reached (network, TLS), 3 when the credential is missing,
 * expired or refused, else 0 (warnings included). With several failures the first of that
 * order wins: a bad address makes reachability moot, and an unreachable server cannot judge
 * a token.
 */
import { addGlobalOptions } from '../../cli/globals.js';
import { ExitCode } from '../../api/errors.js';
import type { Group } from '../types.js';
import { runChecks } from './checks.js';
import { printChecks } from './print.js';
import type { Check } from './types.js';

const CONFIG_CHECKS = new Set(['profile', 'base-url']);
const NETWORK_CHECKS = new Set(['reachability', 'tls']);

/** The exit code for a set of checks (see the module comment). */
export function doctorExitCode(checks: Check[]): number {
  const failed = (names: Set<string> | string) =>
    checks.some((c) => c.status === 'fail' && (typeof names === 'string' ? c.check === names : names.has(c.check)));
  if (failed(CONFIG_CHECKS)) return ExitCode.usage;
  if (failed(NETWORK_CHECKS)) return ExitCode.network;
  if (failed('credential')) return ExitCode.auth;
  return ExitCode.ok;
}

export const doctorGroup: Group = {
  name: 'doctor',
  build(cmd, bind) {
    addGlobalOptions(cmd);
    cmd
      .description(
        'check the active profile, the base address, reachability, TLS, the credential, the clock, file permissions and proxies; each problem comes with what to do about it',
      )
      .addHelpText(
        'after',
        '\nExit status: 0 when nothing failed (warnings included), 2 for an unusable profile or base address (no platform configured included),\n7 when the platform is unreachable or its TLS certificate is not trusted, 3 when the credential is\nmissing, expired or refused.',
      )
      .action((_o, c) => {
        const raw = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          const checks = await runChecks(ctx, raw);
          await printChecks(ctx, checks);
          return doctorExitCode(checks);
        })(raw);
      });
  },
};
