import { it, expect } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { endpointByName, endpoints } from '../../src/api/contract/index.js';
import { describeObject } from '../../src/api/contract/common.js';
import { startTestSandbox } from '../support/sandbox.js';

it('sweep', async () => {
  const sb = await startTestSandbox();
  const mk = (u: string) => new ApiClient({ baseUrl: sb.url, token: sb.tokenFor(u), retries: 0 });
  const sa = mk('superadmin');
  const problems: string[] = []; let ok = 0; const other: string[] = [];
  const tryCall = async (c: ApiClient, name: string, input: any) => {
    try { await c.callFull(endpointByName(name), input); ok++; }
    catch (e: any) { other.push(`${name} ${JSON.stringify(input).slice(0,150)} ${e.status} ${e.message}`);
      const tag = e.constructor?.name;
      if (tag === 'BadResponseError' || (e.status ?? 0) >= 500) problems.push(`${name} ${JSON.stringify(input)} -> ${tag}: ${e.message} ${JSON.stringify(e.details ?? '').slice(0, 400)}`);
    }
  };
  // every GET endpoint with each enum value of each query field
  for (const ep of endpoints.filter((e) => e.method === 'GET')) {
    const ids: any = {};
    for (const m of ep.path.matchAll(/\{([^}]+)\}/g)) ids[m[1]] = m[1] === 'role' ? 'user' : 6;
    await tryCall(sa, ep.name, { params: ids, query: {} });
    for (const [k, f] of describeObject(ep.query)) {
      const vals: unknown[] = f.kind === 'enum' ? [...(f.values ?? [])] : f.kind === 'boolean' ? [true, false] : [];
      for (const v of vals) await tryCall(sa, ep.name, { params: ids, query: { [k]: v } });
      if (k === 'sort_by') for (const v of f.values ?? []) await tryCall(sa, ep.name, { params: ids, query: { sort_by: v, sort_order: 'ASC' } });
    }
  }
  const ids = (sql: string) => sb.db.prepare(sql).all().map((r: any) => Object.values(r)[0]);
  for (const id of ids('SELECT service_id FROM services')) await tryCall(sa, 'services.detail', { query: { service_id: id } });
  for (const id of ids('SELECT service_plan_id FROM service_plans')) await tryCall(sa, 'service-plans.detail', { params: { id } });
  const users = ids('SELECT user_id FROM users ORDER BY user_id LIMIT 120');
  for (const id of users) {
    await tryCall(sa, 'users.get', { params: { id } });
    await tryCall(sa, 'roles.of', { params: { user_id: id } });
    await tryCall(sa, 'referrals.info', { params: { user_id: id } });
    await tryCall(sa, 'audit.user', { params: { id } });
    await tryCall(sa, 'referrals.admin-user-referred', { params: { user_id: id } });
    await tryCall(sa, 'referrals.admin-user-stats', { params: { user_id: id } });
  }
  // per-user views
  const active = sb.db.prepare("SELECT username FROM users WHERE status NOT IN ('Banned','Inactive') ORDER BY user_id LIMIT 120").all().map((r: any) => r.username);
  for (const u of active) {
    const c = mk(u);
    for (const n of ['profile.get', 'devices.list', 'me.services', 'me.plans', 'me.subscriptions', 'me.wallet', 'referrals.mine', 'referrals.stats', 'referrals.referred']) await tryCall(c, n, {});
    await tryCall(c, 'devices.list', { query: { include_inactive: true } });
    await tryCall(c, 'me.subscriptions', { query: { status: 'all' } });
    await tryCall(c, 'referrals.mine', { query: { include_inactive: true } });
    for (const sc of ids('SELECT service_code FROM services')) await tryCall(c, 'me.access', { query: { service_code: sc } });
  }
  const eu = mk('enduser');
  for (const body of [
    { payment_method: 'PAYMENT', gateway_name: 'STRIPE', service_plan_id: 3 },
    { payment_method: 'FREE', service_plan_id: 8 },
    { payment_method: 'WALLET', service_code: 'DALLE', plan_code: 'DAY-PASS' },
    { payment_method: 'WALLET', plan_code: 'MINUTES-100', service_code: 'WHISPER', auto_renewal: true },
  ]) await tryCall(eu, 'me.buy', { body });
  for (const sc of ['DALLE', 'GPT4', 'CLAUDE3']) {
    await tryCall(eu, 'me.use', { body: { service_code: sc, usage_amount: 1, usage_type: 'api_call' } });
    await tryCall(eu, 'me.generate-access', { body: { service_code: sc } });
  }
  await tryCall(eu, 'referrals.validate', { body: { referral_code: 'NOPE-123' } });
  await tryCall(sa, 'referrals.validate', { body: { referral_code: 'REF-EVE001' } });
  for (const p of ids('SELECT plan_id FROM subscription_plans')) await tryCall(sa, 'plans.update', { params: { id: p }, body: { plan_name: 'x' + p } });
  for (const p of ids('SELECT service_id FROM services')) await tryCall(sa, 'services.update', { params: { id: p }, body: { description: 'd' } });
  for (const p of ids('SELECT service_plan_id FROM service_plans LIMIT 10')) await tryCall(sa, 'service-plans.update', { body: { service_plan_id: p, is_available: true } });
  for (const sid of ids("SELECT subscription_id FROM subscriptions WHERE status IN ('active') LIMIT 5")) for (const a of [['pause'], ['resume'], ['add_credits'], ['extend'], ['cancel']]) await tryCall(sa, 'subscriptions.manage', { params: { id: sid }, body: { action: a[0], reason: 'r', extend_days: 1, extend_credits: 1 } });
  await tryCall(sa, 'cleanup.run', { body: { dry_run: false } });
  await tryCall(sa, 'subscriptions.delete', { body: { user_id: 6, service_id: 1, force_delete: true, delete_related_data: true } });
  await tryCall(sa, 'services.delete', { body: { service_code: 'GPT4', delete_related_data: true } });
  await tryCall(sa, 'plans.delete', { body: { plan_code: 'PRO-M', force_delete: true } });
  await tryCall(sa, 'service-plans.delete', { body: { plan_id: 1, service_id: 2, delete_related_data: true } });
  for (const a of ['deactivate', 'activate', 'delete']) await tryCall(sa, 'service-plans.manage', { body: { action: a, service_code: 'DALLE', plan_code: 'DAY-PASS' } });
  await tryCall(sa, 'usage-codes.generate', { body: { batch_id: 'B-1', code_count: 5, expiration_days: 1, service_plan_id: 20 } });
  await tryCall(sa, 'usage-codes.list', { query: { include_summary: false } });
  await tryCall(sa, 'dashboard.get', {});
  console.log(problems.join('\n'));
  console.log('problems', problems.length, 'ok', ok, 'other', other.length); console.log(other.slice(0,80).join('\n'));
  await sb.close();
}, 600_000);
