/**
 * Seed data of the administrator area: services of each type, plans in every duration and
 * credit unit, their links, and — multiplied by `scale` — subscriptions in every status,
 * usage codes (used, unused, expired), wallet transactions of every type, usage logs, old
 * tokens for the cleanup, and audit history. Text fields carry commas, double quotes,
 * accents, CJK and embedded newlines, so exports and tables get exercised.
 *
 * At scale 1: 3,000 subscriptions, 2,000 usage codes, 10,000 wallet transactions, 1,000
 * audit rows, 6,000 usage logs (usage logs stop growing past scale 10). Everything goes through prepared statements in the caller's
 * transaction: scale 100 (a million wallet transactions) takes seconds, not minutes.
 */
import { SEEDED_ACCOUNTS } from './schema-core.js';
import { hashPassword } from './auth.js';
import type { DB, Seeder } from './types.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

interface ServiceSeed {
  code: string;
  name: string;
  type: 'TIME_BASED' | 'USAGE_BASED' | 'HYBRID';
  provider: string;
  cycle: 'daily' | 'weekly' | 'monthly' | 'yearly';
  description: string | null;
  active?: boolean;
  requiresAuth?: boolean;
  reportType?: 'api' | 'webhook' | 'integration' | 'external';
}

/** The seeded services; codes are stable, tests and docs may name them. */
const SEED_SERVICES: ServiceSeed[] = [
  {
    code: 'GPT4',
    name: 'GPT-4 Chat',
    type: 'TIME_BASED',
    provider: 'OpenAI',
    cycle: 'monthly',
    description: 'Chat completions with GPT-4, "turbo" variant, 128k context',
  },
  {
    code: 'CLAUDE3',
    name: 'Claude 3 Opus',
    type: 'TIME_BASED',
    provider: 'Anthropic',
    cycle: 'monthly',
    description: 'Long-context assistant, fair-use limits apply',
  },
  {
    code: 'GEMINI-PRO',
    name: 'Gemini Pro',
    type: 'TIME_BASED',
    provider: 'Google',
    cycle: 'weekly',
    description: 'Multimodal chat, text and images',
  },
  {
    code: 'COPILOT-CHAT',
    name: 'Copilot Chat, team edition',
    type: 'TIME_BASED',
    provider: 'GitHub',
    cycle: 'monthly',
    description: null,
    reportType: 'integration',
  },
  {
    code: 'DALLE',
    name: 'DALL·E 3 Images',
    type: 'USAGE_BASED',
    provider: 'OpenAI',
    cycle: 'monthly',
    description: 'Image generation: 1024×1024, "HD" quality\nBilled per image',
  },
  {
    code: 'WHISPER',
    name: 'Whisper Transcription',
    type: 'USAGE_BASED',
    provider: 'OpenAI',
    cycle: 'daily',
    description: 'Speech to text in 57 languages (français, español, 日本語, …)',
  },
  {
    code: 'TTS-HD',
    name: 'Text to Speech HD',
    type: 'USAGE_BASED',
    provider: 'ElevenLabs',
    cycle: 'monthly',
    description: 'Natural voices, per-minute billing',
    reportType: 'webhook',
  },
  {
    code: 'EMBED-V3',
    name: 'Embeddings v3',
    type: 'USAGE_BASED',
    provider: 'Cohere',
    cycle: 'monthly',
    description: 'Vector embeddings, 1,024 dimensions',
  },
  {
    code: 'TRANSLATE-API',
    name: 'Traduction & Übersetzung API',
    type: 'USAGE_BASED',
    provider: 'DeepL',
    cycle: 'monthly',
    description: 'Translation between 30 languages: é, ü, ñ, 日本 all supported',
  },
  {
    code: 'ANALYTICS-PRO',
    name: 'Analytics Pro',
    type: 'HYBRID',
    provider: 'Metabase',
    cycle: 'monthly',
    description: 'Dashboards, SQL editor, scheduled reports; 10 seats included',
    reportType: 'integration',
  },
  {
    code: 'VISION-OCR',
    name: 'Vision OCR',
    type: 'HYBRID',
    provider: 'Google',
    cycle: 'weekly',
    description: 'Document OCR, tables and forms, "handwriting" beta',
    reportType: 'webhook',
  },
  {
    code: 'SEARCH-PLUS',
    name: 'Search Plus',
    type: 'HYBRID',
    provider: 'Perplexity',
    cycle: 'daily',
    description: 'Web search with citations',
    reportType: 'external',
  },
  {
    code: 'LEGACY-BOT',
    name: 'Legacy Bot (retired)',
    type: 'TIME_BASED',
    provider: 'In-house',
    cycle: 'yearly',
    description: 'Kept for old subscriptions, no new sign-ups',
    active: false,
    requiresAuth: false,
    reportType: 'external',
  },
];

interface PlanSeed {
  code: string;
  name: string;
  price: number;
  duration: number;
  unit: 'days' | 'months' | 'years';
  credits: number;
  creditUnit: 'requests' | 'tokens' | 'minutes' | 'hours';
  maxPerDay: number | null;
  autoRenewal: boolean;
  active?: boolean;
  currency?: string;
  description?: string;
}

/** The seeded plans: every duration unit and every credit unit. */
const SEED_PLANS: PlanSeed[] = [
  {
    code: 'TRIAL-7D',
    name: 'Free trial, 7 days',
    price: 0,
    duration: 7,
    unit: 'days',
    credits: 100,
    creditUnit: 'requests',
    maxPerDay: 20,
    autoRenewal: false,
  },
  {
    code: 'DAY-PASS',
    name: 'Day pass',
    price: 2.99,
    duration: 1,
    unit: 'days',
    credits: 200,
    creditUnit: 'requests',
    maxPerDay: 200,
    autoRenewal: false,
  },
  {
    code: 'WEEK-TOKENS',
    name: 'Weekly tokens',
    price: 9.5,
    duration: 7,
    unit: 'days',
    credits: 500_000,
    creditUnit: 'tokens',
    maxPerDay: 100_000,
    autoRenewal: true,
  },
  {
    code: 'BASIC-M',
    name: 'Básico mensual',
    price: 9.99,
    duration: 1,
    unit: 'months',
    credits: 1_000,
    creditUnit: 'requests',
    maxPerDay: 100,
    autoRenewal: true,
  },
  {
    code: 'PRO-M',
    name: 'Pro "Unlimited", monthly',
    price: 29.99,
    duration: 1,
    unit: 'months',
    credits: 10_000,
    creditUnit: 'requests',
    maxPerDay: null,
    autoRenewal: true,
  },
  {
    code: 'PRO-Q',
    name: 'Pro, quarterly',
    price: 79,
    duration: 3,
    unit: 'months',
    credits: 30_000,
    creditUnit: 'requests',
    maxPerDay: 1_000,
    autoRenewal: true,
  },
  {
    code: 'TOKENS-1M',
    name: 'Tokens 1M',
    price: 19,
    duration: 1,
    unit: 'months',
    credits: 1_000_000,
    creditUnit: 'tokens',
    maxPerDay: null,
    autoRenewal: false,
  },
  {
    code: 'MINUTES-100',
    name: 'Minutes 100',
    price: 12,
    duration: 1,
    unit: 'months',
    credits: 100,
    creditUnit: 'minutes',
    maxPerDay: 30,
    autoRenewal: false,
  },
  {
    code: 'MINUTES-1000',
    name: 'Minutes 1000, équipe',
    price: 99,
    duration: 6,
    unit: 'months',
    credits: 1_000,
    creditUnit: 'minutes',
    maxPerDay: null,
    autoRenewal: true,
    currency: 'EUR',
  },
  {
    code: 'HOURS-10',
    name: 'Hours 10 (analyst)',
    price: 49,
    duration: 1,
    unit: 'months',
    credits: 10,
    creditUnit: 'hours',
    maxPerDay: 4,
    autoRenewal: false,
  },
  {
    code: 'HOURS-200',
    name: 'Hours 200 — Müller & Söhne bundle',
    price: 690,
    duration: 1,
    unit: 'years',
    credits: 200,
    creditUnit: 'hours',
    maxPerDay: 8,
    autoRenewal: true,
    currency: 'EUR',
  },
  {
    code: 'PRO-Y',
    name: 'Pro annual',
    price: 299,
    duration: 1,
    unit: 'years',
    credits: 120_000,
    creditUnit: 'requests',
    maxPerDay: null,
    autoRenewal: true,
  },
  {
    code: 'ENTERPRISE-Y',
    name: 'Enterprise, 2 years',
    price: 4_800,
    duration: 2,
    unit: 'years',
    credits: 10_000_000,
    creditUnit: 'tokens',
    maxPerDay: null,
    autoRenewal: true,
    description: 'Negotiated contract,\nSLA 99.9%',
  },
  {
    code: 'STARTER-JP',
    name: '日本 スタンダード',
    price: 1_200,
    duration: 1,
    unit: 'months',
    credits: 2_000,
    creditUnit: 'requests',
    maxPerDay: 200,
    autoRenewal: true,
    currency: 'JPY',
  },
  {
    code: 'LEGACY-M',
    name: 'Legacy monthly (retired)',
    price: 5,
    duration: 1,
    unit: 'months',
    credits: 500,
    creditUnit: 'requests',
    maxPerDay: 50,
    autoRenewal: false,
    active: false,
  },
];

/** Which plans each service offers (by index into SEED_PLANS), chosen so every type has several. */
const LINKS: Record<string, string[]> = {
  GPT4: ['TRIAL-7D', 'BASIC-M', 'PRO-M', 'PRO-Q', 'PRO-Y', 'ENTERPRISE-Y', 'STARTER-JP'],
  CLAUDE3: ['TRIAL-7D', 'BASIC-M', 'PRO-M', 'PRO-Y', 'WEEK-TOKENS', 'TOKENS-1M'],
  'GEMINI-PRO': ['DAY-PASS', 'BASIC-M', 'PRO-M', 'TOKENS-1M'],
  'COPILOT-CHAT': ['BASIC-M', 'PRO-Y'],
  DALLE: ['DAY-PASS', 'BASIC-M', 'PRO-M', 'PRO-Q'],
  WHISPER: ['MINUTES-100', 'MINUTES-1000', 'HOURS-10'],
  'TTS-HD': ['MINUTES-100', 'MINUTES-1000'],
  'EMBED-V3': ['WEEK-TOKENS', 'TOKENS-1M', 'ENTERPRISE-Y'],
  'TRANSLATE-API': ['TOKENS-1M', 'BASIC-M', 'STARTER-JP'],
  'ANALYTICS-PRO': ['HOURS-10', 'HOURS-200', 'PRO-M', 'PRO-Y', 'ENTERPRISE-Y'],
  'VISION-OCR': ['DAY-PASS', 'BASIC-M', 'PRO-Q'],
  'SEARCH-PLUS': ['TRIAL-7D', 'DAY-PASS', 'BASIC-M', 'PRO-M'],
  'LEGACY-BOT': ['LEGACY-M', 'BASIC-M'],
};

const NOTES = [
  'Customer asked by phone, "please extend", ticket #4412',
  'Client très satisfait, renouvellement prévu',
  'Müller GmbH: invoice 2024-113, paid by wire',
  'Año nuevo: promoción, 20% de descuento',
  '日本のお客様 — 東京オフィス',
  'Goodwill gesture\nafter the outage of 12 March',
  'Said: "no more emails, thanks"',
  'Duplicate charge, refunded; see ticket, #9921',
  'Migrated from the legacy plan',
  'Renewal failed twice, card expired',
  'Ñandú Studios, S.L.: team account',
  'Promo "SPRING25", first month',
];

const TX_DESCRIPTIONS: Record<string, string[]> = {
  topup: ['Wallet top-up', 'Top-up by card', 'Top-up, "instant" transfer', 'Recharge du portefeuille', 'Aufladung über PayPal', 'チャージ'],
  deduct: [
    'Subscription purchase',
    'Plan upgrade, prorated',
    "Achat d'abonnement — Pro",
    'Usage overage, March\nbilled monthly',
    'Compra de créditos',
  ],
  refund: ['Refund: duplicate charge', 'Refund, "service outage"', 'Remboursement partiel', 'Rückerstattung (Kulanz)'],
  auto_renewal: ['Automatic renewal', 'Auto-renewal, monthly plan', 'Renouvellement automatique', 'Renovación automática'],
};

const AUDIT_ACTIONS: Array<[string, string]> = [
  ['services', 'create'],
  ['services', 'update'],
  ['subscription-plans', 'create'],
  ['subscription-plans', 'update'],
  ['service-plans', 'create'],
  ['service-plans', 'manage'],
  ['subscriptions', 'manage'],
  ['subscriptions', 'manage'],
  ['subscriptions', 'manage'],
  ['subscriptions', 'delete'],
  ['usage-codes', 'generate'],
  ['maintenance', 'cleanup'],
  ['users', 'create'],
  ['users', 'update'],
  ['roles', 'assign'],
  ['auth', 'login'],
  ['auth', 'login'],
];

const USER_AGENTS = [
  'subctl/0.1.0 node/20.20.0 linux-x64',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'curl/8.5.0',
];

/** Adds `n` units of `unit` to a time (months and years on the calendar). */
function addDuration(ms: number, n: number, unit: string): number {
  if (unit === 'days') return ms + n * DAY;
  const d = new Date(ms);
  if (unit === 'months') d.setUTCMonth(d.getUTCMonth() + n);
  else d.setUTCFullYear(d.getUTCFullYear() + n);
  return d.getTime();
}

export const seedAdmin: Seeder = (db: DB, { scale, rng, now }) => {
  const nowMs = now.getTime();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
  const money = (lo: number, hi: number) => Math.round((lo + rng() * (hi - lo)) * 100) / 100;
  const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const chars = (n: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += ALNUM[Math.floor(rng() * 32)];
    return s;
  };
  const n = (base: number) => Math.max(1, Math.round(base * scale));

  // Accounts: the user area seeds them; a database without them (the user seeder not there
  // yet) gets the well-known accounts and some customers here, so the admin area stands alone.
  ensureUsers(db, rng, nowMs);
  const allUsers = db.prepare('SELECT user_id, role, wallet_balance, created_date FROM users ORDER BY user_id').all() as Array<{
    user_id: number;
    role: string;
    wallet_balance: number;
    created_date: string;
  }>;
  const staff = allUsers.filter((u) => u.role === 'admin' || u.role === 'superadmin' || u.role === 'manager').map((u) => u.user_id);
  const auditors = allUsers.filter((u) => u.role !== 'user').map((u) => u.user_id);
  const customers = allUsers.filter((u) => u.role === 'user').map((u) => u.user_id);
  if (customers.length === 0) customers.push(...allUsers.map((u) => u.user_id));
  const admins = staff.length ? staff : [allUsers[0].user_id];

  // --- services, plans, links -------------------------------------------------------------
  const insService = db.prepare(
    `INSERT INTO services (service_code, service_name, service_type, provider_name, description, base_service_url, access_pattern,
       credit_reset_cycle, is_active, requires_auth, report_type, created_by, updated_by, created_date, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const serviceIds = new Map<string, number>();
  SEED_SERVICES.forEach((s, i) => {
    const created = nowMs - (760 - i * 9) * DAY;
    const updated = created + int(1, 300) * DAY;
    const slug = s.code.toLowerCase();
    const r = insService.run(
      s.code,
      s.name,
      s.type,
      s.provider,
      s.description,
      `https://api.sandbox.local/v1/${slug}`,
      s.type === 'TIME_BASED' ? '/chat/*' : s.type === 'USAGE_BASED' ? `/${slug}/invoke` : `/${slug}/*, /reports/*`,
      s.cycle,
      s.active === false ? 0 : 1,
      s.requiresAuth === false ? 0 : 1,
      s.reportType ?? 'api',
      pick(admins),
      pick(admins),
      iso(created),
      iso(Math.min(updated, nowMs - DAY)),
    );
    serviceIds.set(s.code, Number(r.lastInsertRowid));
  });

  const insPlan = db.prepare(
    `INSERT INTO subscription_plans (plan_code, plan_name, description, price, currency, duration, duration_unit, credit_amount, credit_unit,
       max_usage_per_day, auto_renewal, is_active, created_by, updated_by, created_date, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const plans = new Map<string, PlanSeed & { id: number }>();
  SEED_PLANS.forEach((p, i) => {
    const created = nowMs - (750 - i * 11) * DAY;
    const r = insPlan.run(
      p.code,
      p.name,
      p.description ?? null,
      p.price,
      p.currency ?? 'USD',
      p.duration,
      p.unit,
      p.credits,
      p.creditUnit,
      p.maxPerDay,
      p.autoRenewal ? 1 : 0,
      p.active === false ? 0 : 1,
      pick(admins),
      pick(admins),
      iso(created),
      iso(Math.min(created + int(1, 200) * DAY, nowMs - DAY)),
    );
    plans.set(p.code, { ...p, id: Number(r.lastInsertRowid) });
  });

  const insLink = db.prepare(
    'INSERT INTO service_plans (service_id, plan_id, is_available, created_by, created_date, last_updated) VALUES (?, ?, ?, ?, ?, ?)',
  );
  interface Link {
    id: number;
    serviceId: number;
    plan: PlanSeed & { id: number };
    created: number;
    weight: number;
  }
  const links: Link[] = [];
  for (const s of SEED_SERVICES) {
    for (const code of LINKS[s.code]) {
      const plan = plans.get(code)!;
      const created = nowMs - int(380, 730) * DAY;
      const available = s.active === false || plan.active === false ? 0 : rng() < 0.88 ? 1 : 0;
      const r = insLink.run(serviceIds.get(s.code), plan.id, available, pick(admins), iso(created), iso(created + int(0, 300) * DAY));
      // Popular services and cheap plans sell more.
      const weight = (s.code === 'GPT4' || s.code === 'CLAUDE3' ? 3 : 1) * (plan.price < 50 ? 2 : 1) * (available ? 1 : 0.3);
      links.push({ id: Number(r.lastInsertRowid), serviceId: serviceIds.get(s.code)!, plan, created, weight });
    }
  }
  const linkCum: number[] = [];
  let wsum = 0;
  for (const l of links) linkCum.push((wsum += l.weight));
  const pickLink = () => {
    const x = rng() * wsum;
    let lo = 0;
    let hi = linkCum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (linkCum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return links[lo];
  };

  // --- subscriptions (in memory first: codes and usage logs annotate them) ----------------
  interface Sub {
    id: number;
    user: number;
    link: Link;
    status: string;
    start: number;
    end: number;
    created: number;
    updated: number;
    renewals: number;
    total: number;
    used: number;
    payment: string;
    auto: number;
    code: string | null;
    batch: string | null;
    usage: number;
    lastUsage: number | null;
  }
  const TWO_YEARS = 730 * DAY;
  const subs: Sub[] = [];
  const subsByLink = new Map<number, number[]>();
  const subsByUser = new Map<number, number[]>();
  const nSubs = n(3000);
  for (let i = 0; i < nSubs; i++) {
    const link = pickLink();
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
  function mkSub(link: Link, status: string, start: number, end: number, renewals: number): Sub {
    const p = link.plan;
    const total = p.credits * (renewals + 1);
    const frac = status === 'expired' ? 0.5 + rng() * 0.5 : rng() * 0.9;
    const idx = subs.length;
    const user = pick(customers);
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

  // --- usage codes -------------------------------------------------------------------------
  interface Code {
    value: string;
    batch: string;
    link: Link;
    created: number;
    expiry: number;
    usedBy: number | null;
    usedDate: number | null;
    subIdx: number | null;
    createdBy: number;
  }
  const codes: Code[] = [];
  const codeValues = new Set<string>();
  const nCodes = n(2000);
  let batchNo = 0;
  while (codes.length < nCodes) {
    batchNo++;
    const link = pickLink();
    const size = Math.min(nCodes - codes.length, int(10, 120));
    const created = nowMs - Math.floor(rng() * 600 * DAY) - DAY;
    // Some batches are long expired, most still run.
    const expiry = created + pick([30, 90, 180, 365, 365]) * DAY;
    const prefix = pick(['PROMO', 'GIFT', 'EDU', 'PARTNER', 'VIP', '']);
    const yyyymm = iso(created).slice(0, 7).replace('-', '');
    const batch = `${prefix || 'BATCH'}-${yyyymm}-${String(batchNo).padStart(3, '0')}`;
    const createdBy = pick(admins);
    const candidates = subsByLink.get(link.id) ?? [];
    for (let k = 0; k < size; k++) {
      let value: string;
      do value = `${prefix ? `${prefix}-` : ''}${chars(4)}-${chars(4)}`;
      while (codeValues.has(value));
      codeValues.add(value);
      const c: Code = { value, batch, link, created, expiry, usedBy: null, usedDate: null, subIdx: null, createdBy };
      if (rng() < 0.4) {
        const usedDate = created + Math.floor(rng() * (Math.min(expiry, nowMs) - created));
        // Prefer a subscription of this link started around the use, without a code yet.
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
          s.code = value;
          s.batch = batch;
          c.usedBy = s.user;
          c.subIdx = subIdx;
          c.usedDate = Math.max(created, Math.min(s.start, expiry - 1));
        } else c.usedBy = pick(customers);
      }
      codes.push(c);
    }
  }

  // --- usage logs (annotate subscriptions with counts and last use) -----------------------
  const usable = subs.map((s, i) => i).filter((i) => subs[i].status !== 'cancelled' || subs[i].end > nowMs - 180 * DAY);
  interface Use {
    user: number;
    sub: number;
    service: number;
    amount: number;
    type: string;
    rt: number;
    at: number;
  }
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

  // --- insert subscriptions, codes, usage logs ---------------------------------------------
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
  // The end users' purchases, code activations and service use, as the audit log records them.
  const endUserAudit: AuditSeed[] = [];
  const serviceCodes = new Map([...serviceIds].map(([code, id]) => [id, code]));
  for (const s of subs) {
    const target = { subscription_id: s.id, service_code: serviceCodes.get(s.link.serviceId) ?? null, plan_code: s.link.plan.code };
    if (s.code)
      endUserAudit.push(
        endUserEntry(s.created, s.user, 'activate_code', {
          code: s.code,
          ...target,
          credits_added: s.link.plan.credits,
          created_subscription: true,
        }),
      );
    else endUserAudit.push(endUserEntry(s.created, s.user, 'buy', { payment_method: 'WALLET', ...target, amount: s.link.plan.price }));
  }
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
  const insUse = db.prepare(
    'INSERT INTO usage_logs (user_id, subscription_id, service_id, usage_amount, usage_type, response_time, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  uses.sort((a, b) => a.at - b.at);
  for (const u of uses) {
    insUse.run(u.user, subs[u.sub].id, u.service, u.amount, u.type, u.rt, iso(u.at));
    endUserAudit.push(
      endUserEntry(u.at, u.user, 'use', {
        service_code: serviceCodes.get(u.service) ?? null,
        subscription_id: subs[u.sub].id,
        usage_amount: u.amount,
        usage_type: u.type,
      }),
    );
  }

  // --- wallet transactions: chronological, balances consistent and never negative ----------
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
  const walletUsers = allUsers.map((u) => u.user_id);
  const balance = new Map<number, number>();
  const lastTopup = new Map<number, number>();
  const nTx = n(10_000);
  const start = nowMs - TWO_YEARS;
  const step = (TWO_YEARS - DAY) / nTx;
  const methods = ['card', 'card', 'card', 'paypal', 'paypal', 'bank', 'crypto'];
  let refNo = 0;
  const ref = () => `TXN-${(++refNo).toString(36).toUpperCase().padStart(7, '0')}-${chars(4)}`;
  for (let i = 0; i < nTx; i++) {
    const at = Math.floor(start + (i + rng()) * step);
    // Customers hold most wallets; staff accounts test too.
    const user = rng() < 0.9 ? pick(customers) : pick(walletUsers);
    const before = balance.get(user) ?? 0;
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
    let after = before;
    if (status === 'completed') after = type === 'topup' || type === 'refund' ? before + amount : before - amount;
    after = Math.round(after * 100) / 100;
    balance.set(user, after);
    if (status === 'completed' && type === 'topup') lastTopup.set(user, at);
    let related: number | null = null;
    if (type !== 'topup') {
      const us = subsByUser.get(user);
      if (us && us.length) related = subs[us[Math.floor(rng() * us.length)]].id;
    }
    const when = iso(at);
    // Drawn in this order (method, description, reference): the seed stays what it was.
    const method = pick(methods);
    const description = pick(TX_DESCRIPTIONS[type]);
    const reference = ref();
    txBatch.push(user, type, amount, before, after, method, status, description, reference, related, when, when);
    if (status === 'completed' && type === 'topup')
      endUserAudit.push(endUserEntry(at, user, 'topup', { amount, payment_method: method, transaction_reference: reference }));
    if (status === 'completed' && type === 'auto_renewal')
      endUserAudit.push(endUserEntry(at, user, 'auto_renewal', { subscription_id: related, amount }));
    if (txBatch.length === TX_BATCH * 12) {
      insTxBatch.run(txBatch);
      txBatch.length = 0;
    }
  }
  for (let k = 0; k < txBatch.length; k += 12) insTx.run(txBatch.slice(k, k + 12));
  // Each wallet's balance is where its history ends, except for the well-known accounts: they
  // keep the balance the user area gave them (tests count on it), reached by one adjustment.
  const setBalance = db.prepare('UPDATE users SET wallet_balance = ?, last_topup_date = ? WHERE user_id = ?');
  const wellKnown = new Set(SEEDED_ACCOUNTS.map((a) => a.username));
  const usernames = new Map(
    (db.prepare('SELECT user_id, username FROM users').all() as Array<{ user_id: number; username: string }>).map((r) => [
      r.user_id,
      r.username,
    ]),
  );
  for (const u of allUsers) {
    const hist = balance.get(u.user_id);
    if (hist === undefined) continue;
    const want = u.wallet_balance;
    if (wellKnown.has(usernames.get(u.user_id) ?? '') && want > 0) {
      if (Math.abs(want - hist) < 0.005) continue;
      const amount = Math.round(Math.abs(want - hist) * 100) / 100;
      const when = iso(nowMs - 2 * 3_600_000 - u.user_id * 60_000);
      insTx.run(
        u.user_id,
        want > hist ? 'topup' : 'deduct',
        amount,
        hist,
        want,
        'bank',
        'completed',
        'Balance adjustment, "reconciliation"',
        ref(),
        null,
        when,
        when,
      );
    } else {
      const t = lastTopup.get(u.user_id);
      setBalance.run(hist, t === undefined ? null : iso(t), u.user_id);
    }
  }

  // --- old tokens (expired or revoked), for the cleanup ------------------------------------
  const insToken = db.prepare(
    'INSERT OR IGNORE INTO tokens (token, user_id, session_id, device_id, created_at, expires_at, revoked_at) VALUES (?, ?, NULL, NULL, ?, ?, ?)',
  );
  const nTokens = n(150);
  for (let i = 0; i < nTokens; i++) {
    const created = nowMs - int(1, 400) * DAY;
    const expires = created + 12 * 3_600_000;
    const revoked = rng() < 0.4 ? iso(created + int(1, 600) * 60_000) : null;
    insToken.run(`sbx_seed_${chars(24)}`, pick(walletUsers), iso(created), iso(Math.min(expires, nowMs - 60_000)), revoked);
  }

  // --- audit history -----------------------------------------------------------------------
  const insAudit = db.prepare(
    'INSERT INTO audit_logs (user_id, username, module, action, details, ip_address, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const names = new Map(
    (db.prepare('SELECT user_id, username FROM users').all() as Array<{ user_id: number; username: string }>).map((r) => [
      r.user_id,
      r.username,
    ]),
  );
  const nAudit = n(1000);
  // Staff history and the end users' own actions, inserted in time order (the log pages by id).
  const entries: AuditSeed[] = endUserAudit;
  const auditStep = (TWO_YEARS - DAY) / nAudit;
  const actions = ['extend', 'pause', 'resume', 'cancel', 'add_credits'];
  const subIdsSample = () => subs[Math.floor(rng() * subs.length)].id;
  for (let i = 0; i < nAudit; i++) {
    const at = Math.floor(nowMs - TWO_YEARS + (i + rng()) * auditStep);
    const [module, action] = pick(AUDIT_ACTIONS);
    const actor = module === 'auth' ? pick(walletUsers) : pick(rng() < 0.8 ? admins : auditors.length ? auditors : admins);
    let details: unknown;
    switch (`${module}.${action}`) {
      case 'subscriptions.manage': {
        const a = pick(actions);
        details = {
          subscription_id: subIdsSample(),
          action: a,
          reason: pick(NOTES),
          ...(a === 'extend' ? { extend_days: pick([7, 14, 30]) } : {}),
          ...(a === 'add_credits' ? { extend_credits: pick([100, 500, 1000]) } : {}),
        };
        break;
      }
      case 'subscriptions.delete':
        details = { subscription_id: subIdsSample(), reason: pick(NOTES) };
        break;
      case 'services.create':
      case 'services.update':
        details = { service_code: pick(SEED_SERVICES).code, changes: { description: pick(NOTES) } };
        break;
      case 'usage-codes.generate':
        details = { batch_id: `BATCH-${chars(6)}`, code_count: pick([10, 50, 100]), note: pick(NOTES) };
        break;
      case 'maintenance.cleanup':
        details = { dry_run: rng() < 0.5, cleanup_expired_days: 90, expired_subscriptions: int(0, 40) };
        break;
      case 'auth.login':
        details = { result: 'success' };
        break;
      default:
        details = { note: pick(NOTES) };
    }
    entries.push({ at, actor, module, action, details, ip: `10.0.${int(0, 9)}.${int(2, 250)}`, agent: pick(USER_AGENTS) });
  }
  entries.sort((a, b) => a.at - b.at);
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
};

/** One seeded audit entry before insertion. */
interface AuditSeed {
  at: number;
  actor: number;
  module: string;
  action: string;
  details: unknown;
  ip: string;
  agent: string;
}

/**
 * An end user's own action as the running sandbox records it (src/sandbox/handlers/user-enduser.ts):
 * module `user`, the end user as the actor. No random draw: the rest of the seed stays as it was.
 */
function endUserEntry(at: number, actor: number, action: string, details: Record<string, unknown>): AuditSeed {
  return {
    at,
    actor,
    module: 'user',
    action,
    details,
    ip: `10.1.${(actor >> 8) & 255}.${actor & 255}`,
    agent: 'SubscriptionApp/2.4 (Android 14)',
  };
}

/**
 * The well-known accounts plus a few hundred customers, when the users table is empty (the
 * user area's seeder normally creates them, with more detail).
 */
function ensureUsers(db: DB, rng: () => number, nowMs: number): void {
  const count = (db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  if (count > 0) return;
  const ins = db.prepare(
    `INSERT INTO users (username, email, full_name, password_hash, role, status, is_verified, created_date, last_login_date, wallet_balance)
     VALUES (?, ?, ?, ?, ?, 'Active', 1, ?, ?, 0)`,
  );
  for (const a of SEEDED_ACCOUNTS)
    ins.run(a.username, a.email, a.full_name, hashPassword(a.password), a.role, iso(nowMs - 400 * DAY), iso(nowMs - DAY));
  const shared = hashPassword('sandbox-user');
  const first = ['José', 'Zoë', 'Chloé', 'Jürgen', 'Iñaki', 'Seán', 'Mia', 'Noah', '山田', 'Léa'];
  const last = ['Núñez', 'Müller', "O'Brien", 'García', 'Lefèvre', 'Smith', '太郎', 'Kowalski'];
  for (let i = 0; i < 300; i++) {
    const f = first[Math.floor(rng() * first.length)];
    const l = last[Math.floor(rng() * last.length)];
    const full = rng() < 0.1 ? `${l}, ${f}` : rng() < 0.05 ? `${f} "Ace"\n${l}` : `${f} ${l}`;
    ins.run(
      `customer${i + 1}`,
      `customer${i + 1}@example.com`,
      full,
      shared,
      'user',
      iso(nowMs - Math.floor(rng() * 700) * DAY - DAY),
      null,
    );
  }
}
