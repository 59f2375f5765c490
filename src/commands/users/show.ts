/**
 * `subctl users show <id | username | email>`: one user whole, in sections (account,
 * subscriptions, wallet, referrals, devices, audit). The look-up and the view are
 * src/resources/users.ts and src/resources/user-view.ts, which the console uses too.
 */
import type { Ctx } from '../../cli/context.js';
import type { VerbInput, VerbSpec } from '../../cli/verbs.js';
import { printObject } from '../../output/index.js';
import { userAuditLines, userViewSections } from '../../resources/user-view.js';
import { isUnavailable, loadUserView } from '../../resources/users.js';
import { usersGet } from '../../api/contract/user-accounts.js';
import { out } from '../common.js';
import { userArg } from './lookup.js';

async function show(input: VerbInput, ctx: Ctx): Promise<number> {
  const api = await ctx.api();
  const view = await loadUserView(api, { id: Number(input.params.id) }, ctx.signal);
  if (ctx.globals.output !== 'table') {
    // One object, a key per section, fields as the platform sent them.
    await printObject(view, { ...out(ctx), format: ctx.globals.output === 'csv' ? 'json' : ctx.globals.output });
    if (ctx.globals.output === 'csv') ctx.note('users show prints one object: json (csv has no sections)');
    return 0;
  }
  const sections = userViewSections(view);
  const missing = Object.entries(sections)
    .filter(([, v]) => isUnavailable(v))
    .map(([k]) => k);
  await printObject(sections, out(ctx));
  const width = ctx.io.stdoutIsTTY ? ctx.io.columns || 80 : undefined;
  const heading = ctx.color('stdout') ? '\u001b[1m\u001b[36maudit\u001b[39m\u001b[22m' : 'audit';
  ctx.io.stdout.write(`${heading}\n${userAuditLines(view, width).join('\n')}\n`);
  if (isUnavailable(view.audit)) missing.push('audit');
  if (missing.length && !ctx.globals.quiet) ctx.note(`unavailable to this account: ${missing.join(', ')}`);
  return 0;
}

export const showVerb: VerbSpec = {
  name: 'show',
  endpoint: usersGet,
  args: ['id'],
  summary: 'one user whole: account, subscriptions, wallet, referrals, devices and audit (by id, username or email)',
  examples: ['subctl users show emma.zak', 'subctl users show emma@example.com -o json', 'subctl users show 97 --utc'],
  bulk: false,
  names: ['id'],
  prepare: userArg('id'),
  override: (input, ctx) => show(input, ctx),
};
