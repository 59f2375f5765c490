/**
 * The account flows of `subctl auth` (register, forgot-password, reset-password,
 * change-password, verify) against a real loopback server: the request on the wire (path,
 * typed body, X-Device-ID), stdout, exit codes, and the rule that passwords never come from argv.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, startStubServer, type StubServer } from '../support/stub-server.js';
import { runCli, tempConfigDir } from '../support/run-cli.js';

let server: StubServer;
const TOKEN = 'tok-auth-flows';
let configDir: string;
const env = (extra: Record<string, string> = {}) => ({
  SUBCTL_BASE_URL: server.url,
  SUBCTL_TOKEN: TOKEN,
  SUBCTL_CONFIG_DIR: configDir,
  ...extra,
});
const body = (i = 0) => server.requests[i].body as Record<string, unknown>;
const profiles = () => JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles as Record<string, { device_id?: string }>;

beforeAll(async () => {
  server = await startStubServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  configDir = tempConfigDir();
  server.requests.length = 0;
  server.setHandler(() => ok({ success: true, message: 'done' }, 'done'));
});

describe('auth register', () => {
  const full =
    'auth register --username alice --email alice@example.com --full-name "Alice Liddell" --phone-number 5550100200 --address "1 Rabbit Hole" --referral-code REF-ABC234 --password-stdin -o json';

  it('sends every flag in a typed body, the password from stdin, and the profile device id as X-Device-ID', async () => {
    server.setHandler(() => ok({ success: true, user_id: 42, message: 'registered' }, 'registered'));
    const r = await runCli(full, { env: env(), stdin: 's3cret-pass\n' });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/cms/auth/register');
    expect(req.body).toEqual({
      username: 'alice',
      email: 'alice@example.com',
      full_name: 'Alice Liddell',
      phone_number: '5550100200',
      address: '1 Rabbit Hole',
      referral_code: 'REF-ABC234',
      password: 's3cret-pass',
    });
    const deviceId = profiles().default.device_id;
    expect(deviceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(req.headers['x-device-id']).toBe(deviceId);
    expect(JSON.parse(r.stdout)).toEqual({ success: true, user_id: 42, message: 'registered' });
    expect(r.stderr).toMatch(/registered as user 42/);
  });

  it('--base-url with a new profile: the profile points there, and the sign-in it suggests works as printed (it went to the embedded sandbox)', async () => {
    server.setHandler((req) =>
      req.path === '/auth/login'
        ? ok({ token: 'tok-new', user_id: 42, username: 'newbie', role: 'user' })
        : ok({ success: true, user_id: 42, message: 'registered' }, 'registered'),
    );
    const cfg = { SUBCTL_CONFIG_DIR: configDir };
    const r = await runCli(`auth register --base-url ${server.url} --profile newbie --username newbie --email n@x.io --password-stdin`, {
      env: cfg,
      stdin: 'pw-123456\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect((profiles() as Record<string, { base_url?: string }>).newbie.base_url).toBe(server.url);
    const suggested = /sign in with `subctl (auth login --profile newbie)`/.exec(r.stderr)![1];
    const login = await runCli(`${suggested} --username newbie --password-stdin`, { env: cfg, stdin: 'pw-123456\n' });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).not.toContain('[sandbox]');
    expect(server.requests.at(-1)!.path).toBe('/auth/login');
  });

  it('keeps the same device id across runs, per profile', async () => {
    await runCli('auth register --username a --email a@x --password-stdin', { env: env(), stdin: 'pw-123456\n' });
    await runCli('auth register --username b --email b@x --password-stdin', { env: env(), stdin: 'pw-123456\n' });
    await runCli('auth register --username c --email c@x --password-stdin --profile other', { env: env(), stdin: 'pw-123456\n' });
    const ids = server.requests.map((r) => r.headers['x-device-id']);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(profiles().other.device_id).toBe(ids[2]);
  });

  it('a missing required flag is named before any password is read; nothing is sent', async () => {
    const r = await runCli('auth register --username alice --password-stdin', { env: env(), stdin: 'pw-123456\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/email \(--email\)/);
    expect(r.stderr).not.toMatch(/--password\b(?!-)/);
    expect(server.requests).toHaveLength(0);
  });

  it('off a terminal without --password-stdin it refuses to prompt and names the flag', async () => {
    const r = await runCli('auth register --username alice --email a@x', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--password-stdin/);
    expect(server.requests).toHaveLength(0);
  });

  it('on a terminal it asks twice with a masked prompt and sends what was typed', async () => {
    const r = await runCli('auth register --username alice --email a@x', {
      env: env({ FORCE_COLOR: '0' }),
      tty: true,
      answers: ['typed-pass-1', 'typed-pass-1'],
    });
    expect(r.code).toBe(0);
    expect(body().password).toBe('typed-pass-1');
    expect(r.stderr).toMatch(/Password: \*+/);
    expect(r.stderr).toMatch(/Repeat password: /);
    expect(r.stderr).not.toContain('typed-pass-1');
  });

  it('two different passwords at the prompts send nothing', async () => {
    const r = await runCli('auth register --username alice --email a@x', { env: env(), tty: true, answers: ['first-pass', 'other-pass'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/differ/);
    expect(server.requests).toHaveLength(0);
  });

  it('a taken username is the server message, exit 5', async () => {
    server.setHandler(() => fail(409, "username 'alice' is taken", { code: 'USERNAME_TAKEN' }));
    const r = await runCli('auth register --username alice --email a@x --password-stdin', { env: env(), stdin: 'pw-123456\n' });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("username 'alice' is taken");
  });
});

describe('passwords never travel in argv', () => {
  const cases: Array<[string, string]> = [
    ['auth register --username a --email a@x --password hunter22', '--password'],
    ['auth reset-password --user-id 3 --reset-token T --new-password hunter22', '--new-password'],
    ['auth reset-password --cms --reset-token T --password hunter22', '--password'],
    ['auth change-password --old-password a --new-password hunter22', '--old-password'],
    ['auth change-password --password hunter22', '--password'],
    ['users create --username a --email a@x --role user --password hunter22', '--password'],
    ['users set-password 7 --new-password hunter22', '--new-password'],
    ['users set-password 7 --password hunter22', '--password'],
  ];
  it.each(cases)('%s is refused with exit 2 and nothing is sent', async (line, flag) => {
    const r = await runCli(line, { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${flag} is not accepted: passwords never travel in argv`);
    expect(r.stderr).toMatch(/--password-stdin/);
    expect(server.requests).toHaveLength(0);
  });

  it('no password verb lists a password flag in its help', async () => {
    for (const verb of ['auth register', 'auth reset-password', 'auth change-password', 'users create', 'users set-password']) {
      const r = await runCli(`${verb} --help`, { env: env() });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('--password-stdin');
      expect(r.stdout).not.toMatch(/--(new-|old-)?password(?!-stdin)\b/);
    }
  });
});

describe('auth forgot-password', () => {
  it('--email sends /auth/forgot-password and prints the answer', async () => {
    const answer = { success: true, email: 'a@x', user_id: 5, reset_token: 'rt-1', expiry_date: '2026-01-01T01:00:00Z' };
    server.setHandler(() => ok(answer));
    const r = await runCli('auth forgot-password --email a@x -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('POST');
    expect(server.requests[0].path).toBe('/auth/forgot-password');
    expect(body()).toEqual({ email: 'a@x' });
    expect(JSON.parse(r.stdout)).toEqual(answer);
  });

  it('--cms sends /cms/auth/request-reset', async () => {
    const r = await runCli('auth forgot-password --cms --email a@x', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/auth/request-reset');
    expect(body()).toEqual({ email: 'a@x' });
  });

  it('without --email exits 2 naming it', async () => {
    const r = await runCli('auth forgot-password', { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/email \(--email\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('an unknown email exits 4 with the server message', async () => {
    server.setHandler(() => fail(404, 'no account with that email'));
    const r = await runCli('auth forgot-password --email nobody@x', { env: env() });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no account with that email');
  });
});

describe('auth reset-password', () => {
  it('sends user_id (integer), the token flag and the new password from stdin to /auth/reset-password', async () => {
    const r = await runCli('auth reset-password --user-id 5 --reset-token rt-123 --password-stdin', {
      env: env(),
      stdin: 'brand-new-pass\n',
    });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/auth/reset-password');
    expect(body()).toEqual({ user_id: 5, reset_token: 'rt-123', new_password: 'brand-new-pass' });
  });

  it('--cms sends /cms/auth/reset-password-token without user_id', async () => {
    const r = await runCli('auth reset-password --cms --reset-token rt-9 --password-stdin', { env: env(), stdin: 'brand-new-pass\n' });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/auth/reset-password-token');
    expect(body()).toEqual({ reset_token: 'rt-9', new_password: 'brand-new-pass' });
  });

  it('--cms with --user-id is a usage error', async () => {
    const r = await runCli('auth reset-password --cms --user-id 5 --reset-token rt --password-stdin', {
      env: env(),
      stdin: 'brand-new-pass\n',
    });
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('a missing token is named before the password is asked for', async () => {
    const r = await runCli('auth reset-password --user-id 5', { env: env(), tty: true, answers: ['brand-new-pass', 'brand-new-pass'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/reset_token \(--reset-token\)/);
    expect(r.stderr).not.toMatch(/New password/);
    expect(server.requests).toHaveLength(0);
  });

  it('a new password under 8 characters is refused locally, naming no flag', async () => {
    const r = await runCli('auth reset-password --user-id 5 --reset-token rt --password-stdin', { env: env(), stdin: 'short\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/new password: Too small/);
    expect(r.stderr).not.toMatch(/--new-password/);
    expect(server.requests).toHaveLength(0);
  });

  it('a used token is the server message, exit 5', async () => {
    server.setHandler(() => fail(400, 'reset token already used', { code: 'RESET_TOKEN_USED' }));
    const r = await runCli('auth reset-password --user-id 5 --reset-token rt --password-stdin', { env: env(), stdin: 'brand-new-pass\n' });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('reset token already used');
  });
});

describe('auth change-password', () => {
  it('--password-stdin reads the old password then the new one, two lines', async () => {
    server.setHandler(() => ok(null, 'password changed'));
    const r = await runCli('auth change-password --password-stdin', { env: env(), stdin: 'old-password\nnew-password-1\n' });
    expect(r.code).toBe(0);
    const req = server.requests[0];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/auth/change-password');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.body).toEqual({ old_password: 'old-password', new_password: 'new-password-1' });
    expect(r.stdout).toBe('message\tpassword changed\n');
  });

  it('--cms sends /cms/auth/change-password', async () => {
    const r = await runCli('auth change-password --cms --password-stdin', { env: env(), stdin: 'old-password\r\nnew-password-1\r\n' });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/auth/change-password');
    expect(body()).toEqual({ old_password: 'old-password', new_password: 'new-password-1' });
  });

  it('one line on stdin is a usage error naming the two lines; nothing is sent', async () => {
    const r = await runCli('auth change-password --password-stdin', { env: env(), stdin: 'only-one\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/2 lines \(old and new password\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('on a terminal it asks for the current password, then the new one twice', async () => {
    const r = await runCli('auth change-password', {
      env: env({ FORCE_COLOR: '0' }),
      tty: true,
      answers: ['old-password', 'new-password-1', 'new-password-1'],
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Current password: .*\n[\s\S]*New password: .*\n[\s\S]*Repeat new password: /);
    expect(body()).toEqual({ old_password: 'old-password', new_password: 'new-password-1' });
  });

  it('a wrong old password is the server message, exit 5', async () => {
    server.setHandler(() => fail(400, 'old password is incorrect'));
    const r = await runCli('auth change-password --password-stdin', { env: env(), stdin: 'bad-old\nnew-password-1\n' });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('old password is incorrect');
  });
});

describe('auth verify', () => {
  it('--send --type email asks for a code at /cms/users/generate-verification', async () => {
    server.setHandler(() => ok({ success: true, type: 'email', expires_at: '2026-01-01T00:10:00Z' }));
    const r = await runCli('auth verify --send --type email -o json', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].method).toBe('POST');
    expect(server.requests[0].path).toBe('/cms/users/generate-verification');
    expect(body()).toEqual({ type: 'email' });
    expect(JSON.parse(r.stdout)).toMatchObject({ success: true, type: 'email' });
  });

  it('--code C --type sms checks it at /cms/users/verify', async () => {
    const r = await runCli('auth verify --code 123456 --type sms', { env: env() });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/cms/users/verify');
    expect(body()).toEqual({ code: '123456', type: 'sms' });
  });

  it('a wrong code (422) exits 5 with the server message', async () => {
    server.setHandler(() => fail(422, 'invalid verification code', { code: 'INVALID_VERIFICATION_CODE' }));
    const r = await runCli('auth verify --code 000000 --type email', { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('invalid verification code');
  });

  it('needs exactly one of --send and --code; the type and code length are checked before sending', async () => {
    for (const line of [
      'auth verify --type email',
      'auth verify --send --code 1234 --type email',
      'auth verify --send --type fax',
      'auth verify --code 12 --type email',
      'auth verify --send',
    ]) {
      const r = await runCli(line, { env: env() });
      expect(r.code, line).toBe(2);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('existing auth verbs keep working', () => {
  it('login --password-stdin still signs in and stores the token', async () => {
    server.setHandler(() => ok({ token: 'tok-new', user_id: 3, username: 'ops', role: 'admin' }));
    const r = await runCli('auth login --username ops --password-stdin', {
      env: { SUBCTL_BASE_URL: server.url, SUBCTL_CONFIG_DIR: configDir },
      stdin: 'pw\n',
    });
    expect(r.code).toBe(0);
    expect(server.requests[0].path).toBe('/auth/login');
    expect(body()).toEqual({ username: 'ops', password: 'pw' });
    expect(r.stderr).toMatch(/signed in as ops \(admin\)/);
  });

  it('the first profile of a machine becomes the active one: login --profile prod, then a command without --profile goes to prod with its token', async () => {
    server.setHandler((req) =>
      req.path === '/auth/login'
        ? ok({ token: 'tok-prod', user_id: 3, username: 'ops', role: 'admin' })
        : ok({ pagination: { current_page: 1, page_size: 20, total_pages: 0, total_records: 0 }, services: [] }),
    );
    const login = await runCli(`auth login --base-url ${server.url} --profile prod --username ops --password-stdin`, {
      env: { SUBCTL_CONFIG_DIR: configDir },
      stdin: 'pw\n',
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain("on profile 'prod' (now the active profile)");
    const list = await runCli('services list -o json', { env: { SUBCTL_CONFIG_DIR: configDir } });
    expect(list.code, list.stderr).toBe(0);
    expect(server.requests.at(-1)!.path).toBe('/admin/services');
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer tok-prod');
    // A second profile does not take over.
    const second = await runCli(`auth login --base-url ${server.url} --profile staging --username ops --password-stdin`, {
      env: { SUBCTL_CONFIG_DIR: configDir },
      stdin: 'pw\n',
    });
    expect(second.stderr).not.toContain('now the active profile');
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).current_profile).toBe('prod');
  });

  it("a profile's token goes only to its own platform: --base-url naming another one gets no token (a sandbox profile's went anywhere)", async () => {
    const other = await startStubServer(() => fail(401, 'no token'));
    try {
      server.setHandler((req) =>
        req.path === '/auth/login'
          ? ok({ token: 'tok-own', user_id: 3, username: 'ops', role: 'admin' })
          : ok({ pagination: { current_page: 1, page_size: 20, total_pages: 0, total_records: 0 }, services: [] }),
      );
      const login = await runCli(`auth login --base-url ${server.url} --profile own --username ops --password-stdin`, {
        env: { SUBCTL_CONFIG_DIR: configDir },
        stdin: 'pw\n',
      });
      expect(login.code, login.stderr).toBe(0);
      // Another address: no Authorization header at all; the 401 says why.
      const r = await runCli(`--profile own --base-url ${other.url} services list --retries 0`, { env: { SUBCTL_CONFIG_DIR: configDir } });
      expect(other.requests).toHaveLength(1);
      expect(other.requests[0].headers.authorization).toBeUndefined();
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`profile 'own' is signed in to ${server.url}, and its token is not sent to ${other.url}`);
      // The same platform named again (its own address, a trailing slash): the token goes.
      const same = await runCli(`--profile own --base-url ${server.url}/ services list`, { env: { SUBCTL_CONFIG_DIR: configDir } });
      expect(same.code, same.stderr).toBe(0);
      expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer tok-own');
      // A token given for the run itself is sent wherever the run goes.
      await runCli(`--profile own --base-url ${other.url} services list --retries 0`, {
        env: { SUBCTL_CONFIG_DIR: configDir, SUBCTL_TOKEN: 'tok-env' },
      });
      expect(other.requests.at(-1)!.headers.authorization).toBe('Bearer tok-env');
      // A sandbox profile signed in to the embedded sandbox: its token stays there.
      const sbDir = tempConfigDir();
      const sbLogin = await runCli('auth login --sandbox --profile adm --username admin --password-stdin', {
        env: { SUBCTL_CONFIG_DIR: sbDir, HOME: sbDir },
        stdin: 'sandbox-admin\n',
      });
      expect(sbLogin.code, sbLogin.stderr).toBe(0);
      const away = await runCli(`--profile adm --base-url ${other.url} services list --retries 0`, {
        env: { SUBCTL_CONFIG_DIR: sbDir, HOME: sbDir },
      });
      expect(other.requests.at(-1)!.headers.authorization).toBeUndefined();
      expect(away.stderr).toContain(`profile 'adm' is signed in to sandbox, and its token is not sent to ${other.url}`);
      // The profile's address changed since it signed in (`config set base-url`): the token was
      // issued elsewhere and stays there (it moved with the address).
      expect((await runCli(`config set base-url ${other.url} --profile own`, { env: { SUBCTL_CONFIG_DIR: configDir } })).code).toBe(0);
      const moved = await runCli('--profile own services list --retries 0', { env: { SUBCTL_CONFIG_DIR: configDir } });
      expect(other.requests.at(-1)!.headers.authorization).toBeUndefined();
      expect(moved.code).toBe(3);
      expect(moved.stderr).toContain(`profile 'own' is signed in to ${server.url}, and its token is not sent to ${other.url}`);
      // Nor do the commands that put it in a body: status says where it was issued, refresh is
      // refused, doctor says so; nothing of it reaches the other address.
      const seen = () => other.requests.map((q) => JSON.stringify(q.body) + String(q.headers.authorization)).join('\n');
      const st = await runCli(`--profile own --base-url ${other.url} auth status -o json`, { env: { SUBCTL_CONFIG_DIR: configDir } });
      expect(st.code).toBe(3);
      expect(JSON.parse(st.stdout)).toMatchObject({ token_source: 'none', signed_in_to: server.url, valid: false });
      const rf = await runCli(`--profile own --base-url ${other.url} auth refresh`, { env: { SUBCTL_CONFIG_DIR: configDir } });
      expect(rf.code).toBe(2);
      expect(rf.stderr).toContain(
        `error: profile 'own' signed in to ${server.url}: auth refresh sends its token there, not to ${other.url}; nothing was sent`,
      );
      const dr = await runCli(`--profile own --base-url ${other.url} doctor -o json --retries 0`, {
        env: { SUBCTL_CONFIG_DIR: configDir },
      });
      expect(dr.stdout).toContain(`was issued for ${server.url}: its token is not sent to ${other.url}`);
      expect(seen()).not.toContain('tok-own');
      // auth logout revokes where the sign-in was issued, or not at all: nothing goes to the other
      // address (the token rode in the body), and the sign-in is kept.
      const before = other.requests.length;
      const out = await runCli(`--profile own --base-url ${other.url} auth logout`, { env: { SUBCTL_CONFIG_DIR: configDir } });
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(
        `error: profile 'own' signed in to ${server.url}: auth logout sends its token there, not to ${other.url}; nothing was sent`,
      );
      expect(other.requests).toHaveLength(before);
      // A profile that does not exist is that, for logout and refresh too (logout said "not signed in", exit 0).
      for (const verb of ['logout', 'refresh']) {
        const nope = await runCli(`--profile nope auth ${verb}`, { env: { SUBCTL_CONFIG_DIR: configDir } });
        expect(nope.code, verb).toBe(2);
        expect(nope.stderr, verb).toContain('error: no profile named "nope"');
      }
      // A sign-in stored before it recorded where it was issued (an older credentials file):
      // `config set base-url` records the old address first, and the token stays there.
      expect((await runCli(`config set base-url ${server.url} --profile own`, { env: { SUBCTL_CONFIG_DIR: configDir } })).code).toBe(0);
      const credFile = join(configDir, 'credentials.json');
      const creds = JSON.parse(readFileSync(credFile, 'utf8'));
      delete creds.profiles.own.base_url;
      writeFileSync(credFile, JSON.stringify(creds), { mode: 0o600 });
      expect((await runCli(`config set base-url ${other.url} --profile own`, { env: { SUBCTL_CONFIG_DIR: configDir } })).code).toBe(0);
      expect(JSON.parse(readFileSync(credFile, 'utf8')).profiles.own.base_url).toBe(server.url);
      await runCli('--profile own services list --retries 0', { env: { SUBCTL_CONFIG_DIR: configDir } });
      expect(other.requests.at(-1)!.headers.authorization).toBeUndefined();
      // Back to where it signed in: the token goes again.
      expect((await runCli(`config set base-url ${server.url} --profile own`, { env: { SUBCTL_CONFIG_DIR: configDir } })).code).toBe(0);
      expect((await runCli('--profile own services list', { env: { SUBCTL_CONFIG_DIR: configDir } })).code).toBe(0);
      expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer tok-own');
    } finally {
      await other.close();
    }
  }, 30_000);
});

describe('auth status', () => {
  it('checks the session with /auth/validate-session, with --ip-address and --user-agent when given', async () => {
    server.setHandler(() => ok({ valid: true, username: 'ops', role: 'admin' }));
    const r = await runCli('auth status -o json --ip-address 10.1.2.3 --user-agent "cron/1.0"', { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0].path).toBe('/auth/validate-session');
    expect(body()).toEqual({ token: TOKEN, ip_address: '10.1.2.3', user_agent: 'cron/1.0' });
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: true, username: 'ops' });
    const plain = await runCli('auth status -o json', { env: env() });
    expect(plain.code, plain.stderr).toBe(0);
    expect(body(1)).toEqual({ token: TOKEN });
  });

  it('a token the platform refuses: the status on stdout, exit 3, and the reason on stderr (text and JSON)', async () => {
    server.setHandler(() => ok({ valid: false }));
    const r = await runCli('auth status', { env: env() });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^valid\tfalse$/m);
    expect(r.stderr).toBe(
      'error: the platform does not accept the token in SUBCTL_TOKEN\n' +
        'hint: sign in with `subctl auth login` (or set SUBCTL_TOKEN), then run the command again\n',
    );
    const j = await runCli('auth status -o json', { env: env() });
    expect(j.code).toBe(3);
    expect(JSON.parse(j.stdout)).toMatchObject({ valid: false, token_source: 'env' });
    expect(JSON.parse(j.stderr.trim().split('\n').at(-1)!).error).toMatchObject({ type: 'auth' });
    // Another platform's spelling of false (the sandbox's alt dialect writes 0).
    for (const valid of [0, 'false']) {
      server.setHandler(() => ok({ valid }));
      const other = await runCli('auth status', { env: env() });
      expect(other.code, String(valid)).toBe(3);
      expect(other.stderr).toMatch(/^error: the platform does not accept the token in SUBCTL_TOKEN\n/);
    }
  });

  it('an empty answer (a gateway dropped it) says nothing of the token: exit 6, never "valid" blank with exit 0', async () => {
    server.setHandler(() => ({ status: 200, raw: '', headers: { 'content-type': 'application/json' } }));
    const r = await runCli('auth status', { env: env() });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: the answer of POST \/auth\/validate-session \(HTTP 200\) was empty; the token was not checked\n/);
    expect(r.code).toBe(6);
  });

  it('no token at all: nothing is sent, exit 3, and stderr says so', async () => {
    const r = await runCli('auth status', { env: { SUBCTL_BASE_URL: server.url, SUBCTL_CONFIG_DIR: configDir } });
    expect(r.code).toBe(3);
    expect(server.requests).toHaveLength(0);
    expect(r.stderr).toMatch(/^error: not signed in: profile 'default' has no token\n/);
  });
});

describe('auth logout', () => {
  const login = async (base: string) => {
    server.setHandler((req) =>
      req.path === '/auth/login' ? ok({ token: 'tok-out', user_id: 9, username: 'ops', role: 'admin' }) : ok({ message: 'logged out' }),
    );
    const r = await runCli(`auth login --base-url ${base} --profile p --username ops --password-stdin`, {
      env: { SUBCTL_CONFIG_DIR: configDir },
      stdin: 'pw\n',
    });
    expect(r.code, r.stderr).toBe(0);
    server.requests.length = 0;
  };
  const tokenSource = async () => {
    const st = await runCli('auth status -o json --retries 0', { env: { SUBCTL_CONFIG_DIR: configDir } });
    return (JSON.parse(st.stdout) as { token_source: string }).token_source;
  };

  it('revokes the token on the server (user_id and token in the body) and forgets it', async () => {
    await login(server.url);
    expect(await tokenSource()).toBe('profile');
    server.requests.length = 0;
    const r = await runCli('auth logout', { env: { SUBCTL_CONFIG_DIR: configDir } });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0].path).toBe('/auth/logout');
    expect(body()).toEqual({ user_id: 9, token: 'tok-out' });
    expect(r.stderr).toContain("signed out of profile 'p'");
    expect(await tokenSource()).toBe('none');
    const again = await runCli('auth logout', { env: { SUBCTL_CONFIG_DIR: configDir } });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("profile 'p' is not signed in");
  });

  it('a token the server no longer takes (401): signed out, exit 0, said why', async () => {
    await login(server.url);
    server.setHandler(() => fail(401, 'token expired'));
    const r = await runCli('auth logout', { env: { SUBCTL_CONFIG_DIR: configDir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("signed out of profile 'p' (the server no longer accepted the token: it had expired or been revoked)");
    expect(await tokenSource()).toBe('none');
  });

  it('the server out of reach: exit 7, and it says the token is forgotten here but not revoked', async () => {
    // Signed in to a platform that then goes away (nothing listens on its port any more).
    const gone = await startStubServer((req) =>
      req.path === '/auth/login' ? ok({ token: 'tok-out', user_id: 9, username: 'ops', role: 'admin' }) : ok({}),
    );
    const signed = await runCli(`auth login --base-url ${gone.url} --profile p --username ops --password-stdin`, {
      env: { SUBCTL_CONFIG_DIR: configDir },
      stdin: 'pw\n',
    });
    expect(signed.code, signed.stderr).toBe(0);
    await gone.close();
    const r = await runCli('auth logout --retries 0', { env: { SUBCTL_CONFIG_DIR: configDir } });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(
      "note: the token is forgotten on this machine (profile 'p' is signed out here), but the server did not revoke it: it stays valid until it expires\n",
    );
    expect(await tokenSource()).toBe('none');
  });
});

describe("another platform's spelling of the sign-in answer (the sandbox's alt dialect writes ids as text and the role as an object)", () => {
  const altLogin = () =>
    server.setHandler((req) =>
      req.path === '/auth/login'
        ? ok({ token: 'tok-alt', user_id: '9', username: 'ops', role: { role_name: 'admin' } })
        : req.path === '/auth/validate-session'
          ? ok({ valid: 1, username: 'ops', role: { role_name: 'admin' } })
          : ok({ message: 'logged out' }),
    );
  const signIn = () => {
    altLogin();
    return runCli(`auth login --base-url ${server.url} --profile p --username ops --password-stdin`, {
      env: { SUBCTL_CONFIG_DIR: configDir },
      stdin: 'pw\n',
    });
  };

  it('refresh with expires_in as text ("3600") keeps the expiry; unreadable ("1h") or beyond any date stores none: never a crash', async () => {
    const login = await signIn();
    expect(login.code, login.stderr).toBe(0);
    const stored = () => JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).profiles.p as Record<string, unknown>;
    for (const [expires_in, kept] of [
      ['3600', true],
      ['1h', false],
      [1e20, false],
    ] as const) {
      server.setHandler(() => ok({ token: `tok-${expires_in}`, expires_in }));
      const r = await runCli('auth refresh --profile p', { env: { SUBCTL_CONFIG_DIR: configDir } });
      expect(r.code, r.stderr).toBe(0);
      expect(stored().token).toBe(`tok-${expires_in}`);
      expect(stored().expires_at !== undefined, String(expires_in)).toBe(kept);
    }
  });

  it('login shows and stores the role by its name; logout sends the user id as a number and revokes the token', async () => {
    const r = await signIn();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/signed in as ops \(admin\) on profile 'p'/);
    const list = await runCli('config list -o json', { env: { SUBCTL_CONFIG_DIR: configDir } });
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'p', username: 'ops', role: 'admin' })]);
    const st = await runCli('auth status -o json', { env: { SUBCTL_CONFIG_DIR: configDir } });
    expect(st.code, st.stderr).toBe(0);
    expect(JSON.parse(st.stdout)).toMatchObject({ role: 'admin', valid: 1 });
    server.requests.length = 0;
    const out = await runCli('auth logout', { env: { SUBCTL_CONFIG_DIR: configDir } });
    expect(out.code, out.stderr).toBe(0);
    expect(server.requests.map((q) => q.path)).toEqual(['/auth/logout']);
    expect(body()).toEqual({ user_id: 9, token: 'tok-alt' });
    expect(out.stderr).toContain("signed out of profile 'p'");
  });
});
