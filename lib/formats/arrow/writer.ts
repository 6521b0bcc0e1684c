// Arrow IPC stream output (`-f arrows`, `application/vnd.apache.arrow.stream`):
// record batches of up to BATCH_ROWS rows that pandas, Polars, DuckDB and any
// Arrow reader take directly, written with apache-arrow's stream writer. As
// with Parquet, the values must be records of one type. Types map as:
// ints and floats to their Arrow widths, bool, string to Utf8, bytes to
// Binary, time to Timestamp(ns, no zone), duration to Duration(ns), ip, net,
// type, error and enum values to their ZSON text (Utf8), records to Structs,
// arrays and sets to Lists, maps to Maps, null to Null; a union is refused.

import {
  Binary,
  Bool,
  type Builder,
  type Data,
  type DataType,
  DurationNanosecond,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  List,
  makeBuilder,
  makeData,
  Map_,
  Null,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  TimestampNanosecond,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
} from "apache-arrow";
import { invalid } from "../../errors.ts";
import { Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import type { Batch, Body } from "../../zed/value.ts";
import { formatZson } from "../zson/formatter.ts";
import type { Sink, ValueWriter } from "../io.ts";

const BATCH_ROWS = 65536;

/**
 * A Zed type as Arrow's, and how its values convert. Times are built as
 * Int64 nanoseconds (apache-arrow's timestamp builders take milliseconds as
 * doubles, losing precision) and then labelled Timestamp(ns): `build` is the
 * type the builder makes, `arrow` the one written.
 */
interface Mapping {
  arrow: DataType;
  build: DataType;
  conv: (b: Body) => unknown;
}

const same = (b: Body) => b;
const big = (b: Body) => (b === null ? null : BigInt(b as number | bigint));

function mapType(t: Type): Mapping {
  const u = typeUnder(t);
  switch (u.kind) {
    case Kind.Record: {
      const fields = (u as RecordType).fields.map((f) => ({ name: f.name, m: mapType(f.type) }));
      return {
        arrow: new Struct(fields.map((f) => new Field(f.name, f.m.arrow, true))),
        build: new Struct(fields.map((f) => new Field(f.name, f.m.build, true))),
        conv: (b) => {
          if (b === null) return null;
          const body = b as Body[];
          const o: Record<string, unknown> = {};
          for (let i = 0; i < fields.length; i++) o[fields[i].name] = fields[i].m.conv(body[i]);
          return o;
        },
      };
    }
    case Kind.Array:
    case Kind.Set: {
      const elem = mapType((u as { elem: Type }).elem);
      return {
        arrow: new List(new Field("item", elem.arrow, true)),
        build: new List(new Field("item", elem.build, true)),
        conv: (b) => (b === null ? null : (b as Body[]).map(elem.conv)),
      };
    }
    case Kind.Map: {
      const { key, value } = u as unknown as { key: Type; value: Type };
      const k = mapType(key), v = mapType(value);
      const entries = (a: DataType, b: DataType) =>
        new Field(
          "entries",
          new Struct([new Field("key", a, false), new Field("value", b, true)]),
          false,
        );
      return {
        arrow: new Map_(entries(k.arrow, v.arrow)),
        build: new Map_(entries(k.build, v.build)),
        conv: (b) => {
          if (b === null) return null;
          const kv = b as Body[];
          const m = new Map<unknown, unknown>();
          for (let i = 0; i + 1 < kv.length; i += 2) m.set(k.conv(kv[i]), v.conv(kv[i + 1]));
          return m;
        },
      };
    }
    case Kind.Union:
      throw invalid("Arrow output cannot hold a union type (consider a cast)");
  }
  const text = (b: Body) => (b === null ? null : formatZson(u, b));
  const prim = (arrow: DataType, conv: (b: Body) => unknown): Mapping => ({
    arrow,
    build: arrow,
    conv,
  });
  switch (u.kind === Kind.Primitive ? u.name : "") {
    case "int8":
      return prim(new Int8(), same);
    case "int16":
      return prim(new Int16(), same);
    case "int32":
      return prim(new Int32(), same);
    case "int64":
      return prim(new Int64(), big);
    case "uint8":
      return prim(new Uint8(), same);
    case "uint16":
      return prim(new Uint16(), same);
    case "uint32":
      return prim(new Uint32(), same);
    case "uint64":
      return prim(new Uint64(), big);
    case "float32":
      return prim(new Float32(), same);
    case "float64":
      return prim(new Float64(), same);
    case "bool":
      return prim(new Bool(), same);
    case "string":
      return prim(new Utf8(), same);
    case "bytes":
      return prim(new Binary(), same);
    case "time":
      return { arrow: new TimestampNanosecond(), build: new Int64(), conv: big };
    case "duration":
      return prim(new DurationNanosecond(), big);
    case "null":
      return prim(new Null(), () => null);
  }
  // ip, net, type, error, enum: their text.
  return prim(new Utf8(), text);
}

export class ArrowStreamWriter implements ValueWriter {
  private type: Type | undefined;
  private fields: { name: string; m: Mapping }[] = [];
  private builders: Builder[] = [];
  private schema: Schema | undefined;
  private writer: RecordBatchStreamWriter | undefined;
  /** The writer's bytes on their way to the sink, in order. */
  private piped: Promise<void> = Promise.resolve();
  private rows = 0;

  constructor(private sink: Sink) {}

  async write(batch: Batch): Promise<void> {
    for (const v of batch) {
      const t = typeUnder(v.type);
      if (this.type === undefined) this.start(v.type);
      else if (v.type !== this.type) {
        throw invalid(
          "Arrow output requires uniform records but multiple types encountered (consider 'fuse')",
        );
      }
      if (t.kind !== Kind.Record) throw invalid(`Arrow output encountered non-record value`);
      const body = v.body as Body[] | null;
      for (let i = 0; i < this.fields.length; i++) {
        this.builders[i].append(this.fields[i].m.conv(body === null ? null : body[i]));
      }
      if (++this.rows >= BATCH_ROWS) await this.flush();
    }
  }

  private start(type: Type): void {
    const t = typeUnder(type);
    if (t.kind !== Kind.Record) throw invalid(`Arrow output encountered non-record value`);
    this.type = type;
    this.fields = (t as RecordType).fields.map((f) => ({ name: f.name, m: mapType(f.type) }));
    this.schema = new Schema(this.fields.map((f) => new Field(f.name, f.m.arrow, true)));
    this.builders = this.fields.map((f) => makeBuilder({ type: f.m.build, nullValues: [null] }));
    this.writer = new RecordBatchStreamWriter();
    const sink = this.sink;
    this.piped = this.writer.toDOMStream().pipeTo(
      new WritableStream<Uint8Array>({ write: (c) => sink(c) }),
    );
  }

  private async flush(): Promise<void> {
    if (this.writer === undefined || this.rows === 0) return;
    const data = this.builders.map((b, i) => relabel(b.flush(), this.fields[i].m.arrow));
    const batch = new RecordBatch(
      this.schema!,
      makeData({
        type: new Struct(this.schema!.fields),
        length: this.rows,
        nullCount: 0,
        children: data,
      }),
    );
    this.writer.write(batch);
    this.rows = 0;
    // Let the batch's bytes go out before the next is built.
    await new Promise((r) => setTimeout(r, 0));
  }

  async end(): Promise<void> {
    if (this.writer === undefined) return;
    await this.flush();
    this.writer.finish();
    await this.piped;
  }
}

/** Built data given the type it is written as (times: Int64 as Timestamp(ns)), children too. */
// deno-lint-ignore no-explicit-any
function relabel(d: Data<any>, type: DataType): Data<any> {
  if (d.type.toString() === type.toString()) return d;
  // deno-lint-ignore no-explicit-any
  const props: any = {
    type,
    offset: d.offset,
    length: d.length,
    nullCount: d.nullCount,
    nullBitmap: d.nullBitmap,
  };
  if (type instanceof TimestampNanosecond) props.data = d.values;
  else if (type instanceof Struct) {
    props.children = d.children.map((c, i) => relabel(c, type.children[i].type));
  } else if (type instanceof List || type instanceof Map_) {
    props.valueOffsets = d.valueOffsets;
    props.child = relabel(d.children[0], type.children[0].type);
  } else return d;
  return makeData(props);
}
