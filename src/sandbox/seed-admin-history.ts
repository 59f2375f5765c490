/**
 * The administrator area's history: wallet transactions (chronological, balances consistent
 * and never negative), old tokens for the cleanup, and the audit log of staff and end users.
 */
import type Database from 'better-sqlite3';
import { SEEDED_ACCOUNTS } from './schema-core.js';
import { AUDIT_ACTIONS, NOTES, SEED_SERVICES, TX_DESCRIPTIONS, USER_AGENTS } from './seed-admin-data.js';
import { DAY, endUserEntry, iso, TWO_YEARS, type AuditSeed, type Draw, type People, type Sales } from './seed-admin-model.js';
import type { DB } from './types.js';

/** A wallet transaction's type, amount and status, drawn against the balance before it (no deduction below zero). */
function drawTransaction(d: Draw, before: number): { type: string; amount: number; status: string } {
  const { rng, pick, money } = d;
  const x = rng();
  let type = x < 0.35 ? 'topup' : x < 0.7 ? 'deduct' : x < 0.8 ? 'refund' : 'auto_renewal';
  let amount: number;
  if (type === 'topup') amount = pick([10, 20, 25, 50, 100, 200, 500]) + (rng() < 0.2 ? money(0, 9) : 0);
  else if (type === 'refund') amount = money(1, 60);
  else amount = pick([2.99, 9.5, 9.99, 12, 19, 29.99, 49, 79]);
  if ((type === 'deduct' || type === 'auto_renewal') && amount > before) {
    type = 'topup';
    amount = pick([50, 100, 200]);
  }
  amount = Math.round(amount * 100) / 100;
  const y = rng();
  const status = y < 0.95 ? 'completed' : y < 0.98 ? 'pending' : 'failed';
  return { type, amount, status };
}

/** What the wallet history leaves behind: each wallet's balance and last top-up, and the next reference. */
interface Wallets {
  balance: Map<number, number>;
  lastTopup: Map<number, number>;
  ref: () => string;
  insTx: Database.Statement;
}

/** Inserts the wallet transactions, spread evenly over two years; end users' top-ups and renewals go to `audit`. */
function seedTransactions(db: DB, d: Draw, people: People, sales: Sales, audit: AuditSeed[]): Wallets {
  const { rng, nowMs, pick, chars } = d;
  const insTx = db.prepare(
    `INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, currency, payment_method, status,
       description, transaction_reference, related_subscription_id, transaction_date, created_date)
     VALUES (?, ?, ?, ?, ?, 'USD', ?, ?, ?, ?, ?, ?, ?)`,
  );
  // A million rows: one statement per 100 rows costs far less than one per row.
  const TX_BATCH = 100;
  const insTxBatch = db.prepare(
    `INSERT INTO wallet_transactions (user_id, transaction_type, amount, balance_before, balance_after, currency, payment_method, status,
       description, transaction_reference, related_subscription_id, transaction_date, created_date)
     VALUES ${Array.from({ length: TX_BATCH }, () => "(?, ?, ?, ?, ?, 'USD', ?, ?, ?, ?, ?, ?, ?)").join(', ')}`,
  );
  const txBatch: unknown[] = [];
  const balance = new Map<number, number>();
  const lastTopup = new Map<number, number>();
  const nTx = d.n(10_000);
  const start = nowMs - TWO_YEARS;
  const step = (TWO_YEARS - DAY) / nTx;
  const methods = ['card', 'card', 'card', 'paypal', 'paypal', 'bank', 'crypto'];
  let refNo = 0;
  const ref = () => `TXN-${(++refNo).toString(36).toUpperCase().padStart(7, '0')}-${chars(4)}`;
  for (let i = 0; i < nTx; i++) {
    const at = Math.floor(start + (i + rng()) * step);
    // Customers hold most wallets; staff accounts test too.
    const user = rng() < 0.9 ? pick(people.customers) : pick(people.walletUsers);
    const before = balance.get(user) ?? 0;
    const { type, amount, status } = drawTransaction(d, before);
    let after = before;
    if (status === 'completed') after = type === 'topup' || type === 'refund' ? before + amount : before - amount;
    after = Math.round(after * 100) / 100;
    balance.set(user, after);
    if (status === 'completed' && type === 'topup') lastTopup.set(user, at);
    let related: number | null = null;
    if (type !== 'topup') {
      const us = sales.subsByUser.get(user);
      if (us && us.length) related = sales.subs[us[Math.floor(rng() * us.length)]].id;
    }
    const when = iso(at);
    // Drawn in this order (method, description, reference): the seed stays what it was.
    const method = pick(methods);
    const description = pick(TX_DESCRIPTIONS[type]);
    const reference = ref();
    txBatch.push(user, type, amount, before, after, method, status, description, reference, related, when, when);
    if (status === 'completed' && type === 'topup')
      audit.push(endUserEntry(at, user, 'topup', { amount, payment_method: method, transaction_reference: reference }));
    if (status === 'completed' && type === 'auto_renewal')
      audit.push(endUserEntry(at, user, 'auto_renewal', { subscription_id: related, amount }));
    if (txBatch.length === TX_BATCH * 12) {
      insTxBatch.run(txBatch);
      txBatch.length = 0;
    }
  }
  for (let k = 0; k < txBatch.length; k += 12) insTx.run(txBatch.slice(k, k + 12));
  return { balance, lastTopup, ref, insTx };
}

/**
 * Each wallet's balance is where its history ends, except for the well-known accounts: they
 * keep the balance the user area gave them (tests count on it), reached by one adjustment.
 */
function settleBalances(db: DB, nowMs: number, people: People, w: Wallets): void {
  const setBalance = db.prepare('UPDATE users SET wallet_balance = ?, last_topup_date = ? WHERE user_id = ?');
  const wellKnown = new Set(SEEDED_ACCOUNTS.map((a) => a.username));
  const usernames = new Map(
    (db.prepare('SELECT user_id, username FROM users').all() as Array<{ user_id: number; username: string }>).map((r) => [
      r.user_id,
      r.username,
    ]),
  );
  for (const u of people.allUsers) {
    const hist = w.balance.get(u.user_id);
    if (hist === undefined) continue;
    const want = u.wallet_balance;
    if (wellKnown.has(usernames.get(u.user_id) ?? '') && want > 0) {
      if (Math.abs(want - hist) < 0.005) continue;
      const amount = Math.round(Math.abs(want - hist) * 100) / 100;
      const when = iso(nowMs - 2 * 3_600_000 - u.user_id * 60_000);
      w.insTx.run(
        u.user_id,
        want > hist ? 'topup' : 'deduct',
        amount,
        hist,
        want,
        'bank',
        'completed',
        'Balance adjustment, "reconciliation"',
        w.ref(),
        null,
        when,
        when,
      );
    } else {
      const t = w.lastTopup.get(u.user_id);
      setBalance.run(hist, t === undefined ? null : iso(t), u.user_id);
    }
  }
}

/** Wallet transactions, then the wallets' balances. */
export function seedWallets(db: DB, d: Draw, people: People, sales: Sales, audit: AuditSeed[]): void {
  const w = seedTransactions(db, d, people, sales, audit);
  settleBalances(db, d.nowMs, people, w);
}

/** Old tokens (expired or revoked), for the cleanup. */
export function seedOldTokens(db: DB, d: Draw, people: People): void {
  const { rng, nowMs, pick, int, chars } = d;
  const insToken = db.prepare(
    'INSERT OR IGNORE INTO tokens (token, user_id, session_id, device_id, created_at, expires_at, revoked_at) VALUES (?, ?, NULL, NULL, ?, ?, ?)',
  );
  const nTokens = d.n(150);
  for (let i = 0; i < nTokens; i++) {
    const created = nowMs - int(1, 400) * DAY;
    const expires = created + 12 * 3_600_000;
    const revoked = rng() < 0.4 ? iso(created + int(1, 600) * 60_000) : null;
    insToken.run(`sbx_seed_${chars(24)}`, pick(people.walletUsers), iso(created), iso(Math.min(expires, nowMs - 60_000)), revoked);
  }
}

const MANAGE_ACTIONS = ['extend', 'pause', 'resume', 'cancel', 'add_credits'];

/** The details of a staff audit entry of `module`.`action`. */
function staffDetails(d: Draw, module: string, action: string, sales: Sales): unknown {
  const { rng, pick, int, chars } = d;
  const subIdsSample = () => sales.subs[Math.floor(rng() * sales.subs.length)].id;
  switch (`${module}.${action}`) {
    case 'subscriptions.manage': {
      const a = pick(MANAGE_ACTIONS);
      return {
        subscription_id: subIdsSample(),
        action: a,
        reason: pick(NOTES),
        ...(a === 'extend' ? { extend_days: pick([7, 14, 30]) } : {}),
        ...(a === 'add_credits' ? { extend_credits: pick([100, 500, 1000]) } : {}),
      };
    }
    case 'subscriptions.delete':
      return { subscription_id: subIdsSample(), reason: pick(NOTES) };
    case 'services.create':
    case 'services.update':
      return { service_code: pick(SEED_SERVICES).code, changes: { description: pick(NOTES) } };
    case 'usage-codes.generate':
      return { batch_id: `BATCH-${chars(6)}`, code_count: pick([10, 50, 100]), note: pick(NOTES) };
    case 'maintenance.cleanup':
      return { dry_run: rng() < 0.5, cleanup_expired_days: 90, expired_subscriptions: int(0, 40) };
    case 'auth.login':
      return { result: 'success' };
    default:
      return { note: pick(NOTES) };
  }
}

function insertAudit(db: DB, entries: AuditSeed[]): void {
  const insAudit = db.prepare(
    'INSERT INTO audit_logs (user_id, username, module, action, details, ip_address, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const names = new Map(
    (db.prepare('SELECT user_id, username FROM users').all() as Array<{ user_id: number; username: string }>).map((r) => [
      r.user_id,
      r.username,
    ]),
  );
  // Tens of thousands of rows: one statement per 100 rows, as the wallet transactions.
  const AUDIT_BATCH = 100;
  const insAuditBatch = db.prepare(
    `INSERT INTO audit_logs (user_id, username, module, action, details, ip_address, user_agent, created_at) VALUES ${Array.from({ length: AUDIT_BATCH }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  );
  const batch: unknown[] = [];
  for (const e of entries) {
    batch.push(e.actor, names.get(e.actor) ?? null, e.module, e.action, JSON.stringify(e.details), e.ip, e.agent, iso(e.at));
    if (batch.length === AUDIT_BATCH * 8) {
      insAuditBatch.run(batch);
      batch.length = 0;
    }
  }
  for (let k = 0; k < batch.length; k += 8) insAudit.run(batch.slice(k, k + 8));
}

/** Staff history and the end users' own actions (`endUserAudit`), inserted in time order (the log pages by id). */
export function seedAudit(db: DB, d: Draw, people: People, sales: Sales, endUserAudit: AuditSeed[]): void {
  const { rng, nowMs, pick, int } = d;
  const { admins, auditors, walletUsers } = people;
  const nAudit = d.n(1000);
  const entries: AuditSeed[] = endUserAudit;
  const auditStep = (TWO_YEARS - DAY) / nAudit;
  for (let i = 0; i < nAudit; i++) {
    const at = Math.floor(nowMs - TWO_YEARS + (i + rng()) * auditStep);
    const [module, action] = pick(AUDIT_ACTIONS);
    const actor = module === 'auth' ? pick(walletUsers) : pick(rng() < 0.8 ? admins : auditors.length ? auditors : admins);
    const details = staffDetails(d, module, action, sales);
    entries.push({ at, actor, module, action, details, ip: `10.0.${int(0, 9)}.${int(2, 250)}`, agent: pick(USER_AGENTS) });
  }
  entries.sort((a, b) => a.at - b.at);
  insertAudit(db, entries);
}
