import { afterEach, describe, expect, test } from 'vitest';
import { formatCell } from '../../src/output/index.js';
import { setUtcTimes, terminalTime, utcFromEnv } from '../../src/output/time.js';

// process.env.TZ set at run time is honoured by Node's Date: each test names its zone.
const savedTz = process.env.TZ;
afterEach(() => {
  process.env.TZ = savedTz;
  setUtcTimes(false);
});

describe('terminal times', () => {
  test('Asia/Tokyo: seconds and +09:00', () => {
    process.env.TZ = 'Asia/Tokyo';
    expect(terminalTime(new Date('2026-11-26T05:03:27Z'))).toBe('2026-11-26 14:03:27 +09:00');
    expect(formatCell('2026-11-26T05:03:27Z', { tty: true })).toBe('2026-11-26 14:03:27 +09:00');
  });

  test('a negative, half-hour zone and summer time', () => {
    process.env.TZ = 'America/St_Johns';
    expect(terminalTime(new Date('2026-01-10T12:00:00Z'))).toBe('2026-01-10 08:30:00 -03:30');
    expect(terminalTime(new Date('2026-07-10T12:00:00Z'))).toBe('2026-07-10 09:30:00 -02:30');
  });

  test('--utc: UTC whatever TZ says, the day included', () => {
    process.env.TZ = 'Asia/Tokyo';
    setUtcTimes(true);
    expect(terminalTime(new Date('2026-11-26T20:03:27Z'))).toBe('2026-11-26 20:03:27 +00:00');
    expect(formatCell('2026-11-27T05:03:27+09:00', { tty: true })).toBe('2026-11-26 20:03:27 +00:00');
  });

  test('off a terminal the sent text is kept exactly', () => {
    setUtcTimes(true);
    expect(formatCell('2026-11-26T05:03:27.120Z', { tty: false })).toBe('2026-11-26T05:03:27.120Z');
  });

  test('SUBCTL_TZ: UTC or local, anything else unknown', () => {
    expect(utcFromEnv(undefined)).toBe(false);
    expect(utcFromEnv('UTC')).toBe(true);
    expect(utcFromEnv('utc')).toBe(true);
    expect(utcFromEnv('local')).toBe(false);
    expect(utcFromEnv('Europe/Paris')).toBeUndefined();
  });
});
