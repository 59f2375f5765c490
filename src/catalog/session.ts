/**
 * What `catalog diff`, `catalog apply` and the console's catalog view share: the file read and
 * checked, the platform read, the plan made, and every problem that stops it raised before
 * anything is written.
 */
import type { ApiClient } from '../api/client.js';
import { UsageError } from '../api/errors.js';
import { diffCatalog, prunedKeys, type Plan } from './diff.js';
import { CatalogFileError, danglingLinks, missingForCreate, readCatalogFile, type CatalogFile } from './file.js';
import { keyOf, type Kind } from './model.js';
import { readPlatform, type PlatformState } from './read.js';

export interface Planned {
  file: CatalogFile;
  state: PlatformState;
  plan: Plan;
  kinds: Set<Kind>;
}

/** Reads the file (exit 2 on any problem, before the platform is asked) and then plans against the platform. */
export async function planFromFile(
  path: string,
  api: () => Promise<ApiClient>,
  opts: { prune: boolean; signal?: AbortSignal },
): Promise<Planned> {
  const file = readCatalogFile(path);
  const kinds = new Set(file.kinds);
  // Links are checked against the services and plans on the platform, managed or not.
  const read = new Set<Kind>(kinds);
  if (kinds.has('links')) read.add('plans');
  const state = await readPlatform(await api(), read, opts.signal);
  const plan = diffCatalog(file.catalog, state, { prune: opts.prune, kinds });
  const pruned = { services: prunedKeys(plan, 'services'), plans: prunedKeys(plan, 'plans') };
  const platform = {
    services: new Set([...state.facts.services.keys()].filter((k) => !pruned.services.has(k))),
    plans: new Set([...state.facts.plans.keys()].filter((k) => !pruned.plans.has(k))),
  };
  const creates = new Set(plan.changes.filter((c) => c.op === 'create').map((c) => `${c.kind} ${c.key}`));
  const problems = [...missingForCreate(file, (kind, e) => creates.has(`${kind} ${keyOf(kind, e)}`)), ...danglingLinks(file, platform)];
  if (problems.length) throw new CatalogFileError(problems);
  if (plan.refused.length) throw new UsageError(`the catalog file cannot be applied; nothing was sent:\n  ${plan.refused.join('\n  ')}`);
  return { file, state, plan, kinds };
}
