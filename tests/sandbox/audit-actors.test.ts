/**
 * The sandbox's audit log as its users would expect it: the seed records end users' own
 * actions (buy or code activation, top-up, service use, auto-renewal) with the end user as the
 * actor, in time order; validating a session (what `auth status` sends) is not audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call, closeAllTestSandboxes, startTestSandbox, tokenOf } from '../support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await closeAllTestSandboxes();
});

// The sandbox's own connection, read only here; close() is a no-op so the tests read alike.
const db = () => Object.assign(Object.create(sb.db), { close: () => {} }) as typeof sb.db;

describe('sandbox audit actors', () => {
  it('every seeded subscription has its purchase or activation by its owner, naming it', () => {
    const d = db();
    try {
      const subs = d.prepare('SELECT subscription_id, user_id FROM subscriptions').all() as Array<{
        subscription_id: number;
        user_id: number;
      }>;
      const rows = d
        .prepare("SELECT user_id, action, details FROM audit_logs WHERE module = 'user' AND action IN ('buy', 'activate_code')")
        .all() as Array<{ user_id: number; action: string; details: string }>;
      const bySub = new Map(rows.map((r) => [JSON.parse(r.details).subscription_id, r.user_id]));
      for (const s of subs) expect(bySub.get(s.subscription_id), `subscription ${s.subscription_id}`).toBe(s.user_id);
    } finally {
      d.close();
    }
  });

  it('a seeded end user with subscriptions and top-ups has audit entries by them (audit user is not empty)', async () => {
    const d = db();
    const u = d
      .prepare(
        `SELECT u.user_id FROM users u WHERE u.role = 'user'
           AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = u.user_id)
           AND EXISTS (SELECT 1 FROM wallet_transactions t WHERE t.user_id = u.user_id AND t.transaction_type = 'topup' AND t.status = 'completed' AND t.description NOT LIKE 'Balance adjustment%')
         ORDER BY u.user_id LIMIT 1`,
      )
      .get() as { user_id: number };
    const topups = (
      d
        .prepare(
          "SELECT COUNT(*) AS n FROM wallet_transactions WHERE user_id = ? AND transaction_type = 'topup' AND status = 'completed' AND description NOT LIKE 'Balance adjustment%'",
        )
        .get(u.user_id) as { n: number }
    ).n;
    d.close();
    const r = await call(sb, 'GET', `/audit/users/${u.user_id}`, { as: 'admin', query: { page_size: 100, action: 'topup' } });
    expect(r.status).toBe(200);
    expect(r.json.data.total_items).toBe(topups);
    expect(r.json.data.logs.every((e: any) => e.user_id === u.user_id && e.module === 'user')).toBe(true);
  });

  it('entries are in time order: a newer id is never older', () => {
    const d = db();
    const bad = (
      d.prepare('SELECT COUNT(*) AS n FROM audit_logs a JOIN audit_logs b ON b.id = a.id + 1 WHERE b.created_at < a.created_at').get() as {
        n: number;
      }
    ).n;
    d.close();
    expect(bad).toBe(0);
  });

  it('validating a session (auth status) adds no audit entry', async () => {
    const count = async () => (await call(sb, 'GET', '/audit', { as: 'admin', query: { page_size: 1 } })).json.data.total_items as number;
    const before = await count();
    const r = await call(sb, 'POST', '/auth/validate-session', { body: { token: tokenOf(sb, 'admin') } });
    expect(r.status).toBe(200);
    expect(r.json.data.valid).toBe(true);
    expect(await count()).toBe(before);
  });
});
