// Values waiting to become a data object: kept ZNG-encoded in large byte
// chunks (compact, off the JS heap, ready to write without encoding again),
// with each value's type and pool key beside them, then sorted into pool order.
// A key that is an ASCII string (Zeek's ts in JSON) stays where it is in its
// value's body, noted by offset and length: such keys order as their bytes
// do, and a load makes no string or Value for each (about a seventh of a
// JSON load's time when it did).

import { bytesEqual, ByteWriter, compareBytes } from "../zed/bytes.ts";
import {
  ID_INT8,
  ID_STRING,
  ID_UINT8,
  isFloat,
  isNumber,
  Kind,
  type Type,
  TypeString,
  underId,
} from "../zed/types.ts";
import { latin1String, utf8Length } from "../zed/utf8.ts";
import { Value } from "../zed/value.ts";
import { NULL } from "../query/mod.ts";
import { appendTagged } from "../zed/zcode.ts";
import type { PoolKey } from "./poolkey.ts";
import { radixOrder } from "./keyradix.ts";
import { runSort } from "./runsort.ts";
import type { EncodedValues } from "./columns/build.ts";
import { writeColumns } from "./columns/mod.ts";
import type { ColumnsManifest } from "./columns/manifest.ts";
import type { Storage } from "./storage.ts";

/** Chunks start small (most loads are small) and double up to this size. */
const FIRST_CHUNK = 256 << 10;
const MAX_CHUNK = 16 << 20;

export class SortBuffer {
  private chunks: ByteWriter[] = [new ByteWriter(FIRST_CHUNK)];
  /** Per value: its chunk, the offset of its tag, the offset of its body, its end. */
  private chunkOf: number[] = [];
  private tagAt: number[] = [];
  private bodyAt: number[] = [];
  private endAt: number[] = [];
  readonly types: Type[] = [];
  /** Per value: its key, or IN_BODY when the key is an ASCII string in its body. */
  private keys: Value[] = [];
  /** Per value whose key is IN_BODY: the offset of the key's bytes in its chunk, and their length. */
  private keyAt: number[] = [];
  private keyLen: number[] = [];
  /** How many keys are IN_BODY. */
  private keysInBody = 0;
  /** Total size of the values' bodies (what the pool threshold measures). */
  bodyBytes = 0;

  get length(): number {
    return this.types.length;
  }

  /** Adds a value; returns the size of its body. */
  add(v: Value, key: Value): number {
    appendTagged(this.begin(), v.type, v.body);
    return this.added(v.type, typeof key.body === "string" ? ownKey(key) : key);
  }

  /** Adds a value of type t whose tag and body are `tagged`. */
  addTagged(t: Type, tagged: Uint8Array, key: Value): number {
    this.begin().bytes(tagged);
    return this.added(t, key);
  }

  /** Where begin() found the last chunk: its buffer, and its end. */
  private full: Uint8Array = this.chunks[0].buf;
  private mark = 0;

  /**
   * The writer the next value's tag and body go to, written in place (a
   * loader's encoder writes there directly); then added() or dropped().
   */
  begin(): ByteWriter {
    const w = this.chunks[this.chunks.length - 1];
    this.full = w.buf;
    this.mark = w.pos;
    return w;
  }

  /** Forgets what was written since begin(). */
  dropped(): void {
    const w = this.chunks[this.chunks.length - 1];
    w.buf = this.full;
    w.pos = this.mark;
  }

  /** Adds the value of type t written since begin(); returns the size of its body. */
  added(t: Type, key: Value): number {
    let w = this.chunks[this.chunks.length - 1];
    let tag = this.mark;
    if (w.buf !== this.full && tag > 0) {
      // It did not fit: rather than the chunk growing (a copy, and up to
      // twice the memory), it keeps its size and the value starts the next.
      const value = w.buf.subarray(tag, w.pos);
      const next = new ByteWriter(
        Math.max(Math.min(MAX_CHUNK, this.full.length * 2), value.length),
      );
      next.buf.set(value);
      next.pos = value.length;
      w.buf = this.full;
      w.pos = tag;
      w = next;
      this.chunks.push(w);
      tag = 0;
    }
    const end = w.pos;
    // The tag is a uvarint: bytes with the high bit set, then one without.
    let body = tag;
    while (w.buf[body] & 0x80) body++;
    body++;
    this.chunkOf.push(this.chunks.length - 1);
    this.tagAt.push(tag);
    this.bodyAt.push(body);
    this.endAt.push(end);
    this.types.push(t);
    this.keys.push(key);
    this.keyAt.push(0);
    this.keyLen.push(0);
    const size = end - body;
    this.bodyBytes += size;
    return size;
  }

  /** Adds a value of type t whose tag and body are `tagged`, its key read from its body. */
  addTaggedEncoded(t: Type, tagged: Uint8Array, key: PoolKey): number {
    this.begin().bytes(tagged);
    return this.addedEncoded(t, key);
  }

  /** Adds the value of type t written since begin(), its key read from its body. */
  addedEncoded(t: Type, key: PoolKey): number {
    const size = this.added(t, NULL);
    const i = this.length - 1;
    const buf = this.chunks[this.chunkOf[i]].buf;
    if (buf[this.tagAt[i]] === 0) {
      // A null (tag 0) has no body to read a key from: its key is the one keyOf gives it.
      this.keys[i] = key.keyOf(new Value(t, null));
      return size;
    }
    const at = key.asciiKeyAt(t, buf, this.bodyAt[i]);
    if (at >= 0) {
      this.keys[i] = IN_BODY;
      this.keyAt[i] = at;
      this.keyLen[i] = key.asciiKeyLength;
      this.keysInBody++;
    } else {
      this.keys[i] = key.keyOfEncoded(t, buf, this.bodyAt[i], this.endAt[i]);
    }
    return size;
  }

  /** The key of value i. */
  key(i: number): Value {
    const k = this.keys[i];
    if (k !== IN_BODY) return k;
    const at = this.keyAt[i];
    return new Value(
      TypeString,
      latin1String(this.chunks[this.chunkOf[i]].buf, at, at + this.keyLen[i]),
    );
  }

  /** Whether value i's key is null (or missing). */
  keyIsNull(i: number): boolean {
    return this.keys[i].body === null;
  }

  /** The type of value i's key. */
  keyType(i: number): Type {
    const k = this.keys[i];
    return k === IN_BODY ? TypeString : k.type;
  }

  /** The length of value i's key's body (what an object's seek stride counts). */
  keyLength(i: number, scratch: ByteWriter): number {
    const k = this.keys[i];
    if (k === IN_BODY) return this.keyLen[i];
    const b = k.body;
    if (typeof b === "string" && k.type.kind === Kind.Primitive) return utf8Length(b);
    return keyBytes(scratch, k).length;
  }

  /** Whether the keys of values i and j have the same body bytes (the reference compares those). */
  sameKey(i: number, j: number, scratch: ByteWriter): boolean {
    const a = this.keys[i], b = this.keys[j];
    if (a === IN_BODY && b === IN_BODY) return this.sameKeyInBody(i, j);
    return sameKeyValue(scratch, this.key(i), this.key(j));
  }

  /** Builds the columns and writes them to path; returns their manifest. */
  writeColumns(storage: Storage, path: string, order: Uint32Array): Promise<ColumnsManifest> {
    return writeColumns(storage, path, this.encoded(), order);
  }

  /** Takes back the value added last. */
  private removeLast(): void {
    const chunk = this.chunkOf.pop()!;
    const tag = this.tagAt.pop()!;
    this.bodyBytes -= this.endAt.pop()! - this.bodyAt.pop()!;
    this.types.pop();
    if (this.keys.pop() === IN_BODY) this.keysInBody--;
    this.keyAt.pop();
    this.keyLen.pop();
    if (chunk === this.chunks.length - 1) this.chunks[chunk].pos = tag;
  }

  /** Takes back the value added last: its type, tag and body (a copy) and key. */
  takeLast(): { type: Type; tagged: Uint8Array; key: Value } {
    const i = this.length - 1;
    const tagged = this.tagged(i).slice();
    const type = this.types[i], key = this.key(i);
    this.removeLast();
    return { type, tagged, key };
  }

  /** The tag and body of value i (a view into the buffer). */
  tagged(i: number): Uint8Array {
    return this.chunks[this.chunkOf[i]].buf.subarray(this.tagAt[i], this.endAt[i]);
  }

  /** The body of value i (a view into the buffer). */
  body(i: number): Uint8Array {
    return this.chunks[this.chunkOf[i]].buf.subarray(this.bodyAt[i], this.endAt[i]);
  }

  /** Where the values' encoded bodies are, for building columns (columns/build.ts). */
  encoded(): EncodedValues {
    return {
      types: this.types,
      bufs: this.chunks.map((c) => c.buf),
      chunk: this.chunkOf,
      start: this.bodyAt,
      end: this.endAt,
    };
  }

  /** The indexes of the values in pool order (a stable sort). */
  order(key: PoolKey): Uint32Array {
    const n = this.length;
    if (n > 0 && this.keysInBody === n) return this.orderInBody(key);
    if (this.keysInBody > 0) {
      // Some keys are not ASCII strings: every key as a value, for the general order.
      for (let i = 0; i < n; i++) this.keys[i] = this.key(i);
      this.keysInBody = 0;
    }
    const keys = this.keys;
    const idx: number[] = [];
    const nulls: number[] = [];
    for (let i = 0; i < n; i++) (keys[i].body === null ? nulls : idx).push(i);
    const tie = (i: number, j: number) => key.compareTies(this.body(i), this.body(j));
    const sign = key.desc ? -1 : 1;
    if (uniformNumeric(keys, idx)) {
      // One numeric key type (ts is a time, mostly a bigint): compare as
      // doubles first, exactly only when the doubles are equal.
      const approx = new Float64Array(n);
      for (const i of idx) approx[i] = Number(keys[i].body as number | bigint);
      idx.sort((i, j) => {
        const d = approx[i] - approx[j];
        if (d !== 0) return d < 0 ? -sign : sign;
        const a = keys[i].body as number | bigint, b = keys[j].body as number | bigint;
        if (a !== b) return a < b ? -sign : sign;
        return tie(i, j);
      });
    } else if (uniformPlainStrings(keys, idx)) {
      // One string type without characters where UTF-16 order differs from
      // UTF-8 order: JS's own comparison is the key order.
      idx.sort((i, j) => {
        const a = keys[i].body as string, b = keys[j].body as string;
        if (a !== b) return a < b ? -sign : sign;
        return tie(i, j);
      });
    } else {
      idx.sort((i, j) => key.compare(keys[i], keys[j]) || tie(i, j));
    }
    nulls.sort(tie);
    const out = new Uint32Array(n);
    out.set(idx);
    out.set(nulls, idx.length);
    return out;
  }

  /**
   * order() when every key is an ASCII string in its body: by the keys'
   * bytes, in passes of a radix sort (keyradix.ts); values with equal keys
   * by their bodies' bytes, then in the order they came (reversed with the
   * whole for a descending pool, stable).
   */
  private orderInBody(key: PoolKey): Uint32Array {
    const n = this.length;
    const bufs = this.chunks.map((c) => c.buf);
    const desc = key.desc;
    const radix = radixOrder(n, bufs, this.chunkOf, this.keyAt, this.keyLen);
    const idx = radix?.order ?? this.orderByComparison(bufs);
    const same = radix?.same;
    // Runs of equal keys: by body, then (ascending, reversed below for a
    // descending pool) by position, which the stable sorts kept ascending.
    for (let s = 0; s < n;) {
      let e = s + 1;
      while (
        e < n &&
        (same !== undefined ? same[e] === 1 : this.sameKeyInBody(idx[e - 1], idx[e]))
      ) e++;
      if (e - s > 1) {
        if (desc) idx.subarray(s, e).reverse();
        for (let k = s + 1; k < e; k++) {
          const x = idx[k];
          let j = k - 1;
          while (j >= s && compareBytes(this.body(idx[j]), this.body(x)) > 0) {
            idx[j + 1] = idx[j];
            j--;
          }
          idx[j + 1] = x;
        }
      }
      s = e;
    }
    if (desc) idx.reverse();
    return idx;
  }

  /** Whether values i and j, both keyed in their bodies, have the same key. */
  private sameKeyInBody(i: number, j: number): boolean {
    const m = this.keyLen[i];
    if (m !== this.keyLen[j]) return false;
    const x = this.chunks[this.chunkOf[i]].buf, y = this.chunks[this.chunkOf[j]].buf;
    const p = this.keyAt[i], q = this.keyAt[j];
    // From the end: keys next to each other in order (times) differ in their last digits.
    for (let k = m - 1; k >= 0; k--) if (x[p + k] !== y[q + k]) return false;
    return true;
  }

  /**
   * The keys in body in ascending order by comparisons (keys too long for
   * the radix passes): past the shared prefix, each key's next twelve bytes
   * are read as two numbers (six bytes each, zero past its end, which keeps
   * their order), so most comparisons are of numbers. Equal keys in the
   * order they came.
   */
  private orderByComparison(bufs: readonly Uint8Array[]): Uint32Array {
    const n = this.length;
    const chunkOf = this.chunkOf, at = this.keyAt, len = this.keyLen;
    const first = bufs[chunkOf[0]], f = at[0];
    let shared = len[0];
    for (let i = 1; i < n && shared > 0; i++) {
      const b = bufs[chunkOf[i]], p = at[i];
      let k = 0;
      const m = len[i] < shared ? len[i] : shared;
      while (k < m && b[p + k] === first[f + k]) k++;
      shared = k;
    }
    const hi = new Float64Array(n), lo = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const b = bufs[chunkOf[i]], p = at[i] + shared, end = at[i] + len[i];
      if (end - p >= 12) {
        hi[i] = ((b[p] << 16) | (b[p + 1] << 8) | b[p + 2]) * 16777216 +
          ((b[p + 3] << 16) | (b[p + 4] << 8) | b[p + 5]);
        lo[i] = ((b[p + 6] << 16) | (b[p + 7] << 8) | b[p + 8]) * 16777216 +
          ((b[p + 9] << 16) | (b[p + 10] << 8) | b[p + 11]);
        continue;
      }
      let x = 0, y = 0;
      for (let k = 0; k < 6; k++) x = x * 256 + (p + k < end ? b[p + k] : 0);
      for (let k = 6; k < 12; k++) y = y * 256 + (p + k < end ? b[p + k] : 0);
      hi[i] = x;
      lo[i] = y;
    }
    const rest = shared + 12;
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    runSort(idx, (i, j) => {
      if (hi[i] !== hi[j]) return hi[i] < hi[j] ? -1 : 1;
      if (lo[i] !== lo[j]) return lo[i] < lo[j] ? -1 : 1;
      const m = len[i], l = len[j];
      if (m > rest && l > rest) {
        const x = bufs[chunkOf[i]], y = bufs[chunkOf[j]], p = at[i], q = at[j];
        const common = m < l ? m : l;
        for (let k = rest; k < common; k++) {
          const c = x[p + k], d = y[q + k];
          if (c !== d) return c < d ? -1 : 1;
        }
      }
      if (m !== l) return m < l ? -1 : 1;
      return i - j;
    });
    return idx;
  }
}

/** The key of a value whose key is in its body (sortbuffer's own: never compared to others). */
const IN_BODY = new Value(TypeString, "");

/** The body bytes of a key (a view into scratch). */
function keyBytes(scratch: ByteWriter, k: Value): Uint8Array {
  scratch.reset();
  appendTagged(scratch, k.type, k.body);
  const b = scratch.view();
  let p = 0;
  while (b[p] & 0x80) p++;
  return b.subarray(p + 1);
}

/** Whether two keys have the same body bytes. */
function sameKeyValue(scratch: ByteWriter, a: Value, b: Value): boolean {
  const x = a.body;
  // Same type and a body whose encoding is a function of its JS value.
  if (
    a.type === b.type && x !== null && b.body !== null &&
    (typeof x === "string" || typeof x === "bigint" || typeof x === "boolean" ||
      (typeof x === "number" && !isFloat(underId(a.type))))
  ) {
    return x === b.body;
  }
  return bytesEqual(keyBytes(scratch, a).slice(), keyBytes(scratch, b));
}

/**
 * A string key that holds no more than its own characters. A string a
 * parser sliced from its input can keep the whole input text alive in V8
 * (a 267 MB load held all its text through its keys); adding a character
 * and slicing it off makes a small flat copy.
 */
function ownKey(key: Value): Value {
  const s = key.body as string;
  return s.length < 13 ? key : new Value(key.type, (" " + s).slice(1));
}

const HIGH_UNITS = /[\ud800-\uffff]/;

/** True when every listed key is a string of one type, without surrogates or U+E000.. units. */
function uniformPlainStrings(keys: Value[], idx: number[]): boolean {
  if (idx.length === 0) return false;
  const t = keys[idx[0]].type;
  if (underId(t) !== ID_STRING) return false;
  for (const i of idx) {
    const k = keys[i];
    if (k.type !== t || HIGH_UNITS.test(k.body as string)) return false;
  }
  return true;
}

/**
 * True when every listed key has the same numeric type that the general
 * order compares numerically (it compares int8 and uint8 byte-wise).
 */
function uniformNumeric(keys: Value[], idx: number[]): boolean {
  if (idx.length === 0) return false;
  const id = underId(keys[idx[0]].type);
  if (!isNumber(id) || id === ID_INT8 || id === ID_UINT8) return false;
  for (const i of idx) if (underId(keys[i].type) !== id) return false;
  return true;
}
