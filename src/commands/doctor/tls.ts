/**
 * The TLS check: the certificate the platform presents (trusted, for this host, not expiring
 * soon) and NODE_EXTRA_CA_CERTS when it is set. An untrusted certificate is exit 7 (see
 * src/commands/doctor/index.ts).
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { InterruptedError } from '../../api/errors.js';
import type { Ctx } from '../../cli/context.js';
import { errorCode } from './network.js';
import type { DoctorRun } from './types.js';

/** A certificate expiring sooner than this is a warning. */
const CERT_WARN_DAYS = 14;

function hostOf(u: URL): string {
  return u.hostname.replace(/^\[|\]$/g, '');
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

/** What NODE_EXTRA_CA_CERTS adds to the TLS line: a note when it is readable, a problem when not. */
interface ExtraCa {
  extraNote: string;
  extraProblem?: string;
  extraFix: string | null;
}

function extraCaState(env: NodeJS.ProcessEnv): ExtraCa {
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
  return { extraNote, extraProblem, extraFix };
}

/** Whether the certificate the platform presents is trusted, for this host, and not expiring soon. */
export async function checkTls(s: DoctorRun): Promise<void> {
  const { env, add, where, reached, proxyApplies } = s;
  const { extraNote, extraProblem, extraFix } = extraCaState(env);
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
    await checkCertificate(s, where.url, { extraNote, extraProblem, extraFix });
  }
}

/** A direct connection's certificate, inspected over a TLS handshake of the doctor's own. */
async function checkCertificate(s: DoctorRun, url: URL, { extraNote, extraProblem, extraFix }: ExtraCa): Promise<void> {
  const { ctx, env, add, timeoutMs } = s;
  const { trustedCertificates } = await import('../../api/transport.js');
  const host = url.hostname;
  try {
    const cert = await inspectCertificate(ctx, url, trustedCertificates(env), timeoutMs);
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
        `the certificate of ${url.host} is not trusted: ${cert.error ?? 'unknown reason'} (${[issuer, expiry].filter(Boolean).join(', ')})${extraProblem ? `; ${extraProblem}` : extraNote}`,
        extraFix ?? tlsFix(cert.error, host),
      );
    } else if (days !== undefined && days < 0) {
      add(
        'tls',
        'fail',
        `the certificate of ${url.host} expired on ${cert.validTo!.toISOString().slice(0, 10)}`,
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
    add('tls', 'fail', `TLS handshake with ${url.host} failed: ${(e as Error).message}${code ? ` (${code})` : ''}`, tlsFix(code, host));
  }
}
