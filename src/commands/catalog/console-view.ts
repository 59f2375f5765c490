/**
 * `subctl console --catalog FILE`: the plan for the file against the profile's platform, in a
 * read-only screen (src/ui/screens/CatalogScreen.tsx). The file is checked and the plan made
 * before the screen opens, so a file error is the same exit 2 as `catalog diff`'s.
 */
import type { Ctx } from '../../cli/context.js';

export async function runCatalogView(ctx: Ctx, path: string): Promise<number> {
  const [{ planFromFile }, { planText }] = await Promise.all([import('../../catalog/session.js'), import('../../catalog/plan-text.js')]);
  const { plan } = await planFromFile(path, () => ctx.api(), { prune: false, signal: ctx.signal });
  const t = ctx.target();
  const where = t ? `${t.profile} (${t.sandbox ? 'SANDBOX' : t.baseUrl})` : ctx.profileName();
  const { loadUi } = await import('../../ui/load.js');
  // Ink is made available to the screens by loadUi (src/ui/load.ts) before any screen loads.
  await loadUi();
  const { openCatalogView } = await import('../../ui/screens/CatalogScreen.js');
  await openCatalogView(ctx.io, {
    title: `catalog ${path} against ${where}: ${plan.changes.length ? `${plan.changes.length} change${plan.changes.length === 1 ? '' : 's'}` : 'matches'}`,
    text: planText(plan),
  });
  return 0;
}
