/**
 * The administrator area's subscriptions, usage codes and usage logs, generated in memory
 * first (codes and usage logs annotate the subscriptions they touch), then inserted.
 */
import {
  addDuration,
  DAY,
  endUserEntry,
  iso,
  TWO_YEARS,
  type AuditSeed,
  type Catalog,
  type Code,
  type Draw,
  type Link,
  type People,
  type Sales,
  type Sub,
  type Use,
} from './seed-admin-model.js';
import type { DB } from './types.js';

/** Subscriptions in every status, each with the periods it ran and the credits it used. */
function generateSubs(
  d: Draw,
  people: People,
  catalog: Catalog,
): { subs: Sub[]; subsByLink: Map<number, number[]>; subsByUser: Map<number, number[]> } {
  const { rng, nowMs, pick, int } = d;
  const subs: Sub[] = [];
  const subsByLink = new Map<number, number[]>();
  const subsByUser = new Map<number, number[]>();
  const nSubs = d.n(3000);
  for (let i = 0; i < nSubs; i++) {
    const link = catalog.pickLink();
    const p = link.plan;
    const x = rng();
    let status = x < 0.5 ? 'active' : x < 0.75 ? 'expired' : x < 0.9 ? 'cancelled' : 'paused';
    if (p.active === false && status === 'active') status = 'expired';
    const created = nowMs - Math.floor(rng() * TWO_YEARS) - 3_600_000;
    const periodEnd = (k: number) => addDuration(created, p.duration * k, p.unit);
    let renewals = 0;
    let end = periodEnd(1);
    if (status === 'active' || status === 'paused') {
      // Renewed as often as needed to still run today.
      while (end <= nowMs) end = periodEnd(++renewals + 1);
    } else if (status === 'expired') {
      if (end >= nowMs) {
        // Too recent to have expired: an expired one started a period ago.
        const back = end - created + int(1, 30) * DAY;
        const start2 = nowMs - back;
        const endMs = addDuration(start2, p.duration, p.unit);
        subs.push(mkSub(link, status, start2, Math.min(endMs, nowMs - DAY), 0));
        continue;
      }
      while (rng() < 0.3 && periodEnd(renewals + 2) < nowMs) renewals++;
      end = periodEnd(renewals + 1);
    } else {
      renewals = rng() < 0.3 ? 1 : 0;
      end = periodEnd(renewals + 1);
    }
    subs.push(mkSub(link, status, created, end, renewals));
  }
  return { subs, subsByLink, subsByUser };

  function mkSub(link: Link, status: string, start: number, end: number, renewals: number): Sub {
    const p = link.plan;
    const total = p.credits * (renewals + 1);
    const frac = status === 'expired' ? 0.5 + rng() * 0.5 : rng() * 0.9;
    const idx = subs.length;
    const user = pick(people.customers);
    const s: Sub = {
      id: 0,
      user,
      link,
      status,
      start,
      end,
      created: start,
      updated: Math.min(nowMs - 60_000, start + Math.floor(rng() * Math.max(DAY, Math.min(end, nowMs) - start))),
      renewals,
      total,
      used: Math.floor(total * frac),
      payment: pick(['card', 'card', 'card', 'paypal', 'bank', 'crypto']),
      auto: p.autoRenewal && status !== 'cancelled' ? (rng() < 0.8 ? 1 : 0) : 0,
      code: null,
      batch: null,
      usage: 0,
      lastUsage: null,
    };
    let a = subsByLink.get(link.id);
    if (!a) subsByLink.set(link.id, (a = []));
    a.push(idx);
    let b = subsByUser.get(user);
    if (!b) subsByUser.set(user, (b = []));
    b.push(idx);
    return s;
  }
}

/** Marks `c` used: by a subscription of its link started around the use and without a code yet, else by some customer. */
function useCode(d: Draw, c: Code, subs: Sub[], candidates: number[], customers: number[]): void {
  const { rng, nowMs } = d;
  const usedDate = c.created + Math.floor(rng() * (Math.min(c.expiry, nowMs) - c.created));
  let subIdx: number | null = null;
  for (let t = 0; t < 4 && candidates.length; t++) {
    const j = candidates[Math.floor(rng() * candidates.length)];
    if (!subs[j].code) {
      subIdx = j;
      break;
    }
  }
  c.usedDate = usedDate;
  if (subIdx !== null) {
    const s = subs[subIdx];
    s.code = c.value;
    s.batch = c.batch;
    c.usedBy = s.user;
    c.subIdx = subIdx;
    c.usedDate = Math.max(c.created, Math.min(s.start, c.expiry - 1));
  } else c.usedBy = d.pick(customers);
}

/** Usage codes in batches, some used (annotating the subscription that used one). */
function generateCodes(d: Draw, people: People, catalog: Catalog, subs: Sub[], subsByLink: Map<number, number[]>): Code[] {
  const { rng, nowMs, pick, int, chars } = d;
  const codes: Code[] = [];
  const codeValues = new Set<string>();
  const nCodes = d.n(2000);
  let batchNo = 0;
  while (codes.length < nCodes) {
    batchNo++;
    const link = catalog.pickLink();
    const size = Math.min(nCodes - codes.length, int(10, 120));
    const created = nowMs - Math.floor(rng() * 600 * DAY) - DAY;
    // Some batches are long expired, most still run.
    const expiry = created + pick([30, 90, 180, 365, 365]) * DAY;
    const prefix = pick(['PROMO', 'GIFT', 'EDU', 'PARTNER', 'VIP', '']);
    const yyyymm = iso(created).slice(0, 7).replace('-', '');
    const batch = `${prefix || 'BATCH'}-${yyyymm}-${String(batchNo).padStart(3, '0')}`;
    const createdBy = pick(people.admins);
    const candidates = subsByLink.get(link.id) ?? [];
    for (let k = 0; k < size; k++) {
      let value: string;
      do value = `${prefix ? `${prefix}-` : ''}${chars(4)}-${chars(4)}`;
      while (codeValues.has(value));
      codeValues.add(value);
      const c: Code = { value, batch, link, created, expiry, usedBy: null, usedDate: null, subIdx: null, createdBy };
      if (rng() < 0.4) useCode(d, c, subs, candidates, people.customers);
      codes.push(c);
    }
  }
  return codes;
}

/** Usage logs of the last 180 days, annotating subscriptions with their count and last use. */
function generateUses(d: Draw, scale: number, subs: Sub[]): Use[] {
  const { rng, nowMs, pick, int } = d;
  const usable = subs.map((s, i) => i).filter((i) => subs[i].status !== 'cancelled' || subs[i].end > nowMs - 180 * DAY);
  const uses: Use[] = [];
  // Usage logs feed daily statistics, not the big lists: past scale 10 they stop growing.
  const nUses = Math.max(1, Math.round(6000 * Math.min(scale, 10)));
  const horizon = nowMs - 180 * DAY;
  for (let k = 0, tries = 0; k < nUses && tries < nUses * 5; tries++) {
    const si = usable[Math.floor(rng() * usable.length)];
    const s = subs[si];
    const lo = Math.max(s.start, horizon);
    const hi = Math.min(s.end, nowMs - 60_000);
    if (hi <= lo) continue;
    // Recent days are busier: the square pulls uses towards `hi`.
    const at = Math.floor(hi - (hi - lo) * rng() * rng());
    const amount = s.link.plan.creditUnit === 'tokens' ? int(100, 4000) : s.link.plan.creditUnit === 'requests' ? 1 : int(1, 15);
    uses.push({
      user: s.user,
      sub: si,
      service: s.link.serviceId,
      amount,
      type: pick(['api_call', 'api_call', 'generate', 'analyze']),
      rt: Math.round(rng() * 2000) / 1000 + 0.05,
      at,
    });
    s.usage++;
    if (!s.lastUsage || at > s.lastUsage) s.lastUsage = at;
    k++;
  }
  return uses;
}

/** Subscriptions, then usage codes, then usage logs, drawn in that order. */
export function generateSales(d: Draw, scale: number, people: People, catalog: Catalog): Sales {
  const { subs, subsByLink, subsByUser } = generateSubs(d, people, catalog);
  const codes = generateCodes(d, people, catalog, subs, subsByLink);
  const uses = generateUses(d, scale, subs);
  return { subs, subsByUser, codes, uses };
}

function insertSubs(db: DB, subs: Sub[]): void {
  const insSub = db.prepare(
    `INSERT INTO subscriptions (user_id, service_id, plan_id, service_plan_id, status, start_date, end_date, auto_renewal, payment_method,
       price, currency, total_credits, used_credits, renewal_count, activation_code, activation_batch, total_usage_count, last_usage_date,
       last_reset_date, next_reset_date, created_date, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const s of subs) {
    const p = s.link.plan;
    const lastReset = s.renewals > 0 ? addDuration(s.start, p.duration * s.renewals, p.unit) : s.start;
    const r = insSub.run(
      s.user,
      s.link.serviceId,
      p.id,
      s.link.id,
      s.status,
      iso(s.start),
      iso(s.end),
      s.auto,
      s.payment,
      p.price,
      p.currency ?? 'USD',
      s.total,
      Math.min(s.used, s.total),
      s.renewals,
      s.code,
      s.batch,
      s.usage,
      s.lastUsage === null ? null : iso(s.lastUsage),
      iso(lastReset),
      s.status === 'active' || s.status === 'paused' ? iso(s.end) : null,
      iso(s.created),
      iso(Math.max(s.updated, s.created)),
    );
    s.id = Number(r.lastInsertRowid);
  }
}

/** The end users' purchases and code activations, as the audit log records them. */
function purchaseEntries(subs: Sub[], serviceCodes: Map<number, string>, into: AuditSeed[]): void {
  for (const s of subs) {
    const target = { subscription_id: s.id, service_code: serviceCodes.get(s.link.serviceId) ?? null, plan_code: s.link.plan.code };
    if (s.code)
      into.push(
        endUserEntry(s.created, s.user, 'activate_code', {
          code: s.code,
          ...target,
          credits_added: s.link.plan.credits,
          created_subscription: true,
        }),
      );
    else into.push(endUserEntry(s.created, s.user, 'buy', { payment_method: 'WALLET', ...target, amount: s.link.plan.price }));
  }
}

function insertCodes(db: DB, codes: Code[], subs: Sub[]): void {
  const insCode = db.prepare(
    `INSERT INTO usage_codes (code_value, batch_id, service_plan_id, credit_amount, price, is_used, used_by, used_date, used_in_subscription,
       expiry_date, created_by, created_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const c of codes) {
    insCode.run(
      c.value,
      c.batch,
      c.link.id,
      c.link.plan.credits,
      c.link.plan.price,
      c.usedDate === null ? 0 : 1,
      c.usedBy,
      c.usedDate === null ? null : iso(c.usedDate),
      c.subIdx === null ? null : subs[c.subIdx].id,
      iso(c.expiry),
      c.createdBy,
      iso(c.created),
    );
  }
}

/** Inserts the usage logs in time order, each with its audit entry. */
function insertUses(db: DB, uses: Use[], subs: Sub[], serviceCodes: Map<number, string>, into: AuditSeed[]): void {
  const insUse = db.prepare(
    'INSERT INTO usage_logs (user_id, subscription_id, service_id, usage_amount, usage_type, response_time, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  uses.sort((a, b) => a.at - b.at);
  for (const u of uses) {
    insUse.run(u.user, subs[u.sub].id, u.service, u.amount, u.type, u.rt, iso(u.at));
    into.push(
      endUserEntry(u.at, u.user, 'use', {
        service_code: serviceCodes.get(u.service) ?? null,
        subscription_id: subs[u.sub].id,
        usage_amount: u.amount,
        usage_type: u.type,
      }),
    );
  }
}

/** Inserts subscriptions, codes and usage logs; answers the end users' audit entries for them. */
export function insertSales(db: DB, sales: Sales, serviceIds: Map<string, number>): AuditSeed[] {
  insertSubs(db, sales.subs);
  const endUserAudit: AuditSeed[] = [];
  const serviceCodes = new Map([...serviceIds].map(([code, id]) => [id, code]));
  purchaseEntries(sales.subs, serviceCodes, endUserAudit);
  insertCodes(db, sales.codes, sales.subs);
  insertUses(db, sales.uses, sales.subs, serviceCodes, endUserAudit);
  return endUserAudit;
}
