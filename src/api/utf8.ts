/**
 * Text the user hands us (bulk input, a request body) must be UTF-8: decoding anything else
 * would replace every byte that is not with U+FFFD and send that. Refused instead, naming the
 * line and byte of the first bad byte.
 */
import { isUtf8 } from 'node:buffer';
import { UsageError } from './errors.js';

/** `bytes` as text, or a UsageError (exit 2) naming `name`, the line and the byte. */
export function utf8Text(bytes: Buffer, name: string): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const at = firstInvalidUtf8(bytes);
  let line = 1;
  let start = 0;
  for (let i = 0; i < at; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      start = i + 1;
    }
  }
  throw new UsageError(
    `${name}: line ${line}: not valid UTF-8 (byte 0x${bytes[at].toString(16).toUpperCase().padStart(2, '0')} at byte ${at - start + 1} of the line)`,
    {
      hint: 'save the file as UTF-8 (a Latin-1 file converts with `iconv -f latin1 -t utf-8 FILE > NEW-FILE`)',
    },
  );
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629), or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    // The sequence's length, and the range its second byte must fall in (no overlongs, no
    // surrogates, nothing past U+10FFFF).
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    if (i + n >= b.length) return i; // cut short at the end
    if (b[i + 1] < lo || b[i + 1] > hi) return i;
    for (let k = 2; k <= n; k++) if ((b[i + k] & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return -1;
}
