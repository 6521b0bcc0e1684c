// Decodes ZNG value bodies (formats.md §4.4–§4.7) into loch's body
// representation (lib/zed/value.ts) by interpreting a type's Plan over one
// frame buffer. Bodies never point into the buffer: bytes are copied and
// strings decoded, so frame buffers can be dropped as soon as they are read.

import { Buffer } from "node:buffer";
import { invalid, type LochError } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { TypeValueDecoder } from "../../zed/typevalue.ts";
import { latin1String } from "../../zed/utf8.ts";
import type { Type } from "../../zed/types.ts";
import { type Body, UnionBody } from "../../zed/value.ts";
import {
  C_ARRAY,
  C_ENUM,
  C_ENUM_CHECKED,
  C_MAP,
  C_RECORD,
  C_SET,
  C_SET_CHECKED,
  C_UNION,
  NO_FIELDS,
  P_BOOL,
  P_BYTES,
  P_FLOAT32,
  P_FLOAT64,
  P_INT,
  P_IP,
  P_NET,
  P_NULL,
  P_STRING,
  P_TYPE,
  P_UINT,
  type Plan,
  SKIP,
} from "./plan.ts";

export const MALFORMED = "malformed zng record";

export function malformed(): LochError {
  return invalid(MALFORMED);
}

const MIN_INT64 = -(2n ** 63n);
const TWO32 = 4294967296;
/** Values of hi (the bytes above the low 4) that keep hi * 2^32 + lo exact. */
const SAFE_HI = 2097152;

const utf8 = new TextDecoder();

// Short ASCII strings are interned in a direct-mapped cache keyed by a hash of
// their bytes: log data repeats them constantly, and a hit allocates nothing.
const SHORT = 32;
const CACHE_BITS = 12;
const cache: string[] = new Array(1 << CACHE_BITS).fill("");

/**
 * Decodes the UTF-8 bytes buf[p, p+len). `latin1` views the same bytes as a
 * Node Buffer, whose latin1 decoding is the fastest way to make a long ASCII string.
 */
export function decodeString(buf: Uint8Array, p: number, len: number, latin1: Buffer): string {
  if (len === 0) return "";
  const end = p + len;
  if (len <= SHORT) {
    let h = len;
    for (let i = p; i < end; i++) {
      const c = buf[i];
      if (c > 0x7f) return utf8.decode(buf.subarray(p, end));
      h = Math.imul(h ^ c, 16777619);
    }
    const slot = h >>> (32 - CACHE_BITS);
    const hit = cache[slot];
    if (hit.length === len) {
      let i = 0;
      while (i < len && hit.charCodeAt(i) === buf[p + i]) i++;
      if (i === len) return hit;
    }
    const s = latin1String(buf, p, end);
    cache[slot] = s;
    return s;
  }
  for (let i = p; i < end; i++) {
    if (buf[i] > 0x7f) return utf8.decode(buf.subarray(p, end));
  }
  return latin1.toString("latin1", p, end);
}

/** A counted uvarint body (formats.md §4.2) as a normalized integer body. */
export function decodeUint(buf: Uint8Array, p: number, len: number): number | bigint {
  if (len <= 6) {
    let u = 0;
    for (let i = p + len - 1; i >= p; i--) u = u * 256 + buf[i];
    return u;
  }
  readWords(buf, p, len);
  if (wordHi < SAFE_HI) return wordHi * TWO32 + wordLo;
  return wordsToBigInt(wordHi, wordLo);
}

/** A counted signed varint body: sign-magnitude with the sign in bit 0. */
export function decodeInt(buf: Uint8Array, p: number, len: number): number | bigint {
  let u = 0;
  if (len <= 6) {
    for (let i = p + len - 1; i >= p; i--) u = u * 256 + buf[i];
  } else {
    readWords(buf, p, len);
    const hi = wordHi, lo = wordLo;
    if (hi >= SAFE_HI) {
      // The magnitude is u >> 1 (u's halves shifted), its sign u's low bit.
      const mhi = hi >>> 1, mlo = ((lo >>> 1) | ((hi & 1) << 31)) >>> 0;
      const neg = (lo & 1) === 1;
      if (mhi < SAFE_HI) {
        const m = mhi * TWO32 + mlo;
        return neg ? -m : m;
      }
      const m = wordsToBigInt(mhi, mlo);
      return neg ? -m : m;
    }
    u = hi * TWO32 + lo;
  }
  if (u % 2 === 0) return u / 2;
  if (u === 1) return MIN_INT64;
  return -(u - 1) / 2;
}

/** The 32-bit halves readWords() read last (unsigned). */
let wordHi = 0, wordLo = 0;

/** Reads a body of more than 6 bytes as two 32-bit halves: only the low 8 bytes count, as in the reference. */
function readWords(buf: Uint8Array, p: number, len: number): void {
  const n = len < 8 ? len : 8;
  wordLo = (buf[p] | (buf[p + 1] << 8) | (buf[p + 2] << 16) | (buf[p + 3] << 24)) >>> 0;
  let hi = 0;
  for (let i = p + n - 1; i >= p + 4; i--) hi = hi * 256 + buf[i];
  wordHi = hi;
}

// A 64-bit integer from its two 32-bit halves, made as one bigint (through
// an array's memory) rather than by bigint shifts and ors, which allocate a
// bigint per step: times are 64-bit and every decoded time takes this path.
const bigWord = new BigUint64Array(1);
const halves = new Uint32Array(bigWord.buffer);
const LOW_HALF = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/** hi * 2^32 + lo as a bigint (hi and lo 32-bit unsigned). */
function wordsToBigInt(hi: number, lo: number): bigint {
  halves[LOW_HALF] = lo;
  halves[1 - LOW_HALF] = hi;
  return bigWord[0];
}

const typeValues = new Map<string, Type>();

/** The type value whose body is buf[p, p+len) (cached by its bytes). */
export function decodeTypeValue(buf: Uint8Array, p: number, len: number): Type {
  let key = "";
  for (let i = p; i < p + len; i++) key += String.fromCharCode(buf[i]);
  let t = typeValues.get(key);
  if (t === undefined) {
    t = TypeValueDecoder.decode(zctx, buf.slice(p, p + len));
    if (typeValues.size >= 10000) typeValues.clear();
    typeValues.set(key, t);
  }
  return t;
}

/** Compares the bytes buf[a, a+alen) and buf[b, b+blen) as unsigned strings. */
export function compareRanges(
  buf: Uint8Array,
  a: number,
  alen: number,
  b: number,
  blen: number,
): number {
  const n = alen < blen ? alen : blen;
  for (let i = 0; i < n; i++) {
    const x = buf[a + i], y = buf[b + i];
    if (x !== y) return x < y ? -1 : 1;
  }
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/** Where the tag readTag read last ends. */
let tagEnd = 0;

/** The tag (a uvarint) at buf[p], before end: malformed past end or ten bytes (see lastTagEnd). */
export function readTag(buf: Uint8Array, p: number, end: number): number {
  let n = 0, scale = 1;
  for (let k = 0; k < 10; k++) {
    if (p >= end) throw malformed();
    const c = buf[p++];
    n += (c & 0x7f) * scale;
    if (c < 0x80) {
      tagEnd = p;
      return n;
    }
    scale *= 128;
  }
  throw malformed();
}

/** Where the tag readTag read last ends. */
export function lastTagEnd(): number {
  return tagEnd;
}

/** Interprets plans over the current frame buffer. */
export class BodyDecoder {
  buf: Uint8Array = new Uint8Array(0);
  view: DataView = new DataView(this.buf.buffer);
  latin1: Buffer = Buffer.from(this.buf.buffer);
  /** Position after the last tag read by slowTag. */
  private at = 0;

  setBuffer(buf: Uint8Array): void {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.latin1 = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** Reads a multi-byte tag starting at p (before end); sets `at` past it. */
  slowTag(p: number, end: number): number {
    const n = readTag(this.buf, p, end);
    this.at = tagEnd;
    return n;
  }

  /** The body of plan's type in buf[p, p+len). */
  decode(plan: Plan, p: number, len: number): Body {
    const buf = this.buf;
    switch (plan.code) {
      case P_STRING:
        return decodeString(buf, p, len, this.latin1);
      case P_INT:
        return decodeInt(buf, p, len);
      case P_UINT:
        return decodeUint(buf, p, len);
      case P_FLOAT64:
        if (len !== 8) throw malformed();
        return this.view.getFloat64(p, true);
      case P_FLOAT32:
        if (len !== 4) throw malformed();
        return this.view.getFloat32(p, true);
      case P_BOOL:
        if (len === 0) throw malformed();
        return buf[p] !== 0;
      case P_BYTES:
        return buf.slice(p, p + len);
      case P_IP:
        if (len !== 4 && len !== 16) throw malformed();
        return buf.slice(p, p + len);
      case P_NET:
        if (len !== 8 && len !== 32) throw malformed();
        return buf.slice(p, p + len);
      case P_TYPE:
        return decodeTypeValue(buf, p, len);
      case P_NULL:
      case SKIP:
        return null;
      case C_RECORD:
        return this.record(plan.parts, plan.count, p, p + len);
      case C_ARRAY:
      case C_SET:
        return this.elements(plan.elem as Plan, p, p + len);
      case C_SET_CHECKED:
        return this.checkedSet(plan.elem as Plan, p, p + len);
      case C_MAP:
        return this.map(plan.elem as Plan, plan.value as Plan, p, p + len);
      case C_UNION:
        return this.union(plan.parts, p, p + len);
      case C_ENUM:
        return decodeUint(buf, p, len);
      case C_ENUM_CHECKED: {
        const i = decodeUint(buf, p, len);
        if (typeof i !== "number" || i >= plan.count) throw invalid("enum selector out of range");
        return i;
      }
    }
    throw malformed();
  }

  /** A record's body: its fields, the first `read` of them (0: all, NO_FIELDS: none; the others null). */
  private record(parts: readonly Plan[], read: number, p: number, end: number): Body[] {
    const buf = this.buf;
    const n = parts.length;
    const out: Body[] = [];
    const stop = read === 0 ? n : read === NO_FIELDS ? 0 : read;
    for (let i = 0; i < stop; i++) {
      if (p >= end) throw malformed();
      let tag = buf[p++];
      if (tag > 0x7f) {
        tag = this.slowTag(p - 1, end);
        p = this.at;
      }
      if (tag === 0) {
        out.push(null);
        continue;
      }
      const len = tag - 1;
      if (len > end - p) throw malformed();
      const part = parts[i];
      // The commonest leaves are decoded here rather than through decode().
      switch (part.code) {
        case P_STRING:
          out.push(decodeString(buf, p, len, this.latin1));
          break;
        case P_INT:
          out.push(decodeInt(buf, p, len));
          break;
        case P_FLOAT64:
          if (len !== 8) throw malformed();
          out.push(this.view.getFloat64(p, true));
          break;
        default:
          out.push(this.decode(part, p, len));
      }
      p += len;
    }
    if (stop < n) {
      // A projection needs none of the fields after these: they are not read.
      for (let i = stop; i < n; i++) out.push(null);
      return out;
    }
    if (p !== end) throw malformed();
    return out;
  }

  private elements(elem: Plan, p: number, end: number): Body[] {
    const buf = this.buf;
    const out: Body[] = [];
    while (p < end) {
      let tag = buf[p++];
      if (tag > 0x7f) {
        tag = this.slowTag(p - 1, end);
        p = this.at;
      }
      if (tag === 0) {
        out.push(null);
        continue;
      }
      const len = tag - 1;
      if (len > end - p) throw malformed();
      out.push(this.decode(elem, p, len));
      p += len;
    }
    return out;
  }

  private checkedSet(elem: Plan, p: number, end: number): Body[] {
    const buf = this.buf;
    const out: Body[] = [];
    let prev = -1, prevLen = 0;
    while (p < end) {
      const start = p;
      let tag = buf[p++];
      if (tag > 0x7f) {
        tag = this.slowTag(p - 1, end);
        p = this.at;
      }
      const len = tag === 0 ? 0 : tag - 1;
      if (len > end - p) throw malformed();
      const whole = p + len - start;
      if (prev >= 0) {
        const c = compareRanges(buf, prev, prevLen, start, whole);
        if (c === 0) throw invalid("invalid ZNG: duplicate set element");
        if (c > 0) throw invalid("invalid ZNG: set elements not sorted");
      }
      prev = start;
      prevLen = whole;
      out.push(tag === 0 ? null : this.decode(elem, p, len));
      p += len;
    }
    return out;
  }

  private map(key: Plan, value: Plan, p: number, end: number): Body[] {
    const buf = this.buf;
    const out: Body[] = [];
    let k = 0;
    while (p < end) {
      let tag = buf[p++];
      if (tag > 0x7f) {
        tag = this.slowTag(p - 1, end);
        p = this.at;
      }
      const plan = (k++ & 1) === 0 ? key : value;
      if (tag === 0) {
        out.push(null);
        continue;
      }
      const len = tag - 1;
      if (len > end - p) throw malformed();
      out.push(this.decode(plan, p, len));
      p += len;
    }
    if ((k & 1) !== 0) throw malformed();
    return out;
  }

  private union(parts: readonly Plan[], p: number, end: number): UnionBody {
    const buf = this.buf;
    if (p >= end) throw malformed();
    let tag = buf[p++];
    if (tag > 0x7f) {
      tag = this.slowTag(p - 1, end);
      p = this.at;
    }
    // A null selector reads as 0, as the reference decodes it.
    let sel: number | bigint = 0;
    if (tag !== 0) {
      const len = tag - 1;
      if (len > end - p) throw malformed();
      sel = decodeInt(buf, p, len);
      p += len;
    }
    if (typeof sel !== "number" || sel < 0 || sel >= parts.length) {
      throw invalid("invalid union tag");
    }
    if (p >= end) throw malformed();
    tag = buf[p++];
    if (tag > 0x7f) {
      tag = this.slowTag(p - 1, end);
      p = this.at;
    }
    let body: Body = null;
    if (tag !== 0) {
      const len = tag - 1;
      if (len > end - p) throw malformed();
      body = this.decode(parts[sel], p, len);
      p += len;
    }
    if (p !== end) throw malformed();
    return new UnionBody(sel, body);
  }
}
