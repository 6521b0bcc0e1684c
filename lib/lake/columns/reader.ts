// Reading an object's columns: only the byte ranges of the columns a query
// asks for (the manifest says where they are), turned into vectors
// (zed/vector.ts). Vectors and type indexes are kept in a cache with a byte
// budget; objects never change, so neither do their columns.

import { invalid, LochError } from "../../errors.ts";
import type { Type } from "../../zed/types.ts";
import { NULL_ROW, NullVector, VALUE, type Vector } from "../../zed/vector.ts";
import type { Storage } from "../storage.ts";
import type { Encoding } from "./built.ts";
import { PREFIX } from "./build.ts";
import type { ColumnEntry, ColumnRef, ObjectColumnsInfo, Range } from "./manifest.ts";
import { decodeEntries, decodeVector, rowStates, type TypeIndex, WIDTHS } from "./decode.ts";
import { type ColumnarObject, parseByteSize } from "../../query/mod.ts";

/** Bytes of each row's body prefix (build.ts PREFIX). */
const PREFIX_BYTES = PREFIX;

/** Default byte budget of the column cache (LOCH_COLUMN_CACHE overrides it, e.g. `1GiB`). */
export const DEFAULT_COLUMN_CACHE = 512 << 20;

type Cached = Vector | TypeIndex | Uint8Array | { readonly bytes: number };

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
    const old = this.map.get(key);
    if (old !== undefined) {
      this.map.delete(key);
      this.held -= old.bytes;
    }
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

  /** Bytes held. */
  get bytes(): number {
    return this.held;
  }
}

export const columnCache = new ColumnCache(DEFAULT_COLUMN_CACHE);

/** Sets the column cache's byte budget from a size (`1GiB`, as LOCH_MEMORY_BUDGET takes); undefined restores the default. */
export function setColumnCacheBudget(size: string | undefined): void {
  if (size === undefined || size === "") {
    columnCache.budget = DEFAULT_COLUMN_CACHE;
    return;
  }
  try {
    columnCache.budget = parseByteSize(size);
  } catch {
    throw invalid(`invalid LOCH_COLUMN_CACHE: ${size}`);
  }
}

let envRead = false;

/** Takes the budget from LOCH_COLUMN_CACHE, the first time it is called. */
export function columnCacheFromEnv(): void {
  if (envRead) return;
  let text: string | undefined;
  try {
    text = Deno.env.get("LOCH_COLUMN_CACHE");
  } catch {
    text = undefined; // no --allow-env: the default applies
  }
  setColumnCacheBudget(text);
  envRead = true;
}

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

  derived<T>(key: string, make: () => T): T {
    return this.info.derived(key, make);
  }

  fromColumn<T extends { readonly bytes: number }>(c: ColumnRef, kind: string, make: () => T): T {
    const k = this.info.manifest.columns.indexOf(this.info.entryOf(c));
    const key = `${this.key}/${k}/${kind}`;
    let v = columnCache.get<T>(key);
    if (v === undefined) {
      v = make();
      columnCache.set(key, v, v.bytes);
    }
    return v;
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

  /**
   * Rows [0, n) of a column: read from the front of its buffers alone
   * (a head needs the first rows of each object, not millions), or the whole
   * column when the cache has it or n covers it.
   */
  async prefixVector(c: ColumnRef, n: number): Promise<Vector> {
    if (!this.readsAlone) return await this.entryVector(this.info.entryOf(c));
    return this.prefixVectorNow(c, n);
  }

  /** prefixVector, read now: for storage that reads synchronously (readsAlone). */
  prefixVectorNow(c: ColumnRef, rows: number): Vector {
    const entry = this.info.entryOf(c);
    const k = this.info.manifest.columns.indexOf(entry);
    const whole = columnCache.get<Vector>(`${this.key}/${k}`);
    if (whole !== undefined) return whole;
    const n = Math.min(rows, this.rows);
    const key = n === this.rows ? `${this.key}/${k}` : `${this.key}/${k}:${n}`;
    let v = columnCache.get<Vector>(key);
    if (v === undefined) {
      const state = rowStates(n, this.typeIndexNow(n), entry.covers);
      const type = this.info.typeOf(entry);
      if (entry.enc === "null") {
        for (let i = 0; i < n; i++) if (state[i] === VALUE) state[i] = NULL_ROW;
        v = new NullVector(type, state);
      } else {
        const ranges: Range[] = [];
        if (entry.enc === "list") {
          // The lists' validity and offsets, then their first elements.
          const [voff, vlen] = entry.bufs[0];
          const [ooff] = entry.bufs[1];
          ranges.push([voff, Math.min(vlen, (n + 7) >> 3)], [ooff, (n + 1) * 4]);
          const elems = this.int32At(ooff + n * 4);
          const child = entry.elem ?? "string";
          if (child !== "null") this.leadingRanges(child, entry.bufs.slice(2), elems, ranges);
        } else if (entry.dict !== undefined) {
          const [voff, vlen] = entry.bufs[0];
          ranges.push([voff, Math.min(vlen, (n + 7) >> 3)], [entry.bufs[1][0], n * 4]);
        } else this.leadingRanges(entry.enc, entry.bufs, n, ranges);
        const [bytes, base, placed] = this.readEach(ranges);
        const dict = entry.dict === undefined ? null : this.entriesOf(entry);
        v = decodeVector(type, { ...entry, bufs: placed }, state, bytes, base, dict);
      }
      columnCache.set(key, v, v.bytes);
    }
    return v;
  }

  /**
   * The parts of plain column buffers (validity, then data or offsets and
   * data) that hold the first n values.
   */
  private leadingRanges(enc: Encoding, bufs: Range[], n: number, out: Range[]): void {
    const [voff, vlen] = bufs[0];
    out.push([voff, Math.min(vlen, (n + 7) >> 3)]);
    const [boff] = bufs[1];
    if (enc === "string" || enc === "bytes" || enc === "ip") {
      out.push([boff, (n + 1) * 4], [bufs[2][0], this.int32At(boff + n * 4)]);
    } else if (enc === "bool") out.push([boff, (n + 7) >> 3]);
    else out.push([boff, n * WIDTHS[enc]!]);
  }

  private int32At(offset: number): number {
    const b = this.readAt(offset, 4);
    return b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24;
  }

  /** Each row's value size, for at least rows [0, n). */
  sizesPrefix(n: number): Promise<Uint32Array> | Uint32Array {
    const whole = columnCache.get<Uint32Array>(this.key + "/s");
    if (whole !== undefined || n >= this.rows || !this.readsAlone) return whole ?? this.sizes();
    return this.leading(this.key + "/s<", n, (rows) => {
      const raw = this.readAt(this.info.manifest.sizes.bufs[1][0], rows * 4);
      return new Uint32Array(raw.buffer, 0, rows);
    });
  }

  /**
   * The first rows of a column read on their own (a head's), for at least
   * rows [0, n): kept in the cache under key, so that the next head of as
   * many rows or fewer reads nothing (a head over 32 objects made ~100 small
   * reads of these each time, ~0.3 ms of `cut ts,query | head 10000`).
   */
  private leading<T extends Uint8Array | Uint16Array | Uint32Array>(
    key: string,
    n: number,
    read: (rows: number) => T,
  ): T {
    const kept = columnCache.get<T>(key);
    if (kept !== undefined && kept.length >= n) return kept;
    const got = read(n);
    columnCache.set(key, got, got.byteLength);
    return got;
  }

  /** The record type indexes of at least rows [0, n) (null with one type). */
  async typeIndexUpTo(n: number): Promise<TypeIndex | null> {
    return this.readsAlone ? this.typeIndexNow(n) : await this.typeIndex();
  }

  /** typeIndexUpTo, read now (readsAlone only); kept when it is the whole index. */
  private typeIndexNow(rows: number): TypeIndex | null {
    const t = this.info.manifest.typeOf;
    if (t === null) return null;
    const key = this.key + "/t";
    const whole = columnCache.get<TypeIndex>(key);
    if (whole !== undefined) return whole;
    const n = Math.min(rows, this.rows);
    const width = t.enc === "uint32" ? 4 : 2;
    const readRows = (m: number) => {
      const raw = this.readAt(t.bufs[1][0], m * width);
      return width === 4 ? new Uint32Array(raw.buffer, 0, m) : new Uint16Array(raw.buffer, 0, m);
    };
    if (n < this.rows) return this.leading<TypeIndex>(key + "<", n, readRows);
    const idx = readRows(n);
    columnCache.set(key, idx, idx.byteLength);
    return idx;
  }

  /**
   * Reads each range into one buffer, one after another (8-byte aligned);
   * returns it, its base (0) and where each range landed in it.
   */
  private readEach(ranges: Range[]): [Uint8Array, number, Range[]] {
    let total = 0;
    // Each at a multiple of 8, so typed arrays can view it.
    for (const [, len] of ranges) total += (len + 7) & ~7;
    const out = new Uint8Array(total);
    const placed: Range[] = [];
    let p = 0;
    for (const [off, len] of ranges) {
      if (len > 0) out.set(this.readAt(off, len), p);
      placed.push([p, len]);
      p += (len + 7) & ~7;
    }
    return [out, 0, placed];
  }

  /** A column's vector if the cache has it. */
  cachedVector(c: ColumnRef): Vector | undefined {
    const k = this.info.manifest.columns.indexOf(this.info.entryOf(c));
    return columnCache.get<Vector>(`${this.key}/${k}`);
  }

  /** Whether readAt can read (the storage reads synchronously). */
  get readsAlone(): boolean {
    return this.storage.readSync !== undefined;
  }

  /** len bytes of the file at offset, read now (storage with readSync only). */
  readAt(offset: number, len: number): Uint8Array {
    const out = new Uint8Array(len);
    if (len > 0 && this.storage.readSync!(this.path, offset, out) !== len) {
      throw new LochError("internal", `${this.path}: columns file is shorter than its manifest`);
    }
    return out;
  }

  /** entriesOf, for storage without synchronous reads too. */
  private async entriesRead(entry: ColumnEntry): Promise<Vector> {
    if (this.readsAlone) return this.entriesOf(entry);
    const [bytes, base] = await this.read(entry.dict!.bufs);
    return decodeEntries(this.info.typeOf(entry), entry, bytes, base);
  }

  /** A column's dictionary entries, or null when it is not dictionary-encoded. */
  async dictionary(c: ColumnRef): Promise<Vector | null> {
    const entry = this.info.entryOf(c);
    return entry.dict === undefined ? null : await this.entriesRead(entry);
  }

  /** A dictionary column's entries (kept in the cache; storage with readSync only). */
  entriesOf(entry: ColumnEntry): Vector {
    const key = `${this.key}/${this.info.manifest.columns.indexOf(entry)}/d`;
    let d = columnCache.get<Vector>(key);
    if (d === undefined) {
      const bufs = entry.dict!.bufs;
      const [first] = bufs.find(([, len]) => len > 0) ?? [0];
      const last = bufs.reduce((end, [off, len]) => Math.max(end, off + len), first);
      const bytes = this.readAt(first, last - first);
      d = decodeEntries(this.info.typeOf(entry), entry, bytes, first);
      columnCache.set(key, d, d.bytes);
    }
    return d;
  }

  /**
   * The total size of the values of rows [from, to), of an object whose
   * values total `total` bytes: read from the sizes column's smaller side
   * (the run, or the rows outside it) unless the cache has the column.
   */
  async runBytes(from: number, to: number, total: number): Promise<number> {
    if (columnCache.get(this.key + "/s") !== undefined || !this.readsAlone) {
      return await this.selectedBytes(null, from, to);
    }
    const [off] = this.info.manifest.sizes.bufs[1];
    const sum = (a: number, b: number) => {
      if (b <= a) return 0;
      const raw = this.readAt(off + a * 4, (b - a) * 4);
      const sizes = new Uint32Array(raw.buffer, 0, b - a);
      let n = 0;
      for (let i = 0; i < sizes.length; i++) n += sizes[i];
      return n;
    };
    if (2 * (to - from) <= this.rows) return sum(from, to);
    return total - sum(0, from) - sum(to, this.rows);
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

  /** Each row's body prefix (8 bytes per row), for at least rows [0, n). */
  async prefixes(n = this.rows): Promise<Uint8Array> {
    const key = this.key + "/p";
    const whole = columnCache.get<Uint8Array>(key);
    if (whole === undefined && n < this.rows && this.readsAlone) {
      const off = this.info.manifest.prefixes.bufs[1][0];
      return this.leading(key + "<", n * PREFIX_BYTES, (len) => this.readAt(off, len));
    }
    let p = whole;
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
        const dict = entry.dict === undefined ? null : await this.entriesRead(entry);
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

/** Forgets nothing: columns are immutable. (Exported for tests that measure cold reads.) */
export function clearColumnCache(): void {
  columnCache.clear();
}
