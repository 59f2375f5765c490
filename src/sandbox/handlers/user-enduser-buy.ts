/**
 * The end user's money: buying a plan (FREE, from the WALLET, or a PAYMENT order the sandbox
 * never completes), topping the wallet up, and turning auto-renewal on or off.
 *
 * Every write that first reads runs in an IMMEDIATE transaction: two processes sharing the
 * data file serialise on the write lock instead of both reading the same state.
 */
import { builtin } from '../../builtin.js';
import { addMoney, MAX_BALANCE } from '../limits.js';
import { SandboxError, type AuthUser, type Handler, type HandlerContext, type HandlerResult } from '../types.js';
import { bool, caller, nowIso } from './user-common.js';
import { insertSubscription, planEnd, resolveOffer, round2, type LinkRow, type SubRow } from './user-enduser-common.js';

/** The largest top-up (README-decisions-user.md): balances stay exact to the cent well below 2^53 cents. */
const MAX_TOPUP = 1_000_000_000;

/** Where the sandbox sends PAYMENT purchases (no real gateway is involved). */
export const PAYMENT_URL_BASE = 'https://pay.sandbox.local';

/** A PAYMENT purchase: an order left PENDING at a payment URL; no subscription exists until it is paid (never, in the sandbox). */
function buyByPayment(ctx: HandlerContext, me: AuthUser, b: HandlerContext['body'], at: string): HandlerResult {
  if (!b.gateway_name)
    throw new SandboxError(400, 'gateway_name is required for PAYMENT', 'GATEWAY_REQUIRED', [
      { field: 'gateway_name', message: 'required' },
    ]);
  const link = resolveOffer(ctx.db, b);
  const orderId = `ORD-${Date.parse(at).toString(36).toUpperCase()}-${builtin('node:crypto').randomBytes(4).toString('hex').toUpperCase()}`;
  const url = `${PAYMENT_URL_BASE}/${b.gateway_name.toLowerCase()}/${orderId}`;
  ctx.db
    .prepare(
      `INSERT INTO payment_orders (order_id, user_id, service_plan_id, plan_code, service_code, gateway_name, amount, currency, auto_renewal, payment_status, payment_url, created_date)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?)`,
    )
    .run(
      orderId,
      me.user_id,
      link.service_plan_id,
      link.plan.plan_code,
      link.service.service_code,
      b.gateway_name,
      link.plan.price,
      link.plan.currency,
      (b.auto_renewal ?? bool(link.plan.auto_renewal)) ? 1 : 0,
      url,
      at,
    );
  ctx.audit('user', 'buy', {
    payment_method: 'PAYMENT',
    order_id: orderId,
    service_plan_id: link.service_plan_id,
    gateway_name: b.gateway_name,
    amount: link.plan.price,
  });
  return {
    message: 'payment pending',
    data: {
      success: true,
      message: 'complete the payment at payment_url; no subscription exists until it is paid (the sandbox never completes it)',
      payment_method: 'PAYMENT',
      payment_status: 'PENDING',
      gateway_name: b.gateway_name,
      order_id: orderId,
      payment_url: url,
      payment_reference: orderId,
      subscription_id: null,
      total_cost: link.plan.price,
      currency: link.plan.currency,
      credits_granted: 0,
      auto_renewal: b.auto_renewal ?? bool(link.plan.auto_renewal),
      expires_at: null,
    },
  };
}

/** What a FREE or WALLET purchase made. */
interface Purchase {
  link: LinkRow;
  id: number;
  txId: number | null;
  price: number;
  auto: boolean;
  balance: number | null;
}

/** A WALLET purchase: the price debited (refused in another currency or beyond the balance), the subscription and its transaction written. */
function buyFromWallet(ctx: HandlerContext, me: AuthUser, link: LinkRow, at: string, end: string, auto: boolean): Purchase {
  const price = link.plan.price;
  const u = ctx.db.prepare('SELECT wallet_balance, wallet_currency FROM users WHERE user_id = ?').get(me.user_id) as {
    wallet_balance: number;
    wallet_currency: string;
  };
  if (link.plan.currency !== u.wallet_currency) {
    throw new SandboxError(
      400,
      `plan ${link.plan.plan_code} is priced in ${link.plan.currency}; the wallet holds ${u.wallet_currency}`,
      'CURRENCY_MISMATCH',
    );
  }
  if (u.wallet_balance + 1e-9 < price) {
    throw new SandboxError(
      400,
      `insufficient wallet balance: ${round2(u.wallet_balance)} ${u.wallet_currency}, the plan costs ${price}`,
      'INSUFFICIENT_BALANCE',
    );
  }
  const after = round2(u.wallet_balance - price);
  const debited = ctx.db
    .prepare('UPDATE users SET wallet_balance = ? WHERE user_id = ? AND wallet_balance = ?')
    .run(after, me.user_id, u.wallet_balance);
  if (debited.changes !== 1) throw new SandboxError(409, 'the wallet changed during the purchase; try again', 'CONFLICT');
  const id = insertSubscription(ctx.db, {
    userId: me.user_id,
    link,
    at,
    end,
    autoRenewal: auto,
    paymentMethod: 'wallet',
    price,
    credits: link.plan.credit_amount,
  });
  const tx = ctx.db
    .prepare(
      `INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, currency, payment_method, status,
         description, transaction_reference, related_subscription_id, transaction_date, created_date)
       VALUES (?, 'deduct', ?, ?, ?, ?, 'wallet', 'completed', ?, ?, ?, ?, ?)`,
    )
    .run(
      me.user_id,
      price,
      u.wallet_balance,
      after,
      u.wallet_currency,
      `Subscription purchase: ${link.plan.plan_name} (${link.service.service_name})`,
      `SUB-${id}`,
      id,
      at,
      at,
    );
  return { link, id, txId: Number(tx.lastInsertRowid), price, auto, balance: after };
}

/** A FREE or WALLET purchase, in one IMMEDIATE transaction. */
function purchase(ctx: HandlerContext, me: AuthUser, b: HandlerContext['body'], at: string): Purchase {
  return ctx.db
    .transaction((): Purchase => {
      const link = resolveOffer(ctx.db, b);
      const price = link.plan.price;
      const auto = b.auto_renewal ?? bool(link.plan.auto_renewal);
      const end = planEnd(link, at, b.service_plan_id !== undefined ? 'service_plan_id' : 'plan_code');
      if (b.payment_method === 'FREE') {
        if (price !== 0)
          throw new SandboxError(400, `plan ${link.plan.plan_code} is not free (${price} ${link.plan.currency})`, 'PLAN_NOT_FREE');
        const id = insertSubscription(ctx.db, {
          userId: me.user_id,
          link,
          at,
          end,
          autoRenewal: auto,
          paymentMethod: 'free',
          price: 0,
          credits: link.plan.credit_amount,
        });
        return { link, id, txId: null as number | null, price, auto, balance: null as number | null };
      }
      return buyFromWallet(ctx, me, link, at, end, auto);
    })
    .immediate();
}

export const buy: Handler = (ctx) => {
  const me = caller(ctx);
  const b = ctx.body;
  const at = nowIso(ctx);
  if (b.payment_method === 'PAYMENT') return buyByPayment(ctx, me, b, at);
  const result = purchase(ctx, me, b, at);
  const sub = ctx.db.prepare('SELECT end_date, total_credits FROM subscriptions WHERE subscription_id = ?').get(result.id) as {
    end_date: string;
    total_credits: number;
  };
  ctx.audit('user', 'buy', {
    payment_method: b.payment_method,
    subscription_id: result.id,
    service_code: result.link.service.service_code,
    plan_code: result.link.plan.plan_code,
    service_plan_id: result.link.service_plan_id,
    amount: result.price,
    transaction_id: result.txId,
  });
  return {
    message: 'subscription purchased',
    data: {
      success: true,
      message: `subscribed to ${result.link.plan.plan_name} for ${result.link.service.service_name}`,
      payment_method: b.payment_method,
      payment_status: 'COMPLETED',
      gateway_name: null,
      order_id: null,
      payment_url: null,
      payment_reference: result.txId ? `WALLET-TX-${result.txId}` : null,
      subscription_id: result.id,
      transaction_id: result.txId,
      total_cost: result.price,
      currency: result.link.plan.currency,
      credits_granted: sub.total_credits,
      expires_at: sub.end_date,
      auto_renewal: result.auto,
      new_balance: result.balance,
    },
  };
};

export const topup: Handler = (ctx) => {
  const me = caller(ctx);
  const b = ctx.body;
  const at = nowIso(ctx);
  const amount = round2(b.amount);
  if (!(amount > 0))
    throw new SandboxError(400, 'amount must be at least 0.01 (amounts are in cents)', 'INVALID_AMOUNT', [
      { field: 'amount', message: 'must be at least 0.01' },
    ]);
  // Balances are kept in floating point: past this, cents are lost (1e20 + 1500.02 == 1e20, and
  // the wallet's history stops adding up). The specification sets no maximum; the sandbox does.
  if (amount > MAX_TOPUP)
    throw new SandboxError(400, `amount must be at most ${MAX_TOPUP.toLocaleString('en-US')}`, 'INVALID_AMOUNT', [
      { field: 'amount', message: `must be at most ${MAX_TOPUP}` },
    ]);
  const r = ctx.db
    .transaction(() => {
      const u = ctx.db.prepare('SELECT wallet_balance, wallet_currency FROM users WHERE user_id = ?').get(me.user_id) as {
        wallet_balance: number;
        wallet_currency: string;
      };
      const after = addMoney(u.wallet_balance, amount, {
        field: 'amount',
        code: 'INVALID_AMOUNT',
        message: `a top-up of ${amount} would take the wallet (${round2(u.wallet_balance)} ${u.wallet_currency}) past ${MAX_BALANCE.toLocaleString('en-US')}, the largest balance kept to the cent`,
      });
      ctx.db.prepare('UPDATE users SET wallet_balance = ?, last_topup_date = ? WHERE user_id = ?').run(after, at, me.user_id);
      const tx = ctx.db
        .prepare(
          `INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, currency, payment_method, status,
             description, transaction_reference, related_subscription_id, transaction_date, created_date)
           VALUES (?, 'topup', ?, ?, ?, ?, ?, 'completed', 'Wallet top-up', ?, NULL, ?, ?)`,
        )
        .run(me.user_id, amount, u.wallet_balance, after, u.wallet_currency, b.payment_method, b.transaction_reference ?? null, at, at);
      return { after, currency: u.wallet_currency, txId: Number(tx.lastInsertRowid) };
    })
    .immediate();
  ctx.audit('user', 'topup', {
    amount,
    payment_method: b.payment_method,
    transaction_id: r.txId,
    transaction_reference: b.transaction_reference ?? null,
  });
  return {
    message: 'wallet topped up',
    data: {
      success: true,
      message: `wallet topped up by ${amount} ${r.currency}`,
      new_balance: r.after,
      currency: r.currency,
      amount,
      transaction_id: r.txId,
    },
  };
};

export const autoRenewal: Handler = (ctx) => {
  const me = caller(ctx);
  const b = ctx.body;
  const at = nowIso(ctx);
  const s = ctx.db.prepare('SELECT * FROM subscriptions WHERE subscription_id = ? AND user_id = ?').get(b.subscription_id, me.user_id) as
    SubRow | undefined;
  if (!s) throw new SandboxError(404, `subscription ${b.subscription_id} not found`, 'SUBSCRIPTION_NOT_FOUND');
  if (s.status !== 'active' && s.status !== 'paused') {
    throw new SandboxError(
      400,
      `subscription ${s.subscription_id} is ${s.status}; only active or paused subscriptions renew`,
      'NOT_RENEWABLE',
    );
  }
  const on = b.auto_renewal ?? true;
  ctx.db
    .prepare(
      'UPDATE subscriptions SET auto_renewal = ?, payment_method = COALESCE(?, payment_method), last_updated = ? WHERE subscription_id = ?',
    )
    .run(on ? 1 : 0, b.payment_method ?? null, at, s.subscription_id);
  ctx.audit('user', 'auto_renewal', { subscription_id: s.subscription_id, auto_renewal: on, payment_method: b.payment_method ?? null });
  return {
    message: `auto-renewal ${on ? 'on' : 'off'}`,
    data: {
      success: true,
      message: `auto-renewal turned ${on ? 'on' : 'off'}`,
      subscription_id: s.subscription_id,
      auto_renewal: on,
      payment_method: b.payment_method ?? s.payment_method,
      next_renewal_date: on ? s.end_date : null,
    },
  };
};
