// Writing an object's columns as an Arrow IPC file (npm:apache-arrow), the
// standard any Arrow tool opens: one record batch, a field per column (named
// by its path; the Zed path and type in the field's metadata), the record
// types in the schema's metadata, and a `zed.type_index` field naming each
// row's record type when there is more than one; `zed.size`, the size of
// each row's value (what QueryStats count), and `zed.prefix`, the first
// bytes of its encoding (which orders equal keys). Dictionary-encoded columns
// are Arrow dictionaries.
//
// The file is handed out as the writer made it, in pieces that are views of
// the columns' arrays, and written piece by piece: joined into one buffer, it
// held a second copy of every column while an object was written (the 10x
// dns log loaded as one object peaked at 565 MB that way, 511–516 now). Its messages are walked to find where each
// column's buffers are; the manifest (manifest.ts) keeps those ranges.

import {
  Binary,
  Bool,
  type Data,
  type DataType,
  Dictionary,
  Duration,
  Field,
  FixedSizeBinary,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  List,
  makeData,
  makeVector,
  Message,
  Null,
  RecordBatch,
  RecordBatchFileWriter,
  Schema,
  Struct,
  Table,
  Timestamp,
  TimeUnit,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
} from "apache-arrow";
import { formatType } from "../../zed/typetext.ts";
import { asciiSetOf } from "../../query/mod.ts";
import type { BuiltColumn, BuiltObjectColumns, Encoding } from "./built.ts";
import type { ColumnEntry, ColumnsManifest, Range } from "./manifest.ts";
import { PREFIX } from "./build.ts";

export const TYPE_INDEX_FIELD = "zed.type_index";
export const SIZE_FIELD = "zed.size";
export const PREFIX_FIELD = "zed.prefix";

function arrowType(enc: Exclude<Encoding, "list" | "null">): DataType {
  switch (enc) {
    case "int8":
      return new Int8();
    case "int16":
      return new Int16();
    case "int32":
      return new Int32();
    case "int64":
      return new Int64();
    case "uint8":
      return new Uint8();
    case "uint16":
      return new Uint16();
    case "uint32":
      return new Uint32();
    case "uint64":
      return new Uint64();
    case "float32":
      return new Float32();
    case "float64":
      return new Float64();
    case "time":
      return new Timestamp(TimeUnit.NANOSECOND, "UTC");
    case "duration":
      return new Duration(TimeUnit.NANOSECOND);
    case "bool":
      return new Bool();
    case "string":
      return new Utf8();
    case "bytes":
    case "ip":
      return new Binary();
    case "ip4":
      return new FixedSizeBinary(4);
    case "ip16":
      return new FixedSizeBinary(16);
  }
}

/** Packs one byte per row (0 or 1) into an Arrow bitmap. */
function bitmap(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array((bytes.length + 7) >> 3);
  for (let i = 0; i < bytes.length; i++) if (bytes[i]) out[i >> 3] |= 1 << (i & 7);
  return out;
}

/** The Arrow data of a column (not dictionary-encoded at this level). */
function plainData(c: BuiltColumn): Data {
  if (c.enc === "null") return makeData({ type: new Null(), length: c.length });
  const enc = c.enc as Exclude<Encoding, "list" | "null">;
  const type = arrowType(enc);
  const nullBitmap = c.nullCount > 0 ? bitmap(c.valid) : undefined;
  const common = { length: c.length, nullCount: c.nullCount, nullBitmap };
  switch (enc) {
    case "bool":
      return makeData({ type: type as Bool, ...common, data: bitmap(c.values as Uint8Array) });
    case "string":
      return makeData({ type: type as Utf8, ...common, valueOffsets: c.offsets!, data: c.data! });
    case "bytes":
    case "ip":
      return makeData({ type: type as Binary, ...common, valueOffsets: c.offsets!, data: c.data! });
    case "ip4":
    case "ip16":
      return makeData({ type: type as FixedSizeBinary, ...common, data: c.data! });
    default:
      // deno-lint-ignore no-explicit-any
      return makeData({ type: type as any, ...common, data: c.values as any });
  }
}

/** The Arrow data of a column; ids numbers its dictionaries (within the file). */
function columnData(c: BuiltColumn, ids: { next: number }): Data {
  if (c.enc === "list") {
    const child = columnData(c.child!, ids);
    const type = new List(new Field("item", child.type, true));
    return makeData({
      type,
      length: c.length,
      nullCount: c.nullCount,
      nullBitmap: c.nullCount > 0 ? bitmap(c.valid) : undefined,
      valueOffsets: c.offsets!,
      child,
    });
  }
  if (c.dict !== undefined) {
    const dict = plainData(c.dict);
    const type = new Dictionary(dict.type, new Int32(), ids.next++);
    return makeData({
      type,
      length: c.length,
      nullCount: c.nullCount,
      nullBitmap: c.nullCount > 0 ? bitmap(c.valid) : undefined,
      data: c.index!,
      dictionary: makeVector(dict),
    });
  }
  return plainData(c);
}

/** How many buffers a column of this data type has in a record batch (its children too). */
function bufferCount(t: DataType): number {
  if (t instanceof Dictionary) return 2;
  if (t instanceof List) return 2 + bufferCount(t.children[0].type);
  if (t instanceof Utf8 || t instanceof Binary) return 3;
  if (t instanceof Null) return 0;
  return 2;
}

/** An object's Arrow IPC file, in the pieces that make it up (in order), and its manifest. */
export interface EncodedColumns {
  pieces: Uint8Array[];
  manifest: ColumnsManifest;
}

/** The Arrow IPC file of an object's columns and its manifest. */
export async function encodeColumns(built: BuiltObjectColumns): Promise<EncodedColumns> {
  const fields: Field[] = [];
  const children: Data[] = [];
  /** Per Arrow field: the manifest entry it is (or which of the row fields). */
  const owners: (ColumnEntry | "types" | "sizes" | "prefixes")[] = [];
  const entries: ColumnEntry[] = [];
  const names = new Set<string>([TYPE_INDEX_FIELD, SIZE_FIELD, PREFIX_FIELD]);
  const ids = { next: 0 };
  const unique = (name: string, type: string) => {
    let n = names.has(name) ? `${name}:${type}` : name;
    for (let k = 2; names.has(n); k++) n = `${name}:${type}#${k}`;
    names.add(n);
    return n;
  };
  if (built.typeOf !== null) {
    const wide = built.typeOf instanceof Uint32Array;
    const type = wide ? new Uint32() : new Uint16();
    fields.push(new Field(TYPE_INDEX_FIELD, type, false));
    // deno-lint-ignore no-explicit-any
    children.push(makeData({ type: type as any, length: built.rows, data: built.typeOf }));
    owners.push("types");
  }
  fields.push(new Field(SIZE_FIELD, new Uint32(), false));
  children.push(makeData({ type: new Uint32(), length: built.rows, data: built.sizes }));
  owners.push("sizes");
  const prefixType = new FixedSizeBinary(PREFIX);
  fields.push(new Field(PREFIX_FIELD, prefixType, false));
  children.push(makeData({ type: prefixType, length: built.rows, data: built.prefixes }));
  owners.push("prefixes");
  for (const col of built.columns) {
    const typeText = formatType(col.type);
    const entry: ColumnEntry = {
      path: col.path,
      type: typeText,
      covers: col.covers,
      enc: col.column.enc,
      bufs: [],
    };
    if (col.column.child !== undefined) entry.elem = col.column.child.enc;
    if (col.column.enc === "string") {
      entry.ascii = asciiSetOf((col.column.dict ?? col.column).data ?? new Uint8Array(0));
    }
    entries.push(entry);
    if (col.column.enc === "null") continue;
    const data = columnData(col.column, ids);
    const meta = new Map([["zed.path", JSON.stringify(col.path)], ["zed.type", typeText]]);
    fields.push(new Field(unique(col.path.join("."), typeText), data.type, true, meta));
    children.push(data);
    owners.push(entry);
  }
  const schemaMeta = new Map([
    ["zed.types", JSON.stringify(built.types.map(formatType))],
    ["zed.complete", JSON.stringify(built.complete)],
  ]);
  const schema = new Schema(fields, schemaMeta);
  const struct = makeData({ type: new Struct(fields), length: built.rows, nullCount: 0, children });
  const pieces: Uint8Array[] = [];
  let size = 0;
  // The writer queues its output (no copies): drained here, it ends.
  for await (
    const p of RecordBatchFileWriter.writeAll(new Table([new RecordBatch(schema, struct)]))
  ) {
    pieces.push(p);
    size += p.length;
  }
  const manifest: ColumnsManifest = {
    v: 1,
    size,
    rows: built.rows,
    types: built.types.map(formatType),
    complete: built.complete,
    typeCounts: built.typeCounts,
    typeOf: null,
    sizes: { bufs: [] },
    prefixes: { bufs: [] },
    columns: entries,
  };
  locateBuffers(new Pieces(pieces), fields, owners, manifest);
  return { pieces, manifest };
}

/** Pieces of a file read as one: at an offset, an int32 or a range (copied only when it spans pieces). */
class Pieces {
  private starts: number[] = [];

  constructor(private readonly pieces: Uint8Array[]) {
    let at = 0;
    for (const p of pieces) {
      this.starts.push(at);
      at += p.length;
    }
  }

  range(pos: number, length: number): Uint8Array {
    // The piece pos is in: the last that starts at or before it.
    let k = 0, hi = this.starts.length - 1;
    while (k < hi) {
      const mid = (k + hi + 1) >> 1;
      if (this.starts[mid] <= pos) k = mid;
      else hi = mid - 1;
    }
    const first = this.pieces[k], off = pos - this.starts[k];
    if (off + length <= first.length) return first.subarray(off, off + length);
    const out = new Uint8Array(length);
    for (let n = 0; n < length; k++) {
      const p = this.pieces[k];
      const from = n === 0 ? off : 0;
      const take = Math.min(length - n, p.length - from);
      out.set(p.subarray(from, from + take), n);
      n += take;
    }
    return out;
  }

  int32(pos: number): number {
    const b = this.range(pos, 4);
    return new DataView(b.buffer, b.byteOffset, 4).getInt32(0, true);
  }
}

/** Fills in where each column's buffers are, from the file's messages. */
function locateBuffers(
  file: Pieces,
  fields: Field[],
  owners: (ColumnEntry | "types" | "sizes" | "prefixes")[],
  manifest: ColumnsManifest,
): void {
  const dictOwner = new Map<number, ColumnEntry>();
  fields.forEach((f, k) => {
    if (f.type instanceof Dictionary) dictOwner.set(f.type.id, owners[k] as ColumnEntry);
  });
  let pos = 8; // past the magic
  for (;;) {
    if (file.int32(pos) !== -1) throw new Error("columns: unexpected Arrow framing");
    const len = file.int32(pos + 4);
    if (len === 0) break;
    const msg = Message.decode(file.range(pos + 8, len));
    const body = pos + 8 + len;
    const abs = (b: { offset: number; length: number }): Range => [body + b.offset, b.length];
    if (msg.isDictionaryBatch()) {
      const h = msg.header();
      const owner = dictOwner.get(Number(h.id))!;
      owner.dict = { bufs: h.buffers.map(abs), length: Number(h.length) };
    } else if (msg.isRecordBatch()) {
      const bufs = msg.header().buffers;
      let b = 0;
      fields.forEach((f, k) => {
        const n = bufferCount(f.type);
        const ranges = bufs.slice(b, b + n).map(abs);
        b += n;
        const owner = owners[k];
        if (owner === "types") {
          manifest.typeOf = { enc: f.type instanceof Uint32 ? "uint32" : "uint16", bufs: ranges };
        } else if (owner === "sizes") manifest.sizes.bufs = ranges;
        else if (owner === "prefixes") manifest.prefixes.bufs = ranges;
        else owner.bufs = ranges;
      });
    }
    pos = body + Number(msg.bodyLength);
  }
}
