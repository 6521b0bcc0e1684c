// Reading an object's columns: only the byte ranges of the columns a query
// asks for (the manifest says where they are), turned into vectors
// (zed/vector.ts). Vectors and type indexes are kept in a cache with a byte
// budget; objects never change, so neither do their columns.

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
import type { Storage } from "../storage.ts";
import type { Encoding } from "./built.ts";
import type { ColumnEntry, ColumnRef, ObjectColumnsInfo, Range } from "./manifest.ts";
import type { ColumnarObject } from "../../query/mod.ts";

/** Default byte budget of the column cache (LOCH_COLUMN_CACHE overrides it, e.g. `1GiB`). */
const DEFAULT_BUDGET = 512 << 20;

type TypeIndex = Uint16Array | Uint32Array;
type Cached = Vector | TypeIndex | Uint8Array;

class ColumnCache {
  private map = new Map<string, { value: Cached; bytes: number }>();
  private held = 0;
  constructor(public budget: number) {}

  get<T extends Cached>(key: string): T | undefined {
    const hit = this.map.get(key);
    if (hit === undefined) return undefined;
    this.map.delete(key); // most recently used goes last
    this.map.set(key, hit);
    return hit.value as T;
  }

  set(key: string, value: Cached, bytes: number): void {
    this.map.set(key, { value, bytes });
    this.held += bytes;
    for (const [k, e] of this.map) {
      if (this.held <= this.budget) break;
      this.map.delete(k);
      this.held -= e.bytes;
    }
  }

  clear(): void {
    this.map.clear();
    this.held = 0;
  }
}

export const columnCache = new ColumnCache(DEFAULT_BUDGET);

/** The columns of one object, read on demand (what vectorized queries see of it). */
export class ObjectColumns implements ColumnarObject {
  constructor(
    /** A key unique to the object (its id). */
    readonly key: string,
    readonly info: ObjectColumnsInfo,
    private storage: Storage,
    private path: string,
  ) {}

  get rows(): number {
    return this.info.manifest.rows;
  }

  get types(): readonly Type[] {
    return this.info.types;
  }

  get complete(): readonly boolean[] {
    return this.info.manifest.complete;
  }

  get typeCounts(): readonly number[] {
    return this.info.manifest.typeCounts;
  }

  columnsOf(path: readonly string[]): readonly ColumnRef[] {
    return this.info.refsOf(path);
  }

  columns(): readonly ColumnRef[] {
    return this.info.refs;
  }

  /** Each row's record type index, or null when the object has one type. */
  async typeIndex(): Promise<TypeIndex | null> {
    const t = this.info.manifest.typeOf;
    if (t === null) return null;
    const key = this.key + "/t";
    let idx = columnCache.get<TypeIndex>(key);
    if (idx === undefined) {
      const [bytes, base] = await this.read(t.bufs);
      const [off, len] = t.bufs[1];
      idx = t.enc === "uint32"
        ? new Uint32Array(bytes.buffer, off - base, len >> 2).subarray(0, this.rows)
        : new Uint16Array(bytes.buffer, off - base, len >> 1).subarray(0, this.rows);
      columnCache.set(key, idx, idx.byteLength);
    }
    return idx;
  }

  vector(c: ColumnRef): Promise<Vector> {
    return this.entryVector(this.info.entryOf(c));
  }

  /** Each row's value body size. */
  async sizes(): Promise<Uint32Array> {
    const key = this.key + "/s";
    let sizes = columnCache.get<Uint32Array>(key);
    if (sizes === undefined) {
      const bufs = this.info.manifest.sizes.bufs;
      const [bytes, base] = await this.read(bufs);
      const [off, len] = bufs[1];
      sizes = new Uint32Array(bytes.buffer, off - base, len >> 2).subarray(0, this.rows);
      columnCache.set(key, sizes, sizes.byteLength);
    }
    return sizes;
  }

  /** Each row's body prefix (8 bytes per row). */
  async prefixes(): Promise<Uint8Array> {
    const key = this.key + "/p";
    let p = columnCache.get<Uint8Array>(key);
    if (p === undefined) {
      const bufs = this.info.manifest.prefixes.bufs;
      const [bytes, base] = await this.read(bufs);
      const [off, len] = bufs[1];
      p = new Uint8Array(bytes.buffer, off - base, len);
      columnCache.set(key, p, p.byteLength);
    }
    return p;
  }

  /** The total size of the selected rows' values (sel: 1 per row, or null for all). */
  async selectedBytes(sel: Uint8Array | null, from = 0, to = this.rows): Promise<number> {
    const sizes = await this.sizes();
    let n = 0;
    if (sel === null) { for (let i = from; i < to; i++) n += sizes[i]; }
    else for (let i = from; i < to; i++) if (sel[i]) n += sizes[i];
    return n;
  }

  /** A column as a vector. */
  async entryVector(entry: ColumnEntry): Promise<Vector> {
    const k = this.info.manifest.columns.indexOf(entry);
    const key = `${this.key}/${k}`;
    let v = columnCache.get<Vector>(key);
    if (v === undefined) {
      const types = await this.typeIndex();
      const state = rowStates(this.rows, types, entry.covers);
      const type = this.info.typeOf(entry);
      if (entry.enc === "null") {
        for (let i = 0; i < state.length; i++) if (state[i] === VALUE) state[i] = NULL_ROW;
        v = new NullVector(type, state);
      } else {
        const [bytes, base] = await this.read(entry.bufs);
        const dict = entry.dict === undefined ? null : await this.read(entry.dict.bufs);
        v = decodeVector(type, entry, state, bytes, base, dict);
      }
      columnCache.set(key, v, v.bytes);
    }
    return v;
  }

  /** Reads the span covering ranges; returns its bytes and the file offset they start at. */
  private async read(ranges: Range[]): Promise<[Uint8Array, number]> {
    let start = Infinity, end = 0;
    for (const [off, len] of ranges) {
      if (len === 0) continue;
      if (off < start) start = off;
      if (off + len > end) end = off + len;
    }
    if (start === Infinity) return [new Uint8Array(0), 0];
    const out = new Uint8Array(end - start);
    let p = 0;
    if (this.storage.readSync !== undefined) {
      p = this.storage.readSync(this.path, start, out);
    } else {
      for await (const chunk of this.storage.readRange(this.path, start, end - start)) {
        out.set(chunk, p);
        p += chunk.length;
      }
    }
    if (p !== out.length) {
      throw new LochError("internal", `${this.path}: columns file is shorter than its manifest`);
    }
    return [out, start];
  }
}

/** ABSENT, NULL_ROW or VALUE per row, before validity is applied (covered rows are VALUE). */
function rowStates(rows: number, types: TypeIndex | null, covers: number[]): Uint8Array {
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
class Buffers {
  private k = 0;
  constructor(private bytes: Uint8Array, private base: number, private ranges: Range[]) {}
  /** The next buffer as bytes (null when empty). */
  next(): Uint8Array | null {
    const [off, len] = this.ranges[this.k++];
    if (len === 0) return null;
    return new Uint8Array(this.bytes.buffer, this.bytes.byteOffset + off - this.base, len);
  }
}

function decodeVector(
  type: Type,
  entry: ColumnEntry,
  state: Uint8Array,
  bytes: Uint8Array,
  base: number,
  dict: [Uint8Array, number] | null,
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
    const [db, dbase] = dict!;
    const dbufs = new Buffers(db, dbase, entry.dict.bufs);
    const n = entry.dict.length;
    const dstate = new Uint8Array(n).fill(VALUE);
    dbufs.next(); // entries have no nulls
    return new DictVector(type, state, index, plainVector(type, entry.enc, dstate, dbufs));
  }
  return plainVector(type, entry.enc, state, bufs);
}

/** The encoding of a list's elements: recorded in the type, since lists keep only "list". */
function listChildEnc(entry: ColumnEntry): Encoding {
  return entry.elem ?? "string";
}

/** A vector of values that are not dictionary-encoded; the validity buffer is already read. */
function plainVector(type: Type, enc: Encoding, state: Uint8Array, bufs: Buffers): Vector {
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

function int32s(b: Uint8Array | null, n: number): Int32Array {
  if (b === null) return new Int32Array(n);
  return new Int32Array(b.buffer, b.byteOffset, n);
}

/** Forgets nothing: columns are immutable. (Exported for tests that measure cold reads.) */
export function clearColumnCache(): void {
  columnCache.clear();
}
