/**
 * `subctl doctor`: checks what a command needs before it can work and says what to do about
 * each problem. One line a check, `ok|warn|fail  <check>: <detail>`, a `fix:` line under each
 * warning or failure; `-o json` prints the checks as an array of {check, status, detail, fix}.
 *
 * Exit code (CLI.md table): 2 when the configuration is unusable (profile, base address, no platform configured),
 * 7 when the platform cannot be reached (network, TLS), 3 when the credential is missing,
 * expired or refused, else 0 (warnings included). With several failures the first of that
 * order wins: a bad address makes reachability moot, and an unreachable server cannot judge
 * a token.
 */
import { statSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename } from 'node:path';
import tls from 'node:tls';
import { proxyBypassed, type Transport } from '../../api/transport.js';
import { noRealPlatform, type Ctx } from '../../cli/context.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { CliError, ExitCode, HttpError, InterruptedError } from '../../api/errors.js';
import type { Group } from '../types.js';
import { cutMessage, terminalSafe } from '../../output/terminal-safe.js';

export type Status = 'ok' | 'warn' | 'fail';

export interface Check {
  check: string;
  status: Status;
  detail: string;
  fix: string | null;
}

/** Default per-request time-out of the doctor's own requests (`--timeout` overrides). */
const DOCTOR_TIMEOUT_MS = 5_000;
/** Clock difference above which tokens and audit times become unreliable. */
export const MAX_SKEW_MS = 30_000;
/** A certificate expiring sooner than this is a warning. */
const CERT_WARN_DAYS = 14;

const CONFIG_CHECKS = new Set(['profile', 'base-url']);
const NETWORK_CHECKS = new Set(['reachability', 'tls']);

/** The exit code for a set of checks (see the module comment). */
export function doctorExitCode(checks: Check[]): number {
  const failed = (names: Set<string> | string) =>
    checks.some((c) => c.status === 'fail' && (typeof names === 'string' ? c.check === names : names.has(c.check)));
  if (failed(CONFIG_CHECKS)) return ExitCode.usage;
  if (failed(NETWORK_CHECKS)) return ExitCode.network;
  if (failed('credential')) return ExitCode.auth;
  return ExitCode.ok;
}

export const doctorGroup: Group = {
  name: 'doctor',
  build(cmd, bind) {
    addGlobalOptions(cmd);
    cmd
      .description(
        'check the active profile, the base address, reachability, TLS, the credential, the clock, file permissions and proxies; each problem comes with what to do about it',
      )
      .addHelpText(
        'after',
        '\nExit status: 0 when nothing failed (warnings included), 2 for an unusable profile or base address (no platform configured included),\n7 when the platform is unreachable or its TLS certificate is not trusted, 3 when the credential is\nmissing, expired or refused.',
      )
      .action((_o, c) => {
        const raw = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          const checks = await runChecks(ctx, raw);
          await printChecks(ctx, checks);
          return doctorExitCode(checks);
        })(raw);
      });
  },
};

// ---------------------------------------------------------------------------------------------

interface ModeSnapshot {
  path: string;
  want: number;
  mode?: number;
  uid?: number;
}

function snapshotModes(ctx: Ctx): ModeSnapshot[] {
  const p = ctx.paths();
  const list: ModeSnapshot[] = [
    { path: p.configDir, want: 0o700 },
    { path: p.configFile, want: 0o600 },
    { path: p.credentialsFile, want: 0o600 },
  ];
  for (const s of list) {
    try {
      const st = statSync(s.path);
      s.mode = st.mode & 0o777;
      s.uid = st.uid;
    } catch {
      /* missing */
    }
  }
  return list;
}

const octal = (m: number) => m.toString(8).padStart(4, '0');

function fileModesCheck(before: ModeSnapshot[], after: ModeSnapshot[]): Check {
  if (process.platform === 'win32') return { check: 'config-files', status: 'ok', detail: 'file modes do not apply on Windows', fix: null };
  const problems: string[] = [];
  const fixes: string[] = [];
  const present: string[] = [];
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  before.forEach((b, i) => {
    if (b.mode === undefined) return;
    const now = after[i].mode;
    present.push(`${i === 0 ? 'directory' : basename(b.path)} ${octal(b.mode)}`);
    if ((b.mode & 0o077) !== 0) {
      problems.push(
        now === b.want
          ? `${b.path} was ${octal(b.mode)} (repaired to ${octal(b.want)} by this run)`
          : `${b.path} is ${octal(now ?? b.mode)}, open to other users`,
      );
      fixes.push(now === b.want ? `find what loosened ${b.path} (a sync or backup tool?)` : `chmod ${b.want.toString(8)} ${b.path}`);
    }
    if (uid !== undefined && b.uid !== undefined && b.uid !== uid) {
      problems.push(`${b.path} belongs to uid ${b.uid}, not to you (${uid})`);
      fixes.push(`chown $(id -u) ${b.path}, or point SUBCTL_CONFIG_DIR at a directory you own`);
    }
  });
  if (present.length === 0) return { check: 'config-files', status: 'ok', detail: `no configuration yet (${before[0].path})`, fix: null };
  if (problems.length) return { check: 'config-files', status: 'warn', detail: problems.join('; '), fix: fixes.join('; ') };
  return { check: 'config-files', status: 'ok', detail: `private: ${present.join(', ')} (${before[0].path})`, fix: null };
}

interface Where {
  /** `sandbox`, an address, or undefined when none is usable. */
  sandbox: boolean;
  url?: URL;
}

function hostOf(u: URL): string {
  return u.hostname.replace(/^\[|\]$/g, '');
}

function redactProxy(p: string): string {
  try {
    const u = new URL(p);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString().replace(/\/$/, '');
  } catch {
    return p;
  }
}

interface Probe {
  ok: boolean;
  ms: number;
  status?: number;
  date?: string;
  /** Local time at the middle of the exchange. */
  localMid: number;
  error?: string;
  code?: string;
  tlsError?: boolean;
}

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME|HOSTNAME/i;

function errorCode(e: unknown): string | undefined {
  let cur = e as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 4 && cur; i++) {
    if (typeof cur.code === 'string' && !/^UND_ERR_(SOCKET|ABORTED)$/.test(cur.code)) return cur.code;
    cur = cur.cause as typeof cur;
  }
  return undefined;
}

async function probe(ctx: Ctx, base: URL, timeoutMs: number, direct = false): Promise<Probe> {
  const { createTransport } = await import('../../api/transport.js');
  let transport: Transport | undefined;
  const started = performance.now();
  const localStart = ctx.now().getTime();
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
  try {
    transport = await createTransport(ctx.io.env, { direct });
    const path = `${base.pathname.replace(/\/+$/, '')}/`;
    const res = await transport.send({
      origin: base.origin,
      path,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'subctl-doctor' },
      signal,
    });
    // Read to the end (an answer to `/` is small): destroying undici's body mid-way rejects
    // the request's own promise, unhandled.
    await res.text().catch(() => '');
    const ms = Math.round(performance.now() - started);
    const date = res.headers.date;
    return {
      ok: true,
      ms,
      status: res.statusCode,
      date: Array.isArray(date) ? date[0] : date,
      localMid: (localStart + ctx.now().getTime()) / 2,
    };
  } catch (e) {
    const ms = Math.round(performance.now() - started);
    const timedOut = signal.aborted && !ctx.signal.aborted;
    const code = timedOut ? 'ETIMEDOUT' : errorCode(e);
    const message = timedOut ? `no answer within ${timeoutMs} ms` : ((e as Error)?.message ?? String(e));
    return { ok: false, ms, error: message, code, tlsError: !!code && TLS_CODE.test(code), localMid: localStart };
  } finally {
    await transport?.close().catch(() => {});
  }
}

interface PeerCert {
  authorized: boolean;
  error?: string;
  validTo?: Date;
  subject?: string;
  issuer?: string;
  altNames?: string;
}

function inspectCertificate(ctx: Ctx, u: URL, ca: string[] | undefined, timeoutMs: number): Promise<PeerCert> {
  return new Promise((resolve, reject) => {
    const host = hostOf(u);
    const socket = tls.connect({
      host,
      port: Number(u.port || 443),
      servername: isIP(host) ? undefined : host,
      ca,
      rejectUnauthorized: false,
      timeout: timeoutMs,
    });
    const done = (f: () => void) => {
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      f();
    };
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      const name = (x: unknown) => {
        const o = x as Record<string, string | string[]> | undefined;
        const v = o?.CN ?? o?.O;
        return Array.isArray(v) ? v[0] : v;
      };
      const authError = socket.authorizationError as unknown;
      const result: PeerCert = {
        authorized: socket.authorized,
        error: authError ? String((authError as { code?: string }).code ?? authError) : undefined,
        validTo: cert?.valid_to ? new Date(cert.valid_to) : undefined,
        subject: name(cert?.subject),
        issuer: name(cert?.issuer),
        altNames: cert?.subjectaltname,
      };
      done(() => resolve(result));
    });
    socket.once('timeout', () =>
      done(() => reject(Object.assign(new Error(`TLS handshake timed out after ${timeoutMs} ms`), { code: 'ETIMEDOUT' }))),
    );
    socket.once('error', (e) => done(() => reject(e)));
    const onAbort = () => done(() => reject(new InterruptedError()));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
}

function tlsFix(code: string | undefined, host: string): string {
  if (!code) return 'check the certificate the server presents (openssl s_client -connect HOST:443)';
  if (/ALTNAME|HOSTNAME/i.test(code))
    return `the certificate does not name ${host}: use the address it was issued for, or have it reissued with ${host}`;
  if (/EXPIRED/i.test(code)) return "the certificate has expired: the platform's operators must renew it";
  if (/NOT_YET_VALID/i.test(code)) return "the certificate is not valid yet: check this machine's clock";
  return 'if the platform uses a private CA or a self-signed certificate, set NODE_EXTRA_CA_CERTS to its PEM file';
}

function formatSkew(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
  return ms > 0 ? `${text} ahead of the server` : `${text} behind the server`;
}

async function runChecks(ctx: Ctx, raw: Record<string, unknown>): Promise<Check[]> {
  const env = ctx.io.env;
  const g = ctx.globals;
  const timeoutMs = g.timeout ?? DOCTOR_TIMEOUT_MS;
  const checks: Check[] = [];
  const add = (check: string, status: Status, detail: string, fix: string | null = null) => {
    checks.push({ check, status, detail, fix: status === 'ok' ? null : fix });
  };

  // Modes first: loading the configuration repairs them.
  let modesBefore: ModeSnapshot[] | undefined;
  try {
    modesBefore = snapshotModes(ctx);
  } catch {
    modesBefore = undefined;
  }

  // --- profile -----------------------------------------------------------------------------
  let configOk = true;
  let name = g.profile ?? 'default';
  let profile: ReturnType<Ctx['profile']>;
  let unconfigured = false;
  const baseFrom = raw.baseUrl !== undefined ? '--base-url' : g.baseUrl !== undefined ? 'SUBCTL_BASE_URL' : undefined;
  try {
    const data = ctx.config().load();
    name = ctx.profileName();
    profile = ctx.profile();
    // As Ctx.api() decides: no profile points at a real platform yet (`sandbox` does not count).
    unconfigured = noRealPlatform(ctx.config());
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
    else if (g.sandbox || baseFrom)
      add('profile', 'ok', `"${name}" (${from}), not saved: the address comes from ${g.sandbox ? '--sandbox' : baseFrom}`);
    else if (unconfigured && implicit) add('profile', 'ok', `"${name}" (${from}); no profile points at a platform yet`);
    else
      add(
        'profile',
        'fail',
        `no profile named "${name}" (${from})${known.length ? `; profiles: ${known.join(', ')}` : ''}`,
        `create it with \`subctl config set base-url https://... --profile ${name}\`${known.length ? `, or choose one with \`subctl config use ${known[0]}\`` : ''}`,
      );
  } catch (e) {
    configOk = false;
    add(
      'profile',
      'fail',
      e instanceof Error ? e.message : String(e),
      e instanceof CliError && e.hint ? e.hint : `fix or remove ${ctx.paths().configFile}`,
    );
  }

  // --- base address ------------------------------------------------------------------------
  const where: Where = { sandbox: false };
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

  // --- proxies -----------------------------------------------------------------------------
  const { proxySettings, trustedCertificates } = await import('../../api/transport.js');
  const proxy = proxySettings(env);
  let proxyApplies = false;
  if (!proxy) add('proxy', 'ok', 'none (direct connections)');
  else {
    const parts: string[] = [];
    if (proxy.httpsProxy) parts.push(`https_proxy ${redactProxy(proxy.httpsProxy)}`);
    if (proxy.httpProxy) parts.push(`http_proxy ${redactProxy(proxy.httpProxy)}`);
    if (proxy.noProxy) parts.push(`no_proxy ${proxy.noProxy}`);
    const bad = [proxy.httpsProxy, proxy.httpProxy]
      .filter((p): p is string => !!p)
      .filter((p) => {
        try {
          new URL(p);
          return false;
        } catch {
          return true;
        }
      });
    const target = where.url;
    const chosen = target ? (target.protocol === 'https:' ? (proxy.httpsProxy ?? proxy.httpProxy) : proxy.httpProxy) : undefined;
    proxyApplies = !!target && !!chosen && !proxyBypassed(proxy.noProxy, target);
    const applies = where.sandbox
      ? 'the embedded sandbox is on loopback'
      : target
        ? proxyApplies
          ? `${target.host} goes through ${redactProxy(chosen!)}`
          : `${target.host} is reached directly${chosen ? ' (no_proxy)' : ''}`
        : '';
    if (bad.length) add('proxy', 'fail', `${parts.join(', ')}: ${bad.join(', ')} is not a URL`, 'give the proxy as http://host:port');
    else add('proxy', 'ok', `${parts.join(', ')}${applies ? `; ${applies}` : ''}`);
  }

  // --- reachability ------------------------------------------------------------------------
  let reached: Probe | undefined;
  let api: Awaited<ReturnType<Ctx['api']>> | undefined;
  if (where.sandbox) {
    try {
      if (g.timeout === undefined) g.timeout = DOCTOR_TIMEOUT_MS;
      if (g.retries === undefined) g.retries = 0;
      api = await ctx.api();
      // The sandbox listens in this process: reached directly, as commands reach it.
      reached = await probe(ctx, new URL(ctx.target()!.baseUrl), timeoutMs, true);
      if (reached.ok) add('reachability', 'ok', `the embedded sandbox answered in ${reached.ms} ms`);
      else
        add(
          'reachability',
          'fail',
          `the embedded sandbox did not answer: ${reached.error}`,
          'run `subctl sandbox reset` to start from fresh data',
        );
    } catch (e) {
      add(
        'reachability',
        'fail',
        `the embedded sandbox did not start: ${(e as Error).message}`,
        'run `subctl sandbox reset`, or see `subctl sandbox --help`',
      );
    }
  } else if (where.url) {
    reached = await probe(ctx, where.url, timeoutMs);
    const host = where.url.host;
    if (reached.ok) {
      const s = reached.status!;
      if (s >= 500)
        add(
          'reachability',
          'warn',
          `${host} answered in ${reached.ms} ms, but with HTTP ${s}`,
          'the server is up but failing: try again later, or tell its operators',
        );
      else
        add(
          'reachability',
          'ok',
          `${host} answered in ${reached.ms} ms (GET ${where.url.pathname.replace(/\/+$/, '')}/ -> HTTP ${s}${proxyApplies ? ', through the proxy' : ''})`,
        );
    } else if (reached.tlsError) {
      add('reachability', 'fail', `${host}: the TLS handshake failed (${reached.code})`, 'see the tls check');
    } else {
      const code = reached.code;
      const fix =
        code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? `check the host name in the base address${proxy ? ' and the proxy settings' : ''}, and your DNS`
          : code === 'ECONNREFUSED'
            ? `nothing listens on ${host}: check the address and port, and that the platform is running`
            : code === 'ETIMEDOUT'
              ? `check the network path to ${host} (VPN, firewall${proxy ? ', proxy' : ''}); --timeout MS allows more time`
              : `check the address and the network${proxy ? ' (and the proxy)' : ''}`;
      add(
        'reachability',
        'fail',
        `no answer from ${host}${proxyApplies ? ' (through the proxy)' : ''} after ${reached.ms} ms: ${reached.error}${code && !reached.error?.includes(code) ? ` (${code})` : ''}`,
        fix,
      );
    }
  } else {
    add('reachability', 'warn', 'not checked: no usable base address', 'fix the base-url check first');
  }

  // --- TLS ---------------------------------------------------------------------------------
  const extraCa = env.NODE_EXTRA_CA_CERTS || undefined;
  let extraNote = '';
  let extraProblem: string | undefined;
  if (extraCa) {
    try {
      const pem = readFileSync(extraCa, 'utf8');
      const n = (pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
      if (n === 0) extraProblem = `NODE_EXTRA_CA_CERTS ${extraCa} holds no PEM certificate`;
      else extraNote = `; NODE_EXTRA_CA_CERTS ${extraCa} readable (${n} certificate${n === 1 ? '' : 's'})`;
    } catch (e) {
      extraProblem = `NODE_EXTRA_CA_CERTS ${extraCa} is not readable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    }
  }
  const extraFix = extraProblem ? 'point NODE_EXTRA_CA_CERTS at a readable PEM file of the CA certificate (or unset it)' : null;
  if (where.sandbox)
    add(
      'tls',
      extraProblem ? 'warn' : 'ok',
      `skipped: the embedded sandbox speaks plain http on loopback${extraProblem ? `; ${extraProblem}` : extraNote}`,
      extraFix,
    );
  else if (!where.url) add('tls', 'warn', 'not checked: no usable base address', 'fix the base-url check first');
  else if (where.url.protocol === 'http:')
    add('tls', extraProblem ? 'warn' : 'ok', `skipped: plain http to loopback${extraProblem ? `; ${extraProblem}` : extraNote}`, extraFix);
  else if (reached && !reached.ok && !reached.tlsError)
    add(
      'tls',
      'warn',
      `not checked: ${where.url.host} is unreachable${extraProblem ? `; ${extraProblem}` : ''}`,
      extraFix ?? 'fix the reachability check first',
    );
  else if (proxyApplies) {
    if (reached?.tlsError)
      add(
        'tls',
        'fail',
        `the certificate of ${where.url.host} was refused through the proxy (${reached.code})${extraProblem ? `; ${extraProblem}` : extraNote}`,
        extraFix ?? tlsFix(reached.code, where.url.hostname),
      );
    else
      add(
        'tls',
        extraProblem ? 'warn' : 'ok',
        `verified through the proxy tunnel (certificate details not inspected)${extraProblem ? `; ${extraProblem}` : extraNote}`,
        extraFix,
      );
  } else {
    const host = where.url.hostname;
    try {
      const cert = await inspectCertificate(ctx, where.url, trustedCertificates(env), timeoutMs);
      const now = ctx.now().getTime();
      const days = cert.validTo ? Math.floor((cert.validTo.getTime() - now) / 86_400_000) : undefined;
      const expiry = cert.validTo
        ? `expires ${cert.validTo.toISOString().slice(0, 10)} (${days} day${days === 1 ? '' : 's'} left)`
        : 'no expiry date';
      const issuer = cert.issuer ? `issued by ${cert.issuer}` : '';
      if (!cert.authorized) {
        add(
          'tls',
          'fail',
          `the certificate of ${where.url.host} is not trusted: ${cert.error ?? 'unknown reason'} (${[issuer, expiry].filter(Boolean).join(', ')})${extraProblem ? `; ${extraProblem}` : extraNote}`,
          extraFix ?? tlsFix(cert.error, host),
        );
      } else if (days !== undefined && days < 0) {
        add(
          'tls',
          'fail',
          `the certificate of ${where.url.host} expired on ${cert.validTo!.toISOString().slice(0, 10)}`,
          tlsFix('CERT_HAS_EXPIRED', host),
        );
      } else if (days !== undefined && days < CERT_WARN_DAYS) {
        add(
          'tls',
          'warn',
          `valid for ${host}, ${issuer}, ${expiry}${extraNote}`,
          "the certificate expires soon: tell the platform's operators",
        );
      } else {
        add(
          'tls',
          extraProblem ? 'warn' : 'ok',
          `valid for ${host}${issuer ? `, ${issuer}` : ''}, ${expiry}${extraProblem ? `; ${extraProblem}` : extraNote}`,
          extraFix,
        );
      }
    } catch (e) {
      const code = errorCode(e);
      add(
        'tls',
        'fail',
        `TLS handshake with ${where.url.host} failed: ${(e as Error).message}${code ? ` (${code})` : ''}`,
        tlsFix(code, host),
      );
    }
  }

  // --- clock -------------------------------------------------------------------------------
  if (where.sandbox) add('clock', 'ok', "the embedded sandbox runs on this machine's clock");
  else if (!reached?.ok) add('clock', 'warn', 'not checked: no answer from the server', 'fix the reachability check first');
  else if (!reached.date || Number.isNaN(Date.parse(reached.date)))
    add(
      'clock',
      'warn',
      'the server sent no usable Date header; cannot compare clocks',
      "compare this machine's clock with a time server (timedatectl, ntpdate -q)",
    );
  else {
    // The Date header has whole seconds: up to 1 s of the difference is its rounding.
    const skew = reached.localMid - Date.parse(reached.date);
    const shown = Math.abs(skew) < 1_500 ? 'in sync with the server (within 1 s)' : `this machine's clock is ${formatSkew(skew)}`;
    if (Math.abs(skew) > MAX_SKEW_MS)
      add(
        'clock',
        'warn',
        `${shown} (server Date: ${reached.date}); token expiry and audit times depend on it`,
        'synchronise the clock: timedatectl set-ntp true (Linux), sntp -sS time.apple.com (macOS), w32tm /resync (Windows)',
      );
    else add('clock', 'ok', shown);
  }

  // --- credential --------------------------------------------------------------------------
  if (!configOk && !env.SUBCTL_TOKEN && !g.tokenFile) {
    add('credential', 'warn', 'not checked: the configuration is unreadable', 'fix the profile check first');
  } else {
    try {
      const { resolveToken } = await import('../../config/credentials.js');
      // Only where it may go: a sign-in issued for another platform is not sent (to validate it).
      const signIn = configOk ? ctx.usableSignIn() : {};
      const stored = signIn.stored;
      if (signIn.withheldFrom !== undefined) {
        add(
          'credential',
          'warn',
          `the stored sign-in of profile "${name}" was issued for ${signIn.withheldFrom}: its token is not sent to ${where.sandbox ? 'the sandbox' : (ctx.plannedTarget() ?? '?')}`,
          `sign in there (\`subctl auth login --profile ${name}\`), or point the profile back at ${signIn.withheldFrom}`,
        );
      }
      const warnings: string[] = [];
      const tok = resolveToken(env, g.tokenFile, stored, { warn: (m) => warnings.push(m.replace(/^warning: /, '')) });
      const from =
        tok.source === 'env'
          ? 'SUBCTL_TOKEN'
          : tok.source === 'token-file'
            ? `--token-file ${g.tokenFile}`
            : tok.source === 'profile'
              ? `stored in ${ctx.credentials().where(name)}`
              : '';
      // The fix for the token that was refused: a sign-in stores one that SUBCTL_TOKEN and
      // --token-file go on overriding.
      const login =
        tok.source === 'env'
          ? "set a valid token in SUBCTL_TOKEN, or unset it to use the profile's sign-in"
          : tok.source === 'token-file'
            ? `put a valid token in ${String(g.tokenFile)}, or leave out --token-file to use the profile's sign-in`
            : `subctl auth login --profile ${name}${where.sandbox ? ' --sandbox' : ''} (or set SUBCTL_TOKEN for scripts)`;
      if (!tok.token) {
        if (where.sandbox) add('credential', 'ok', 'none stored: the embedded sandbox signs in as its seeded admin');
        else add('credential', 'fail', `profile "${name}" has no credential (no SUBCTL_TOKEN, no --token-file, nothing stored)`, login);
      } else if (!reached?.ok || !api) {
        if (!reached?.ok)
          add('credential', 'warn', `present (${from}); not validated: the server did not answer`, 'fix the reachability check first');
        else {
          // Not the sandbox: a client for the checked address, with the doctor's time-out.
          if (g.timeout === undefined) g.timeout = DOCTOR_TIMEOUT_MS;
          if (g.retries === undefined) g.retries = 0;
          api = await ctx.api();
        }
      }
      if (tok.token && reached?.ok && api) {
        const { authValidateSession } = await import('../../api/contract/user-auth.js');
        try {
          const v = (await api.call(authValidateSession, { body: { token: tok.token } }, { signal: ctx.signal })) as Record<
            string,
            unknown
          > | null;
          const who = [v?.username ? `user ${String(v.username)}` : undefined, v?.role ? `role ${String(v.role)}` : undefined]
            .filter(Boolean)
            .join(', ');
          const extra = warnings.length ? `; ${warnings.join('; ')}` : '';
          if (v?.valid === true)
            add(
              'credential',
              warnings.length ? 'warn' : 'ok',
              `valid${who ? ` (${who})` : ''}; ${from}${extra}`,
              warnings.length ? `chmod 600 ${g.tokenFile}` : null,
            );
          else {
            const stale =
              stored?.expires_at && Date.parse(stored.expires_at) < ctx.now().getTime() ? ` (it expired at ${stored.expires_at})` : '';
            add(
              'credential',
              'fail',
              `expired or revoked${stale}: ${typeof v?.message === 'string' ? v.message : 'the server does not know this token'}; ${from}`,
              login,
            );
          }
        } catch (e) {
          if (e instanceof HttpError && (e.status === 401 || e.status === 403))
            add('credential', 'fail', `refused by the server (HTTP ${e.status}): ${e.message}; ${from}`, login);
          else if (e instanceof HttpError && e.status === 404)
            add(
              'credential',
              'warn',
              `present (${from}); not validated: the server has no /auth/validate-session`,
              'run a read command (e.g. `subctl services list --limit 1`) to see whether it is accepted',
            );
          else
            add(
              'credential',
              'warn',
              `present (${from}); not validated: ${(e as Error).message}`,
              'run `subctl doctor --verbose` to see the exchange',
            );
        }
      }
    } catch (e) {
      add('credential', 'fail', (e as Error).message, e instanceof CliError && e.hint ? e.hint : 'fix the token source');
    }
  }

  // --- file permissions --------------------------------------------------------------------
  if (modesBefore) {
    try {
      checks.push(fileModesCheck(modesBefore, snapshotModes(ctx)));
    } catch (e) {
      add('config-files', 'warn', `could not inspect: ${(e as Error).message}`, 'check the permissions of the config directory');
    }
  }

  const order = ['profile', 'config-files', 'base-url', 'proxy', 'reachability', 'tls', 'clock', 'credential'];
  return checks.sort((a, b) => order.indexOf(a.check) - order.indexOf(b.check));
}

async function printChecks(ctx: Ctx, checks: Check[]): Promise<void> {
  const format = ctx.globals.output;
  if (format !== 'table') {
    const { printList } = await import('../../output/index.js');
    await printList(checks as unknown as Array<Record<string, unknown>>, {
      format,
      fields: ctx.globals.fields,
      columns: ['check', 'status', 'detail', 'fix'],
      io: ctx.io,
      noColor: ctx.globals.noColor,
    });
    return;
  }
  const color = ctx.color('stdout');
  const paint = (s: Status, text: string) =>
    !color
      ? text
      : s === 'ok'
        ? `\u001b[32m${text}\u001b[39m`
        : s === 'warn'
          ? `\u001b[33m${text}\u001b[39m`
          : `\u001b[31m${text}\u001b[39m`;
  const lines: string[] = [];
  for (const c of checks) {
    // A detail may quote the server (an error's message): never raw to a terminal.
    lines.push(`${paint(c.status, c.status.padEnd(4))}  ${c.check}: ${terminalSafe(cutMessage(c.detail))}`);
    if (c.fix) lines.push(`      fix: ${terminalSafe(c.fix)}`);
  }
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  if (failed || warned) ctx.note(`${failed} failed, ${warned} warning${warned === 1 ? '' : 's'}`);
}
