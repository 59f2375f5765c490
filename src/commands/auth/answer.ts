/** How an action verb without columns of its own prints its answer (auth, me and referrals share it). */
import type { Ctx } from '../../cli/context.js';
import { printObject } from '../../output/index.js';
import { out } from '../common.js';

/** Prints an action's answer the way contract verbs do: its data, or its message when there is none. */
export async function printAnswer(ctx: Ctx, res: { data: unknown; message?: string | null }) {
  const data = res.data === null || res.data === undefined ? { message: res.message ?? 'done' } : res.data;
  if (res.message && ctx.globals.output === 'table' && ctx.io.stdoutIsTTY) ctx.note(res.message);
  await printObject(data, out(ctx));
}
