/**
 * A user, whole: the look-up by id, username or email that every command taking a user id
 * shares, and the view of `users show` and the console's user screen (account, subscriptions,
 * wallet, referrals, devices, audit). Sections the caller may not read are said to be
 * unavailable; they never end the view.
 */
import { auditList, auditUser, walletList } from '../api/contract/admin-misc.js';
import { subscriptionsList } from '../api/contract/admin-subscriptions.js';
import { devicesList, profileGet, rolesAssignments, usersGet, usersSearch } from '../api/contract/user-accounts.js';
import { referralsAdminUserReferred, referralsInfo } from '../api/contract/user-referrals.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import { CliError, ExitCode, UsageError } from '../api/errors.js';
import { firstRows, walkPages } from '../api/page-walk.js';
import { namesSubscription, namesUser } from './audit.js';

type Row = Record<string, unknown>;

/** What the view's requests need of a client: ApiClient's `call`. */
export interface Caller {
  call(ep: AnyEndpoint, input: unknown, opts?: { signal?: AbortSignal }): Promise<unknown>;
}

/** Entries of the whole audit log read for those about the user (newest first). */
const AUDIT_ABOUT_SCAN = 300;
/** Rows each list section shows at most. */
const SECTION_ROWS = { subscriptions: 100, transactions: 10, audit: 20, referred: 20 };

/** The rows of an answer: under `key`, else the first array in it. */
function rowsOf(data: unknown, key: string): Row[] {
  if (Array.isArray(data)) return data as Row[];
  if (!data || typeof data !== 'object') return [];
  const d = data as Row;
  if (Array.isArray(d[key])) return d[key] as Row[];
  const first = Object.values(d).find(Array.isArray);
  return (first as Row[] | undefined) ?? [];
}

/** `users get`: the answer holds the detail under `user` (or flat) and the permissions beside it. */
export function userDetail(data: Row | null | undefined): Row {
  if (!data || typeof data !== 'object') return {};
  const inner = data.user && typeof data.user === 'object' ? (data.user as Row) : undefined;
  if (!inner) return data;
  const { user: _u, ...rest } = data;
  return { ...inner, ...rest, permissions: rest.permissions ?? inner.permissions };
}

export interface UserRef {
  id: number;
  username?: string;
  email?: string;
}

const same = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/**
 * The user a command names: a whole number is the id (no request); a username or an email is
 * looked up (the staff search, else the superadmin search), matched exactly, case aside. No
 * exact match and several near ones: a UsageError listing them (exit 2); none at all: not found.
 * `resolveUser(api, 'emma.zak')` -> `{ id: 97, username: 'emma.zak', email: 'emma@example.com' }`.
 */
export async function resolveUser(api: Caller, given: unknown, signal?: AbortSignal): Promise<UserRef> {
  const text = String(given ?? '').trim();
  if (/^\d+$/.test(text)) return { id: Number(text) };
  if (!text) throw new UsageError('a user is needed: an id, a username or an email');
  let found: Row[];
  try {
    found = await firstRows(api, rolesAssignments, { query: { search: text } }, 100, { signal });
  } catch (e) {
    if (!(e instanceof CliError && e.status === 403)) throw e;
    found = await firstRows(api, usersSearch, { query: { search_keyword: text } }, 100, { signal });
  }
  const exact = found.filter((u) => same(u.username, text) || same(u.email, text));
  const ref = (u: Row): UserRef => ({
    id: Number(u.user_id ?? u.id),
    username: u.username as string | undefined,
    email: u.email as string | undefined,
  });
  if (exact.length === 1) return ref(exact[0]);
  const listed = (exact.length ? exact : found)
    .slice(0, 10)
    .map((u) => `  ${String(u.user_id ?? u.id)}  ${String(u.username ?? '')}  ${String(u.email ?? '')}`);
  if (found.length === 0)
    throw new CliError('not_found', ExitCode.notFound, `no user has the username or email '${text}'`, {
      hint: 'search with `subctl roles assignments --search TEXT`, or give the id',
    });
  throw new UsageError(
    `'${text}' matches ${exact.length || found.length} users, none exactly by username or email; give one of these ids:\n${listed.join('\n')}`,
    {
      hint: 'give the id, the whole username or the whole email',
    },
  );
}

/** A section the caller may not read, or the platform does not have: said, not fatal. */
export interface Unavailable {
  unavailable: string;
}

export const isUnavailable = (v: unknown): v is Unavailable => !!v && typeof v === 'object' && 'unavailable' in (v as Row);

/**
 * Runs a section's requests; a 403 (or a 404 of a part) becomes `{ unavailable: reason }`. Its
 * failure is observed at once: the view ends with the first section that fails, and the others'
 * failures (the same bad answer, under --strict) must not surface as unhandled rejections.
 */
function section<T>(read: () => Promise<T>): Promise<T | Unavailable> {
  const p = (async () => {
    try {
      return await read();
    } catch (e) {
      if (e instanceof CliError && (e.status === 403 || e.status === 404)) {
        return {
          unavailable: e.status === 403 ? 'the signed-in account may not read this (403)' : `not found on the platform (404): ${e.message}`,
        };
      }
      throw e;
    }
  })();
  p.catch(() => {});
  return p;
}

export interface UserView {
  account: Row;
  subscriptions: Row[] | Unavailable;
  wallet: { summary: Row; transactions: Row[] } | Unavailable;
  referrals: { info: Row; referred: Row[] } | Unavailable;
  devices: Row[] | Unavailable;
  audit: { by_them: Row[]; about_them: Row[]; searched_entries: number } | Unavailable;
}

/** The account section's fields, in order; permissions last. */
const ACCOUNT_FIELDS = ['user_id', 'username', 'email', 'full_name', 'status', 'role', 'created_date', 'last_login_date', 'permissions'];

/** An account as `users show` and the console's user detail show it: ACCOUNT_FIELDS first, then the others. */
export function accountInOrder(account: Row): Row {
  const ordered: Row = {};
  for (const k of ACCOUNT_FIELDS) if (k in account) ordered[k] = account[k];
  return { ...ordered, ...account };
}

/**
 * Everything about one user, read in parallel. The account must exist (its 404 ends the view);
 * each other section stands alone.
 */
export async function loadUserView(api: Caller, ref: UserRef, signal?: AbortSignal): Promise<UserView> {
  const id = ref.id;
  const call = (ep: AnyEndpoint, input: unknown) => api.call(ep, input, { signal });
  const accountP = call(usersGet, { params: { id } }).then((d) => userDetail(d as Row));
  accountP.catch(() => {}); // observed: awaited with the subscriptions below, which may fail first
  // The subscriptions first: the audit about the user names them.
  // Each section's rows over as many pages as a platform serving fewer rows than asked takes.
  const first = (ep: AnyEndpoint, call: { params?: Row; query?: Row }, n: number, onFirst?: (data: unknown) => void) =>
    firstRows(api, ep, call, n, { signal, onFirst });
  const subsP = section(() => first(subscriptionsList, { query: { user_id: id } }, SECTION_ROWS.subscriptions));
  const walletP = section(async () => {
    let d: Row | undefined;
    const transactions = await first(walletList, { query: { user_id: id } }, SECTION_ROWS.transactions, (x) => (d = x as Row));
    return { summary: (d?.summary as Row) ?? {}, transactions };
  });
  const referralsP = section(async () => {
    const [info, referred] = await Promise.all([
      call(referralsInfo, { params: { user_id: id } }) as Promise<Row>,
      section(() => first(referralsAdminUserReferred, { params: { user_id: id } }, SECTION_ROWS.referred)),
    ]);
    return { info: info ?? {}, referred: isUnavailable(referred) ? [] : referred };
  });
  // Devices: the platform shows a user's devices to that user only.
  const devicesP = section(async () => {
    const me = (await call(profileGet, {})) as Row;
    const basic = (me?.basic_info ?? me) as Row;
    if (Number(basic?.user_id) !== id)
      return {
        unavailable: "the platform shows devices to their owner only (GET /cms/users/devices lists the caller's own)",
      } as Unavailable;
    return rowsOf(await call(devicesList, { query: { include_inactive: true } }), 'devices');
  });
  const [account, subscriptions] = await Promise.all([accountP, subsP]);
  const who = { id, username: (account.username as string | undefined) ?? ref.username };
  const subIds = isUnavailable(subscriptions) ? [] : subscriptions.map((s) => Number(s.subscription_id)).filter(Number.isFinite);
  const auditP = section(async () => {
    const byThem = await first(auditUser, { params: { id } }, SECTION_ROWS.audit);
    const about: Row[] = [];
    const scan = walkPages(
      api,
      auditList,
      {},
      { startPage: 1, size: 100, ahead: 1, limit: AUDIT_ABOUT_SCAN, signal: signal ?? new AbortController().signal },
    );
    for await (const e of scan) {
      if (Number(e.user_id) === id) continue;
      if (namesUser(e, who) || subIds.some((s) => namesSubscription(e, s))) about.push(e);
    }
    return { by_them: byThem, about_them: about.slice(0, SECTION_ROWS.audit), searched_entries: AUDIT_ABOUT_SCAN };
  });
  const [wallet, referrals, devices, audit] = await Promise.all([walletP, referralsP, devicesP, auditP]);
  return { account: accountInOrder(account), subscriptions, wallet, referrals, devices, audit };
}
