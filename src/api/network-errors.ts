/**
 * Network failures in words: what failed (connection refused, reset, DNS, TLS, time-out), to
 * which host or through which proxy, and whether another attempt can help.
 */

/** The code of a transport error, looking through its causes past undici's wrappers. */
export function errCode(e: unknown): string | undefined {
  let cur = e as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 4 && cur; i++) {
    if (typeof cur.code === 'string' && cur.code !== 'UND_ERR_SOCKET' && !/^UND_ERR_(ABORTED|REQ_CONTENT)/.test(cur.code)) return cur.code;
    cur = cur.cause as typeof cur;
  }
  return (e as { code?: string } | undefined)?.code;
}

/** Codes of a request refused by the transport before sending (undici, then node:http). */
export const INVALID_REQUEST = new Set([
  'UND_ERR_INVALID_ARG',
  'ERR_INVALID_CHAR',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_INVALID_HTTP_TOKEN',
]);

/**
 * The status a proxy refused a CONNECT tunnel with (undici: "Proxy response (407) !== 200 when
 * HTTP Tunneling"), looked for through the error's causes; undefined for any other failure.
 */
export function tunnelRefusal(e: unknown): number | undefined {
  let cur = e as { message?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const m = typeof cur.message === 'string' ? /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/.exec(cur.message) : null;
    if (m) return Number(m[1]);
    cur = cur.cause as typeof cur;
  }
  return undefined;
}

/** The reasons of the statuses a proxy refuses a tunnel with (node:http's table would load node:http here). */
const STATUS_TEXT: Record<number, string> = {
  403: 'Forbidden',
  407: 'Proxy Authentication Required',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function tunnelHint(status: number, host: string): string {
  if (status === 407)
    return 'the proxy asks for credentials: give them in its address (https_proxy=http://USER:PASSWORD@proxy:port), or ask for this machine to be let through';
  if (status === 403)
    return `the proxy does not let this machine reach ${host.replace(/:\d+$/, '')}: ask for it to be allowed, or name it in no_proxy if this machine reaches it directly`;
  return 'check https_proxy, http_proxy and no_proxy (`subctl doctor` shows them)';
}

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/i;

/**
 * A transport failure in words; TLS failures are final (retrying does not fix a certificate).
 * `proxy`: the failure was connecting to that proxy, which the message names instead of the server.
 */
export function describeNetworkError(
  e: unknown,
  host: string,
  proxy?: string,
): { message: string; retryable: boolean; code?: string; hint?: string } {
  const code = errCode(e);
  const base = (e as Error)?.message ?? String(e);
  const refused = tunnelRefusal(e);
  if (refused !== undefined) {
    const reason = STATUS_TEXT[refused] ? ` ${STATUS_TEXT[refused]}` : '';
    return {
      message: `the proxy${proxy ? ` ${proxy}` : ''} refused to open a tunnel to ${host} (HTTP ${refused}${reason})`,
      // A proxy that cannot reach the server now may later; one that wants credentials will not.
      retryable: refused >= 500,
      code,
      hint: tunnelHint(refused, host),
    };
  }
  if (
    proxy &&
    (code === 'ECONNREFUSED' ||
      code === 'ENOTFOUND' ||
      code === 'EAI_AGAIN' ||
      code === 'ETIMEDOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT' ||
      code === 'ECONNRESET')
  ) {
    const what =
      code === 'ECONNREFUSED'
        ? 'connection refused by'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'cannot resolve'
          : code === 'ECONNRESET'
            ? 'connection closed by'
            : 'connecting timed out to';
    return {
      message: `${what} the proxy ${proxy} on the way to ${host} (${code})`,
      retryable: true,
      code,
      hint: 'check https_proxy, http_proxy and no_proxy (`subctl doctor` shows them); a server this machine reaches directly belongs in no_proxy',
    };
  }
  if (/^HPE_/.test(code ?? '') || (e as Error)?.name === 'HTTPParserError') {
    // node:http's parser codes are HPE_*; undici's parser error carries none.
    return {
      message: `${host} did not answer in HTTP: ${base}`,
      retryable: true,
      code,
      hint: 'check the base URL: its scheme (https:// or http://) and its port; a proxy or gateway may be mangling the answer',
    };
  }
  if (code === 'UND_ERR_SOCKET' && base === 'bad response') {
    // undici drops the connection on an interim 100 it did not ask for (it never sends Expect).
    return {
      message: `${host} sent an answer that was not asked for (a 100 Continue, or a second answer to one request); the connection was dropped (${code})`,
      retryable: true,
      code,
      hint: 'a gateway or proxy in front of the platform may be answering out of turn; --verbose shows the exchange',
    };
  }
  switch (code) {
    case 'ECONNREFUSED':
      return { message: `connection refused by ${host} (ECONNREFUSED)`, retryable: true, code };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { message: `connection to ${host} closed before the answer was complete (${code})`, retryable: true, code };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return {
        message: `cannot resolve host ${host.replace(/:\d+$/, '')} (${code})`,
        retryable: true,
        code,
        hint: 'check the base URL (--base-url) and your network',
      };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { message: `connecting to ${host} timed out (${code})`, retryable: true, code };
    default:
      if (code && TLS_CODE.test(code)) {
        return {
          message: `TLS connection to ${host} failed: ${base} (${code})`,
          retryable: false,
          code,
          hint: 'if the platform uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate file',
        };
      }
      return { message: `request to ${host} failed: ${base}${code ? ` (${code})` : ''}`, retryable: true, code };
  }
}
