/**
 * Masking of secrets before anything reaches a log line (`--verbose`) or an error message.
 * Credentials must never be printed: bearer tokens, session ids, cookies, passwords and the
 * one-time tokens of the auth flows. The device id is not a secret and stays visible.
 */

export const MASK = '***';

/** Header names (lower case) whose values are secrets. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-session-id', 'cookie', 'set-cookie', 'x-api-key']);

/**
 * Body and query keys whose values are secrets, compared after lower-casing and dropping
 * everything but letters and digits (`new_password`, `newPassword` and `New-Password` all match).
 */
const SECRET_KEYS = new Set([
  'password',
  'oldpassword',
  'newpassword',
  'currentpassword',
  'confirmpassword',
  'token',
  'accesstoken',
  'resettoken',
  'refreshtoken',
  'idtoken',
  'sessionid',
  'secret',
  'clientsecret',
  'apikey',
]);

const normalise = (key: string): string => key.toLowerCase().replace(/[^a-z0-9]/g, '');

/** True when a body/query key names a secret (`password`, `reset_token`, `session_id` ...). */
export function isSecretKey(key: string): boolean {
  const k = normalise(key);
  return SECRET_KEYS.has(k) || k.includes('password');
}

/**
 * Headers as printable strings, secrets masked; the scheme of `authorization` stays visible.
 * @example redactHeaders({ authorization: 'Bearer abc', 'x-device-id': 'd1' })
 *   // { authorization: 'Bearer ***', 'x-device-id': 'd1' }
 */
export function redactHeaders(h: Record<string, string | string[] | number | undefined | null> | undefined | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const [name, value] of Object.entries(h)) {
    if (value === undefined || value === null) continue;
    const lower = name.toLowerCase();
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (SECRET_HEADERS.has(lower)) {
      const scheme = /^(bearer|basic|token)\s+/i.exec(text);
      out[lower] = scheme && (lower === 'authorization' || lower === 'proxy-authorization') ? `${scheme[1]} ${MASK}` : MASK;
    } else {
      out[lower] = text;
    }
  }
  return out;
}

/**
 * A deep copy of a JSON value with the values of secret keys replaced by `***`.
 * @example redactBody({ username: 'ann', password: 'pw' }) // { username: 'ann', password: '***' }
 */
export function redactBody(value: unknown): unknown {
  return walk(value, 0);
}

function walk(value: unknown, depth: number): unknown {
  if (depth > 50 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = isSecretKey(k) && v !== null && v !== undefined && v !== '' ? MASK : walk(v, depth + 1);
  }
  return out;
}

/**
 * A URL fit for a log line: credentials in the authority and secret query values masked.
 * @example redactUrl('https://h/api/x?token=abc&page=2') // 'https://h/api/x?token=***&page=2'
 */
export function redactUrl(url: string | URL): string {
  let u: URL;
  try {
    u = new URL(String(url));
  } catch {
    return String(url);
  }
  if (u.username) u.username = MASK;
  if (u.password) u.password = MASK;
  if (u.search.length > 1) {
    // On the raw text, so that order and encoding of the other parameters stay as sent.
    const parts = u.search
      .slice(1)
      .split('&')
      .map((part) => {
        const eq = part.indexOf('=');
        const rawKey = eq < 0 ? part : part.slice(0, eq);
        let key = rawKey;
        try {
          key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
        } catch {
          // keep the raw key
        }
        return isSecretKey(key) ? `${rawKey}=${MASK}` : part;
      });
    return `${urlHead(u)}${u.pathname}?${parts.join('&')}${u.hash}`;
  }
  return u.toString();
}

function urlHead(u: URL): string {
  const auth = u.username || u.password ? `${u.username}${u.password ? `:${u.password}` : ''}@` : '';
  return `${u.protocol}//${auth}${u.host}`;
}

/**
 * Text of a body for a log line: JSON is parsed, redacted and re-serialised; anything else is
 * cut short. Never longer than `max` characters.
 */
export function redactBodyText(text: string, max = 2000): string {
  if (!text) return '';
  let shown: string;
  try {
    shown = JSON.stringify(redactBody(JSON.parse(text)));
  } catch {
    shown = text.replace(/\s+/g, ' ');
    // Not JSON: a form-encoded or text body could still carry `password=...`.
    shown = shown.replace(
      /((?:^|[?&\s"'])([A-Za-z_-]*(?:password|token|session_?id|secret)[A-Za-z_-]*)["']?\s*[=:]\s*["']?)[^&\s"',}]+/gi,
      `$1${MASK}`,
    );
  }
  return shown.length > max ? `${shown.slice(0, max)}... (${shown.length} chars)` : shown;
}

/**
 * Text from the server fit for one line of a terminal: escape sequences dropped (a server must
 * not move the cursor, retitle the window or clear the screen), other control characters and
 * line breaks made spaces (a message with `\n    at ...` would pass for a stack trace).
 * @example oneLine('bad\n\u001b[31minput\u001b[0m') // 'bad input'
 */
export function oneLine(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[@-_]/g, '')
    .replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ')
    .trim();
}

/** A copy of a JSON value with every string in it passed through `f`. */
export function mapStrings(value: unknown, f: (s: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return f(value);
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((x) => mapStrings(x, f, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(value as Record<string, unknown>)) out[k] = mapStrings(x, f, depth + 1);
  return out;
}

/** What one request carried that is secret, for `maskerOf`. */
export interface RequestSecrets {
  /** The token and session id the client sends. */
  values: Array<string | undefined>;
  headers: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

/**
 * Text with a request's secrets (the token, the session id, credential headers, secret query
 * and body fields) replaced by the mask: for what the server says back, in errors and in
 * --verbose's log of an answer (a server may echo the Authorization header or a password).
 */
export function maskerOf(r: RequestSecrets): (t: string) => string {
  const secrets = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length >= 3) secrets.add(v);
    else if (typeof v === 'number' && String(v).length >= 3) secrets.add(String(v));
  };
  r.values.forEach(add);
  for (const [k, v] of Object.entries(r.headers)) {
    if (!SECRET_HEADERS.has(k.toLowerCase()) || k.toLowerCase() === 'set-cookie') continue;
    add(v);
    add(/^\S+\s+(.+)$/.exec(v)?.[1]);
  }
  for (const [k, v] of r.query) if (isSecretKey(k)) add(v);
  const walkBody = (v: unknown, depth: number): void => {
    if (depth > 20 || v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (isSecretKey(k)) add(x);
      walkBody(x, depth + 1);
    }
  };
  walkBody(r.body, 0);
  const list = [...secrets].sort((a, b) => b.length - a.length);
  return (t: string) => list.reduce((acc, s) => (acc.includes(s) ? acc.split(s).join(MASK) : acc), t);
}
