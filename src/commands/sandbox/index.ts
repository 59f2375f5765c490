/**
 * `subctl sandbox serve|reset`: the local platform for anyone, curl included.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Option } from 'commander';
import { UsageError } from '../../api/errors.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { ensurePrivateDir } from '../../config/paths.js';
import type { Group } from '../types.js';

function scaleOf(v: unknown): number {
  if (v === undefined) return 1;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError(`--scale expects a whole number from 1 to 1000, got '${String(v)}'`);
  return n;
}

export const sandboxGroup: Group = {
  name: 'sandbox',
  // A table of verbs, one Commander chain each: read whole.
  build(cmd, bind) {
    addGlobalOptions(
      cmd
        .command('serve')
        .description('serve the whole API on a loopback port until Ctrl-C; prints the URL and the seeded accounts')
        .addOption(new Option('--port <n>', 'port (0 picks a free one)').default('8080'))
        .addOption(new Option('--host <addr>', 'address to listen on').default('127.0.0.1'))
        .addOption(new Option('--data <file>', 'SQLite data file (default: sandbox.db in the data directory)'))
        .addOption(new Option('--scale <n>', 'multiply the seed data (100 = a million wallet transactions) when the file is new'))
        .addOption(
          new Option(
            '--chaos <spec>',
            'fault injection, e.g. latency=0-50,5xx=0.2,reset=0.05,hang=0.02,429=0.05 (also retry-after=S, applied-503=R, applied-reset=R, audit=oldest)',
          ),
        )
        .addOption(
          new Option('--dialect <name>', 'how answers are written: default, or alt (the same data in another reading of the API documents)')
            .choices(['default', 'alt'])
            .default('default'),
        )
        .action((_o, c) => {
          const opts = c.optsWithGlobals() as Record<string, unknown>;
          bind(async (ctx) => {
            const port = Number(opts.port);
            if (!Number.isInteger(port) || port < 0 || port > 65535)
              throw new UsageError(`--port expects 0-65535, got '${String(opts.port)}'`);
            const [{ startSandbox }, { parseChaos }, { SEEDED_ACCOUNTS }] = await Promise.all([
              import('../../sandbox/server.js'),
              import('../../sandbox/chaos.js'),
              import('../../sandbox/schema-core.js'),
            ]);
            const dataDir = ctx.paths().dataDir;
            ensurePrivateDir(dataDir);
            const dataFile = (opts.data as string | undefined) ?? join(dataDir, 'sandbox.db');
            const chaos = opts.chaos ? parseChaos(String(opts.chaos)) : undefined;
            const sb = await startSandbox({
              dataFile,
              dataFlag: opts.data === undefined ? undefined : '--data',
              port,
              host: String(opts.host),
              scale: scaleOf(opts.scale),
              chaos,
              quiet: ctx.globals.quiet,
              dialect: opts.dialect === 'alt' ? 'alt' : 'default',
            });
            ctx.io.stdout.write(`${sb.url}\n`);
            ctx.note(
              `sandbox serving ${sb.url} (data ${dataFile})${chaos ? ` with chaos ${String(opts.chaos)}` : ''}${opts.dialect === 'alt' ? ', answering in the alt dialect' : ''}`,
            );
            // A data file named with --data keeps the mode its owner gave it, but holds live
            // tokens: one others may read is said (the default one is made 0600).
            const mode = statSync(dataFile, { throwIfNoEntry: false })?.mode;
            if (mode !== undefined && (mode & 0o077) !== 0) {
              ctx.warn(
                `warning: ${dataFile} can be read by others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}), and it holds live sign-in tokens: chmod 600 ${dataFile}`,
              );
            }
            ctx.note('seeded accounts (username / password / role):');
            for (const a of SEEDED_ACCOUNTS) ctx.note(`  ${a.username.padEnd(12)} ${a.password.padEnd(20)} ${a.role}`);
            // The password on stdin (printf is the shell's own, so it is in no process's argv), as
            // every secret travels: never on the command line.
            ctx.note(
              `try: printf '%s\\n' sandbox-admin | subctl auth login --base-url ${sb.url} --username admin --password-stdin --profile local && subctl services list --profile local`,
            );
            ctx.note('Ctrl-C stops it');
            await new Promise<void>((resolve) => {
              if (ctx.signal.aborted) resolve();
              ctx.signal.addEventListener('abort', () => resolve(), { once: true });
            });
            await sb.close();
            return 0;
          })(opts);
        }),
    );
    addGlobalOptions(
      cmd
        .command('reset')
        .description('delete the sandbox data and seed it again')
        .addOption(new Option('--data <file>', 'SQLite data file (default: sandbox.db in the data directory)'))
        .addOption(new Option('--scale <n>', 'multiply the seed data'))
        .addOption(
          new Option(
            '--no-catalog',
            'seed the accounts but no catalog (no services, plans, links or custom roles): a target for `catalog apply`',
          ),
        )
        .action((_o, c) => {
          const opts = c.optsWithGlobals() as Record<string, unknown>;
          bind(async (ctx) => {
            const [{ resetDatabase }, { checkDataFile, dataFileFailure }] = await Promise.all([
              import('../../sandbox/seed.js'),
              import('../../sandbox/db.js'),
            ]);
            const dataDir = ctx.paths().dataDir;
            ensurePrivateDir(dataDir);
            // A file the user named is deleted only if a sandbox made it (checked before asking);
            // whatever is at the default path is subctl's own.
            const given = opts.data as string | undefined;
            const dataFile = given ?? join(dataDir, 'sandbox.db');
            const scale = scaleOf(opts.scale);
            const flag = given === undefined ? undefined : '--data';
            try {
              if (given !== undefined) checkDataFile(dataFile);
            } catch (err) {
              throw dataFileFailure(err, dataFile, flag, true);
            }
            await ctx.confirm(`reset the sandbox data in ${dataFile}`);
            const started = Date.now();
            try {
              resetDatabase(dataFile, { scale, catalog: opts.catalog !== false }).close();
            } catch (err) {
              throw dataFileFailure(err, dataFile, flag, true);
            }
            ctx.note(
              `sandbox data reset${opts.catalog === false ? ' without a catalog' : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${dataFile}`,
            );
            return 0;
          })(opts);
        }),
    );
  },
};
