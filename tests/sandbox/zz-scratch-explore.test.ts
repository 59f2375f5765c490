import { it } from 'vitest';
import { startTestSandbox } from '../support/sandbox.js';
it('explore', async () => {
  const sb = await startTestSandbox();
  const q = (s: string, ...a: unknown[]) => console.log(s, '\n', JSON.stringify(sb.db.prepare(s).all(...a)));
  q('SELECT user_id, username, role, status, wallet_balance, wallet_currency FROM users WHERE user_id <= 8');
  q('SELECT COUNT(*) n FROM users');
  q('SELECT service_id, service_code, service_type, is_active FROM services LIMIT 40');
  q('SELECT plan_id, plan_code, price, currency, is_active, credit_amount, max_usage_per_day, duration, duration_unit FROM subscription_plans LIMIT 40');
  q('SELECT sp.service_plan_id, s.service_code, p.plan_code, sp.is_available, p.price, p.currency FROM service_plans sp JOIN services s USING(service_id) JOIN subscription_plans p USING(plan_id) LIMIT 60');
  q("SELECT subscription_id, service_id, plan_id, status, end_date FROM subscriptions WHERE user_id = 6");
  q("SELECT * FROM referral_codes WHERE user_id = 6");
  q("SELECT role_id, role_name, is_system_role, is_active, priority FROM roles");
  q("SELECT * FROM devices WHERE user_id IN (1,2,6)");
  q("SELECT COUNT(*) n FROM referral_uses");
  q("SELECT ru.referrer_id, COUNT(*) n FROM referral_uses ru GROUP BY referrer_id ORDER BY n DESC LIMIT 5");
  await sb.close();
});
