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
