/**
 * A user argument given as an id, a username or an email (`subctl audit user emma.zak`): the
 * `prepare` step of every verb that takes a user id resolves it to the id before validation
 * (src/resources/users.ts does the look-up; an id is used as given, with no request).
 */
import type { Ctx } from '../../cli/context.js';
import type { VerbInput } from '../../cli/verbs.js';

type Prepare = (input: VerbInput, ctx: Ctx, opts: Record<string, unknown>) => void | Promise<void>;

/** Resolves `field` (a path parameter, else a body field) to a user id, then runs `then`. */
export function userArg(field: string, then?: Prepare): Prepare {
  return async (input, ctx, opts) => {
    const place =
      input.params[field] !== undefined
        ? input.params
        : input.body[field] !== undefined
          ? input.body
          : input.query[field] !== undefined
            ? input.query
            : undefined;
    const given = place?.[field];
    if (place && typeof given === 'string' && !/^\s*\d+\s*$/.test(given) && given.trim() !== '') {
      // Loaded only for a name: the look-up's contracts are not every verb's.
      const { resolveUser } = await import('../../resources/users.js');
      place[field] = (await resolveUser(await ctx.api(), given, ctx.signal)).id;
    }
    await then?.(input, ctx, opts);
  };
}
