// Column buffers made into vectors: the rows' states from their record types
// and validity bits, then the values by encoding (numbers, 64-bit integers,
// strings and bytes, fixed-width IPs, dictionaries, lists).

import { LochError } from "../../errors.ts";
import { Kind, type Type, typeUnder } from "../../zed/types.ts";
import {
  BinaryVector,
  BoolVector,
  DictVector,
  FixedVector,
  ListVector,
  NULL_ROW,
  NullVector,
  NumberVector,
  VALUE,
  type Vector,
} from "../../zed/vector.ts";
import type { Encoding } from "./built.ts";
import type { ColumnEntry, Range } from "./manifest.ts";

/** Bytes per value of the fixed-width encodings. */
export const WIDTHS: Partial<Record<Encoding, number>> = {
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  float32: 4,
  ip4: 4,
  int64: 8,
  uint64: 8,
  time: 8,
  duration: 8,
  float64: 8,
  ip16: 16,
};

/** Each row's record type index. */
export type TypeIndex = Uint16Array | Uint32Array;

/** ABSENT, NULL_ROW or VALUE per row, before validity is applied (covered rows are VALUE). */
export function rowStates(rows: number, types: TypeIndex | null, covers: number[]): Uint8Array {
  const state = new Uint8Array(rows);
  if (types === null) {
    if (covers.includes(0)) state.fill(VALUE);
    return state;
  }
  const covered = new Uint8Array(Math.max(...covers, 0) + 1);
  for (const c of covers) covered[c] = VALUE;
  const n = covered.length;
  for (let i = 0; i < rows; i++) {
    const t = types[i];
    if (t < n) state[i] = covered[t];
  }
  return state;
}

/** Marks covered rows whose validity bit is clear as null. */
function applyValidity(state: Uint8Array, bits: Uint8Array | null): void {
  if (bits === null) return;
  for (let i = 0; i < state.length; i++) {
    if (state[i] === VALUE && (bits[i >> 3] & (1 << (i & 7))) === 0) state[i] = NULL_ROW;
  }
}

/** The views of a column's buffers within bytes (which start at file offset base). */
export class Buffers {
  private k = 0;
  constructor(private bytes: Uint8Array, private base: number, private ranges: Range[]) {}
  /** The next buffer as bytes (null when empty). */
  next(): Uint8Array | null {
    const [off, len] = this.ranges[this.k++];
    if (len === 0) return null;
    return new Uint8Array(this.bytes.buffer, this.bytes.byteOffset + off - this.base, len);
  }
}

export function decodeVector(
  type: Type,
  entry: ColumnEntry,
  state: Uint8Array,
  bytes: Uint8Array,
  base: number,
  /** For dictionary columns: the entries (decodeEntries). */
  entries: Vector | null,
): Vector {
  const bufs = new Buffers(bytes, base, entry.bufs);
  const rows = state.length;
  applyValidity(state, bufs.next());
  if (entry.enc === "list") {
    const offsets = int32s(bufs.next(), rows + 1);
    const elem = typeUnder(type);
    const elemType = elem.kind === Kind.Array || elem.kind === Kind.Set ? elem.elem : type;
    const n = offsets[rows];
    const childEnc = listChildEnc(entry);
    let child: Vector;
    if (childEnc === "null") child = new NullVector(elemType, new Uint8Array(n).fill(NULL_ROW));
    else {
      const childState = new Uint8Array(n).fill(VALUE);
      applyValidity(childState, bufs.next());
      child = plainVector(elemType, childEnc, childState, bufs);
    }
    return new ListVector(type, state, offsets, child);
  }
  if (entry.dict !== undefined) {
    const index = int32s(bufs.next(), rows);
    return new DictVector(type, state, index, entries!);
  }
  return plainVector(type, entry.enc, state, bufs);
}

/** A dictionary column's entries, from the bytes holding its dictionary's buffers. */
export function decodeEntries(
  type: Type,
  entry: ColumnEntry,
  bytes: Uint8Array,
  base: number,
): Vector {
  const d = entry.dict!;
  const bufs = new Buffers(bytes, base, d.bufs);
  bufs.next(); // entries have no nulls
  return plainVector(type, entry.enc, new Uint8Array(d.length).fill(VALUE), bufs);
}

/** The encoding of a list's elements: recorded in the type, since lists keep only "list". */
function listChildEnc(entry: ColumnEntry): Encoding {
  return entry.elem ?? "string";
}

/** A vector of values that are not dictionary-encoded; the validity buffer is already read. */
export function plainVector(
  type: Type,
  enc: Encoding,
  state: Uint8Array,
  bufs: Buffers,
): Vector {
  const rows = state.length;
  switch (enc) {
    case "bool": {
      const bits = bufs.next();
      const values = new Uint8Array(rows);
      if (bits !== null) {
        for (let i = 0; i < rows; i++) values[i] = (bits[i >> 3] >> (i & 7)) & 1;
      }
      return new BoolVector(type, state, values);
    }
    case "string":
    case "bytes":
    case "ip": {
      const offsets = int32s(bufs.next(), rows + 1);
      const data = bufs.next() ?? new Uint8Array(0);
      return new BinaryVector(type, state, offsets, data, enc === "string");
    }
    case "ip4":
    case "ip16":
      return new FixedVector(
        type,
        state,
        enc === "ip4" ? 4 : 16,
        bufs.next() ?? new Uint8Array(rows * (enc === "ip4" ? 4 : 16)),
      );
    case "int64":
    case "uint64":
    case "time":
    case "duration":
      return int64Vector(type, enc, state, bufs.next());
    case "null":
    case "list":
      throw new LochError("internal", `columns: unexpected ${enc} values`);
    default: {
      const raw = bufs.next();
      const f64 = new Float64Array(rows);
      if (raw !== null) {
        const view = numberView(enc, raw, rows);
        for (let i = 0; i < rows; i++) f64[i] = view[i];
      }
      return new NumberVector(type, state, f64, null);
    }
  }
}

function numberView(enc: Encoding, raw: Uint8Array, rows: number): ArrayLike<number> {
  const b = raw.buffer, o = raw.byteOffset;
  switch (enc) {
    case "int8":
      return new Int8Array(b, o, rows);
    case "int16":
      return new Int16Array(b, o, rows);
    case "int32":
      return new Int32Array(b, o, rows);
    case "uint8":
      return new Uint8Array(b, o, rows);
    case "uint16":
      return new Uint16Array(b, o, rows);
    case "uint32":
      return new Uint32Array(b, o, rows);
    case "float32":
      return new Float32Array(b, o, rows);
    case "float64":
      return new Float64Array(b, o, rows);
  }
  throw new LochError("internal", `columns: ${enc} is not a number encoding`);
}

/**
 * 64-bit integers: doubles computed from the two 32-bit halves (exact within
 * ±2^53), and the exact values kept when some are beyond that.
 */
function int64Vector(type: Type, enc: Encoding, state: Uint8Array, raw: Uint8Array | null) {
  const rows = state.length;
  const f64 = new Float64Array(rows);
  if (raw === null) return new NumberVector(type, state, f64, null);
  const words = new Int32Array(raw.buffer, raw.byteOffset, rows * 2);
  const unsigned = enc === "uint64";
  let wide = false;
  for (let i = 0; i < rows; i++) {
    const lo = words[2 * i] >>> 0, hi = words[2 * i + 1];
    const h = unsigned ? hi >>> 0 : hi;
    f64[i] = h * 4294967296 + lo;
    if (h >= 0x200000 || h < -0x200000) wide = true;
  }
  let big: BigInt64Array | BigUint64Array | null = null;
  if (wide) {
    big = unsigned
      ? new BigUint64Array(raw.buffer, raw.byteOffset, rows)
      : new BigInt64Array(raw.buffer, raw.byteOffset, rows);
  }
  return new NumberVector(type, state, f64, big);
}

export function int32s(b: Uint8Array | null, n: number): Int32Array {
  if (b === null) return new Int32Array(n);
  return new Int32Array(b.buffer, b.byteOffset, n);
}
