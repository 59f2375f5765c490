/**
 * Date-times as a person reads them on a terminal: to the second, with the zone,
 * `2026-11-26 14:03:27 +09:00` in the local zone, or `2026-11-26 05:03:27 +00:00` with `--utc`
 * (or SUBCTL_TZ=UTC). The command line and the console format every terminal time here, so that
 * one entry reads the same in `audit list`, `audit --follow` and the console.
 * json, ndjson and csv never come here: they print times exactly as the platform sent them.
 */

let utc = false;

/** Chooses the zone of terminal times for this process: UTC (`--utc`, SUBCTL_TZ=UTC) or local. */
export function setUtcTimes(on: boolean): void {
  utc = on;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `+09:00`, `-03:30`, `+00:00`: the zone's offset from UTC at that instant (summer time included). */
function offsetOf(d: Date): string {
  if (utc) return '+00:00';
  const minutes = -d.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** `YYYY-MM-DD` of a date in the chosen zone. */
function terminalDay(d: Date): string {
  return utc
    ? `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`
    : `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

/** `HH:mm:ss` of a date in the chosen zone (the console's clock). */
export function terminalClock(d: Date): string {
  return utc
    ? `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
    : `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/**
 * A date-time on a terminal: `terminalTime(new Date('2026-11-26T05:03:27Z'))` is
 * `2026-11-26 14:03:27 +09:00` with TZ=Asia/Tokyo, `2026-11-26 05:03:27 +00:00` with `--utc`.
 */
export function terminalTime(d: Date): string {
  return `${terminalDay(d)} ${terminalClock(d)} ${offsetOf(d)}`;
}

/**
 * SUBCTL_TZ and `--utc` to the zone of terminal times: `UTC` (any case) or unset/`local`.
 * Any other value is refused by the caller with a message naming SUBCTL_TZ.
 */
export function utcFromEnv(value: string | undefined): boolean | undefined {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'local') return false;
  if (v === 'utc' || v === 'z' || v === 'etc/utc') return true;
  return undefined;
}
