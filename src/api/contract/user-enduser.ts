/**
 * The end-user area (the API documents' user, auth and CMS area, "End-user area"): available services
 * and plans, access checks, subscriptions, the wallet, buying, codes and service use. 12 endpoints.
 */
import { z } from './z.js';
import { anything, bool, dateTime, endpoint, lazy, listOf, loose, num, q, str } from './common.js';

export const BuyPaymentMethod = lazy(() => z.enum(['PAYMENT', 'WALLET', 'FREE']));
export const PaymentGateway = lazy(() => z.enum(['VNPAY', 'STRIPE', 'PAYPAL', 'MOMO']));
/** Top-up and auto-renewal payment methods (point 9). */
export const WalletPaymentMethod = lazy(() => z.enum(['card', 'bank', 'paypal']));
export const UsageType = lazy(() => z.enum(['api_call', 'generate', 'analyze']));
export const EndUserSubscriptionStatus = lazy(() => z.enum(['active', 'expired', 'cancelled', 'paused', 'all']));

const serviceCode = () => z.string().max(50);

// ---------------------------------------------------------------------------------------------
// Responses

export const EndUserSubscription = lazy(() =>
  loose({
    activation_code: str(),
    auto_renewal: bool(),
    created_date: dateTime(),
    currency: str(),
    days_remaining: num(),
    duration: num(),
    duration_unit: str(),
    end_date: dateTime(),
    is_currently_active: bool(),
    is_expired: bool(),
    last_reset_date: dateTime(),
    last_updated: dateTime(),
    last_usage_date: dateTime(),
    next_reset_date: dateTime(),
    payment_method: str(),
    plan_code: str(),
    plan_name: str(),
    price: num(),
    provider_name: str(),
    remaining_credits: num(),
    renewal_count: num(),
    service_code: str(),
    service_name: str(),
    service_type: str(),
    start_date: dateTime(),
    status: str(),
    subscription_id: num(),
    total_credits: num(),
    total_usage_count: num(),
    usage_today: num(),
    used_credits: num(),
    user_id: num(),
  }),
);

export const AvailablePlan = lazy(() =>
  loose({
    created_date: dateTime(),
    credit_amount: num(),
    credit_unit: str(),
    credits_per_day: num(),
    currency: str(),
    default_auto_renewal: bool(),
    duration: num(),
    duration_unit: str(),
    is_current_plan: bool(),
    max_usage_per_day: num(),
    plan_code: str(),
    plan_id: num(),
    plan_name: str(),
    price: num(),
    price_per_day: num(),
  }),
);

export const AvailableService = lazy(() =>
  loose({
    available_plans_count: num(),
    created_date: dateTime(),
    credit_reset_cycle: str(),
    current_plan_name: str(),
    current_subscription_end_date: dateTime(),
    current_subscription_id: num(),
    description: str(),
    has_active_subscription: bool(),
    max_price: num(),
    min_price: num(),
    provider_name: str(),
    requires_auth: bool(),
    service_code: str(),
    service_id: num(),
    service_name: str(),
    service_type: str(),
  }),
);

export const BuyResult = lazy(() =>
  loose({
    auto_renewal: bool(),
    credits_granted: num(),
    expires_at: dateTime(),
    gateway_name: str(),
    message: str(),
    order_id: z.union([str(), num()]),
    payment_method: str(),
    payment_reference: str(),
    payment_status: str(),
    payment_url: str(),
    subscription_id: num(),
    success: bool(),
    total_cost: num(),
  }),
);

export const AccessCheck = lazy(() =>
  loose({
    access_reason: str(),
    daily_limit_remaining: num(),
    has_access: bool(),
    message: str(),
    remaining_credits: num(),
    subscription_status: str(),
  }),
);

export const ActivateResult = lazy(() =>
  loose({
    credits_added: num(),
    expiry_date: dateTime(),
    message: str(),
    service_type: str(),
    subscription_id: num(),
    success: bool(),
  }),
);

export const GenerateAccessResult = lazy(() => loose({ message: str(), service_url: str(), success: bool() }));
export const TopUpResult = lazy(() =>
  loose({ message: str(), new_balance: num(), success: bool(), transaction_id: z.union([str(), num()]) }),
);
export const UseResult = lazy(() =>
  loose({ message: str(), remaining_credits: num(), success: bool(), usage_id: z.union([str(), num()]) }),
);
export const WalletInfo = lazy(() => loose({ balance: num(), currency: str(), last_topup_date: dateTime(), message: str() }));

// ---------------------------------------------------------------------------------------------
// Reads

export const meServices = endpoint({
  name: 'me.services',
  area: 'user',
  method: 'GET',
  path: '/user/services/available',
  summary: 'Services the caller can subscribe to, with price range and current subscription',
  // Service types shown to users are a second vocabulary (AI, Analytics, API, Tools): free text.
  schemas: () => ({
    query: z.object({ service_type: z.string().max(50).optional(), show_subscribed: q.bool().optional() }),
    response: listOf(AvailableService()),
  }),
  access: 'user',
});

export const mePlans = endpoint({
  name: 'me.plans',
  area: 'user',
  method: 'GET',
  path: '/user/plans/available',
  summary: 'Plans the caller can buy, for one service or all',
  schemas: () => ({
    query: z.object({ service_code: serviceCode().optional() }),
    response: listOf(AvailablePlan()),
  }),
  access: 'user',
});

export const meAccess = endpoint({
  name: 'me.access',
  area: 'user',
  method: 'GET',
  path: '/user/services/access',
  summary: 'Whether the caller may use a service now, and what remains',
  schemas: () => ({
    query: z.object({ service_code: serviceCode(), requested_usage: q.int({ min: 1 }).optional() }),
    response: AccessCheck(),
  }),
  access: 'user',
});

export const meSubscriptions = endpoint({
  name: 'me.subscriptions',
  area: 'user',
  method: 'GET',
  path: '/user/subscriptions',
  summary: "The caller's subscriptions, by status and service",
  schemas: () => ({
    query: z.object({ status: EndUserSubscriptionStatus().optional(), service_code: serviceCode().optional() }),
    response: listOf(EndUserSubscription()),
  }),
  access: 'user',
});

export const meWallet = endpoint({
  name: 'me.wallet',
  area: 'user',
  method: 'GET',
  path: '/user/wallet',
  summary: "The caller's wallet balance",
  schemas: () => ({
    response: WalletInfo(),
  }),
  access: 'user',
});

export const meTestServices = endpoint({
  name: 'me.test-services',
  area: 'user',
  method: 'GET',
  path: '/test/services',
  summary: 'Test listing of services (no sign-in needed)',
  schemas: () => ({
    response: anything(),
  }),
  access: 'public',
});

// ---------------------------------------------------------------------------------------------
// Actions

export const meBuy = endpoint({
  name: 'me.buy',
  area: 'user',
  method: 'POST',
  path: '/user/subscriptions/buy',
  summary: 'Buy a subscription by payment, from the wallet, or free',
  schemas: () => ({
    body: z.object({
      payment_method: BuyPaymentMethod(),
      gateway_name: PaymentGateway().optional(),
      plan_code: z.string().max(50).optional(),
      service_code: serviceCode().optional(),
      service_plan_id: z.number().int().optional(),
      auto_renewal: z.boolean().optional(),
    }),
    response: BuyResult(),
  }),
  access: 'user',
});

export const meGenerateAccess = endpoint({
  name: 'me.generate-access',
  area: 'user',
  method: 'POST',
  path: '/user/services/generate-access',
  summary: 'Generate an access URL for a subscribed service',
  schemas: () => ({
    body: z.object({ service_code: z.string().min(2).max(50) }),
    response: GenerateAccessResult(),
  }),
  access: 'user',
});

export const meUse = endpoint({
  name: 'me.use',
  area: 'user',
  method: 'POST',
  path: '/user/services/use',
  summary: 'Record a use of a service, spending credits',
  schemas: () => ({
    body: z.object({
      service_code: serviceCode(),
      usage_amount: z.number().int().min(1),
      usage_type: UsageType(),
      response_time: z.number().min(0).optional(),
    }),
    response: UseResult(),
  }),
  access: 'user',
});

export const meActivate = endpoint({
  name: 'me.activate',
  area: 'user',
  method: 'POST',
  path: '/user/codes/activate',
  summary: 'Activate a usage code',
  schemas: () => ({
    body: z.object({ activation_code: z.string().min(1).max(100), service_code: serviceCode().optional() }),
    response: ActivateResult(),
  }),
  access: 'user',
});

export const meTopup = endpoint({
  name: 'me.topup',
  area: 'user',
  method: 'POST',
  path: '/user/wallet/topup',
  summary: "Top up the caller's wallet",
  schemas: () => ({
    body: z.object({
      amount: z.number().positive(),
      payment_method: WalletPaymentMethod(),
      transaction_reference: z.string().max(100).optional(),
      payment_data: z.record(z.string(), z.unknown()).optional(),
    }),
    response: TopUpResult(),
  }),
  access: 'user',
});

export const meAutoRenewal = endpoint({
  name: 'me.auto-renewal',
  area: 'user',
  method: 'PUT',
  path: '/user/subscriptions/auto-renewal',
  summary: "Turn a subscription's auto-renewal on or off",
  schemas: () => ({
    body: z.object({
      subscription_id: z.number().int(),
      auto_renewal: z.boolean().optional(),
      payment_method: WalletPaymentMethod().optional(),
    }),
    response: anything(),
  }),
  access: 'user',
});

export const endUserEndpoints = [
  meServices,
  mePlans,
  meAccess,
  meSubscriptions,
  meWallet,
  meTestServices,
  meBuy,
  meGenerateAccess,
  meUse,
  meActivate,
  meTopup,
  meAutoRenewal,
];
