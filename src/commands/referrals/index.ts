/**
 * `subctl referrals`: referral codes (/cms/referral*, /cms/referred-users,
 * /cms/referral-codes/search) and the admin views (/cms/admin/referral*, /cms/admin/users/...).
 * The items of these lists are not described by the specification: tables show the keys of
 * the first row unless --fields says otherwise.
 */
import {
  referralsAdminList,
  referralsAdminReferred,
  referralsAdminSearch,
  referralsAdminUserReferred,
  referralsAdminUserStats,
  referralsDeactivate,
  referralsGenerate,
  referralsInfo,
  referralsMine,
  referralsReferred,
  referralsSearch,
  referralsStats,
  referralsUpdate,
  referralsUse,
  referralsValidate,
} from '../../api/contract/user-referrals.js';
import { CliError, ExitCode, UsageError } from '../../api/errors.js';
import { readBoolean } from '../../api/read-values.js';
import { formatCell } from '../../output/format.js';
import type { Ctx } from '../../cli/context.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printSummary } from '../common.js';
import { printAnswer } from '../auth/answer.js';
import type { Group } from '../types.js';
import { userArg } from '../users/lookup.js';

const summary = (data: Record<string, unknown>, ctx: Ctx) => printSummary(ctx, 'Summary', data.summary);

export const referralsGroup: Group = {
  name: 'referrals',
  aliases: ['referral'],
  // A table of verbs: read whole.
  build: verbsBuilder(() => [
    {
      name: 'generate',
      examples: ['subctl referrals generate --description "partners" --expiry-days 30 --usage-limit 100'],
      endpoint: referralsGenerate,
    },
    {
      name: 'validate',
      examples: ['subctl referrals validate SPRING-7Q2X'],
      endpoint: referralsValidate,
      args: ['referral_code?'],
      summary: 'check a referral code: prints the answer; exit 0 when valid, 5 when not',
      bulk: false,
      prepare: (i) => {
        if (i.body.referral_code === undefined)
          throw new UsageError('referrals validate needs a code: subctl referrals validate REF-XXXXXX');
      },
      override: async (input, ctx) => {
        const api = await ctx.api();
        const res = await api.callFull(referralsValidate, { body: input.body } as never, { signal: ctx.signal });
        await printAnswer(ctx, res);
        const valid = (res.data as Record<string, unknown> | null)?.is_valid;
        // As the platform writes it (`false`, `0`, `"false"`): shown as received, read as a boolean.
        if (readBoolean(valid) === false) {
          // Exit 5 with its reason as an error on stderr (one JSON object under -o json); a message
          // of any shape is shown as text (formatCell: objects as JSON).
          const why = (res.data as Record<string, unknown>).message;
          throw new CliError(
            'rejected',
            ExitCode.rejected,
            `referral code ${String(input.body.referral_code)} is not valid${why ? `: ${formatCell(why, { tty: false })}` : ''}`,
            { hint: 'check the code (codes are matched exactly), or ask its owner for another' },
          );
        }
        return 0;
      },
    },
    {
      name: 'use',
      examples: ['subctl referrals use SPRING-7Q2X --new-user-id 231'],
      endpoint: referralsUse,
      args: ['referral_code?'],
      summary: 'record that a user (--new-user-id) signed up with a referral code',
    },
    {
      name: 'update',
      examples: ['subctl referrals update 14 --new-usage-limit 200 --new-expiry-date 2026-12-31'],
      endpoint: referralsUpdate,
      args: ['referral_code_id?'],
      summary: "change a code's usage limit (--new-usage-limit) or expiry date (--new-expiry-date)",
    },
    {
      name: 'deactivate',
      examples: ['subctl referrals deactivate 14 --reason "campaign ended"'],
      endpoint: referralsDeactivate,
      args: ['referral_code_id?'],
      summary: 'deactivate a referral code (--reason required)',
      destructive: true,
      describe: (i: VerbInput) => `deactivate referral code #${String(i.body.referral_code_id)} (reason: ${String(i.body.reason)})`,
    },
    {
      name: 'mine',
      examples: ['subctl referrals mine', 'subctl referrals mine --include-inactive true -o json'],
      endpoint: referralsMine,
      summary: "the signed-in account's codes (--include-inactive, --search-keyword)",
      extras: summary,
    },
    {
      name: 'stats',
      examples: ['subctl referrals stats'],
      endpoint: referralsStats,
      summary: "the signed-in account's referral statistics",
    },
    {
      name: 'info',
      examples: ['subctl referrals info 17'],
      endpoint: referralsInfo,
      args: ['user_id'],
      names: ['user_id'],
      prepare: userArg('user_id'),
    },
    {
      name: 'referred',
      examples: ['subctl referrals referred --page-size 50'],
      endpoint: referralsReferred,
      summary: 'the users the signed-in account referred',
      extras: summary,
    },
    {
      name: 'search',
      examples: ['subctl referrals search --search-keyword SPRING'],
      endpoint: referralsSearch,
      summary: 'search usable referral codes (staff)',
    },
    {
      name: 'admin-search',
      examples: ['subctl referrals admin-search --search-keyword partners'],
      endpoint: referralsAdminSearch,
      summary: 'admin: search every referral code',
    },
    {
      name: 'admin-list',
      examples: [
        'subctl referrals admin-list --filter-status active --filter-date-from 2026-01-01',
        'subctl referrals admin-list --all -o csv',
      ],
      endpoint: referralsAdminList,
      summary: 'admin: every referral, filtered (--filter-status, dates, --search-keyword) and sorted',
      extras: summary,
    },
    {
      name: 'admin-referred',
      examples: ['subctl referrals admin-referred --search-keyword anderson'],
      endpoint: referralsAdminReferred,
      summary: 'admin: every referred user',
      extras: summary,
    },
    {
      name: 'user-referred',
      examples: ['subctl referrals user-referred 17'],
      endpoint: referralsAdminUserReferred,
      args: ['user_id'],
      names: ['user_id'],
      prepare: userArg('user_id'),
      summary: 'admin: the users one user referred',
      extras: async (data, ctx) => {
        await printSummary(ctx, 'User', data.user_details);
        await printSummary(ctx, 'Summary', data.summary);
      },
    },
    {
      name: 'user-stats',
      examples: ['subctl referrals user-stats 17 --stats-period 90'],
      endpoint: referralsAdminUserStats,
      args: ['user_id'],
      names: ['user_id'],
      prepare: userArg('user_id'),
      summary: "admin: one user's referral statistics over --stats-period days (30)",
    },
  ]),
};
