/**
 * The console's jumps between a user and what is theirs: on a user, S W A open their
 * subscriptions, wallet transactions and audit entries (each a list the server filters by
 * user_id); on a row naming a user, U opens the user's detail. Pure: the controller dispatches.
 */
import type { Row } from './resources.js';

/** Resources whose rows are users (their id in `user_id`). */
const USER_RESOURCES = ['users', 'users-search', 'role-assignments'];
/** Resources whose rows name a user by `user_id`. */
const ROWS_WITH_USER = ['subscriptions', 'wallet', 'audit', 'usage-codes'];

const LISTS: Record<string, string> = { S: 'subscriptions', W: 'wallet', A: 'audit' };

export type Jump =
  | { kind: 'list'; resource: string; filters: Record<string, unknown> }
  | { kind: 'detail'; resource: 'users'; row: Row }
  | { unavailable: string };

const idOf = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;

/** The jump a key makes from `row` of `resource`; undefined when the key is not a jump there. */
export function jumpFor(resource: string | undefined, key: string, row: Row | undefined): Jump | undefined {
  if (!resource) return undefined;
  if (USER_RESOURCES.includes(resource) && LISTS[key]) {
    const id = idOf(row?.user_id);
    if (id === undefined) return { unavailable: 'no user selected' };
    return { kind: 'list', resource: LISTS[key], filters: { user_id: id } };
  }
  if (ROWS_WITH_USER.includes(resource) && key === 'U') {
    const id = idOf(row?.user_id ?? row?.used_by);
    if (id === undefined) return { unavailable: 'this row names no user' };
    return { kind: 'detail', resource: 'users', row: { user_id: id, username: row?.username ?? row?.used_by_username } };
  }
  return undefined;
}

/** Footer hints of the jumps on `resource`. */
export function jumpHints(resource: string | undefined): string[] {
  if (!resource) return [];
  if (USER_RESOURCES.includes(resource)) return ['S subs', 'W wallet', 'A audit'];
  if (ROWS_WITH_USER.includes(resource)) return ['U user'];
  return [];
}
