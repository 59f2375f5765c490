/**
 * `Buffer.from(JSON.stringify(value))`, the same bytes, written straight into a buffer.
 *
 * Why: serializing is most of what the sandbox does per request. A page of 100 subscriptions
 * (74 KB) cost about 0.2 ms in `JSON.stringify` and 0.07-0.15 ms more turning that string
 * into UTF-8, and a page with a few characters beyond Latin-1 is a two-byte string of 150 KB
 * that V8 puts in its large-object space. This writer produces the UTF-8 bytes in one pass and
 * builds no string at all.
 *
 * How:
 * - Strings are escaped as JSON.stringify escapes them (`"`, `\`, the control characters,
 *   lone surrogates as `\udXXX`) and encoded as UTF-8 on the way.
 * - Plain objects (prototype `Object.prototype` or null, no `toJSON`) and plain arrays are
 *   written here. A plain object's keys are its own enumerable string keys, as JSON.stringify
 *   takes them; keys whose value JSON.stringify leaves out (undefined, a function, a symbol)
 *   are written and then taken back.
 * - Objects of one shape (the same keys in the same order, as the rows of a list are) get a
 *   writer compiled for that shape once 64 of them have been written: their keys' bytes are
 *   constants in its code. Before an object is written by it, `for...in` checks that its keys
 *   are exactly the shape's, in order.
 * - Anything else (a Date, a BigInt, boxed primitives, class instances, an object with its own
 *   `toJSON`) is handed to JSON.stringify itself, with its key, so that `toJSON(key)` sees what it
 *   would have seen, and its text copied in.
 * - Nesting deeper than 256 (or a cycle), or any error, stops the writer and the whole value
 *   goes to JSON.stringify, which answers it or throws its own error (a BigInt, a cycle).
 * - Re-entry (a `toJSON` or getter that itself asks for JSON bytes) uses JSON.stringify.
 * - `jsonLease` leaves the bytes in a buffer of its own, reused once the caller releases it
 *   (the sandbox: once the answer is written to the socket); `jsonBytes` copies them out of it.
 */

/** The buffer being written into: one of `free` (or a new one), for the length of a jsonLease. */
const S: { b: Buffer; dv: DataView } = { b: Buffer.alloc(0), dv: new DataView(new ArrayBuffer(0)) };

/** Makes `b` the buffer written into (with its DataView, for the compiled writers' 4-byte stores). */
function use(b: Buffer): Buffer {
  S.b = b;
  S.dv = new DataView(b.buffer, b.byteOffset, b.length);
  return b;
}
/**
 * Buffers handed back by the leases' release(), for the next jsonLease. Allocating a fresh 74
 * KB buffer for every answer cost a static server here a quarter of its rate (5,900 -> 4,400
 * req/s); writing into a reused one costs nothing measurable.
 */
const free: Buffer[] = [];
const MAX_FREE = 32;
/** Larger buffers are not kept (one huge answer should not hold its memory for good). */
const MAX_KEPT = 4 * 1024 * 1024;
const MIN_SIZE = 64 * 1024;
let busy = false;
let depth = 0;
const MAX_DEPTH = 256;
/** Objects of one shape written before a writer is compiled for it. */
const COMPILE_AFTER = 64;
const MAX_SHAPES = 1000;

class TooDeep extends Error {}

function grow(p: number, need: number): Buffer {
  const b = Buffer.allocUnsafe(Math.max(S.b.length * 2, p + need + 1024, MIN_SIZE));
  S.b.copy(b, 0, 0, p);
  keep(S.b);
  return use(b);
}

/** `b` may be written into again. */
function keep(b: Buffer): void {
  if (b.length >= MIN_SIZE && b.length <= MAX_KEPT && free.length < MAX_FREE) free.push(b);
}

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

/**
 * 1 for a character written as it is, by UTF-16 code unit: ASCII from the space on (DEL
 * included, as JSON.stringify leaves it) other than `"` and `\`. One load per character where
 * four comparisons were: 10-15% less time in writeString on a page of subscriptions. ASCII text
 * only reads its first two cache lines.
 */
const PLAIN = new Uint8Array(65536);
for (let c = 0x20; c <= 0x7f; c++) PLAIN[c] = c === 34 || c === 92 ? 0 : 1;

/** The surrogate pair `c`, `d` as its 4 UTF-8 bytes (room for them is the caller's). */
function writePair(b: Buffer, p: number, c: number, d: number): number {
  const cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  b[p] = 0xf0 | (cp >> 18);
  b[p + 1] = 0x80 | ((cp >> 12) & 63);
  b[p + 2] = 0x80 | ((cp >> 6) & 63);
  b[p + 3] = 0x80 | (cp & 63);
  return p + 4;
}

/** `s` quoted and escaped as JSON.stringify does it, as UTF-8. */
function writeString(s: string, p: number): number {
  const n = s.length;
  let b = S.b;
  if (p + n * 6 + 2 > b.length) b = grow(p, n * 6 + 2);
  const dv = S.dv;
  b[p++] = 34;
  let i = 0;
  while (i < n) {
    // Printable ASCII other than `"` and `\` (most text) is copied as is, four characters to a
    // 32-bit store while it lasts; then one character of any kind, and back.
    while (i + 4 <= n) {
      const c0 = s.charCodeAt(i);
      const c1 = s.charCodeAt(i + 1);
      const c2 = s.charCodeAt(i + 2);
      const c3 = s.charCodeAt(i + 3);
      if ((PLAIN[c0]! & PLAIN[c1]! & PLAIN[c2]! & PLAIN[c3]!) === 0) break;
      dv.setUint32(p, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24), true);
      p += 4;
      i += 4;
    }
    if (i >= n) break;
    const c = s.charCodeAt(i++);
    if (PLAIN[c] === 1) {
      b[p++] = c;
      continue;
    }
    if (c < 0x80) {
      b[p++] = 92;
      if (c === 34 || c === 92) b[p++] = c;
      else if (c === 10) b[p++] = 110;
      else if (c === 13) b[p++] = 114;
      else if (c === 9) b[p++] = 116;
      else if (c === 8) b[p++] = 98;
      else if (c === 12) b[p++] = 102;
      else {
        b[p++] = 117;
        b[p++] = 48;
        b[p++] = 48;
        b[p++] = HEX[c >> 4]!;
        b[p++] = HEX[c & 15]!;
      }
    } else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 63);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12);
      b[p++] = 0x80 | ((c >> 6) & 63);
      b[p++] = 0x80 | (c & 63);
    } else {
      const d = i < n ? s.charCodeAt(i) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        i++;
        p = writePair(b, p, c, d);
      } else {
        // A lone surrogate: JSON.stringify writes it as an escape (well-formed JSON.stringify).
        b[p++] = 92;
        b[p++] = 117;
        b[p++] = HEX[c >> 12]!;
        b[p++] = HEX[(c >> 8) & 15]!;
        b[p++] = HEX[(c >> 4) & 15]!;
        b[p++] = HEX[c & 15]!;
      }
    }
  }
  b[p++] = 34;
  return p;
}

/** JSON text as UTF-8, as is (no escaping): numbers' text and what JSON.stringify answered. */
function writeText(s: string, p: number): number {
  const n = s.length;
  let b = S.b;
  if (p + n * 3 > b.length) b = grow(p, n * 3);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) b[p++] = c;
    else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 63);
    } else {
      // JSON.stringify's text holds no lone surrogate (it escapes them), so pairs are whole.
      const d = c >= 0xd800 && c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        p = writePair(b, p, c, d);
      } else {
        b[p++] = 0xe0 | (c >> 12);
        b[p++] = 0x80 | ((c >> 6) & 63);
        b[p++] = 0x80 | (c & 63);
      }
    }
  }
  return p;
}

function writeNumber(v: number, p: number): number {
  // Integers of int32 (but -2^31) digit by digit in int32 arithmetic, -0 as "0" as JSON.stringify
  // writes it; the rest (fractions, large, NaN and the infinities as null) as text.
  let x = v | 0;
  if (x !== v || x === -2147483648) return writeText(Number.isFinite(v) ? String(v) : 'null', p);
  let b = S.b;
  if (p + 12 > b.length) b = grow(p, 12);
  if (x < 0) {
    b[p++] = 45;
    x = -x;
  }
  if (x < 10) {
    b[p++] = 48 + x;
    return p;
  }
  const digits = x < 100 ? 2 : x < 1000 ? 3 : x < 10000 ? 4 : x < 100000 ? 5 : x < 1000000 ? 6 : x < 10000000 ? 7 : x < 100000000 ? 8 : x < 1000000000 ? 9 : 10;
  p += digits;
  let q = p;
  while (x >= 10) {
    const y = (x / 10) | 0;
    b[--q] = 48 + x - y * 10;
    x = y;
  }
  b[--q] = 48 + x;
  return p;
}

function writeBytes(bytes: Uint8Array, p: number): number {
  const n = bytes.length;
  let b = S.b;
  if (p + n > b.length) b = grow(p, n);
  for (let i = 0; i < n; i++) b[p + i] = bytes[i]!;
  return p + n;
}

/** `true` or `false`. */
function writeBoolean(v: boolean, p: number): number {
  let b = S.b;
  if (p + 5 > b.length) b = grow(p, 5);
  if (v) {
    b[p] = 116;
    b[p + 1] = 114;
    b[p + 2] = 117;
    b[p + 3] = 101;
    return p + 4;
  }
  b[p] = 102;
  b[p + 1] = 97;
  b[p + 2] = 108;
  b[p + 3] = 115;
  b[p + 4] = 101;
  return p + 5;
}

function writeNull(p: number): number {
  let b = S.b;
  if (p + 4 > b.length) b = grow(p, 4);
  b[p] = 110;
  b[p + 1] = 117;
  b[p + 2] = 108;
  b[p + 3] = 108;
  return p + 4;
}

/**
 * Writes the value of property `key` (an index for array elements), as JSON.stringify would,
 * and answers the position after it; -1 when JSON.stringify leaves the property out.
 */
function writeValue(v: unknown, key: string | number, p: number): number {
  switch (typeof v) {
    case 'string':
      return writeString(v, p);
    case 'number':
      return writeNumber(v, p);
    case 'boolean':
      return writeBoolean(v, p);
    case 'undefined':
    case 'function':
    case 'symbol':
      return -1;
    case 'object': {
      if (v === null) return writeNull(p);
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) === Array.prototype && typeof (v as { toJSON?: unknown }).toJSON !== 'function') return writeArray(v, p);
      } else {
        const proto = Object.getPrototypeOf(v) as unknown;
        if ((proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function') return writeObject(v as Record<string, unknown>, undefined, p);
      }
      return writeByStringify(v, key, p);
    }
    default:
      // bigint: JSON.stringify throws, or calls a BigInt.prototype.toJSON.
      return writeByStringify(v, key, p);
  }
}

/** What JSON.stringify writes for property `key` holding `v`, with toJSON(key) as it would call it. */
function writeByStringify(v: unknown, key: string | number, p: number): number {
  const k = String(key);
  const text = JSON.stringify({ [k]: v });
  if (text === '{}') return -1;
  const head = JSON.stringify(k).length + 2; // `{"key":`
  return writeText(text.slice(head, -1), p);
}

function writeArray(a: unknown[], p: number): number {
  if (++depth > MAX_DEPTH) throw new TooDeep();
  let b = S.b;
  if (p + 2 > b.length) b = grow(p, 2);
  b[p++] = 91;
  let shape: Shape | undefined;
  for (let i = 0; i < a.length; i++) {
    if (i > 0) {
      b = S.b;
      if (p + 1 > b.length) b = grow(p, 1);
      b[p++] = 44;
    }
    const v = a[i];
    let r: number;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      // Rows of a list share a shape: the previous element's is tried first.
      const proto = Object.getPrototypeOf(v) as unknown;
      if ((proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function') {
        r = writeObject(v as Record<string, unknown>, shape, p);
        shape = lastShape;
      } else r = writeByStringify(v, i, p);
    } else r = writeValue(v, i, p);
    p = r < 0 ? writeNull(p) : r;
  }
  b = S.b;
  if (p + 1 > b.length) b = grow(p, 1);
  b[p++] = 93;
  depth--;
  return p;
}

type ShapeWriter = (o: Record<string, unknown>, p: number) => number;
interface Shape {
  keys: string[];
  /** Each key as `,"key":` in UTF-8. */
  heads: Uint8Array[];
  seen: number;
  write?: ShapeWriter;
}
const shapes = new Map<string, Shape>();
/** The shape of the object written last by writeObject (for writeArray's next element). */
let lastShape: Shape | undefined;

function sameKeys(o: Record<string, unknown>, keys: string[]): boolean {
  let i = 0;
  const n = keys.length;
  for (const k in o) {
    if (i >= n || k !== keys[i]) return false;
    i++;
  }
  return i === n;
}

function shapeOf(o: Record<string, unknown>, hint: Shape | undefined): Shape {
  if (hint !== undefined && sameKeys(o, hint.keys)) return hint;
  const keys = Object.keys(o);
  const id = JSON.stringify(keys);
  let s = shapes.get(id);
  if (s === undefined) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    s = { keys, heads: keys.map((k) => Buffer.from(`,${JSON.stringify(k)}:`)), seen: 0 };
    shapes.set(id, s);
  }
  return s;
}

/**
 * A plain object. Each key is written as `,"key":` and its value after it; a left-out value takes
 * its key back. The first comma becomes the `{`.
 */
function writeObject(o: Record<string, unknown>, hint: Shape | undefined, p: number): number {
  if (++depth > MAX_DEPTH) throw new TooDeep();
  const s = shapeOf(o, hint);
  lastShape = s;
  const start = p;
  if (s.write !== undefined) p = s.write(o, p);
  else {
    if (++s.seen >= COMPILE_AFTER) s.write = compileShape(s);
    const { keys, heads } = s;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const q = writeBytes(heads[i]!, p);
      const r = writeValue(o[k], k, q);
      p = r < 0 ? p : r;
    }
  }
  let b = S.b;
  if (p + 2 > b.length) b = grow(p, 2);
  if (p === start) {
    b[p++] = 123;
    b[p++] = 125;
  } else {
    b[start] = 123;
    b[p++] = 125;
  }
  lastShape = s;
  depth--;
  return p;
}

/**
 * An object value of key `key` in an object of a compiled shape: a plain object is written with
 * the shape the same key held last time tried first (`hints[i]`).
 */
function writeMember(v: object, key: string, hints: Array<Shape | undefined>, i: number, p: number): number {
  if (Array.isArray(v)) return writeValue(v, key, p);
  const proto = Object.getPrototypeOf(v) as unknown;
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function') return writeByStringify(v, key, p);
  const r = writeObject(v as Record<string, unknown>, hints[i], p);
  hints[i] = lastShape;
  return r;
}

/** The shape's writer: its keys' bytes as constants, strings written without a call to writeValue. */
function compileShape(s: Shape): ShapeWriter {
  const lines = s.keys.map((k, i) => {
    const head = s.heads[i]!;
    // The key's bytes 4 at a time (little-endian 32-bit stores), the last 0-3 one by one.
    let stores = '';
    let j = 0;
    for (; j + 4 <= head.length; j += 4) stores += `dv.setUint32(p+${j},${head[j]! | (head[j + 1]! << 8) | (head[j + 2]! << 16) | ((head[j + 3]! << 24) >>> 0)},true);`;
    for (; j < head.length; j++) stores += `b[p+${j}]=${head[j]};`;
    return [
      `v = o[K[${i}]]; q = p;`,
      `b = S.b; if (p + ${head.length} > b.length) b = grow(p, ${head.length}); dv = S.dv;`,
      `${stores} p += ${head.length};`,
      `r = typeof v === 'string' ? writeString(v, p) : typeof v === 'number' ? writeNumber(v, p) : v === null ? writeNull(p) : typeof v === 'boolean' ? writeBoolean(v, p) : typeof v === 'object' ? writeMember(v, K[${i}], H, ${i}, p) : writeValue(v, K[${i}], p);`,
      `p = r < 0 ? q : r;`,
    ].join('\n');
  });
  const body = `return function write(o, p) {\nlet b, dv, v, q, r;\n${lines.join('\n')}\nreturn p;\n};`;
  const hints: Array<Shape | undefined> = s.keys.map(() => undefined);
  return new Function('S', 'grow', 'writeString', 'writeNumber', 'writeNull', 'writeBoolean', 'writeValue', 'writeMember', 'K', 'H', body)(
    S, grow, writeString, writeNumber, writeNull, writeBoolean, writeValue, writeMember, s.keys, hints,
  ) as ShapeWriter;
}

/** Writes `value` into S.b from 0: the end position, or -1 when JSON.stringify answers undefined. */
function write(value: unknown): number {
  depth = 0;
  try {
    return writeValue(value, '', 0);
  } finally {
    lastShape = undefined;
  }
}

function byStringify(value: unknown): Buffer | undefined {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
}

/**
 * `Buffer.from(JSON.stringify(value), 'utf8')`, the same bytes, in a buffer of their own;
 * undefined where JSON.stringify answers undefined. Throws what JSON.stringify throws (a BigInt,
 * a cycle). jsonLease's bytes, copied out.
 */
export function jsonBytes(value: unknown): Buffer | undefined {
  const lease = jsonLease(value);
  if (lease === undefined) return undefined;
  const out = Buffer.from(lease.bytes);
  lease.release();
  return out;
}

export interface JsonLease {
  /** The bytes of jsonBytes(value). */
  bytes: Buffer;
  /** Once the bytes are no longer needed (written to the socket): their buffer is reused. */
  release(): void;
}

/** A release() with nothing to give back. */
export const nothing = (): void => {};

/**
 * jsonBytes(value) without the copy: the bytes stay in a buffer of the writer's, reused after
 * `release()`. A lease never released is only a buffer left to the garbage collector.
 */
export function jsonLease(value: unknown): JsonLease | undefined {
  if (busy) {
    const bytes = byStringify(value);
    return bytes && { bytes, release: nothing };
  }
  busy = true;
  use(free.pop() ?? Buffer.allocUnsafe(MIN_SIZE));
  try {
    const p = write(value);
    const buf = S.b;
    if (p < 0) {
      keep(buf);
      return undefined;
    }
    let released = false;
    return {
      bytes: buf.subarray(0, p),
      release: () => {
        if (released) return;
        released = true;
        keep(buf);
      },
    };
  } catch {
    keep(S.b);
    const bytes = byStringify(value);
    return bytes && { bytes, release: nothing };
  } finally {
    busy = false;
  }
}
