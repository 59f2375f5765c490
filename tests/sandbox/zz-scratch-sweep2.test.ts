import { it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { endpointByName } from '../../src/api/contract/index.js';
import { startTestSandbox } from '../support/sandbox.js';

it('sweep2', async () => {
  const sb = await startTestSandbox();
  const mk = (u: string, o: any = {}) => new ApiClient({ baseUrl: sb.url, token: sb.tokenFor(u), retries: 0, ...o });
  const sa = mk('superadmin'); const ad = mk('admin'); const eu = mk('enduser');
  const out: string[] = [];
  const t = async (c: ApiClient, name: string, input: any = {}) => {
    try { const r = await c.callFull(endpointByName(name), input); out.push(`ok ${name} ${JSON.stringify(r.data).slice(0, 160)}`); return r.data as any; }
    catch (e: any) { out.push(`ERR ${name} ${JSON.stringify(input).slice(0, 120)} ${e.constructor.name} ${e.status} ${e.message} ${JSON.stringify(e.details ?? '').slice(0, 300)}`); }
  };
  const anonDev = new ApiClient({ baseUrl: sb.url, retries: 0, deviceId: 'd-1' });
  await t(anonDev, 'cms.auth.register', { body: { username: 'refd', email: 'refd@x.test', password: 'Password1', referral_code: 'REF-EVE001', phone_number: '+351900000000', address: 'Rua 1' } });
  await t(anonDev, 'cms.auth.login', { body: { username: 'admin', password: 'sandbox-admin' } });
  await t(ad, 'auth.logout', { body: { user_id: 7 } });
  const tok = sb.tokenFor('agent');
  await t(ad, 'auth.logout', { body: { token: tok } });
  await t(sa, 'users.create', { body: { username: 'sa2', email: 'sa2@x.test', password: 'p', role: 'superadmin' } });
  await t(sa, 'users.update', { params: { id: 20 }, body: { user_id: 20, status: 'Banned', role: 'agent' } });
  await t(ad, 'roles.update', { params: { role_id: 8 }, body: { is_active: false } });
  await t(ad, 'roles.assign', { params: { user_id: 30 }, body: { new_role: 'support', notes: 'n' } });
  await t(ad, 'roles.promote', { params: { user_id: 30 }, body: { new_role: 'manager' } });
  await t(ad, 'roles.demote', { params: { user_id: 30 }, body: { new_role: 'agent' } });
  const gen = await t(ad, 'usage-codes.generate', { body: { batch_id: 'BB-1', code_count: 2, expiration_days: 5, service_plan_id: 3 } });
  await t(eu, 'me.activate', { body: { activation_code: gen.codes[0].code_value } });
  const gen2 = await t(ad, 'usage-codes.generate', { body: { batch_id: 'BB-2', code_count: 1, expiration_days: 5, service_plan_id: 27 } });
  await t(eu, 'me.activate', { body: { activation_code: gen2.codes[0].code_value, service_code: 'TTS-HD' } });
  await t(eu, 'me.auto-renewal', { body: { subscription_id: 1915, payment_method: 'paypal' } });
  await t(eu, 'me.topup', { body: { amount: 10.005, payment_method: 'bank', payment_data: { iban: 'x' } } });
  await t(eu, 'referrals.update', { body: { referral_code_id: 1, new_expiry_date: '2030-01-01' } });
  await t(ad, 'referrals.deactivate', { body: { referral_code_id: 1, reason: 'admin says' } });
  await t(ad, 'referrals.use', { body: { new_user_id: 30, referral_code: 'REF-EVE001' } });
  const fresh = await t(ad, 'users.create', { body: { username: 'f1', email: 'f1@x.test', password: 'p', role: 'user' } });
  const fl = new ApiClient({ baseUrl: sb.url, retries: 0 });
  const lg = await t(fl, 'auth.login', { body: { username: 'f1@x.test', password: 'p' } });
  const cs = await t(new ApiClient({ baseUrl: sb.url, retries: 0, deviceId: 'dd' }), 'cms.auth.login', { body: { username: 'f1', password: 'p' } });
  const fc = new ApiClient({ baseUrl: sb.url, retries: 0, token: cs.token, sessionId: cs.session_id });
  await t(fc, 'profile.get'); await t(fc, 'profile.update', { body: { full_name: 'F One', phone_number: '+4412345678901' } }); await t(fc, 'profile.get');
  const dl = await t(fc, 'devices.list'); await t(fc, 'devices.remove', { params: { id: String(dl.devices[0].id ?? dl.devices[0].device_id) } });
  await t(fc, 'cms.verification.generate', { body: { type: 'sms' } });
  await t(sa, 'users.delete', { params: { id: fresh.user_id } });
  await t(sa, 'cms.auth.logout');
  console.log(out.join('\n'));
  await sb.close();
}, 600_000);
