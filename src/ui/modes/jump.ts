/**
 * The console follows a user: on a user (a row or its detail) S, W and A open their
 * subscriptions, wallet and audit (lists on the server, kept to the user); on a row that names
 * a user (a subscription, a transaction, an audit entry) U opens that user. Esc comes back.
 */
import { jumpFor } from '../jumps.js';
import type { KeyPress } from '../keys.js';
import { resourceByName, type Row } from '../resources.js';
import type { ModeHost } from './host.js';

/** Follows the jump `k` names from `row`, if it names one: true when the key was taken. */
export function jumpKey(h: ModeHost, k: KeyPress, row: Row | undefined): boolean {
  const resource = h.state.detail?.resource ?? h.state.resource;
  const jump = jumpFor(resource, k.input, row);
  if (!jump) return false;
  if ('unavailable' in jump) {
    h.say('info', jump.unavailable);
    return true;
  }
  if (jump.kind === 'detail') h.dispatch({ type: 'jump-detail', resource: jump.resource, row: jump.row });
  else {
    const r = resourceByName(jump.resource);
    if (!r) return false;
    h.dispatch({ type: 'jump-list', resource: r.name, size: h.pageSize(r), filters: jump.filters });
  }
  return true;
}
