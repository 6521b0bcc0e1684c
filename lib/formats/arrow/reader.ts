// Arrow IPC stream input (`-i arrows`, Content-Type
// `application/vnd.apache.arrow.stream`), read batch by batch as it arrives
// with apache-arrow's reader. Each row becomes a record; types map back as
// the writer maps them (writer.ts), plus the Arrow types other tools write:
// large strings and binaries, dates and times of any unit (as Zed times and
// durations), decimals and others are refused with a clear error.

import {
  type DataType,
  type Field,
  RecordBatchReader,
  Type as ArrowType,
  type Vector,
} from "apache-arrow";
import { invalid, LochError, messageOf } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import {
  Field as ZedField,
  type Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat32,
  TypeFloat64,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeNull,
  TypeString,
  TypeTime,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeUint8,
} from "../../zed/types.ts";
import { type Batch, type Body, intBody, Value } from "../../zed/value.ts";
import type { ByteInput, ValueReader } from "../io.ts";

interface Mapping {
  type: Type;
  /** A value as Arrow's reader gives it, to a Zed body. */
  conv: (v: unknown) => Body;
  /** Row i of a column read from its buffers (where the getter loses precision). */
  at?: (col: Vector, i: number) => Body;
}

const NS_PER: Record<number, bigint> = { 0: 1_000_000_000n, 1: 1_000_000n, 2: 1000n, 3: 1n };

function mapArrow(t: DataType): Mapping {
  const id = t.typeId;
  const nullable =
    (f: (v: unknown) => Body) => (v: unknown) => (v === null || v === undefined ? null : f(v));
  switch (id) {
    case ArrowType.Null:
      return { type: TypeNull, conv: () => null };
    case ArrowType.Bool:
      return { type: TypeBool, conv: nullable((v) => v as boolean) };
    case ArrowType.Int: {
      const { bitWidth, isSigned } = t as unknown as { bitWidth: number; isSigned: boolean };
      const type = isSigned
        ? [TypeInt8, TypeInt16, TypeInt32, TypeInt64][Math.log2(bitWidth / 8)]
        : [TypeUint8, TypeUint16, TypeUint32, TypeUint64][Math.log2(bitWidth / 8)];
      return {
        type,
        conv: nullable((v) => (typeof v === "bigint" ? intBody(v) : v as number)),
      };
    }
    case ArrowType.Float: {
      const precision = (t as unknown as { precision: number }).precision;
      return {
        // Zed has no half precision: float32 holds it.
        type: [TypeFloat32, TypeFloat32, TypeFloat64][precision],
        conv: nullable((v) => v as number),
      };
    }
    case ArrowType.Utf8:
    case ArrowType.LargeUtf8:
      return { type: TypeString, conv: nullable((v) => v as string) };
    case ArrowType.Binary:
    case ArrowType.LargeBinary:
    case ArrowType.FixedSizeBinary:
      return { type: TypeBytes, conv: nullable((v) => v as Uint8Array) };
    case ArrowType.Timestamp: {
      // The reader's getter gives milliseconds as a double; a column's own
      // buffer keeps every nanosecond (nested ones go through the getter).
      const scale = NS_PER[(t as unknown as { unit: number }).unit] ?? 1n;
      return {
        type: TypeTime,
        conv: nullable((v) => intBody(BigInt(Math.round((v as number) * 1e6)))),
        at: (col, i) => {
          if (!col.isValid(i)) return null;
          let k = i;
          for (const d of col.data) {
            if (k < d.length) return intBody(BigInt(d.values[d.offset + k]) * scale);
            k -= d.length;
          }
          return null;
        },
      };
    }
    case ArrowType.Date:
      return {
        type: TypeTime,
        conv: nullable((v) => intBody(BigInt(Math.round((v as number) * 1e6)))),
      };
    case ArrowType.Duration:
    case ArrowType.Time: {
      const unit = (t as unknown as { unit: number }).unit;
      const scale = NS_PER[unit] ?? 1n;
      return {
        type: TypeDuration,
        conv: nullable((v) => intBody(BigInt(v as number | bigint) * scale)),
      };
    }
    case ArrowType.Struct: {
      const fields = (t.children as Field[]).map((f) => ({ name: f.name, m: mapArrow(f.type) }));
      const type = zctx.lookupRecord(fields.map((f) => new ZedField(f.name, f.m.type)));
      return {
        type,
        conv: nullable((v) => {
          const row = v as Record<string, unknown>;
          return fields.map((f) => f.m.conv(row[f.name]));
        }),
      };
    }
    case ArrowType.List:
    case ArrowType.LargeList:
    case ArrowType.FixedSizeList: {
      const elem = mapArrow((t.children as Field[])[0].type);
      return {
        type: zctx.lookupArray(elem.type),
        conv: nullable((v) => Array.from(v as Iterable<unknown>, elem.conv)),
      };
    }
    case ArrowType.Map: {
      const entries = (t.children as Field[])[0].type.children as Field[];
      const k = mapArrow(entries[0].type), val = mapArrow(entries[1].type);
      return {
        type: zctx.lookupMap(k.type, val.type),
        conv: nullable((v) => {
          const out: Body[] = [];
          for (const [key, value] of v as Map<unknown, unknown>) {
            out.push(k.conv(key), val.conv(value));
          }
          return out;
        }),
      };
    }
  }
  throw invalid(`Arrow type ${t} is not supported`);
}

export class ArrowStreamReader implements ValueReader {
  private batches:
    | AsyncIterator<{ numRows: number; getChildAt(i: number): Vector | null }>
    | undefined;
  private record: Type | undefined;
  private columns: Mapping[] = [];

  constructor(private input: ByteInput) {}

  async read(): Promise<Batch | null> {
    try {
      if (this.batches === undefined) {
        const reader = await RecordBatchReader.from(this.chunks());
        await reader.open();
        const fields = reader.schema.fields as Field[];
        this.columns = fields.map((f) => mapArrow(f.type));
        this.record = zctx.lookupRecord(
          fields.map((f, i) => new ZedField(f.name, this.columns[i].type)),
        );
        // deno-lint-ignore no-explicit-any
        this.batches = (reader as any)[Symbol.asyncIterator]();
      }
      for (;;) {
        const r = await this.batches!.next();
        if (r.done) return null;
        const b = r.value;
        if (b.numRows === 0) continue;
        const cols = this.columns.map((_, i) => b.getChildAt(i)!);
        const out: Batch = new Array(b.numRows);
        for (let row = 0; row < b.numRows; row++) {
          const body: Body[] = new Array(cols.length);
          for (let c = 0; c < cols.length; c++) {
            const m = this.columns[c];
            body[c] = m.at !== undefined ? m.at(cols[c], row) : m.conv(cols[c].get(row));
          }
          out[row] = new Value(this.record!, body);
        }
        return out;
      }
    } catch (e) {
      if (e instanceof LochError) throw e;
      throw invalid(`arrows: ${messageOf(e)}`);
    }
  }

  private async *chunks(): AsyncGenerator<Uint8Array> {
    for (let c = await this.input.read(); c !== null; c = await this.input.read()) yield c;
  }
}
