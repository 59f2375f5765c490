/**
 * The configuration checks: the profile in force and the base address it (or an option) gives.
 * Failing either is exit 2 (see src/commands/doctor/index.ts).
 */
import { noRealPlatform } from '../../cli/target.js';
import { CliError } from '../../api/errors.js';
import type { DoctorRun } from './types.js';

/** Which profile is in force, and where that choice comes from. */
export function checkProfile(s: DoctorRun): void {
  const { ctx, env, g, raw, add } = s;
  s.baseFrom = raw.baseUrl !== undefined ? '--base-url' : g.baseUrl !== undefined ? 'SUBCTL_BASE_URL' : undefined;
  try {
    const data = ctx.config().load();
    const name = ctx.profileName();
    s.name = name;
    const profile = ctx.profile();
    s.profile = profile;
    // As Ctx.api() decides: no profile points at a real platform yet (`sandbox` does not count).
    const unconfigured = noRealPlatform(ctx.config());
    s.unconfigured = unconfigured;
    const implicit = raw.profile === undefined && !env.SUBCTL_PROFILE && !data.current_profile;
    const from =
      raw.profile !== undefined
        ? 'from --profile'
        : env.SUBCTL_PROFILE
          ? 'from SUBCTL_PROFILE'
          : data.current_profile
            ? 'chosen with `subctl config use`'
            : 'the default profile name';
    const known = Object.keys(data.profiles);
    if (profile) add('profile', 'ok', `"${name}" (${from}) in ${ctx.paths().configFile}`);
    else if (g.sandbox || s.baseFrom)
      add('profile', 'ok', `"${name}" (${from}), not saved: the address comes from ${g.sandbox ? '--sandbox' : s.baseFrom}`);
    else if (unconfigured && implicit) add('profile', 'ok', `"${name}" (${from}); no profile points at a platform yet`);
    else
      add(
        'profile',
        'fail',
        `no profile named "${name}" (${from})${known.length ? `; profiles: ${known.join(', ')}` : ''}`,
        `create it with \`subctl config set base-url https://... --profile ${name}\`${known.length ? `, or choose one with \`subctl config use ${known[0]}\`` : ''}`,
      );
  } catch (e) {
    s.configOk = false;
    add(
      'profile',
      'fail',
      e instanceof Error ? e.message : String(e),
      e instanceof CliError && e.hint ? e.hint : `fix or remove ${ctx.paths().configFile}`,
    );
  }
}

/** The base address: the sandbox, a usable http(s) address, or what is wrong with it. */
export async function checkBaseUrl(s: DoctorRun): Promise<void> {
  const { ctx, g, add, configOk, name, profile, unconfigured, baseFrom, where } = s;
  const profileUrl = profile?.base_url;
  const wantSandbox = configOk && (g.sandbox || (!g.baseUrl && (profileUrl === 'sandbox' || (!profileUrl && unconfigured))));
  if (!configOk && !g.baseUrl && !g.sandbox) {
    add('base-url', 'warn', 'not checked: the configuration is unreadable', 'fix the profile check first, or pass --base-url');
  } else if (wantSandbox && !g.sandbox && profileUrl !== 'sandbox') {
    // As Ctx.api() decides: commands fall back to the sandbox on a terminal only, and refuse off one.
    add(
      'base-url',
      'fail',
      `no platform configured: no profile in ${ctx.paths().configDir} points at one, and neither --base-url nor SUBCTL_BASE_URL is set (on a terminal commands run on the embedded sandbox; off one, as under cron, they exit 2)`,
      'subctl config set base-url https://... --profile NAME, or pass --sandbox to use the local sandbox',
    );
  } else if (wantSandbox || (g.sandbox && !configOk)) {
    where.sandbox = true;
    const why = g.sandbox ? '--sandbox' : `profile "${name}"`;
    add('base-url', 'ok', `SANDBOX: the embedded local platform (from ${why})`);
  } else {
    const text = g.baseUrl ?? profileUrl;
    const from = baseFrom ?? `profile "${name}"`;
    let u: URL | undefined;
    try {
      u = text ? new URL(text) : undefined;
    } catch {
      u = undefined;
    }
    const { isLoopbackHost } = await import('../../api/client.js');
    if (!text)
      add(
        'base-url',
        'fail',
        `profile "${name}" has no base address`,
        `subctl config set base-url https://... --profile ${name} (or pass --base-url, or use --sandbox)`,
      );
    else if (!u)
      add(
        'base-url',
        'fail',
        `${JSON.stringify(text)} (from ${from}) is not a URL`,
        `give an address like https://api.example.com: subctl config set base-url URL --profile ${name}`,
      );
    else if (u.protocol !== 'https:' && u.protocol !== 'http:')
      add('base-url', 'fail', `${text} (from ${from}): ${u.protocol} is not http or https`, 'use an https:// address');
    else if (u.username || u.password)
      add(
        'base-url',
        'fail',
        `the address (from ${from}) carries a user name or password`,
        'remove them from the URL; sign in with `subctl auth login` or SUBCTL_TOKEN',
      );
    else if (u.protocol === 'http:' && !isLoopbackHost(u.hostname))
      add(
        'base-url',
        'fail',
        `${u.origin} (from ${from}): plain http:// is refused for a host other than loopback`,
        `use https://${u.host}`,
      );
    else {
      where.url = u;
      add('base-url', 'ok', `${text} (from ${from})`);
    }
  }
}
