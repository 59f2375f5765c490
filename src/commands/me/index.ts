/**
 * `subctl me`: the end-user area (/user/*, /test/services) as the signed-in account sees it.
 * For support engineers reproducing what a user sees, with that user's token
 * (`auth login --profile alice`, then `subctl me ... --profile alice`).
 */
import {
  meAccess,
  meActivate,
  meAutoRenewal,
  meBuy,
  meGenerateAccess,
  mePlans,
  meServices,
  meSubscriptions,
  meTestServices,
  meTopup,
  meUse,
  meWallet,
} from '../../api/contract/user-enduser.js';
import { CliError, ExitCode, HttpError, UsageError } from '../../api/errors.js';
import { readBoolean } from '../../api/read-values.js';
import { formatCell } from '../../output/format.js';
import type { AnyEndpoint } from '../../api/contract/common.js';
import type { Ctx } from '../../cli/context.js';
import { listRows } from '../../cli/paging.js';
import { verbsBuilder } from '../../cli/verbs.js';
import { printList, printObject } from '../../output/index.js';
import { printAnswer } from '../auth/answer.js';
import type { Group } from '../types.js';
import { out } from '../common.js';

const SERVICE_COLUMNS = [
  'service_id',
  'service_code',
  'service_name',
  'service_type',
  'min_price',
  'max_price',
  'has_active_subscription',
  'current_plan_name',
];
const PLAN_COLUMNS = [
  'service_plan_id',
  'service_code',
  'plan_code',
  'plan_name',
  'price',
  'currency',
  'duration',
  'duration_unit',
  'credit_amount',
  'max_usage_per_day',
  'is_current_plan',
];
const SUBSCRIPTION_COLUMNS = [
  'subscription_id',
  'service_code',
  'plan_code',
  'status',
  'start_date',
  'end_date',
  'remaining_credits',
  'usage_today',
  'auto_renewal',
];

/** Lists answered whole: the rows wherever the tolerant reader finds them; none to be found, `data` as received under -o json. */
const asList = (ep: AnyEndpoint, columns?: string[]) => async (data: unknown, ctx: Ctx) => {
  const rows = listRows(ctx, ep, data, '');
  if (rows) await printList(rows, out(ctx, columns));
  else await printObject(data ?? {}, out(ctx));
};

export const meGroup: Group = {
  name: 'me',
  // A table of verbs: read whole.
  build: verbsBuilder(() => [
    {
      name: 'services',
      examples: ['subctl me services', 'subctl me services --service-type USAGE_BASED --show-subscribed true'],
      endpoint: meServices,
      render: asList(meServices, SERVICE_COLUMNS),
    },
    {
      name: 'plans',
      examples: ['subctl me plans GPT4'],
      endpoint: mePlans,
      args: ['service_code?'],
      render: asList(mePlans, PLAN_COLUMNS),
    },
    {
      name: 'access',
      examples: ['subctl me access GPT4 --requested-usage 10'],
      endpoint: meAccess,
      args: ['service_code?'],
      summary: 'may the account use a service now, and what remains: exit 0 when it may, 5 when not',
      override: async (input, ctx) => {
        const api = await ctx.api();
        const data = (await api.call(meAccess, { query: input.query } as never, { signal: ctx.signal })) as Record<string, unknown> | null;
        await printObject(data ?? {}, out(ctx));
        if (readBoolean(data?.has_access) === false) {
          // Exit 5 with its reason as an error on stderr (one JSON object under -o json); a reason
          // of any shape is shown as text (formatCell: objects as JSON).
          const reason = data?.access_reason ? ` (${formatCell(data.access_reason, { tty: false })})` : '';
          throw new CliError('rejected', ExitCode.rejected, `no access to ${String(input.query.service_code)}${reason}`, {
            hint: '`subctl me subscriptions` shows your subscriptions and `subctl me plans` what can be bought',
          });
        }
        return 0;
      },
    },
    {
      name: 'subscriptions',
      examples: ['subctl me subscriptions --status active'],
      endpoint: meSubscriptions,
      aliases: ['subs'],
      render: asList(meSubscriptions, SUBSCRIPTION_COLUMNS),
    },
    { name: 'wallet', examples: ['subctl me wallet', 'subctl me wallet -o json'], endpoint: meWallet },
    { name: 'test-services', examples: ['subctl me test-services'], endpoint: meTestServices, render: asList(meTestServices) },
    {
      name: 'buy',
      examples: [
        'subctl me buy PRO-M --service-code GPT4 --payment-method WALLET',
        'subctl me buy --service-plan-id 3 --payment-method PAYMENT --gateway-name STRIPE',
      ],
      endpoint: meBuy,
      args: ['plan_code?'],
      summary: 'buy a subscription: --payment-method WALLET|PAYMENT|FREE, the offer by --service-plan-id or --service-code/--plan-code',
    },
    { name: 'generate-access', examples: ['subctl me generate-access GPT4'], endpoint: meGenerateAccess, args: ['service_code?'] },
    {
      name: 'use',
      examples: ['subctl me use GPT4 --usage-amount 1 --usage-type api_call'],
      endpoint: meUse,
      args: ['service_code?'],
      summary: 'record a use of a service: --usage-amount N --usage-type api_call|generate|analyze',
      override: async (input, ctx) => {
        const api = await ctx.api();
        try {
          await printAnswer(ctx, await api.callFull(meUse, { body: input.body } as never, { signal: ctx.signal }));
          return 0;
        } catch (e) {
          // A refusal for the daily limit says what the limit is and how to see what remains.
          const d = e instanceof HttpError ? (e.details as Record<string, unknown> | undefined) : undefined;
          if (e instanceof HttpError && (d?.code === 'DAILY_LIMIT_REACHED' || d?.daily_limit !== undefined)) {
            const limit =
              d?.daily_limit !== undefined
                ? `the plan allows ${String(d.daily_limit)} a day${d.usage_today !== undefined ? ` and ${String(d.usage_today)} were used today` : ''}; `
                : '';
            e.hint = `${limit}\`subctl me access ${String(input.body.service_code)}\` shows what remains`;
          }
          throw e;
        }
      },
    },
    { name: 'activate', examples: ['subctl me activate SPR-8K2M-Q7TZ'], endpoint: meActivate, args: ['activation_code?'] },
    {
      name: 'topup',
      examples: ['subctl me topup --amount 25 --payment-method card'],
      endpoint: meTopup,
      summary: 'top up the wallet: --amount N --payment-method card|bank|paypal [--payment-data JSON]',
      prepare: (input) => {
        const raw = input.body.payment_data;
        if (typeof raw !== 'string') return;
        try {
          input.body.payment_data = JSON.parse(raw);
        } catch {
          throw new UsageError(`invalid input: payment_data (--payment-data) must be a JSON object, e.g. '{"card_last4":"4242"}'`);
        }
      },
    },
    {
      name: 'auto-renewal',
      examples: ['subctl me auto-renewal 42 --auto-renewal false'],
      endpoint: meAutoRenewal,
      args: ['subscription_id?'],
      summary: "turn a subscription's auto-renewal on (--auto-renewal) or off (--no-auto-renewal)",
    },
  ]),
};
