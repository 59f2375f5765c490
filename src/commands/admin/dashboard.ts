/**
 * `subctl dashboard`: on a table output, the dashboard as src/resources/dashboard.ts renders it
 * (the console's home screen draws the same); any other output prints the answer as data.
 */
import { dashboardGet } from '../../api/contract/admin-misc.js';
import { reaches } from '../../cli/verbs.js';
import type { Ctx } from '../../cli/context.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { printObject } from '../../output/index.js';
import { renderDashboard } from '../../resources/dashboard.js';
import type { Group } from '../types.js';
import { out } from '../common.js';

export const dashboardGroup: Group = {
  name: 'dashboard',
  build(cmd, bind) {
    addGlobalOptions(cmd);
    reaches(cmd, dashboardGet.name);
    cmd.action((_o, c) => {
      bind(async (ctx: Ctx) => {
        const api = await ctx.api();
        const data = await api.call(dashboardGet, {}, { signal: ctx.signal });
        const g = ctx.globals;
        if (g.output === 'table' && !g.fields) {
          ctx.io.stdout.write(renderDashboard(data, { tty: ctx.io.stdoutIsTTY, width: ctx.io.columns ?? 80, color: ctx.color('stdout') }));
        } else {
          await printObject(data, out(ctx));
        }
        return 0;
      })(c.optsWithGlobals());
    });
  },
};
