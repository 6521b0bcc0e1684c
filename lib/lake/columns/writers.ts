// Column writers: each takes the ZNG bodies of one column's values, row by
// row in the object's order, straight from the encoded bytes (no values are
// made), and lays them out as a column. Low-cardinality columns come out
// dictionary-encoded. Rows without a value (null, or not of a type that has
// the column) are left invalid.

import type { BuiltColumn, Encoding } from "./built.ts";
import { GrowBytes } from "./grow.ts";

/** Writer classes, so the builder's hot loop can call each through its own site. */
export const enum WriterKind {
  Int,
  Int64,
  Float,
  Bool,
  Binary,
  List,
  Null,
}

/** Distinct values past which a dictionary is given up when most values differ. */
const DICT_PROBE = 1024;

export abstract class ColumnWriter {
  abstract readonly kind: WriterKind;
  /** Per row: 1 when it holds a value. */
  valid: Uint8Array;
  /** Rows the column can hold before its arrays grow. */
  protected cap: number;
  /** Rows written so far (the last row written + 1). */
  rows = 0;

  constructor(cap: number) {
    this.cap = Math.max(cap, 16);
    this.valid = new Uint8Array(this.cap);
  }

  /** Writes row's value: len bytes of body at b[p]. Rows come in increasing order. */
  abstract put(b: Uint8Array, p: number, len: number, row: number): void;

  /** The column over `length` rows. */
  abstract finish(length: number): BuiltColumn;

  /** Grows the arrays to hold row. */
  protected room(row: number): void {
    let cap = this.cap;
    while (cap <= row) cap *= 2;
    this.valid = resize(this.valid, cap);
    this.resize(cap);
    this.cap = cap;
  }

  protected abstract resize(cap: number): void;

  protected validity(length: number): { valid: Uint8Array; nullCount: number } {
    const valid = this.valid.length === length ? this.valid : resize(this.valid, length);
    let n = 0;
    for (let i = 0; i < length; i++) n += valid[i];
    return { valid, nullCount: length - n };
  }
}

function resize<T extends Uint8Array | Int32Array | Float64Array | Float32Array>(
  a: T,
  n: number,
): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a.length <= n ? a : a.subarray(0, n));
  return b;
}

/** Reads a counted unsigned body of up to 6 bytes (little-endian) as a number. */
function readUint(b: Uint8Array, p: number, len: number): number {
  let v = 0, m = 1;
  for (let k = 0; k < len; k++) {
    v += b[p + k] * m;
    m *= 256;
  }
  return v;
}

type SmallInts = Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;
const SMALL = {
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
};

/** A dictionary of numbers being gathered; null once given up. */
class NumberDict {
  map: Map<number, number> | null = new Map();
  index: Int32Array;
  constructor(cap: number) {
    this.index = new Int32Array(cap);
  }
  note(v: number, row: number): void {
    const map = this.map!;
    let d = map.get(v);
    if (d === undefined) {
      d = map.size;
      map.set(v, d);
      if (d >= DICT_PROBE && (d & 1023) === 0 && d * 2 > row) this.map = null;
    }
    this.index[row] = d;
  }
  worth(count: number): boolean {
    return this.map !== null && this.map.size * 2 <= count;
  }
}

/** Ints of up to 32 bits. */
export class IntWriter extends ColumnWriter {
  readonly kind = WriterKind.Int;
  /** The values as doubles (one array type keeps the stores monomorphic). */
  private values: Float64Array;
  private dict: NumberDict | null;
  private signed: boolean;

  constructor(private enc: keyof typeof SMALL, cap: number, dict: boolean) {
    super(cap);
    this.values = new Float64Array(this.cap);
    this.signed = enc.startsWith("int");
    this.dict = dict ? new NumberDict(this.cap) : null;
  }

  put(b: Uint8Array, p: number, len: number, row: number): void {
    if (row >= this.cap) this.room(row);
    const u = readUint(b, p, len);
    // Signed ints are sign-magnitude with the sign in bit 0.
    const v = this.signed ? (u % 2 === 1 ? -(u - 1) / 2 : u / 2) : u;
    this.values[row] = v;
    this.valid[row] = 1;
    this.rows = row + 1;
    const d = this.dict;
    if (d !== null && d.map !== null) d.note(v, row);
  }

  protected resize(cap: number): void {
    this.values = resize(this.values, cap);
    if (this.dict !== null) this.dict.index = resize(this.dict.index, cap);
  }

  finish(length: number): BuiltColumn {
    const { valid, nullCount } = this.validity(length);
    const d = this.dict;
    if (d !== null && d.worth(length - nullCount)) {
      const keys = [...d.map!.keys()];
      const values = new SMALL[this.enc](keys.length);
      for (let i = 0; i < keys.length; i++) values[i] = keys[i];
      return {
        enc: this.enc,
        length,
        valid,
        nullCount,
        index: fit(d.index, length),
        dict: allValid(this.enc, keys.length, { values }),
      };
    }
    const values = new SMALL[this.enc](length);
    values.set(this.values.subarray(0, length));
    return { enc: this.enc, length, valid, nullCount, values };
  }
}

/** A's first n entries (rows without a value were never written, so they hold zero). */
function fit<T extends SmallInts | Int32Array | Float64Array | Float32Array | BigInt64Array>(
  a: T,
  n: number,
): T {
  return a.length === n ? a : (a.subarray(0, n) as T);
}

function allValid(enc: Encoding, n: number, rest: Partial<BuiltColumn>): BuiltColumn {
  return { enc, length: n, valid: new Uint8Array(n).fill(1), nullCount: 0, ...rest };
}

/** 64-bit ints (int64, uint64, time, duration), decoded into 32-bit words. */
export class Int64Writer extends ColumnWriter {
  readonly kind = WriterKind.Int64;
  private words: Int32Array;
  private dict: NumberDict | null;
  private signed: boolean;

  constructor(private enc: "int64" | "uint64" | "time" | "duration", cap: number, dict: boolean) {
    super(cap);
    this.words = new Int32Array(this.cap * 2);
    this.signed = enc !== "uint64";
    this.dict = dict ? new NumberDict(this.cap) : null;
  }

  put(b: Uint8Array, p: number, len: number, row: number): void {
    if (row >= this.cap) this.room(row);
    let lo = 0, hi = 0;
    for (let k = 0; k < len && k < 4; k++) lo |= b[p + k] << (8 * k);
    for (let k = 4; k < len; k++) hi |= b[p + k] << (8 * (k - 4));
    if (this.signed) {
      // Sign-magnitude with the sign in bit 0: shift out the sign, negate if set.
      const neg = lo & 1;
      lo = (lo >>> 1) | (hi << 31);
      hi = hi >>> 1;
      if (neg) {
        lo = ~lo + 1;
        hi = ~hi + (lo === 0 ? 1 : 0);
      }
    }
    this.words[2 * row] = lo;
    this.words[2 * row + 1] = hi;
    this.valid[row] = 1;
    this.rows = row + 1;
    const d = this.dict;
    if (d !== null && d.map !== null) {
      const h = this.signed ? hi : hi >>> 0;
      if (h >= 0x200000 || h < -0x200000) d.map = null; // beyond ±2^53: not a number key
      else d.note(h * 4294967296 + (lo >>> 0), row);
    }
  }

  protected resize(cap: number): void {
    this.words = resize(this.words, cap * 2);
    if (this.dict !== null) this.dict.index = resize(this.dict.index, cap);
  }

  finish(length: number): BuiltColumn {
    const { valid, nullCount } = this.validity(length);
    const d = this.dict;
    if (d !== null && d.worth(length - nullCount)) {
      const keys = [...d.map!.keys()];
      const values = new BigInt64Array(keys.length);
      for (let i = 0; i < keys.length; i++) values[i] = BigInt.asIntN(64, BigInt(keys[i]));
      return {
        enc: this.enc,
        length,
        valid,
        nullCount,
        index: fit(d.index, length),
        dict: allValid(this.enc, keys.length, { values }),
      };
    }
    const values = new BigInt64Array(this.words.buffer, 0, length);
    return { enc: this.enc, length, valid, nullCount, values: fit(values, length) };
  }
}

const floatBytes = new Uint8Array(8);
const float64 = new Float64Array(floatBytes.buffer);
const float32 = new Float32Array(floatBytes.buffer);

export class FloatWriter extends ColumnWriter {
  readonly kind = WriterKind.Float;
  /** The values as doubles (float32 ones converted back at the end). */
  private values: Float64Array;

  constructor(private enc: "float32" | "float64", cap: number) {
    super(cap);
    this.values = new Float64Array(this.cap);
  }

  put(b: Uint8Array, p: number, len: number, row: number): void {
    if (row >= this.cap) this.room(row);
    for (let k = 0; k < len; k++) floatBytes[k] = b[p + k];
    this.values[row] = len === 8 ? float64[0] : float32[0];
    this.valid[row] = 1;
    this.rows = row + 1;
  }

  protected resize(cap: number): void {
    this.values = resize(this.values, cap);
  }

  finish(length: number): BuiltColumn {
    const { valid, nullCount } = this.validity(length);
    const values = this.enc === "float64"
      ? fit(this.values, length)
      : Float32Array.from(this.values.subarray(0, length));
    return { enc: this.enc, length, valid, nullCount, values };
  }
}

export class BoolWriter extends ColumnWriter {
  readonly kind = WriterKind.Bool;
  private values: Uint8Array;
  constructor(cap: number) {
    super(cap);
    this.values = new Uint8Array(this.cap);
  }
  put(b: Uint8Array, p: number, len: number, row: number): void {
    if (row >= this.cap) this.room(row);
    this.values[row] = len > 0 && b[p] !== 0 ? 1 : 0;
    this.valid[row] = 1;
    this.rows = row + 1;
  }
  protected resize(cap: number): void {
    this.values = resize(this.values, cap);
  }
  finish(length: number): BuiltColumn {
    const { valid, nullCount } = this.validity(length);
    return { enc: "bool", length, valid, nullCount, values: fit(this.values, length) };
  }
}

/** FNV-1a over bytes. */
function hashBytes(b: Uint8Array, p: number, len: number): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < len; k++) h = Math.imul(h ^ b[p + k], 0x01000193);
  return h >>> 0;
}

/**
 * Byte-string values: strings (UTF-8), bytes and ips. Strings and ips are
 * gathered as a dictionary (an open-addressing table over the distinct
 * values' bytes) until most values turn out distinct; ips of one family come
 * out fixed-width.
 */
export class BinaryWriter extends ColumnWriter {
  readonly kind = WriterKind.Binary;
  /** Per row: its value's end in plain (plain mode), or its entry (dictionary mode). */
  private index: Int32Array;
  /** Every row's value (plain mode), or each distinct value (dictionary mode). */
  private data = new GrowBytes();
  private dictMode: boolean;
  private table: Int32Array | null = null;
  private distinct = 0;
  private widths = 0;
  private isIP: boolean;
  /** The entry of the last value (runs of one value skip the table). */
  private last = -1;

  constructor(private what: "string" | "bytes" | "ip", cap: number, dict: boolean) {
    super(cap);
    this.index = new Int32Array(this.cap);
    this.isIP = what === "ip";
    this.dictMode = dict && what !== "bytes";
    if (this.dictMode) this.table = new Int32Array(1024);
  }

  put(b: Uint8Array, p: number, len: number, row: number): void {
    if (row >= this.cap) this.room(row);
    this.valid[row] = 1;
    this.rows = row + 1;
    if (this.isIP) this.widths |= len === 4 ? 1 : 2;
    if (this.dictMode) {
      const last = this.last;
      const e = last >= 0 && this.data.equals(last, b, p, len) ? last : this.entry(b, p, len);
      this.last = e;
      this.index[row] = e;
      if (
        this.distinct >= DICT_PROBE && (this.distinct & 1023) === 0 && this.distinct * 2 > row
      ) {
        this.toPlain(row + 1);
      }
      return;
    }
    this.data.pushRange(b, p, len);
    this.index[row] = this.data.pos;
  }

  /** The entry of a value, added when new. */
  private entry(b: Uint8Array, p: number, len: number): number {
    let table = this.table!;
    const data = this.data;
    const mask = table.length - 1;
    let h = hashBytes(b, p, len) & mask;
    for (;;) {
      const e = table[h] - 1;
      if (e < 0) break;
      if (data.equals(e, b, p, len)) return e;
      h = (h + 1) & mask;
    }
    const e = this.distinct++;
    data.pushRange(b, p, len);
    table[h] = e + 1;
    if (this.distinct * 2 > table.length) {
      // Rehash into a table twice the size.
      table = new Int32Array(table.length * 2);
      const m = table.length - 1;
      for (let k = 0; k < this.distinct; k++) {
        const [s, n] = data.range(k);
        let x = hashBytes(data.data, s, n) & m;
        while (table[x] !== 0) x = (x + 1) & m;
        table[x] = k + 1;
      }
      this.table = table;
    }
    return e;
  }

  /** Gives up the dictionary: the rows so far get their own values. */
  private toPlain(rows: number): void {
    const dict = this.data;
    const plain = new GrowBytes();
    for (let r = 0; r < rows; r++) {
      if (this.valid[r]) {
        const [s, n] = dict.range(this.index[r]);
        plain.pushRange(dict.data, s, n);
      }
      this.index[r] = plain.pos;
    }
    this.data = plain;
    this.dictMode = false;
    this.table = null;
    this.last = -1;
  }

  protected resize(cap: number): void {
    this.index = resize(this.index, cap);
  }

  private get enc(): Encoding {
    if (this.what !== "ip") return this.what;
    return this.widths === 1 ? "ip4" : this.widths === 2 ? "ip16" : "ip";
  }

  finish(length: number): BuiltColumn {
    const { valid, nullCount } = this.validity(length);
    const enc = this.enc;
    if (this.dictMode && this.distinct * 2 > length - nullCount) this.toPlain(this.rows);
    if (this.dictMode) {
      const n = this.distinct;
      const ends = this.data.ends.view();
      const dict = binaryColumn(enc, n, new Uint8Array(n).fill(1), 0, this.data.data, ends, null);
      return { enc, length, valid, nullCount, index: fit(this.index, length), dict };
    }
    return binaryColumn(enc, length, valid, nullCount, this.data.data, this.index, this.rows);
  }
}

/**
 * A column of byte strings from data and each row's end offset (rows past
 * `written`, and invalid rows, end where the previous one did).
 */
function binaryColumn(
  enc: Encoding,
  length: number,
  valid: Uint8Array,
  nullCount: number,
  data: Uint8Array,
  ends: Int32Array,
  written: number | null,
): BuiltColumn {
  const last = written ?? length;
  if (enc === "ip4" || enc === "ip16") {
    const w = enc === "ip4" ? 4 : 16;
    const out = new Uint8Array(length * w);
    let prev = 0;
    for (let i = 0; i < last; i++) {
      if (valid[i]) out.set(data.subarray(prev, ends[i]), i * w);
      prev = valid[i] ? ends[i] : prev;
    }
    return { enc, length, valid, nullCount, data: out };
  }
  const offsets = new Int32Array(length + 1);
  let end = 0;
  for (let i = 0; i < length; i++) {
    if (i < last && valid[i]) end = ends[i];
    offsets[i + 1] = end;
  }
  return { enc, length, valid, nullCount, offsets, data: data.subarray(0, end) };
}

/** Arrays and sets of primitives: the elements go to a child writer, one child row each. */
export class ListWriter extends ColumnWriter {
  readonly kind = WriterKind.List;
  private ends: Int32Array;
  private elems = 0;

  constructor(private child: ColumnWriter, cap: number) {
    super(cap);
    this.ends = new Int32Array(this.cap);
  }

  put(b: Uint8Array, p: number, len: number, row: number): void {
    if (row >= this.cap) this.room(row);
    // Rows skipped since the last one end where it did.
    for (let r = this.rows; r < row; r++) this.ends[r] = this.elems;
    const end = p + len;
    const child = this.child;
    while (p < end) {
      let tag = b[p++];
      if (tag >= 0x80) {
        let shift = 7;
        tag &= 0x7f;
        for (;;) {
          const x = b[p++];
          tag += (x & 0x7f) * 2 ** shift;
          if (x < 0x80) break;
          shift += 7;
        }
      }
      const row = this.elems++;
      if (tag === 0) continue; // a null element
      child.put(b, p, tag - 1, row);
      p += tag - 1;
    }
    this.ends[row] = this.elems;
    this.valid[row] = 1;
    this.rows = row + 1;
  }

  protected resize(cap: number): void {
    this.ends = resize(this.ends, cap);
  }

  finish(length: number): BuiltColumn {
    const { valid, nullCount } = this.validity(length);
    const offsets = new Int32Array(length + 1);
    for (let i = 0; i < length; i++) offsets[i + 1] = i < this.rows ? this.ends[i] : this.elems;
    for (let i = this.rows; i < length; i++) offsets[i + 1] = this.elems;
    // Invalid rows in between kept the running end, so they are empty.
    for (let i = 0; i < this.rows; i++) if (!valid[i]) offsets[i + 1] = offsets[i];
    return {
      enc: "list",
      length,
      valid,
      nullCount,
      offsets,
      child: this.child.finish(this.elems),
    };
  }
}

/** A field of type null: nothing to keep but which rows have it. */
export class NullWriter extends ColumnWriter {
  readonly kind = WriterKind.Null;
  put(): void {}
  protected resize(): void {}
  finish(length: number): BuiltColumn {
    return { enc: "null", length, valid: new Uint8Array(length), nullCount: length };
  }
}
