/**
 * Schemas are parsed without zod's compiled parser for their first uses and with it after
 * (`parseMode` in contract/common.ts): a one-shot command skips the compile, a bulk run gets
 * the compiled parser. Both modes must give the same answer for every input, good or bad.
 */
import { describe, expect, it } from 'vitest';
import { parseMode } from '../../src/api/contract/common.js';
import { servicesList } from '../../src/api/contract/admin-services.js';
import { subscriptionsManage } from '../../src/api/contract/admin-subscriptions.js';
import { walletList } from '../../src/api/contract/admin-misc.js';
import { validateInput } from '../../src/api/client.js';

const outcome = (r: { success: boolean; data?: unknown; error?: { issues: unknown[] } }) => (r.success ? { ok: r.data } : { issues: r.error!.issues });

describe('parseMode', () => {
  it('parses a schema interpreted for its first 8 uses, compiled after', () => {
    const schema = {};
    const modes = Array.from({ length: 12 }, () => parseMode(schema));
    expect(modes.slice(0, 8)).toEqual(Array(8).fill({ jitless: true }));
    expect(modes.slice(8)).toEqual([undefined, undefined, undefined, undefined]);
    // Counted per schema.
    expect(parseMode({})).toEqual({ jitless: true });
  });

  const cases: Array<[string, { safeParse: (v: unknown, c?: { jitless: boolean }) => never }, unknown[]]> = [
    [
      'subscriptions manage body',
      subscriptionsManage.body as never,
      [
        { action: 'extend', reason: 'ticket 1', extend_days: 3 },
        { action: 'explode', reason: 'x' },
        { action: 'extend', reason: 'r'.repeat(501), extend_days: '3' },
        { reason: 'only a reason' },
        'not an object',
        { action: 'add_credits', reason: 'x', extend_credits: -1, extra: true },
      ],
    ],
    ['services list query', servicesList.query as never, [{}, { page_size: '100', sort_by: 'ServiceCode', is_active: 'true' }, { page_size: 101 }, { sort_by: 'Nope', page_number: 0 }]],
    [
      'wallet list response',
      walletList.response as never,
      [
        { pagination: { current_page: 1, page_size: 20, total_pages: 1, total_records: 1 }, transactions: [{ transaction_id: 1, amount: 5, username: 'a' }] },
        { pagination: { current_page: 'one' }, transactions: 'none' },
        null,
      ],
    ],
  ];

  for (const [name, schema, inputs] of cases) {
    it(`${name}: the same result interpreted and compiled, good input and bad`, () => {
      for (const input of inputs) {
        const interpreted = outcome(schema.safeParse(input, { jitless: true }));
        // Many parses: the compiled parser is built and used.
        for (let i = 0; i < 20; i++) expect(outcome(schema.safeParse(input))).toEqual(interpreted);
      }
    });
  }

  it('validateInput answers the same on its 1st and its 50th call (the switch to the compiled parser)', () => {
    const good = { params: { id: 7 }, body: { action: 'extend', reason: 'ticket', extend_days: 2 } };
    const bad = { params: { id: 'x' }, body: { action: 'extend', reason: '', extend_days: 0 } };
    const first = validateInput(subscriptionsManage, good);
    let firstError: unknown;
    try {
      validateInput(subscriptionsManage, bad);
    } catch (e) {
      firstError = (e as { problems: unknown }).problems;
    }
    expect(firstError).toBeDefined();
    for (let i = 0; i < 50; i++) {
      expect(validateInput(subscriptionsManage, good)).toEqual(first);
      expect(() => validateInput(subscriptionsManage, bad)).toThrow();
      try {
        validateInput(subscriptionsManage, bad);
      } catch (e) {
        expect((e as { problems: unknown }).problems).toEqual(firstError);
      }
    }
  });
});
