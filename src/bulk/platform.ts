/**
 * Which platform a run's rows go to, and the run's name on it: one platform, one journal. The
 * address is normalised so that another spelling of the same platform finds the same journal
 * (`localhost`, `127.0.0.1` and `::1` are one host; a default port is no port; case and trailing
 * slashes do not count), and a journal of another platform is never used.
 */
import { hash } from 'node:crypto';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0', '[::]']);

/** The platform's normalised address (`http://loopback:8080/api`), or `sandbox` for the embedded one. */
export function platformKey(t: { baseUrl: string; sandbox: boolean } | undefined): string {
  if (!t) return '';
  if (t.sandbox) return 'sandbox';
  let u: URL;
  try {
    u = new URL(t.baseUrl);
  } catch {
    return t.baseUrl.replace(/\/+$/, '');
  }
  const host = LOOPBACK.has(u.hostname.toLowerCase()) || /^127\./.test(u.hostname) ? 'loopback' : u.hostname.toLowerCase();
  // URL drops a scheme's default port already (`http://h:80` has port ''); said here for a reader.
  const port =
    u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443')) ? `:${u.port}` : '';
  const path = u.pathname.replace(/\/+$/, '').replace(/\/{2,}/g, '/');
  return `${u.protocol}//${host}${port}${path}`;
}

/**
 * The run's name as the journal's file knows it: `--run-id` when given, else a digest of the
 * rows' identities in any order (the same rows, whatever their cells or the defaults on the
 * command line, are the same run; plan.ts). Always with the command and the platform.
 */
export function runDigest(command: string, platform: string, rows: ReadonlyArray<{ identity: string }>, runId?: string): string {
  let text = `${command}\n${platform}\n`;
  if (runId !== undefined) text += `id:${runId}\n`;
  else {
    const ids = rows.map((r) => r.identity).sort();
    text += `rows:${ids.join('\n')}\n`;
  }
  return hash('sha256', text, 'hex').slice(0, 24);
}
