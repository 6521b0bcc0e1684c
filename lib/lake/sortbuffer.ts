// Values waiting to become a data object: kept ZNG-encoded in large byte
// chunks (compact, off the JS heap, ready to write without encoding again),
// with each value's type and pool key beside them, then sorted into pool order.

import { ByteWriter } from "../zed/bytes.ts";
import { ID_INT8, ID_STRING, ID_UINT8, isNumber, type Type, underId } from "../zed/types.ts";
import { Value } from "../zed/value.ts";
import { NULL } from "../query/mod.ts";
import { appendTagged } from "../zed/zcode.ts";
import type { PoolKey } from "./poolkey.ts";
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
  readonly keys: Value[] = [];
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
    const size = end - body;
    this.bodyBytes += size;
    return size;
  }

  /** Adds the value of type t written since begin(), its key read from its body. */
  addedEncoded(t: Type, key: PoolKey): number {
    const size = this.added(t, NULL);
    const i = this.length - 1;
    this.keys[i] = key.keyOfEncoded(
      t,
      this.chunks[this.chunkOf[i]].buf,
      this.bodyAt[i],
      this.endAt[i],
    );
    return size;
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
    this.keys.pop();
    if (chunk === this.chunks.length - 1) this.chunks[chunk].pos = tag;
  }

  /** Takes back the value added last: its type, tag and body (a copy) and key. */
  takeLast(): { type: Type; tagged: Uint8Array; key: Value } {
    const i = this.length - 1;
    const tagged = this.tagged(i).slice();
    const type = this.types[i], key = this.keys[i];
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
