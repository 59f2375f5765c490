/**
 * `subctl audit`: the audit log, with --follow (the API documents' administrator area). A table reads each
 * entry's target and change out of its details (src/resources/audit.ts); `--subscription-id`
 * and `--service` keep the entries whose details name that target (the platform has no such
 * filter: subctl reads the pages and keeps the matches).
 */
import { Option } from 'commander';
import type { AnyEndpoint } from '../../api/contract/common.js';
import { auditList, auditUser } from '../../api/contract/admin-misc.js';
import { hasPart } from '../../api/contract/parts.js';
import { UsageError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';
import { walkPages } from '../../api/page-walk.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printList } from '../../output/index.js';
import { AUDIT_COLUMNS, namesService, namesSubscription, readableAudit } from '../../resources/audit.js';
import { out } from '../common.js';
import type { Group } from '../types.js';
import { auditFollow } from './audit-follow.js';
import { userArg } from '../users/lookup.js';

type Entry = Record<string, unknown>;

/** Matches printed by a target filter without --limit or --all: a page's worth. */
const FILTER_DEFAULT_LIMIT = 20;

/** The target filters given, as one test; undefined when none is. */
export function targetFilter(opts: Record<string, unknown>): ((e: Entry) => boolean) | undefined {
  const tests: Array<(e: Entry) => boolean> = [];
  if (opts.subscriptionId !== undefined) {
    const s = String(opts.subscriptionId);
    if (!/^\d+$/.test(s)) throw new UsageError(`--subscription-id expects a whole number, got '${s}'`);
    tests.push((e) => namesSubscription(e, Number(s)));
  }
  if (opts.service !== undefined) {
    const code = String(opts.service).trim();
    if (!code) throw new UsageError('--service expects a service code, got an empty value');
    tests.push((e) => namesService(e, code));
  }
  return tests.length ? (e) => tests.every((t) => t(e)) : undefined;
}

/**
 * A list kept to the target: the pages are read newest first, 100 entries each, and only the
 * matches printed, up to --limit (20 unless --limit or --all says otherwise).
 */
async function filteredList(ep: AnyEndpoint, input: VerbInput, ctx: Ctx, keep: (e: Entry) => boolean): Promise<number> {
  const api = await ctx.api();
  const g = ctx.globals;
  const limit = g.limit ?? (g.all ? Infinity : FILTER_DEFAULT_LIMIT);
  const call = { params: hasPart(ep, 'params') ? input.params : undefined, query: input.query };
  const rows = walkPages(api, ep, call as never, {
    startPage: Number(input.query.page ?? 1),
    size: ep.paging?.maxSize ?? 100,
    ahead: 2,
    signal: ctx.signal,
  });
  let found = 0;
  let scanned = 0;
  async function* matches(): AsyncGenerator<Entry> {
    for await (const e of rows) {
      scanned++;
      if (!keep(e)) continue;
      yield g.output === 'table' ? readableAudit(e) : e;
      if (++found >= limit) return;
    }
  }
  await printList(matches(), { ...out(ctx, AUDIT_COLUMNS), limit: undefined });
  await rows.return(undefined);
  if (!g.quiet && ctx.io.stderrIsTTY) {
    ctx.note(
      found >= limit
        ? `showing the ${found} newest matches (${scanned} entries read); --limit N or --all for more`
        : `${found} match${found === 1 ? '' : 'es'} in ${scanned} entries`,
    );
  }
  return 0;
}

const options = () => [
  new Option('--follow', 'the newest 20 entries (--limit N: N), then each new one as it comes, until Ctrl-C'),
  new Option('--interval <s>', 'seconds between polls with --follow').default('2'),
  new Option('--subscription-id <id>', 'only entries whose details name this subscription'),
  new Option('--service <code>', 'only entries whose details name this service code'),
];

export const auditGroup: Group = {
  name: 'audit',
  build: (cmd, bind) => {
    verbsBuilder(() =>
      [
        {
          name: 'list',
          endpoint: auditList,
          aliases: ['ls'],
          examples: [
            'subctl audit list --module subscriptions --action manage',
            'subctl audit list --subscription-id 1037 -o wide',
            'subctl audit list --service GPT4 --follow',
          ],
        },
        {
          name: 'user',
          endpoint: auditUser,
          args: ['id'],
          summary: "one user's audit entries (by id, username or email), filtered and paged",
          names: ['id'],
          prepare: userArg('id'),
          examples: [
            'subctl audit user emma.zak',
            'subctl audit user 97 --start-date 2026-11-01 -o wide',
            'subctl audit user emma@example.com --follow',
          ],
        },
      ].map((s) => ({
        ...s,
        columns: AUDIT_COLUMNS,
        view: readableAudit,
        extraOptions: options(),
        override: async (input: VerbInput, ctx: Ctx, opts: Record<string, unknown>) => {
          const keep = targetFilter(opts);
          const followed = await auditFollow(s.endpoint, AUDIT_COLUMNS, () => keep)(input, ctx, opts);
          if (followed !== undefined) return followed;
          return keep ? filteredList(s.endpoint, input, ctx, keep) : undefined;
        },
      })),
    )(cmd, bind);
  },
};
