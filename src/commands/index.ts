/**
 * Every command group, in the order `subctl --help` lists them. Each group's module (and the
 * contract schemas it needs) is loaded only when the command line names it, so that a command
 * pays only for its own group.
 */
import type { Group } from './types.js';

export interface GroupEntry {
  name: string;
  summary: string;
  aliases?: string[];
  /** Not listed by `subctl --help` (the `__complete` callback of the completion scripts). */
  hidden?: boolean;
  load: () => Promise<Group>;
}

export const groups: GroupEntry[] = [
  {
    name: 'auth',
    summary: 'sign in and out, register, passwords, verification',
    load: async () => (await import('./auth/index.js')).authGroup,
  },
  {
    name: 'services',
    summary: 'services offered through plans (/admin/services)',
    load: async () => (await import('./services/index.js')).servicesGroup,
  },
  {
    name: 'service-plans',
    summary: 'links between services and plans (/admin/service-plans)',
    load: async () => (await import('./admin/service-plans.js')).servicePlansGroup,
  },
  {
    name: 'plans',
    summary: 'subscription plans: price, duration, credits',
    load: async () => (await import('./admin/plans.js')).plansGroup,
  },
  {
    name: 'subscriptions',
    aliases: ['subs'],
    summary: "users' subscriptions: list, manage (extend, pause, resume, cancel, add credits), delete",
    load: async () => (await import('./admin/subscriptions.js')).subscriptionsGroup,
  },
  {
    name: 'usage-codes',
    aliases: ['codes'],
    summary: 'usage codes: list with summary, generate batches',
    load: async () => (await import('./admin/usage-codes.js')).usageCodesGroup,
  },
  { name: 'wallet', summary: 'wallet transactions with their summary', load: async () => (await import('./admin/wallet.js')).walletGroup },
  {
    name: 'dashboard',
    summary: "the platform's dashboard figures and trends",
    load: async () => (await import('./admin/dashboard.js')).dashboardGroup,
  },
  {
    name: 'catalog',
    summary: 'the catalog as code: export services, plans, links and roles, diff, apply',
    load: async () => (await import('./catalog/index.js')).catalogGroup,
  },
  {
    name: 'audit',
    summary: 'audit log: every mutation, who and when; --follow for new entries',
    load: async () => (await import('./admin/audit.js')).auditGroup,
  },
  {
    name: 'cleanup',
    summary: 'maintenance cleanup of subscription data (cron-safe; --dry-run first)',
    load: async () => (await import('./admin/cleanup.js')).cleanupGroup,
  },
  {
    name: 'users',
    summary: 'user accounts; superadmin search and password reset',
    load: async () => (await import('./users/index.js')).usersGroup,
  },
  {
    name: 'roles',
    summary: 'roles, their members, assignment, promotion and demotion',
    load: async () => (await import('./roles/index.js')).rolesGroup,
  },
  {
    name: 'referrals',
    aliases: ['referral'],
    summary: 'referral codes: generate, use, validate, statistics, admin views',
    load: async () => (await import('./referrals/index.js')).referralsGroup,
  },
  { name: 'profile', summary: "the signed-in account's profile", load: async () => (await import('./profile/index.js')).profileGroup },
  {
    name: 'devices',
    summary: "the signed-in account's devices and sessions",
    load: async () => (await import('./profile/index.js')).devicesGroup,
  },
  { name: 'me', summary: 'the end-user area as the signed-in account sees it', load: async () => (await import('./me/index.js')).meGroup },
  {
    name: 'api',
    summary: 'raw API calls with the shared client rules; `api endpoints` lists the contract',
    load: async () => (await import('./api/index.js')).apiGroup,
  },
  {
    name: 'config',
    summary: 'profiles: base address, output and network defaults',
    load: async () => (await import('./config/index.js')).configGroup,
  },
  {
    name: 'sandbox',
    summary: 'the local sandbox platform: serve it, reset it',
    load: async () => (await import('./sandbox/index.js')).sandboxGroup,
  },
  {
    name: 'completion',
    summary: 'print the shell completion script: completion bash|zsh|fish',
    load: async () => (await import('./completion/index.js')).completionGroup,
  },
  {
    name: 'version',
    summary: "subctl's version, commit, build date, Node, platform and contract size; -o json for scripts",
    load: async () => (await import('./version/index.js')).versionGroup,
  },
  {
    name: 'doctor',
    summary: 'check the profile, address, network, TLS, credential, clock and files; says what to fix',
    load: async () => (await import('./doctor/index.js')).doctorGroup,
  },
  {
    name: '__complete',
    hidden: true,
    summary: 'completion candidates for the shell scripts (internal)',
    load: async () => (await import('./completion/index.js')).completeGroup,
  },
  {
    name: 'console',
    summary: 'the interactive console: dashboard, every list, details, actions (a bare `subctl` on a terminal)',
    load: async () => (await import('./console/index.js')).consoleGroup,
  },
];
