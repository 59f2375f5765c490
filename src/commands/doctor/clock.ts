/**
 * The clock check: this machine's clock against the server's Date header from the
 * reachability probe. Token expiry and audit times depend on it; a skew is a warning only.
 */
import type { DoctorRun } from './types.js';

/** Clock difference above which tokens and audit times become unreliable. */
const MAX_SKEW_MS = 30_000;

function formatSkew(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
  return ms > 0 ? `${text} ahead of the server` : `${text} behind the server`;
}

export function checkClock(s: DoctorRun): void {
  const { add, where, reached } = s;
  if (where.sandbox) add('clock', 'ok', "the embedded sandbox runs on this machine's clock");
  else if (!reached?.ok) add('clock', 'warn', 'not checked: no answer from the server', 'fix the reachability check first');
  else if (!reached.date || Number.isNaN(Date.parse(reached.date)))
    add(
      'clock',
      'warn',
      'the server sent no usable Date header; cannot compare clocks',
      "compare this machine's clock with a time server (timedatectl, ntpdate -q)",
    );
  else {
    // The Date header has whole seconds: up to 1 s of the difference is its rounding.
    const skew = reached.localMid - Date.parse(reached.date);
    const shown = Math.abs(skew) < 1_500 ? 'in sync with the server (within 1 s)' : `this machine's clock is ${formatSkew(skew)}`;
    if (Math.abs(skew) > MAX_SKEW_MS)
      add(
        'clock',
        'warn',
        `${shown} (server Date: ${reached.date}); token expiry and audit times depend on it`,
        'synchronise the clock: timedatectl set-ntp true (Linux), sntp -sS time.apple.com (macOS), w32tm /resync (Windows)',
      );
    else add('clock', 'ok', shown);
  }
}
