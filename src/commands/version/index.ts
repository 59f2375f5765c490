/**
 * `subctl version`: what is running, for a bug report or a script that checks it. The commit and
 * build date are stamped by the build (tsup.config.ts `define`); run from source they are
 * `unknown`. `--version` stays the one-line answer of the launcher (bin/subctl.js).
 */
import { version } from '../../../package.json';
import { addGlobalOptions } from '../../cli/globals.js';
import { printObject } from '../../output/index.js';
import type { Group } from '../types.js';

declare const __SUBCTL_COMMIT__: string | undefined;
declare const __SUBCTL_BUILD_DATE__: string | undefined;

export interface VersionInfo {
  version: string;
  commit: string;
  build_date: string;
  node: string;
  platform: string;
  endpoints: number;
}

export async function versionInfo(): Promise<VersionInfo> {
  const { endpoints } = await import('../../api/contract/index.js');
  return {
    version,
    commit: typeof __SUBCTL_COMMIT__ === 'string' ? __SUBCTL_COMMIT__ : 'unknown',
    build_date: typeof __SUBCTL_BUILD_DATE__ === 'string' ? __SUBCTL_BUILD_DATE__ : 'unknown',
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    endpoints: endpoints.length,
  };
}

export const versionGroup: Group = {
  name: 'version',
  build(cmd, bind) {
    addGlobalOptions(cmd);
    cmd
      .description("subctl's version, git commit, build date, Node version, platform and the number of endpoints of its contract")
      .action((_o, c) => {
        const raw = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          const g = ctx.globals;
          await printObject(await versionInfo(), { format: g.output, fields: g.fields, io: ctx.io, noColor: g.noColor });
          return 0;
        })(raw);
      });
  },
};
