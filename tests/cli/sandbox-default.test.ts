/**
 * The embedded sandbox: a newcomer's first command works with no setup; profiles can point at
 * it; a machine with a real platform configured does not fall back to it silently.
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../support/run-cli.js';

describe('the embedded sandbox', () => {
  it('with no profile, a command on a terminal runs against the local sandbox and says so on stderr (off one: tests/cli/no-platform.test.ts)', async () => {
    const cfg = tempConfigDir();
    const r = await runCli('services list -o json', { env: { SUBCTL_CONFIG_DIR: cfg }, tty: true });
    expect(r.code, r.stderr).toBe(0);
    // It says that it fell back, -q or not (it said only where it ran).
    expect(r.stderr).toMatch(
      /^\[sandbox\] no profile points at a platform \(config .*\): this ran on the local platform at http:\/\/127\.0\.0\.1:\d+ .*signed in as admin/m,
    );
    const rows = JSON.parse(r.stdout) as Array<{ service_code: string }>;
    expect(rows.map((s) => s.service_code)).toContain('GPT4');
    // -q does not hide a fall-back (a cron job with the wrong HOME would "succeed" on a throwaway
    // database); it does hide the sandbox asked for.
    const quiet = await runCli('services list -o json -q', { env: { SUBCTL_CONFIG_DIR: cfg }, tty: true });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe(
      `[sandbox] no profile points at a platform (config ${cfg}): this ran on the local platform at ${/http:\/\/127\.0\.0\.1:\d+/.exec(quiet.stderr)![0]} (data ${cfg}/data/sandbox.db); signed in as admin\n`,
    );
    const asked = await runCli('services list -o json -q --sandbox', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(asked.stderr).toBe('');
  });

  it('with no profile, auth status on a terminal says who the commands run as: the sandbox admin, valid (exit 0)', async () => {
    const cfg = tempConfigDir();
    const r = await runCli('auth status -o json', { env: { SUBCTL_CONFIG_DIR: cfg }, tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      profile: 'default',
      base_url: 'SANDBOX',
      username: 'admin',
      role: 'admin',
      token_source: 'sandbox',
      credential: null,
      session: 'no',
      valid: true,
    });
    // A token given explicitly is the one reported (and checked), not the sandbox admin's.
    const bogus = await runCli('auth status -o json', { env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_TOKEN: 'not-a-token' }, tty: true });
    expect(bogus.code).toBe(3);
    expect(JSON.parse(bogus.stdout)).toMatchObject({ token_source: 'env', valid: false });
  });

  it('auth login --sandbox stores a profile that points at the sandbox; its token is used afterwards', async () => {
    const cfg = tempConfigDir();
    const login = await runCli('auth login --profile eve --sandbox --username enduser --password-stdin', {
      env: { SUBCTL_CONFIG_DIR: cfg },
      stdin: 'sandbox-enduser\n',
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/signed in as enduser \(user\) on profile 'eve'/);
    // Signing in borrows no admin token first (the banner said "signed in as admin").
    expect(login.stderr).not.toContain('signed in as admin');
    const get = await runCli('config get base-url --profile eve', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(get.stdout).toBe('sandbox\n');
    const status = await runCli('auth status --profile eve -o json', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      profile: 'eve',
      base_url: 'SANDBOX',
      username: 'enduser',
      role: 'user',
      valid: true,
    });
    // The end user's token, not the admin's: the admin area is forbidden.
    const admin = await runCli('services list --profile eve', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(admin.code).toBe(3);
    const wallet = await runCli('me wallet --profile eve -o json', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(wallet.code, wallet.stderr).toBe(0);
    expect(JSON.parse(wallet.stdout).balance).toBeGreaterThanOrEqual(0);
  });

  it('once a real platform is configured, a profile without an address is an error, not the sandbox', async () => {
    const cfg = tempConfigDir();
    const set = await runCli('config set base-url http://127.0.0.1:9 --profile prod', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(set.code).toBe(0);
    // The first profile is the active one: commands go to it, never to the sandbox.
    expect(set.stderr).toContain("(profile 'prod' is now the active one)");
    const active = await runCli('services list --retries 0', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(active.code).toBe(7);
    expect(active.stderr).toContain('127.0.0.1:9');
    expect(active.stderr).not.toContain('[sandbox]');
    // A profile that is not there (misspelt) is said to be missing, with the ones there are.
    const r = await runCli('services list --profile staging', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: no profile named "staging" (profiles: prod)');
    const env = await runCli('services list', { env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_PROFILE: 'prd' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('error: no profile named "prd" (profiles: prod)');
    // One that is there without an address is told how to give it one.
    await runCli('config set output json --profile staging', { env: { SUBCTL_CONFIG_DIR: cfg } });
    const bare = await runCli('services list --profile staging', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(bare.code).toBe(2);
    // The profile's output is json: the error is its one JSON object.
    const bareError = JSON.parse(bare.stderr).error;
    expect(bareError.message).toMatch(/profile 'staging' has no base address/);
    expect(bareError.hint).toMatch(/subctl config set base-url/);
    const sb = await runCli('services list --sandbox -q -o json', { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(sb.code).toBe(0);
  });
});

describe('a refused token given by SUBCTL_TOKEN or --token-file', () => {
  it('the 401 hint names where the token came from; auth login warns that SUBCTL_TOKEN still wins', async () => {
    const cfg = tempConfigDir();
    const env = { SUBCTL_CONFIG_DIR: cfg, SUBCTL_TOKEN: 'sbx_revoked' };
    const r = await runCli('--sandbox services list', { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      "hint: the token in SUBCTL_TOKEN was refused: set a valid one, or unset SUBCTL_TOKEN to use the profile's sign-in (`subctl auth login`)",
    );
    const { writeFileSync } = await import('node:fs');
    const file = `${cfg}/token.txt`;
    writeFileSync(file, 'sbx_revoked\n', { mode: 0o600 });
    const f = await runCli(`--sandbox services list --token-file ${file}`, { env: { SUBCTL_CONFIG_DIR: cfg } });
    expect(f.code).toBe(3);
    expect(f.stderr).toContain(
      `hint: the token in ${file} was refused: put a valid one in it, or leave out --token-file to use the profile's sign-in`,
    );
    const login = await runCli('auth login --sandbox --username admin --password-stdin', { env, stdin: 'sandbox-admin\n' });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(
      'warning: SUBCTL_TOKEN is set, and commands go on using it rather than this sign-in; unset it to use this one',
    );
  });
});

describe('a sandbox profile signed out', () => {
  it('is not signed in (exit 3, named), never the seeded admin; a misspelt profile beside it is said to be missing', async () => {
    const cfg = tempConfigDir();
    const env = { SUBCTL_CONFIG_DIR: cfg };
    const login = await runCli('auth login --sandbox --username enduser --password-stdin --profile eve -q', {
      env,
      stdin: 'sandbox-enduser\n',
    });
    expect(login.code, login.stderr).toBe(0);
    const mine = await runCli('me wallet --profile eve -o json --fields user_id', { env });
    expect(JSON.parse(mine.stdout)).toEqual({ user_id: 6 });
    expect((await runCli('auth logout --profile eve -q', { env })).code).toBe(0);
    for (const cmd of ['me wallet --profile eve -o json', 'users list --profile eve --limit 1']) {
      const r = await runCli(cmd, { env });
      expect(r.code, cmd).toBe(3);
      expect(r.stdout).toBe('');
      const hint = "profile 'eve' is not signed in: `subctl auth login --sandbox --profile eve`";
      if (cmd.includes('-o json')) expect(JSON.parse(r.stderr.trim().split('\n').pop()!).error.hint).toBe(hint);
      else expect(r.stderr).toContain(`hint: ${hint}\n`);
    }
    const status = await runCli('auth status --profile eve -o json', { env });
    expect(status.code).toBe(3);
    expect(JSON.parse(status.stdout)).toMatchObject({ username: 'enduser', token_source: 'none', valid: false });
    const typos: Array<[Record<string, string>, string]> = [
      [env, 'me wallet --profile prd'],
      [{ ...env, SUBCTL_PROFILE: 'prd' }, 'me wallet'],
    ];
    for (const [e, cmd] of typos) {
      const typo = await runCli(cmd, { env: e });
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain('error: no profile named "prd" (profiles: eve)');
    }
  });

  it('with no profile at all, a --profile or SUBCTL_PROFILE naming one is refused too (a cron job with the wrong HOME must not run on the sandbox, exit 0); signing in may name a new one', async () => {
    const cfg = tempConfigDir();
    const env = { SUBCTL_CONFIG_DIR: cfg };
    for (const [e, cmd] of [
      [env, 'services list --profile prd -o json'],
      [{ ...env, SUBCTL_PROFILE: 'prd' }, 'services list -q'],
      [env, 'subscriptions manage 1037 --action resume --reason cron --dry-run --profile prd'],
      [env, 'services list --sandbox --profile prd'],
    ] as Array<[Record<string, string>, string]>) {
      const r = await runCli(cmd, { env: e });
      expect(r.code, cmd).toBe(2);
      expect(r.stdout, cmd).toBe('');
      if (cmd.includes('-o json')) expect(JSON.parse(r.stderr).error.message, cmd).toBe('no profile named "prd"');
      else expect(r.stderr, cmd).toContain('error: no profile named "prd"\n');
      expect(r.stderr, cmd).not.toContain('[sandbox]');
    }
    // Without --profile, a newcomer's first command on a terminal still runs on the sandbox.
    expect((await runCli('services list --limit 1 -o json', { env, tty: true })).code).toBe(0);
    // `auth login --profile new` makes the profile it names (off a terminal, where it says where).
    const login = await runCli('auth login --username enduser --password-stdin --profile eve -q --sandbox', {
      env,
      stdin: 'sandbox-enduser\n',
    });
    expect(login.code, login.stderr).toBe(0);
    expect((await runCli('me wallet --profile eve -o json', { env })).code).toBe(0);
  });
});

describe('doctor and refresh, as a script sees them', () => {
  it('doctor with a refused SUBCTL_TOKEN says to mend that token; auth refresh -o json prints when the new one expires', async () => {
    const cfg = tempConfigDir();
    const doc = await runCli('--sandbox doctor', { env: { SUBCTL_CONFIG_DIR: cfg, SUBCTL_TOKEN: 'bogus' } });
    expect(doc.code).toBe(3);
    expect(doc.stdout + doc.stderr).toContain("fix: set a valid token in SUBCTL_TOKEN, or unset it to use the profile's sign-in");
    const env = { SUBCTL_CONFIG_DIR: cfg };
    expect(
      (await runCli('auth login --sandbox --username enduser --password-stdin --profile eve -q', { env, stdin: 'sandbox-enduser\n' })).code,
    ).toBe(0);
    const r = await runCli('auth refresh --profile eve -o json', { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { profile: string; expires_in: number; expires_at: string };
    expect(out.profile).toBe('eve');
    expect(out.expires_in).toBeGreaterThan(0);
    expect(r.stdout).not.toContain('token');
  });
});

describe('auth register', () => {
  it('a registration the server refuses leaves no profile behind (a bare one ran as the sandbox admin)', async () => {
    const cfg = tempConfigDir();
    const env = { SUBCTL_CONFIG_DIR: cfg };
    const r = await runCli('auth register --sandbox --email enduser@sandbox.local --username x2 --password-stdin --profile nu2', {
      env,
      stdin: 'newpass123\n',
    });
    expect(r.code).toBe(5);
    const list = await runCli('config list -o json', { env });
    expect(JSON.parse(list.stdout || '[]')).toEqual([]);
    const ok = await runCli('auth register --sandbox --email nu3@example.com --username nu3 --password-stdin --profile nu3 -o json', {
      env,
      stdin: 'newpass123\n',
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect((JSON.parse((await runCli('config list -o json', { env })).stdout) as Array<{ name: string }>).map((p) => p.name)).toEqual([
      'nu3',
    ]);
  });
});
