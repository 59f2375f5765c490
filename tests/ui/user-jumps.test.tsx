/**
 * The console follows the user: from a subscription row, U opens its user; from the user, S, W
 * and A open their subscriptions, wallet and audit, each a list the server filters by user_id;
 * Esc comes back step by step.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ok, type RecordedRequest } from '../support/stub-server.js';
import { KEY, platform, startConsole, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const base = platform();
function handler(req: RecordedRequest) {
  if (req.method === 'GET' && req.path === '/users/103') {
    return ok({
      user: {
        user_id: 103,
        username: 'user003',
        email: 'user003@example.com',
        status: 'Active',
        role: 'user',
        created_date: '2026-01-02T03:04:05Z',
      },
      permissions: ['services.use'],
    });
  }
  if (req.method === 'GET' && req.path === '/admin/wallet-transactions/list') {
    return ok({
      pagination: { current_page: 1, page_size: 10, total_pages: 1, total_records: 1 },
      transactions: [
        {
          transaction_id: 77,
          user_id: 103,
          username: 'user003',
          transaction_type: 'topup',
          amount: 50,
          currency: 'USD',
          status: 'completed',
          transaction_date: '2026-11-20T01:02:03Z',
        },
      ],
      summary: {},
    });
  }
  if (req.method === 'GET' && req.path === '/audit') {
    return ok({
      logs: [
        {
          id: 9,
          user_id: 103,
          username: 'user003',
          module: 'user',
          action: 'topup',
          details: { amount: 50 },
          created_at: '2026-11-20T01:02:03Z',
        },
      ],
      page: 1,
      page_size: 10,
      total_items: 1,
      total_pages: 1,
    });
  }
  return base(req);
}

describe('console: following a user', () => {
  it('U on a subscription opens its user; S, W, A their lists (kept to user_id on the server); Esc back each step', async () => {
    h = await startConsole({ resource: 'subscriptions', handler });
    await h.waitFor('user010');
    await h.press(KEY.down, KEY.down, 'U');
    let f = await h.waitFor('user003@example.com');
    expect(h.requests('GET', '/users/103')).toHaveLength(1);
    expect(f).toContain('S subscriptions');

    await h.press('S');
    await h.waitFor(/subscriptions .*filter user_id=103/);
    await h.waitFor(() => h!.requests('GET', '/admin/subscriptions').some((r) => r.query.user_id === '103'));
    expect(h.requests('GET', '/admin/subscriptions').at(-1)!.query).toMatchObject({ user_id: '103', page_number: '1' });

    await h.press(KEY.esc);
    await h.waitFor('user003@example.com');
    await h.press('W');
    f = await h.waitFor('topup');
    await h.waitFor(() => h!.requests('GET', '/admin/wallet-transactions/list').some((r) => r.query.user_id === '103'));
    expect(h.requests('GET', '/admin/wallet-transactions/list').at(-1)!.query).toMatchObject({ user_id: '103' });
    expect(f).toContain('filter user_id=103');

    await h.press(KEY.esc);
    await h.waitFor('user003@example.com');
    await h.press('A');
    await h.waitFor(/audit .*filter user_id=103/);
    await h.waitFor(() => h!.requests('GET', '/audit').some((r) => r.query.user_id === '103'));
    expect(h.requests('GET', '/audit').at(-1)!.query).toMatchObject({ user_id: '103' });

    // Back to the user, then to the subscriptions list as it was (the third row selected).
    await h.press(KEY.esc);
    await h.waitFor('user003@example.com');
    await h.press(KEY.esc);
    f = await h.waitFor(/^> 3 /m);
    expect(f).not.toContain('filter user_id');
  });
});
