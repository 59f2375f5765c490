/**
 * The user view as a terminal shows it (`users show`, the console's user screen): each section
 * with the columns that fit 80 columns, audit entries read (src/resources/audit.ts). `-o json`
 * prints the view itself (src/resources/users.ts), fields as the platform sent them.
 */
import { auditLine } from './audit.js';
import { isUnavailable, type Unavailable, type UserView } from './users.js';

type Row = Record<string, unknown>;

export type UserSection = 'account' | 'subscriptions' | 'wallet' | 'referrals' | 'devices' | 'audit';

/** Subscriptions under short headings, so that six columns and a whole end date fit 80 columns. */
const SUBSCRIPTION_VIEW_COLUMNS: Array<[field: string, label: string]> = [
  ['subscription_id', 'id'],
  ['service_code', 'service'],
  ['plan_code', 'plan'],
  ['status', 'status'],
  ['remaining_credits', 'credits'],
  ['end_date', 'ends'],
];
const TRANSACTION_VIEW_COLUMNS = ['transaction_id', 'transaction_type', 'amount', 'status', 'transaction_date'];
const DEVICE_VIEW_COLUMNS = ['device_id', 'device_name', 'is_active', 'last_used'];
const REFERRED_VIEW_COLUMNS = ['user_id', 'username', 'created_date'];

const pick = (row: Row, columns: string[]): Row => {
  const out: Row = {};
  for (const c of columns) if (c in row) out[c] = row[c];
  // A row with none of the expected fields is shown whole rather than empty.
  return Object.keys(out).length ? out : row;
};

/** A subscription under the short headings; remaining credits from total and used where not sent. */
function subscriptionRow(s: Row): Row {
  const remaining =
    s.remaining_credits ??
    (typeof s.total_credits === 'number' && typeof s.used_credits === 'number' ? s.total_credits - s.used_credits : undefined);
  const full: Row = { ...s, remaining_credits: remaining };
  return Object.fromEntries(SUBSCRIPTION_VIEW_COLUMNS.map(([f, label]) => [label, full[f]]));
}

const rows = (v: Row[] | Unavailable, columns: string[], map: (r: Row) => Row = (r) => r): Row[] | Unavailable | string =>
  isUnavailable(v) ? v : v.length ? v.map((r) => pick(map(r), columns)) : 'none';

/** The view's sections but the audit as terminal blocks: an object per section, lists cut to their columns. */
export function userViewSections(view: UserView): Record<Exclude<UserSection, 'audit'>, unknown> {
  const balance = view.account.wallet_balance;
  const wallet = isUnavailable(view.wallet)
    ? view.wallet
    : {
        ...(balance === undefined ? {} : { balance }),
        ...view.wallet.summary,
        latest: rows(view.wallet.transactions, TRANSACTION_VIEW_COLUMNS),
      };
  const referrals = isUnavailable(view.referrals) ? view.referrals : referralBlock(view.referrals.info, view.referrals.referred);
  return {
    account: view.account,
    subscriptions: isUnavailable(view.subscriptions)
      ? view.subscriptions
      : view.subscriptions.length
        ? view.subscriptions.map(subscriptionRow)
        : 'none',
    wallet,
    referrals,
    devices: rows(view.devices, DEVICE_VIEW_COLUMNS),
  };
}

/**
 * The audit section as lines `width` wide (a terminal's; undefined off one: times as sent, no wrapping): entries by them, then about them, one entry a line
 * (wrapped, never cut: the change is what is looked for), as `audit list --follow` prints them.
 */
export function userAuditLines(view: UserView, width: number | undefined): string[] {
  if (isUnavailable(view.audit)) return [`  unavailable  ${view.audit.unavailable}`];
  const out: string[] = [];
  const block = (title: string, entries: Row[]) => {
    out.push(`  ${title} (${entries.length})`);
    if (!entries.length) out.push('    none');
    for (const e of entries) for (const l of auditLine(e, width === undefined ? undefined : width - 4).split('\n')) out.push(`    ${l}`);
  };
  block('by them', view.audit.by_them);
  block(`about them (in the newest ${view.audit.searched_entries} entries of the log)`, view.audit.about_them);
  return out;
}

/** Referral codes, who referred them, whom they referred. */
function referralBlock(info: Row, referred: Row[]): Row {
  const user = (info.user_details ?? {}) as Row;
  const codes = Array.isArray(info.codes) ? (info.codes as Row[]) : [];
  return {
    referred_by: user.referred_by ?? user.referrer_username ?? user.referred_by_username ?? 'nobody',
    codes: codes.length ? codes.map((c) => pick(c, ['referral_code', 'usage_count', 'usage_limit', 'is_active', 'expiry_date'])) : 'none',
    referred: referred.length ? referred.map((r) => pick(r, REFERRED_VIEW_COLUMNS)) : 'none',
  };
}
