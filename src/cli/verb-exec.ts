/**
 * A verb's run once its input is read: validation (a form on a terminal for missing fields),
 * `--dry-run`, the confirmation, the request, and the answer printed.
 */
import type { AnyEndpoint } from '../api/contract/common.js';
import { hasPart } from '../api/contract/parts.js';
import { RefusedError, ValidationError } from '../api/errors.js';
import { printObject } from '../output/index.js';
import type { Ctx } from './context.js';
import { runList } from './paging.js';
import { takesDryRun, type VerbKind } from './verb-flags.js';
import type { VerbInput, VerbSpec } from './verbs.js';

export async function executeVerb(
  ctx: Ctx,
  spec: VerbSpec,
  kind: VerbKind,
  input: VerbInput,
  opts: Record<string, unknown>,
): Promise<number> {
  const ep = spec.endpoint;
  const call = {
    params: hasPart(ep, 'params') ? input.params : undefined,
    query: hasPart(ep, 'query') ? input.query : undefined,
    body: hasPart(ep, 'body') ? input.body : undefined,
  };
  // Validate before anything else (even before a confirmation prompt or the sandbox start).
  const { validateInput } = await import('../api/client.js');
  try {
    validateInput(ep, call);
  } catch (e) {
    // On a terminal, a create/update run without its required flags opens a form.
    if (kind !== 'action' || !ctx.interactive() || !onlyMissingBody(e, ep, input.body)) throw e;
    const { openVerbForm } = await (await import('../ui/load.js')).loadUi();
    const { screenIO } = await import('../output/stdout.js');
    const body = await openVerbForm(screenIO(ctx.io), ep, input.body, {
      hide: [...(spec.hide ?? []), ...Object.keys(spec.fixed?.body ?? {})],
    });
    if (!body) throw new RefusedError('cancelled: nothing was sent');
    input.body = call.body = body;
    validateInput(ep, call);
  }
  // --dry-run without bulk input: the one request, checked and shown, not sent (where the
  // endpoint has no dry_run field of its own, which the flag then sets).
  if (opts.dryRun === true && takesDryRun(spec, kind)) {
    return dryRunOne(ctx, spec, input);
  }
  if (spec.override) {
    const code = await spec.override(input, ctx, opts);
    if (code !== undefined) return code;
  }
  if (kind === 'list') {
    return runList(ctx, ep, call, { columns: spec.columns, extras: spec.extras, view: spec.view });
  }
  const api = await ctx.api();
  if (spec.destructive) {
    await ctx.confirm(spec.describe ? spec.describe(input) : `${ep.method} ${ep.path}`);
  }
  const res = await api.callFull(ep, call as never, { signal: ctx.signal });
  // A renderer is written for the answer's shape; an answer without data (the contract lets a
  // server omit it) has nothing to render and prints like any other: its message.
  if (spec.render && res.data !== null && res.data !== undefined) {
    await spec.render(res.data as Record<string, unknown>, ctx, input);
    return 0;
  }
  const data = res.data === null || res.data === undefined ? { message: res.message ?? 'done' } : res.data;
  if (kind === 'action' && res.message && ctx.globals.output === 'table' && ctx.io.stdoutIsTTY) ctx.note(res.message);
  // A list the server answers whole (not paged): --limit takes its first rows here.
  await printObject(data, {
    format: ctx.globals.output,
    fields: ctx.globals.fields,
    io: ctx.io,
    noColor: ctx.globals.noColor,
    limit: ctx.globals.limit,
    wide: ctx.globals.wide,
  });
  return 0;
}

/** `--dry-run` of one write: the request it would send (secrets masked) and, where the verb can tell, the change. */
async function dryRunOne(ctx: Ctx, spec: VerbSpec, input: VerbInput): Promise<number> {
  const ep = spec.endpoint;
  const [{ fillPath }, { redactBody }] = await Promise.all([import('../api/client.js'), import('../api/redact.js')]);
  const plan: Record<string, unknown> = { request: `${ep.method} ${fillPath(ep.path, input.params)}` };
  if (hasPart(ep, 'query') && Object.keys(input.query).length) plan.query = redactBody(input.query);
  if (hasPart(ep, 'body')) plan.body = redactBody(input.body);
  const preview = spec.bulk === false ? undefined : spec.bulk?.preview;
  if (preview) {
    const changes = await preview(
      await ctx.api(),
      [{ line: 1, key: '', identity: '', target: '', input, validated: input as never }],
      ctx.signal,
    );
    plan.change = changes.get(1) ?? 'current state not found';
  }
  await printObject(plan, { format: ctx.globals.output, fields: ctx.globals.fields, io: ctx.io, noColor: ctx.globals.noColor });
  ctx.note('dry run: checked, nothing sent');
  return 0;
}

/** Every problem is a body field the command line did not give: a form can ask for them. */
export function onlyMissingBody(e: unknown, ep: AnyEndpoint, body: Record<string, unknown>): boolean {
  const shape = ep.body?.shape ?? {};
  return e instanceof ValidationError && e.problems.length > 0 && e.problems.every((p) => p.field in shape && body[p.field] === undefined);
}
