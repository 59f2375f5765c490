/**
 * Answers sent with a Content-Encoding. subctl asks for none (it sends no Accept-Encoding), yet
 * gateways, CDNs and proxies compress answers anyway, and neither node:http nor undici's
 * `request()` decodes them: the bytes arrive as they were sent. A body is decoded here, its
 * decoded size held to the same cap as any answer (a small gzip body can unpack to gigabytes).
 */
import { builtin } from '../builtin.js';

/** The codings of a Content-Encoding header, in the order they were applied; [] for none or `identity`. */
export function contentCodings(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  return (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** Why a body could not be decoded: its coding is unknown, or its bytes are not that coding. */
export class UndecodableBody extends Error {}

/** Thrown when the decoded body would pass the cap. */
export class DecodedTooLarge extends Error {}

type Zlib = typeof import('node:zlib');

/**
 * `deflate` is meant to be zlib-wrapped (RFC 9110), but some servers send raw deflate: a zlib
 * header is two bytes whose method is 8 and whose value is a multiple of 31.
 */
function inflate(zlib: Zlib, buf: Buffer, opts: { maxOutputLength: number }): Buffer {
  const wrapped = buf.length >= 2 && (buf[0] & 0x0f) === 8 && ((buf[0] << 8) | buf[1]) % 31 === 0;
  return wrapped ? zlib.inflateSync(buf, opts) : zlib.inflateRawSync(buf, opts);
}

function isJson(buf: Buffer): boolean {
  try {
    JSON.parse(buf.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function decodeOne(zlib: Zlib, coding: string, buf: Buffer, max: number): Buffer {
  const opts = { maxOutputLength: Math.max(1, max) };
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(buf, opts);
    case 'deflate':
      return inflate(zlib, buf, opts);
    case 'br':
      return zlib.brotliDecompressSync(buf, opts);
    default:
      // A misnamed header (`Content-Encoding: utf-8`, `none`, which some servers send) over a body
      // sent as it is: JSON is JSON, whatever the header calls it.
      if (isJson(buf)) return buf;
      throw new UndecodableBody(`it is encoded as ${JSON.stringify(coding)}, which subctl cannot decode`);
  }
}

/**
 * The body with its codings undone, last applied first.
 * @example decodeBody(gzipped, ['gzip'], 64 * 1024 * 1024).toString('utf8')
 */
export function decodeBody(raw: Buffer, codings: readonly string[], max: number): Buffer {
  // An empty body (a 204, a HEAD) carries the header but nothing to decode.
  if (raw.length === 0 || codings.length === 0) return raw;
  const zlib = builtin('node:zlib');
  let buf = raw;
  for (const coding of [...codings].reverse()) {
    try {
      buf = decodeOne(zlib, coding, buf, max);
    } catch (e) {
      if (e instanceof UndecodableBody) throw e;
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new DecodedTooLarge();
      throw new UndecodableBody(`its ${coding} encoding could not be decoded (${(e as Error).message})`);
    }
  }
  return buf;
}

/** The charset a Content-Type names, lower case; undefined when it names none. */
function charsetOf(contentType: string | string[] | undefined): string | undefined {
  const ct = Array.isArray(contentType) ? contentType[0] : contentType;
  const m = ct ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(ct) : null;
  return m ? m[1].toLowerCase() : undefined;
}

/**
 * Does the answer's text need a decoder other than UTF-8? JSON is UTF-8 (RFC 8259), but some
 * platforms send Latin-1 and say so (`charset=iso-8859-1`): read as UTF-8, every accented letter
 * of an export would become U+FFFD without a word.
 */
export function otherCharset(contentType: string | string[] | undefined): string | undefined {
  const c = charsetOf(contentType);
  return c === undefined || c === 'utf-8' || c === 'utf8' ? undefined : c;
}

/** `buf` as text in `charset` (a WHATWG label); UTF-8 when the label is unknown. */
export function textIn(buf: Buffer, charset: string | undefined): string {
  if (charset !== undefined) {
    try {
      return new TextDecoder(charset).decode(buf);
    } catch {
      // An unknown label: UTF-8, as an answer without one.
    }
  }
  return buf.toString('utf8');
}
