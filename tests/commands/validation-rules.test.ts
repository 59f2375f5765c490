/**
 * One case per rule of both validation tables (the API documents' administrator area §5, the API documents' user, auth and CMS area
 * §5, plus the §9 bounds): the CLI exits 2, names the field, and sends nothing. The server
 * below answers everything with 200, so a request that slipped through would show.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli } from '../support/run-cli.js';

let server: StubServer;
beforeAll(async () => {
  server = await startStubServer(() => ok({}));
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const x = (n: number) => 'x'.repeat(n);
const svc =
  '--service-name S --service-type HYBRID --provider-name P --base-service-url https://x --access-pattern "/*" --credit-reset-cycle daily';
const svcCreate = (over: string) => `services create --service-code C ${svc} ${over}`;
const plan = (over: string) =>
  `plans create --plan-code P --plan-name N --price 1 --currency USD --duration 1 --duration-unit months --credit-amount 10 --credit-unit requests ${over}`;
const gen = (over: string) => `usage-codes generate --batch-id B123 --code-count 5 --expiration-days 30 --service-plan-id 3 ${over}`;
const manage = (over: string) => `subscriptions manage 42 --action extend --reason r ${over}`;

/** [rule, command line, field that must be named] */
const adminRules: Array<[string, string, string]> = [
  ['service access_pattern max 200', svcCreate(`--access-pattern ${x(201)}`), 'access_pattern'],
  ['service base_service_url max 500', svcCreate(`--base-service-url ${x(501)}`), 'base_service_url'],
  ['service credit_reset_cycle enum', svcCreate('--credit-reset-cycle hourly'), 'credit_reset_cycle'],
  ['service description max 1000', svcCreate(`--description ${x(1001)}`), 'description'],
  ['service provider_name max 100', svcCreate(`--provider-name ${x(101)}`), 'provider_name'],
  ['service service_code max 50', `services create --service-code ${x(51)} ${svc}`, 'service_code'],
  ['service service_name max 200', svcCreate(`--service-name ${x(201)}`), 'service_name'],
  ['service service_type enum', svcCreate('--service-type MONTHLY'), 'service_type'],
  ['service is_active boolean', svcCreate('--is-active maybe'), 'is_active'],
  ['service service_code required', `services create ${svc}`, 'service_code'],
  ['update service: same bounds, optional', `services update 7 --service-name ${x(201)}`, 'service_name'],
  ['update service: path id integer', 'services update seven --service-name S', 'id'],
  ['link service_code max 50', `service-plans create --service-code ${x(51)} --plan-code P`, 'service_code'],
  ['link plan_code max 50', `service-plans create --service-code S --plan-code ${x(51)}`, 'plan_code'],
  ['manage link action enum', 'service-plans manage --action explode --service-code S --plan-code P', 'action'],
  ['manage link plan_code max 50', `service-plans manage --action activate --service-code S --plan-code ${x(51)}`, 'plan_code'],
  ['update link plan_code max 50', `service-plans update --plan-code ${x(51)}`, 'plan_code'],
  ['update link new_plan_id integer', 'service-plans update --new-plan-id 1.5', 'new_plan_id'],
  ['plan plan_code max 50', plan(`--plan-code ${x(51)}`), 'plan_code'],
  ['plan plan_name max 200', plan(`--plan-name ${x(201)}`), 'plan_name'],
  ['plan price a number', plan('--price cheap'), 'price'],
  ['plan price at least 0', plan('--price -1'), 'price'],
  ['plan duration integer', plan('--duration 1.5'), 'duration'],
  ['plan duration_unit enum', plan('--duration-unit weeks'), 'duration_unit'],
  ['plan credit_amount integer', plan('--credit-amount lots'), 'credit_amount'],
  ['plan credit_unit enum', plan('--credit-unit bytes'), 'credit_unit'],
  ['plan max_usage_per_day integer', plan('--max-usage-per-day 2.5'), 'max_usage_per_day'],
  ['update plan: same bounds', `plans update 3 --plan-name ${x(201)}`, 'plan_name'],
  ['manage subscription action required', 'subscriptions manage 42 --reason r', 'action'],
  ['manage subscription action enum', 'subscriptions manage 42 --action refund --reason r', 'action'],
  ['manage subscription reason required', 'subscriptions manage 42 --action pause', 'reason'],
  ['manage subscription reason max 500', `subscriptions manage 42 --action pause --reason ${x(501)}`, 'reason'],
  ['manage subscription extend_days integer', manage('--extend-days ten'), 'extend_days'],
  ['manage subscription extend_credits integer', manage('--extend-credits 1.5'), 'extend_credits'],
  ['cleanup cleanup_expired_days >= 0', 'cleanup --cleanup-expired-days -1 --dry-run', 'cleanup_expired_days'],
  ['cleanup cleanup_inactive_tokens_days integer', 'cleanup --cleanup-inactive-tokens-days x --dry-run', 'cleanup_inactive_tokens_days'],
  ['cleanup cleanup_usage_logs_days >= 0', 'cleanup --cleanup-usage-logs-days -5 --dry-run', 'cleanup_usage_logs_days'],
  ['delete service_code max 50', `services delete --service-code ${x(51)} --yes`, 'service_code'],
  ['delete plan_code max 50', `plans delete --plan-code ${x(51)} --yes`, 'plan_code'],
  ['delete subscription_id integer', 'subscriptions delete --subscription-id abc --yes', 'subscription_id'],
  ['codes batch_id at least 3', gen('--batch-id AB'), 'batch_id'],
  ['codes batch_id at most 50', gen(`--batch-id ${x(51)}`), 'batch_id'],
  ['codes code_count max 1000', gen('--code-count 1001'), 'code_count'],
  ['codes code_count integer', gen('--code-count 2.5'), 'code_count'],
  ['codes code_prefix max 20', gen(`--code-prefix ${x(21)}`), 'code_prefix'],
  ['codes expiration_days max 365', gen('--expiration-days 366'), 'expiration_days'],
  ['codes service_plan_id integer', gen('--service-plan-id three'), 'service_plan_id'],
  ['date filters YYYY-MM-DD', 'subscriptions list --start-date-from 2026/01/01', 'start_date_from'],
  ['date filters real dates', 'wallet list --date-from 2026-02-30', 'date_from'],
  ['page_size max 100', 'services list --page-size 101', 'page_size'],
  ['page_number at least 1', 'plans list --page-number 0', 'page_number'],
  ['sort_order ASC|DESC', 'services list --sort-order UP', 'sort_order'],
  ['services sort fields', 'services list --sort-by Price', 'sort_by'],
  ['subscriptions sort fields', 'subscriptions list --sort-by ServiceName', 'sort_by'],
  ['plans sort fields', 'plans list --sort-by Duration', 'sort_by'],
  ['usage codes sort fields', 'usage-codes list --sort-by Expiry', 'sort_by'],
  ['wallet sort fields', 'wallet list --sort-by CreatedDate', 'sort_by'],
  ['service-plan sort fields', 'service-plans list --sort-by PlanName', 'sort_by'],
  ['payment method filter', 'subscriptions list --payment-method cash', 'payment_method'],
  ['subscription status filter', 'subscriptions list --status pending', 'status'],
  ['wallet transaction_type filter', 'wallet list --transaction-type gift', 'transaction_type'],
  ['plan list credit_unit filter has no hours', 'plans list --credit-unit hours', 'credit_unit'],
  ['service report type filter', 'services report --service-type HYBRID', 'service_type'],
  ['audit start_date YYYY-MM-DD', 'audit list --start-date 01-11-2026', 'start_date'],
  ['audit user id integer', 'audit user 1.5', 'id'],
];

const api = (method: string, path: string, fields: Record<string, string | number | boolean>) =>
  `api ${method} ${path} ${Object.entries(fields)
    .map(([k, v]) => `-f ${k}=${typeof v === 'string' && /\s/.test(v) ? `"${v}"` : String(v)}`)
    .join(' ')}`;
const ref = { description: 'partners', expiry_days: 30, usage_limit: 10 };
const profile = { full_name: 'Ann' };
const buy = { payment_method: 'WALLET' };
const topup = { amount: 10, payment_method: 'card' };
const use = { service_code: 'GPT4', usage_amount: 1, usage_type: 'api_call' };

const userRules: Array<[string, string, string]> = [
  ['referral description at least 3', api('POST', '/cms/referral/generate', { ...ref, description: 'ab' }), 'description'],
  ['referral description at most 255', api('POST', '/cms/referral/generate', { ...ref, description: x(256) }), 'description'],
  ['referral expiry_days 1-365', api('POST', '/cms/referral/generate', { ...ref, expiry_days: 366 }), 'expiry_days'],
  ['referral expiry_days at least 1', api('POST', '/cms/referral/generate', { ...ref, expiry_days: 0 }), 'expiry_days'],
  ['referral usage_limit 1-1000', api('POST', '/cms/referral/generate', { ...ref, usage_limit: 1001 }), 'usage_limit'],
  ['deactivate reason 3-255', api('DELETE', '/cms/referral/deactivate', { referral_code_id: 1, reason: 'no' }), 'reason'],
  [
    'deactivate referral_code_id min 1',
    api('DELETE', '/cms/referral/deactivate', { referral_code_id: 0, reason: 'spam' }),
    'referral_code_id',
  ],
  ['use new_user_id min 1', api('POST', '/cms/referral/use', { new_user_id: 0, referral_code: 'REF-1' }), 'new_user_id'],
  ['use referral_code 3-50', api('POST', '/cms/referral/use', { new_user_id: 5, referral_code: 'RF' }), 'referral_code'],
  ['validate referral_code 3-50', api('POST', '/cms/referral/validate', { referral_code: x(51) }), 'referral_code'],
  ['update referral_code_id min 1', api('PUT', '/cms/referral/update', { referral_code_id: 0 }), 'referral_code_id'],
  ['update new_usage_limit 1-1000', api('PUT', '/cms/referral/update', { referral_code_id: 1, new_usage_limit: 1001 }), 'new_usage_limit'],
  [
    'update new_expiry_date a date',
    api('PUT', '/cms/referral/update', { referral_code_id: 1, new_expiry_date: 'soon' }),
    'new_expiry_date',
  ],
  ['generate verification type', api('POST', '/cms/users/generate-verification', { type: 'fax' }), 'type'],
  ['verify code 4-10 chars', api('POST', '/cms/users/verify', { code: 'abc', type: 'email' }), 'code'],
  ['verify type', api('POST', '/cms/users/verify', { code: 'abcd', type: 'pigeon' }), 'type'],
  [
    'cms reset new_password min 8',
    api('POST', '/cms/auth/reset-password-token', { reset_token: 't', new_password: 'short' }),
    'new_password',
  ],
  ['cms reset reset_token required', api('POST', '/cms/auth/reset-password-token', { new_password: 'long-enough' }), 'reset_token'],
  ['cms login username required', api('POST', '/cms/auth/login', { password: 'pw' }), 'username'],
  ['cms login password required', api('POST', '/cms/auth/login', { username: 'u' }), 'password'],
  ['register email required', api('POST', '/cms/auth/register', { username: 'u', password: 'pw' }), 'email'],
  ['register username required', api('POST', '/cms/auth/register', { email: 'a@b.c', password: 'pw' }), 'username'],
  ['register password required', api('POST', '/cms/auth/register', { email: 'a@b.c', username: 'u' }), 'password'],
  ['role role_name 2-50', api('POST', '/cms/roles', { role_name: 'r', display_name: 'Role' }), 'role_name'],
  ['role display_name 2-100', api('POST', '/cms/roles', { role_name: 'rr', display_name: x(101) }), 'display_name'],
  ['profile full_name required', api('PUT', '/cms/users/profile', { city: 'Oslo' }), 'full_name'],
  ['profile full_name max 100', api('PUT', '/cms/users/profile', { full_name: x(101) }), 'full_name'],
  ['profile address max 255', api('PUT', '/cms/users/profile', { ...profile, address: x(256) }), 'address'],
  ['profile city max 100', api('PUT', '/cms/users/profile', { ...profile, city: x(101) }), 'city'],
  ['profile country max 100', api('PUT', '/cms/users/profile', { ...profile, country: x(101) }), 'country'],
  ['profile postal_code max 20', api('PUT', '/cms/users/profile', { ...profile, postal_code: x(21) }), 'postal_code'],
  [
    'profile profile_picture_url max 500',
    api('PUT', '/cms/users/profile', { ...profile, profile_picture_url: x(501) }),
    'profile_picture_url',
  ],
  ['profile phone_number 10-20', api('PUT', '/cms/users/profile', { ...profile, phone_number: '+47-12' }), 'phone_number'],
  ['profile gender enum', api('PUT', '/cms/users/profile', { ...profile, gender: 'Robot' }), 'gender'],
  ['profile date_of_birth YYYY-MM-DD', api('PUT', '/cms/users/profile', { ...profile, date_of_birth: '1990-13-01' }), 'date_of_birth'],
  ['activate activation_code max 100', api('POST', '/user/codes/activate', { activation_code: x(101) }), 'activation_code'],
  ['activate service_code max 50', api('POST', '/user/codes/activate', { activation_code: 'C', service_code: x(51) }), 'service_code'],
  ['buy payment_method enum', api('POST', '/user/subscriptions/buy', { payment_method: 'CASH' }), 'payment_method'],
  ['buy gateway_name enum', api('POST', '/user/subscriptions/buy', { ...buy, gateway_name: 'BITPAY' }), 'gateway_name'],
  ['buy plan_code max 50', api('POST', '/user/subscriptions/buy', { ...buy, plan_code: x(51) }), 'plan_code'],
  ['buy service_code max 50', api('POST', '/user/subscriptions/buy', { ...buy, service_code: x(51) }), 'service_code'],
  ['generate access service_code 2-50', api('POST', '/user/services/generate-access', { service_code: 'G' }), 'service_code'],
  ['auto-renewal subscription_id required', api('PUT', '/user/subscriptions/auto-renewal', { auto_renewal: true }), 'subscription_id'],
  [
    'auto-renewal payment_method enum',
    api('PUT', '/user/subscriptions/auto-renewal', { subscription_id: 1, payment_method: 'crypto' }),
    'payment_method',
  ],
  ['top up amount a number', api('POST', '/user/wallet/topup', { ...topup, amount: 'ten' }), 'amount'],
  ['top up payment_method enum', api('POST', '/user/wallet/topup', { ...topup, payment_method: 'cash' }), 'payment_method'],
  [
    'top up transaction_reference max 100',
    api('POST', '/user/wallet/topup', { ...topup, transaction_reference: x(101) }),
    'transaction_reference',
  ],
  ['use service_code max 50', api('POST', '/user/services/use', { ...use, service_code: x(51) }), 'service_code'],
  ['use usage_amount integer', api('POST', '/user/services/use', { ...use, usage_amount: 1.5 }), 'usage_amount'],
  ['use usage_type enum', api('POST', '/user/services/use', { ...use, usage_type: 'stream' }), 'usage_type'],
  ['use response_time min 0', api('POST', '/user/services/use', { ...use, response_time: -1 }), 'response_time'],
  ['superadmin list page_number min 1', 'api GET /cms/superadmin/users -f page_number=0', 'page_number'],
  ['superadmin list page_size max 100', 'api GET /cms/superadmin/users -f page_size=101', 'page_size'],
  ['create user email required', api('POST', '/users', { password: 'pw', role: 'user', username: 'u' }), 'email'],
  ['create user role required', api('POST', '/users', { email: 'a@b.c', password: 'pw', username: 'u' }), 'role'],
  // A number as raw JSON (`-f k=5` is typed by the contract: a text field keeps '5').
  [
    'create user username a string',
    `${api('POST', '/users', { email: 'a@b.c', password: 'pw', role: 'user' })} -f username:=5`,
    'username',
  ],
  ['update user user_id integer required', api('PUT', '/users/5', { full_name: 'A' }), 'user_id'],
  ['users path id integer', 'api GET /users/abc', 'id'],
  ['list users page integer', 'api GET /users -f page=first', 'page'],
  ['list users page_size integer', 'api GET /users -f page_size=1.5', 'page_size'],
];

describe.each([
  ['admin area', adminRules],
  ['user, auth and CMS area', userRules],
])('validation rules of the %s', (_area, rules) => {
  it.each(rules)('%s: exit 2, names the field, sends nothing', async (_rule, line, field) => {
    const r = await runCli(line, { env: { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' } });
    expect(r.stderr).toContain(field);
    expect(r.stderr).toMatch(/^error: invalid input/m);
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

describe('what the message says', () => {
  it('a missing value says "required" with what is expected; a wrong one keeps the rule it breaks', async () => {
    const env = { SUBCTL_BASE_URL: server.url, SUBCTL_TOKEN: 't' };
    const missing = await runCli('services create --service-code C', { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('service_name (--service-name): required: expected string\n');
    expect(missing.stderr).toContain('service_type (--service-type): required: expected one of "TIME_BASED"|"USAGE_BASED"|"HYBRID"\n');
    const wrong = await runCli(svcCreate('--service-type MONTHLY --is-active maybe'), { env });
    expect(wrong.stderr).toContain('service_type (--service-type): Invalid option: expected one of "TIME_BASED"|"USAGE_BASED"|"HYBRID"\n');
    expect(wrong.stderr).not.toContain('required');
    // A bulk row names its line the same way.
    const bulk = await runCli('subscriptions manage --from-csv - --yes', { env, stdin: 'subscription_id,action\n42,extend\n' });
    expect(bulk.code).toBe(2);
    expect(bulk.stderr).toContain('line 2: reason (--reason): required: expected string\n');
    expect(server.requests).toHaveLength(0);
  });
});
