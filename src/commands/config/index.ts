/**
 * `subctl config`: profiles (base address, defaults) stored in 0600 files in a 0700 directory.
 */
import { UsageError } from '../../api/errors.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { parseSetting } from '../../config/store.js';
import { printList, printObject } from '../../output/index.js';
import type { Group } from '../types.js';
import { out } from '../common.js';

export const configGroup: Group = {
  name: 'config',
  // A table of verbs, one Commander chain each: read whole.
  build(cmd, bind) {
    addGlobalOptions(
      cmd
        .command('list')
        .alias('ls')
        .description('every profile, the active one marked')
        .action((_o, c) => {
          bind(async (ctx) => {
            const store = ctx.config();
            const data = store.load();
            const active = ctx.profileName();
            const rows = Object.entries(data.profiles).map(([name, p]) => ({
              active: name === active ? '*' : '',
              name,
              base_url: p.base_url ?? '',
              output: p.output ?? '',
              username: p.username ?? '',
              role: p.role ?? '',
              credential: ctx.credentials().get(name) ? ctx.credentials().where(name) : '',
            }));
            await printList(rows, { ...out(ctx), columns: ['active', 'name', 'base_url', 'username', 'role', 'credential'] });
            if (!rows.length)
              ctx.note(
                `no profiles yet: commands use the embedded sandbox; add one with \`subctl config set base-url https://... --profile NAME\``,
              );
          })(c.optsWithGlobals());
        }),
    );
    addGlobalOptions(
      cmd
        .command('use')
        .argument('<name>', 'profile name')
        .description('make a profile the default')
        .action((name: string, _o, c) => {
          bind(async (ctx) => {
            ctx.config().useProfile(name);
            ctx.note(`active profile: ${name}`);
          })(c.optsWithGlobals());
        }),
    );
    addGlobalOptions(
      cmd
        .command('set')
        .argument('<key>', 'base-url | output | timeout | retries')
        .argument('<value>')
        .description('set a value of the active profile (or --profile NAME), creating it if needed')
        .action((key: string, value: string, _o, c) => {
          bind(async (ctx) => {
            const [field, v] = parseSetting(key, value);
            const name = ctx.profileName();
            const wasActive = ctx.config().load().current_profile;
            if (field === 'base_url') {
              // A sign-in with no record of where it was issued was issued at the old address:
              // that is recorded, so that it does not go to the new one.
              const cred = ctx.credentials().get(name);
              const old = ctx.config().getProfile(name)?.base_url;
              if (cred?.token && !cred.base_url && old !== v) ctx.credentials().set(name, { ...cred, base_url: old || 'sandbox' });
            }
            ctx.config().upsertProfile(name, { [field]: v });
            const nowActive =
              wasActive !== name && ctx.config().load().current_profile === name ? ` (profile '${name}' is now the active one)` : '';
            ctx.note(`${name}: ${String(field)} = ${String(v)}${nowActive}`);
          })(c.optsWithGlobals());
        }),
    );
    addGlobalOptions(
      cmd
        .command('get')
        .argument('[key]', 'one value; all of the profile when left out')
        .description('show a value of the active profile')
        .action((key: string | undefined, _o, c) => {
          bind(async (ctx) => {
            const name = ctx.profileName();
            const p = ctx.config().getProfile(name);
            if (!p) throw new UsageError(`no profile named '${name}'`, { hint: 'list them with `subctl config list`' });
            if (key === undefined) {
              await printObject({ name, ...p }, out(ctx));
              return 0;
            }
            const [field] = parseSetting(key, sampleValue(key));
            const v = (p as Record<string, unknown>)[field as string];
            if (v === undefined) return 4;
            ctx.io.stdout.write(`${String(v)}\n`);
            return 0;
          })(c.optsWithGlobals());
        }),
    );
    addGlobalOptions(
      cmd
        .command('unset')
        .argument('<key>')
        .description('remove a value from the active profile')
        .action((key: string, _o, c) => {
          bind(async (ctx) => {
            const [field] = parseSetting(key, sampleValue(key));
            const name = ctx.profileName();
            const p = ctx.config().getProfile(name);
            if (!p) throw new UsageError(`no profile named '${name}'`);
            ctx.config().change((data) => {
              if (data.profiles[name]) delete (data.profiles[name] as Record<string, unknown>)[field as string];
            });
            ctx.note(`${name}: ${String(field)} unset`);
          })(c.optsWithGlobals());
        }),
    );
  },
};

/** A valid value for a key, to reuse parseSetting's key check where no value is given. */
function sampleValue(key: string): string {
  const k = key.replace(/-/g, '_');
  if (k === 'base_url') return 'https://example.invalid';
  if (k === 'output') return 'json';
  return '1';
}
