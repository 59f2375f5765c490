/**
 * `subctl catalog export|diff|apply`: the platform's catalog (services, plans, links, roles) as
 * a file kept in git (docs/catalog.md). The logic is in src/catalog/; this file reads the flags,
 * prints, and maps the outcome to an exit code (diff: 9 when the platform differs).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { ExitCode, localError, PartialFailureError, UsageError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';
import { addGlobalOptions } from '../../cli/globals.js';
import type { Planned } from '../../catalog/session.js';
import type { Group } from '../types.js';

const KIND_NAMES = ['services', 'plans', 'links', 'roles'] as const;

/** The platform as the header and the run name give it: its address without any user part. */
function platformName(ctx: Ctx): string {
  const t = ctx.target();
  if (!t) return 'unknown';
  try {
    const u = new URL(t.baseUrl);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return t.baseUrl;
  }
}

/** `-o yaml|json` for export: yaml is not a global output format, so it is taken off before the globals are read. */
function exportFormat(raw: Record<string, unknown>): 'yaml' | 'json' {
  const o = raw.output as string | undefined;
  if (o === undefined || o === 'yaml' || o === 'table') {
    delete raw.output;
    return 'yaml';
  }
  if (o === 'json') return 'json';
  throw new UsageError(`--output for catalog export must be yaml or json; got '${o}'`);
}

function onlyKinds(v: unknown): (typeof KIND_NAMES)[number][] {
  if (v === undefined) return [...KIND_NAMES];
  const parts = String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = parts.filter((p) => !(KIND_NAMES as readonly string[]).includes(p));
  if (bad.length || !parts.length)
    throw new UsageError(`--only takes a comma-separated list of ${KIND_NAMES.join(', ')}; got '${String(v)}'`);
  return [...new Set(parts)] as (typeof KIND_NAMES)[number][];
}

function fileOption(raw: Record<string, unknown>): string {
  const f = raw.file;
  if (typeof f !== 'string' || !f) throw new UsageError('--file (-f) is required: the catalog file to compare with the platform');
  return f;
}

function buildExport(cmd: Command, bind: (a: (ctx: Ctx) => Promise<number>) => (raw: Record<string, unknown>) => void) {
  const c = cmd
    .command('export')
    .description(
      "print the platform's catalog as one YAML (default) or JSON document: services, plans, links and roles, keys sorted, no ids or dates",
    )
    .addOption(new Option('--only <kinds>', 'comma-separated: services,plans,links,roles (default all)'));
  addGlobalOptions(c);
  c.action((_o, cc) => {
    const raw = cc.optsWithGlobals() as Record<string, unknown>;
    const format = exportFormat(raw);
    bind(async (ctx) => {
      const kinds = onlyKinds(raw.only);
      const [{ readPlatform }, { exportText }] = await Promise.all([import('../../catalog/read.js'), import('../../catalog/export.js')]);
      const state = await readPlatform(await ctx.api(), new Set(kinds), ctx.signal);
      ctx.io.stdout.write(exportText(state.catalog, kinds, format, { platform: platformName(ctx), at: ctx.now() }));
      return 0;
    })(raw);
  });
}

function buildDiff(cmd: Command, bind: (a: (ctx: Ctx) => Promise<number>) => (raw: Record<string, unknown>) => void) {
  const c = cmd
    .command('diff')
    .description('what apply would change, as a plan; exit 0 when the platform matches the file, 9 when it differs')
    .addOption(new Option('-f, --file <file>', 'the catalog file (YAML or JSON)'))
    .addOption(new Option('--prune', 'also plan deleting what the platform has and the file does not'))
    .addHelpText(
      'after',
      '\nExit status: 0 the platform matches the file, 9 it differs, 2 the file has errors (each with its line and column).\n',
    );
  addGlobalOptions(c);
  c.action((_o, cc) => {
    const raw = cc.optsWithGlobals() as Record<string, unknown>;
    bind(async (ctx) => {
      const path = fileOption(raw);
      const [{ planFromFile }, { planJson, planText }] = await Promise.all([
        import('../../catalog/session.js'),
        import('../../catalog/plan-text.js'),
      ]);
      const { plan } = await planFromFile(path, () => ctx.api(), { prune: raw.prune === true, signal: ctx.signal });
      if (ctx.globals.output === 'json' || ctx.globals.output === 'ndjson')
        ctx.io.stdout.write(`${JSON.stringify(planJson(plan), null, ctx.globals.output === 'json' ? 2 : undefined)}\n`);
      else ctx.io.stdout.write(planText(plan));
      return plan.changes.length ? ExitCode.differs : ExitCode.ok;
    })(raw);
  });
}

function buildApply(cmd: Command, bind: (a: (ctx: Ctx) => Promise<number>) => (raw: Record<string, unknown>) => void) {
  const c = cmd
    .command('apply')
    .description(
      'bring the platform to match the file: the plan, a confirmation, then the changes in dependency order, journaled (resume by running it again)',
    )
    .addOption(new Option('-f, --file <file>', 'the catalog file (YAML or JSON)'))
    .addOption(new Option('--prune', 'delete what the platform has and the file does not (links first, then roles, plans, services)'))
    .addOption(new Option('--dry-run', 'print the plan and stop'))
    .addOption(new Option('--force-delete', 'delete services and plans that have subscriptions (the API refuses otherwise)'))
    .addOption(new Option('--report <file>', 'write a CSV report: one row a change with its outcome'));
  addGlobalOptions(c);
  c.action((_o, cc) => {
    const raw = cc.optsWithGlobals() as Record<string, unknown>;
    bind((ctx) => runApply(ctx, raw))(raw);
  });
}

/** The platform as the run's name and lock know it: the embedded sandbox listens on a new port at every start. */
function runPlatform(ctx: Ctx): string {
  return ctx.target()?.sandbox ? 'embedded sandbox' : platformName(ctx);
}

async function runApply(ctx: Ctx, raw: Record<string, unknown>): Promise<number> {
  const path = fileOption(raw);
  const runId = raw.runId as string | undefined;
  const [{ planFromFile }, { RUN_NAME }, { acquireLock }, { createHash }] = await Promise.all([
    import('../../catalog/session.js'),
    import('../../catalog/journal.js'),
    import('../../config/lock.js'),
    import('node:crypto'),
  ]);
  if (runId !== undefined && !RUN_NAME.test(runId))
    throw new UsageError(`--run-id takes 1-64 letters, digits, '.', '_' or '-'; got '${runId}'`);
  // One apply at a time on a platform, taken once the file is found good and before the
  // platform is read: a second one beside it would plan from a state the first is changing.
  // A lock whose process is gone (a killed run) is taken over.
  let lock: { release(): void } | undefined;
  const api = async () => {
    const client = await ctx.api();
    if (!lock && raw.dryRun !== true) {
      const id = createHash('sha256').update(runPlatform(ctx)).digest('hex').slice(0, 16);
      lock = acquireLock(join(ctx.paths().stateDir, 'catalog', `platform-${id}.lock`), { command: `catalog apply -f ${path}` });
    }
    return client;
  };
  try {
    const planned = await planFromFile(path, api, { prune: raw.prune === true, signal: ctx.signal });
    return await applyPlanned(ctx, raw, path, planned);
  } finally {
    lock?.release();
  }
}

async function applyPlanned(ctx: Ctx, raw: Record<string, unknown>, path: string, { file, plan, kinds }: Planned): Promise<number> {
  const prune = raw.prune === true;
  const forceDelete = raw.forceDelete === true;
  const [{ planJson, planText }, { applyPlan, reportCsv }, { CatalogJournal, defaultRunName }] = await Promise.all([
    import('../../catalog/plan-text.js'),
    import('../../catalog/apply.js'),
    import('../../catalog/journal.js'),
  ]);
  if (ctx.globals.output === 'json') ctx.io.stdout.write(`${JSON.stringify(planJson(plan), null, 2)}\n`);
  else ctx.io.stdout.write(planText(plan, { forceDelete }));
  const forced = plan.changes.filter((c) => c.needsForce);
  if (forced.length && !forceDelete) {
    throw new UsageError(
      `${forced.map((c) => `${c.kind} ${c.label}`).join(', ')} ${forced.length === 1 ? 'has' : 'have'} active subscriptions: deleting needs --force-delete; nothing was sent`,
    );
  }
  const name = (raw.runId as string | undefined) ?? defaultRunName(file.text, runPlatform(ctx), { prune, forceDelete });
  const journal = new CatalogJournal(join(ctx.paths().stateDir, 'catalog'), name);
  const resuming = journal.load().size > 0;
  if (!plan.changes.length && !resuming) return 0;
  if (raw.dryRun === true) {
    ctx.note('dry run: nothing was sent');
    return 0;
  }
  if (plan.changes.length)
    await ctx.confirm(`apply ${plan.changes.length} catalog change${plan.changes.length === 1 ? '' : 's'} from ${path}`);
  ctx.note(`run ${name}${resuming ? ' (resumed)' : ''}: journal ${journal.file}`);
  let result;
  try {
    result = await applyPlan(await ctx.api(), file.catalog, plan, {
      prune,
      forceDelete,
      kinds,
      journal,
      signal: ctx.signal,
      note: (l) => ctx.note(l),
    });
  } finally {
    journal.close();
  }
  const { rows, firstError } = result;
  if (!rows.some((r) => r.outcome === 'failed' || r.outcome === 'skipped')) journal.finish(ctx.now());
  if (typeof raw.report === 'string') {
    try {
      writeFileSync(raw.report, reportCsv(rows), { mode: 0o600 });
    } catch (e) {
      throw localError(e, `the report ${raw.report}`) ?? e;
    }
  }
  const count = (o: string) => rows.filter((r) => r.outcome === o).length;
  const failed = count('failed') + count('skipped');
  const confirmed = count('confirmed');
  ctx.note(
    `${count('applied') + confirmed} applied${confirmed ? ` (${confirmed} read back after a lost answer)` : ''}, ${count('applied-earlier') + count('verified')} done by an earlier run of ${name}, ${count('failed')} failed, ${count('skipped')} skipped`,
  );
  if (!failed) return 0;
  if (rows.some((r) => r.outcome !== 'failed' && r.outcome !== 'skipped')) {
    throw new PartialFailureError(
      `${failed} of ${rows.length} catalog changes were not applied${typeof raw.report === 'string' ? ` (see ${raw.report})` : ''}`,
      rows,
    );
  }
  throw firstError ?? new UsageError('no catalog change was applied');
}

export const catalogGroup: Group = {
  name: 'catalog',
  build(cmd, bind) {
    const b = bind as unknown as (a: (ctx: Ctx) => Promise<number>) => (raw: Record<string, unknown>) => void;
    buildExport(cmd, b);
    buildDiff(cmd, b);
    buildApply(cmd, b);
  },
};
