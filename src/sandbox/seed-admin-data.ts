/**
 * The fixed part of the administrator area's seed (seed-admin.ts): the services and plans,
 * which plans each service offers, and the texts the generated rows draw from. Codes are
 * stable: tests and docs may name them.
 */
export interface ServiceSeed {
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
export const SEED_SERVICES: ServiceSeed[] = [
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

export interface PlanSeed {
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
export const SEED_PLANS: PlanSeed[] = [
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
export const LINKS: Record<string, string[]> = {
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

export const NOTES = [
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

export const TX_DESCRIPTIONS: Record<string, string[]> = {
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

export const AUDIT_ACTIONS: Array<[string, string]> = [
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

export const USER_AGENTS = [
  'subctl/0.1.0 node/20.20.0 linux-x64',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'curl/8.5.0',
];
