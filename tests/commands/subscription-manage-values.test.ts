/** `subscriptions manage` previews and verification read the values that steer them with care. */
import { describe, expect, it } from 'vitest';
import { describeChange } from '../../src/resources/subscriptions.js';

describe('subscriptions manage: values read with care', () => {
  it('an end date with a time and zone, or without a zone, extends from its day', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(describeChange({ status: 'active', end_date: '2026-03-01T23:00:00-02:00' }, { action: 'extend', extend_days: 10 }, now)).toEqual(
      ['end_date: 2026-03-02 -> 2026-03-12'],
    );
    expect(describeChange({ status: 'active', end_date: '2026-03-01 10:00:00' }, { action: 'extend', extend_days: 1 }, now)).toEqual([
      'end_date: 2026-03-01 -> 2026-03-02',
    ]);
  });

  it('an end date that cannot be read is said, not guessed', () => {
    const lines = describeChange({ status: 'active', end_date: 'next spring' }, { action: 'extend', extend_days: 1 });
    expect(lines).toEqual(['end_date: "next spring" is not a date subctl can read: the new end date is the server\'s to work out']);
  });

  it('credits as text are numbers; unreadable credits are named', () => {
    expect(
      describeChange({ status: 'active', total_credits: '100', remaining_credits: '40.5' }, { action: 'add_credits', extend_credits: 10 }),
    ).toEqual(['total_credits: 100 -> 110', 'remaining_credits: 40.5 -> 50.5']);
    expect(
      describeChange({ status: 'active', total_credits: { n: 1 }, remaining_credits: 3 }, { action: 'add_credits', extend_credits: 2 })[0],
    ).toBe('total_credits: {"n":1} (not a number subctl can read) +2');
  });
});
