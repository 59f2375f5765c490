import { afterAll, describe, expect, it } from 'vitest';
import { closeAllTestSandboxes } from '../support/sandbox.js';
import { Harness } from './user-harness.js';

afterAll(closeAllTestSandboxes);

async function newUser(h: Harness, name: string) {
  const r = await h.call('users.create', {
    as: 'admin',
    body: { username: name, email: `${name}@example.com`, password: 'pw-referral', role: 'user' },
  });
  return r.data.user_id as number;
}

describe('referral codes', () => {
  it('generate: REF-XXXXXX, limit and expiry; validate tells valid codes apart', async () => {
    const h = await Harness.create();
    const g = await h.call('referrals.generate', {
      as: 'support',
      body: { description: 'Summer, "VIP" list', expiry_days: 30, usage_limit: 2 },
    });
    expect(g.status).toBe(200);
    expect(g.data.referral_code).toMatch(/^REF-[A-Z0-9]{6}$/);
    expect(g.data).toMatchObject({ success: true, usage_limit: 2, description: 'Summer, "VIP" list' });
    expect(Date.parse(g.data.expiry_date) - h.now.getTime()).toBe(30 * 86_400_000);
    const v = await h.call('referrals.validate', { body: { referral_code: g.data.referral_code.toLowerCase() } });
    expect(v.status).toBe(200);
    expect(v.data).toMatchObject({ is_valid: true, referrer_username: 'support', remaining_uses: 2, used_count: 0, days_remaining: 30 });
    expect(
      (await h.call('referrals.generate', { as: 'support', body: { description: 'x', expiry_days: 30, usage_limit: 2 } })).status,
    ).toBe(400);
    expect(
      (await h.call('referrals.generate', { as: 'support', body: { description: 'xyz', expiry_days: 366, usage_limit: 2 } })).status,
    ).toBe(400);
    expect(
      (await h.call('referrals.generate', { as: 'support', body: { description: 'xyz', expiry_days: 3, usage_limit: 1001 } })).status,
    ).toBe(400);
  });

  it('validate is never an error status: unknown, expired, deactivated, exhausted', async () => {
    const h = await Harness.create();
    const unknown = await h.call('referrals.validate', { body: { referral_code: 'REF-NOPE99' } });
    expect(unknown.status).toBe(200);
    expect(unknown.data).toMatchObject({ is_valid: false, reason: 'not_found' });
    const g = await h.call('referrals.generate', { as: 'enduser', body: { description: 'Test code', expiry_days: 1, usage_limit: 1 } });
    const code = g.data.referral_code;
    const u1 = await newUser(h, 'first');
    expect((await h.call('referrals.use', { as: 'admin', body: { new_user_id: u1, referral_code: code } })).status).toBe(200);
    const exhausted = await h.call('referrals.validate', { body: { referral_code: code } });
    expect(exhausted.data).toMatchObject({ is_valid: false, reason: 'exhausted', error_code: 'REFERRAL_EXHAUSTED', remaining_uses: 0 });
    await h.call('referrals.update', { as: 'enduser', body: { referral_code_id: g.data.referral_id, new_usage_limit: 5 } });
    h.now = new Date(h.now.getTime() + 2 * 86_400_000);
    expect((await h.call('referrals.validate', { body: { referral_code: code } })).data).toMatchObject({
      is_valid: false,
      reason: 'expired',
    });
    h.now = new Date(h.now.getTime() - 2 * 86_400_000);
    await h.call('referrals.deactivate', { as: 'enduser', body: { referral_code_id: g.data.referral_id, reason: 'Posted on a forum' } });
    const off = await h.call('referrals.validate', { body: { referral_code: code } });
    expect(off.status).toBe(200);
    expect(off.data).toMatchObject({ is_valid: false, reason: 'inactive' });
    expect(off.data.message).toContain('Posted on a forum');
  });

  it('use: the new user must exist, is not the referrer, is referred once; limits and expiry are 400', async () => {
    const h = await Harness.create();
    const g = await h.call('referrals.generate', { as: 'enduser', body: { description: 'Two uses', expiry_days: 10, usage_limit: 2 } });
    const code = g.data.referral_code;
    const a = await newUser(h, 'alpha');
    const b = await newUser(h, 'bravo');
    const c = await newUser(h, 'charlie');
    expect((await h.call('referrals.use', { as: 'admin', body: { new_user_id: 999999, referral_code: code } })).status).toBe(404);
    const self = await h.call('referrals.use', { as: 'enduser', body: { new_user_id: 6, referral_code: code } });
    expect(self.status).toBe(400);
    expect(self.error!.code).toBe('SELF_REFERRAL');
    // A plain user records only their own use.
    expect((await h.call('referrals.use', { as: 'enduser', body: { new_user_id: a, referral_code: code } })).status).toBe(403);
    const ok = await h.call('referrals.use', { token: h.tokenFor('alpha'), body: { new_user_id: a, referral_code: code } });
    expect(ok.status).toBe(200);
    expect(ok.data).toMatchObject({ success: true, used_count: 1, remaining_uses: 1, referrer_id: 6 });
    const twice = await h.call('referrals.use', { as: 'admin', body: { new_user_id: a, referral_code: code } });
    expect(twice.status).toBe(409);
    expect(twice.error!.code).toBe('ALREADY_REFERRED');
    expect((await h.call('referrals.use', { as: 'admin', body: { new_user_id: b, referral_code: code } })).status).toBe(200);
    const full = await h.call('referrals.use', { as: 'admin', body: { new_user_id: c, referral_code: code } });
    expect(full.status).toBe(400);
    expect(full.error!.code).toBe('REFERRAL_EXHAUSTED');
    const row = h.db.prepare('SELECT used_count FROM referral_codes WHERE referral_id = ?').get(g.data.referral_id) as any;
    expect(row.used_count).toBe(2);
    const g2 = await h.call('referrals.generate', { as: 'enduser', body: { description: 'Short lived', expiry_days: 1, usage_limit: 5 } });
    h.now = new Date(h.now.getTime() + 86_400_001);
    const late = await h.call('referrals.use', { as: 'admin', body: { new_user_id: c, referral_code: g2.data.referral_code } });
    expect(late.status).toBe(400);
    expect(late.error!.code).toBe('REFERRAL_EXPIRED');
    expect(h.db.prepare('SELECT 1 FROM referral_uses WHERE new_user_id = ?').get(c)).toBeUndefined();
  });

  it('update and deactivate: owner or admin only; limits not below uses; future dates', async () => {
    const h = await Harness.create();
    const g = await h.call('referrals.generate', { as: 'agent', body: { description: 'Agent code', expiry_days: 10, usage_limit: 3 } });
    const id = g.data.referral_id;
    await h.call('referrals.use', { as: 'admin', body: { new_user_id: await newUser(h, 'delta'), referral_code: g.data.referral_code } });
    expect((await h.call('referrals.update', { as: 'enduser', body: { referral_code_id: id, new_usage_limit: 9 } })).status).toBe(403);
    expect((await h.call('referrals.update', { as: 'agent', body: { referral_code_id: 99999, new_usage_limit: 9 } })).status).toBe(404);
    expect((await h.call('referrals.update', { as: 'agent', body: { referral_code_id: id } })).status).toBe(400);
    expect((await h.call('referrals.update', { as: 'agent', body: { referral_code_id: id, new_usage_limit: 1 } })).status).toBe(200); // 1 use made
    const below = await h.call('referrals.update', { as: 'admin', body: { referral_code_id: id, new_usage_limit: 1 } });
    expect(below.status).toBe(200);
    expect((await h.call('referrals.update', { as: 'agent', body: { referral_code_id: id, new_expiry_date: '2020-01-01' } })).status).toBe(
      400,
    );
    const later = new Date(h.now.getTime() + 60 * 86_400_000).toISOString().slice(0, 10);
    const up = await h.call('referrals.update', {
      as: 'agent',
      body: { referral_code_id: id, new_usage_limit: 50, new_expiry_date: later },
    });
    expect(up.data).toMatchObject({ usage_limit: 50, expiry_date: `${later}T23:59:59.999Z`, status: 'active' });
    expect((await h.call('referrals.deactivate', { as: 'enduser', body: { referral_code_id: id, reason: 'not mine' } })).status).toBe(403);
    expect((await h.call('referrals.deactivate', { as: 'admin', body: { referral_code_id: id, reason: 'Abuse reported' } })).status).toBe(
      200,
    );
    expect((await h.call('referrals.deactivate', { as: 'agent', body: { referral_code_id: id, reason: 'again' } })).status).toBe(409);
    expect(h.audits.filter((a) => a.module === 'referrals').map((a) => a.action)).toEqual([
      'generate',
      'use',
      'update',
      'update',
      'update',
      'deactivate',
    ]);
  });
});

describe('referral lists and statistics', () => {
  it('mine: paged codes, include_inactive and search', async () => {
    const h = await Harness.create();
    await newUser(h, 'coder'); // no codes yet
    for (let i = 0; i < 12; i++)
      await h.call('referrals.generate', {
        as: 'coder',
        body: { description: `Batch ${i % 2 ? 'odd' : 'even'} #${i}`, expiry_days: 30, usage_limit: 5 },
      });
    const first = (await h.call('referrals.mine', { as: 'coder' })).data;
    expect(first.codes).toHaveLength(10);
    expect(first.pagination).toMatchObject({ current_page: 1, page_size: 10, total_records: 12, total_pages: 2, has_next_page: true });
    const odd = await h.call('referrals.mine', { as: 'coder', query: { search_keyword: 'odd' } });
    expect(odd.data.pagination.total_records).toBe(6);
    await h.call('referrals.deactivate', { as: 'coder', body: { referral_code_id: first.codes[0].referral_id, reason: 'Retired' } });
    expect((await h.call('referrals.mine', { as: 'coder' })).data.pagination.total_records).toBe(11);
    expect((await h.call('referrals.mine', { as: 'coder', query: { include_inactive: 'true' } })).data.pagination.total_records).toBe(12);
  });

  it('stats, info and referred users of the caller', async () => {
    const h = await Harness.create();
    const before = (await h.call('referrals.referred', { as: 'enduser' })).data.pagination.total_records;
    const u = await newUser(h, 'echo');
    await h.call('referrals.use', { as: 'admin', body: { new_user_id: u, referral_code: 'REF-EVE001' } });
    const ref = await h.call('referrals.referred', { as: 'enduser' });
    expect(ref.data.pagination.total_records).toBe(before + 1);
    expect(ref.data.referred_users[0]).toMatchObject({ username: 'echo', referral_code: 'REF-EVE001' });
    const stats = await h.call('referrals.stats', { as: 'enduser' });
    expect(stats.data.user_summary).toMatchObject({ user_id: 6, total_referrals: before + 1 });
    expect(stats.data.daily_stats.find((d: any) => d.date === h.now.toISOString().slice(0, 10)).referrals).toBeGreaterThanOrEqual(1);
    expect(stats.data.code_usage.find((c: any) => c.referral_code === 'REF-EVE001')).toBeTruthy();
    expect(Array.isArray(stats.data.monthly_stats)).toBe(true);
    const info = await h.call('referrals.info', { as: 'support', params: { user_id: '6' } });
    expect(info.data.user_details).toMatchObject({ username: 'enduser' });
    expect(info.data.codes.map((c: any) => c.referral_code)).toContain('REF-EVE001');
    const echoInfo = await h.call('referrals.info', { as: 'support', params: { user_id: String(u) } });
    expect(echoInfo.data.user_details.referred_by).toMatchObject({ referral_code: 'REF-EVE001', referrer_username: 'enduser' });
    expect((await h.call('referrals.info', { as: 'support', params: { user_id: '99999' } })).status).toBe(404);
    expect((await h.call('referrals.info', { as: 'enduser', params: { user_id: '6' } })).status).toBe(403);
  });

  it('search (staff: usable codes) and admin search (all codes)', async () => {
    const h = await Harness.create({ scale: 0.3 });
    const staff = await h.call('referrals.search', { as: 'agent', query: { page_size: '100' } });
    expect(staff.data.referral_codes.every((c: any) => c.status === 'active')).toBe(true);
    const admin = await h.call('referrals.admin-search', { as: 'admin', query: { page_size: '100' } });
    const total = (h.db.prepare('SELECT COUNT(*) AS n FROM referral_codes').get() as any).n;
    expect(admin.data.pagination.total_records).toBe(total);
    expect(new Set(admin.data.referral_codes.map((c: any) => c.status)).size).toBeGreaterThan(1);
    const eve = await h.call('referrals.admin-search', { as: 'admin', query: { search_keyword: 'eve001' } });
    expect(eve.data.referral_codes.map((c: any) => c.referral_code)).toEqual(['REF-EVE001']);
    expect((await h.call('referrals.admin-search', { as: 'support' })).status).toBe(403);
  });

  it('admin list: status and date filters, search, sort', async () => {
    const h = await Harness.create({ scale: 0.5 });
    const all = await h.call('referrals.admin-list', { as: 'admin', query: { page_size: '100' } });
    const total = (h.db.prepare('SELECT COUNT(*) AS n FROM referral_uses').get() as any).n;
    expect(all.data.pagination.total_records).toBe(total);
    expect(all.data.summary.total_referrals).toBe(total);
    const dates = all.data.referrals.map((r: any) => r.referral_date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const parts = await Promise.all(
      ['active', 'inactive', 'expired'].map(
        async (s) => (await h.call('referrals.admin-list', { as: 'admin', query: { filter_status: s } })).data.pagination.total_records,
      ),
    );
    expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
    const inactive = await h.call('referrals.admin-list', { as: 'admin', query: { filter_status: 'inactive', page_size: '100' } });
    expect(inactive.data.referrals.every((r: any) => r.code_status === 'inactive')).toBe(true);
    const day = (n: number) => new Date(h.now.getTime() - n * 86_400_000).toISOString().slice(0, 10);
    const ranged = await h.call('referrals.admin-list', {
      as: 'admin',
      query: { filter_date_from: day(300), filter_date_to: day(100), page_size: '100' },
    });
    expect(ranged.data.pagination.total_records).toBeGreaterThan(0);
    expect(
      ranged.data.referrals.every((r: any) => r.referral_date.slice(0, 10) >= day(300) && r.referral_date.slice(0, 10) <= day(100)),
    ).toBe(true);
    const byCode = await h.call('referrals.admin-list', {
      as: 'admin',
      query: { sort_by: 'ReferralCode', sort_order: 'ASC', page_size: '100' },
    });
    const codes = byCode.data.referrals.map((r: any) => r.referral_code);
    expect([...codes].sort()).toEqual(codes);
    const some = all.data.referrals[0];
    const found = await h.call('referrals.admin-list', { as: 'admin', query: { search_keyword: some.username } });
    expect(found.data.referrals.some((r: any) => r.user_id === some.user_id)).toBe(true);
  });

  it("admin referred users, a user's referred users and statistics over a period", async () => {
    const h = await Harness.create({ scale: 0.5 });
    const all = await h.call('referrals.admin-referred', { as: 'admin' });
    expect(all.data.summary.total_referred).toBe((h.db.prepare('SELECT COUNT(*) AS n FROM referral_uses').get() as any).n);
    const top = h.db
      .prepare('SELECT referrer_id, COUNT(*) AS n FROM referral_uses GROUP BY referrer_id ORDER BY n DESC LIMIT 1')
      .get() as any;
    const one = await h.call('referrals.admin-user-referred', { as: 'admin', params: { user_id: String(top.referrer_id) } });
    expect(one.data.pagination.total_records).toBe(top.n);
    expect(one.data.user_details.user_id).toBe(top.referrer_id);
    expect(one.data.referred_users.every((r: any) => r.referrer_id === top.referrer_id)).toBe(true);
    expect((await h.call('referrals.admin-user-referred', { as: 'admin', params: { user_id: '99999' } })).status).toBe(404);
    const stats = await h.call('referrals.admin-user-stats', {
      as: 'admin',
      params: { user_id: String(top.referrer_id) },
      query: { stats_period: '365' },
    });
    expect(stats.data.statistics.period_days).toBe(365);
    expect(stats.data.user_summary.total_referrals).toBe(top.n);
    const inPeriod = stats.data.daily_activity.reduce((s: number, d: any) => s + d.referrals, 0);
    expect(inPeriod).toBe(stats.data.statistics.referrals_in_period);
    const def = await h.call('referrals.admin-user-stats', { as: 'admin', params: { user_id: String(top.referrer_id) } });
    expect(def.data.statistics.period_days).toBe(30);
    expect(
      (await h.call('referrals.admin-user-stats', { as: 'admin', params: { user_id: '1' }, query: { stats_period: '0' } })).status,
    ).toBe(400);
  });
});
