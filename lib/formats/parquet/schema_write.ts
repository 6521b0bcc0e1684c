// Zed record type to Parquet schema (formats.md §7, writer), with a converter
// per root column from Zed bodies to the values hyparquet-writer takes. Every
// column is OPTIONAL except map keys and values, as in the reference, which
// also checks the finished schema (its ValidateStrict): empty names and the
// `interval`/`uuid` mappings onto BYTE_ARRAY are rejected there.

import type { SchemaElement } from "hyparquet";
import { invalid } from "../../errors.ts";
import { formatIP, formatNet } from "../../zed/ip.ts";
import { formatTypeValue } from "../../zed/typetext.ts";
import {
  ID_BYTES,
  ID_FLOAT64,
  ID_INT32,
  ID_INT64,
  ID_STRING,
  Kind,
  type RecordType,
  type Type,
  typeUnder,
} from "../../zed/types.ts";
import type { Body } from "../../zed/value.ts";
import { formatZson } from "../zson/formatter.ts";

/** Converts a field body (possibly null) to what hyparquet-writer expects. */
export type Conv = (b: Body) => unknown;

export interface WritePlan {
  /** Preorder schema elements, the root (`zq`) first. */
  schema: SchemaElement[];
  columns: { name: string; conv: Conv }[];
  /** Leaves written as FIXED_LEN_BYTE_ARRAY(12) and relabeled INT96 in the footer. */
  int96: { path: string[]; element: SchemaElement }[];
  /** Elements whose JSON converted type is set only after the data is written. */
  json: SchemaElement[];
}

export function writePlan(t: RecordType): WritePlan {
  const b = new SchemaBuilder();
  const root: SchemaElement = { name: "zq", num_children: t.fields.length };
  const schema = [root];
  const columns: { name: string; conv: Conv }[] = [];
  if (t.fields.length === 0) throw invalid("empty record type unsupported");
  for (const f of t.fields) {
    columns.push({ name: f.name, conv: b.column(f.name, f.type, [f.name], schema) });
  }
  validate(schema);
  return { schema, columns, int96: b.int96, json: b.json };
}

const OPTIONAL = "OPTIONAL" as const;

function nullable(f: (b: Body) => unknown): Conv {
  return (b) => b === null ? null : f(b);
}

const same: Conv = (b) => b;
const toBigInt: Conv = nullable((b) => BigInt(b as number | bigint));

class SchemaBuilder {
  int96: { path: string[]; element: SchemaElement }[] = [];
  json: SchemaElement[] = [];

  /** Appends the elements of column `name` of type t to out; returns its converter. */
  column(name: string, t: Type, path: string[], out: SchemaElement[]): Conv {
    if (t.kind === Kind.Named) {
      const special = this.named(name, t.name, typeUnder(t.type), path, out);
      if (special !== undefined) return special;
      return this.column(name, t.type, path, out);
    }
    const prim = (
      type: SchemaElement["type"],
      conv: Conv,
      extra: Partial<SchemaElement> = {},
    ): Conv => {
      out.push({ name, type, repetition_type: OPTIONAL, ...extra });
      return conv;
    };
    switch (t.kind) {
      case Kind.Primitive:
        switch (t.name) {
          case "uint8":
          case "uint16":
          case "uint32": {
            const w = t.name === "uint8" ? 8 : t.name === "uint16" ? 16 : 32;
            return prim("INT32", same, integer(w, false));
          }
          case "uint64":
            return prim("INT64", toBigInt, integer(64, false));
          case "int8":
          case "int16":
          case "int32": {
            const w = t.name === "int8" ? 8 : t.name === "int16" ? 16 : 32;
            return prim("INT32", same, integer(w, true));
          }
          case "int64":
          case "duration":
            return prim("INT64", toBigInt, integer(64, true));
          case "time":
            return prim("INT64", toBigInt, {
              logical_type: { type: "TIMESTAMP", isAdjustedToUTC: false, unit: "NANOS" },
            });
          case "float32":
            return prim("FLOAT", same);
          case "float64":
            return prim("DOUBLE", same);
          case "bool":
            return prim("BOOLEAN", same);
          case "bytes":
            return prim("BYTE_ARRAY", same);
          case "string":
            return prim("BYTE_ARRAY", same, STRING);
          case "ip":
            return prim("BYTE_ARRAY", nullable((b) => formatIP(b as Uint8Array)), STRING);
          case "net":
            return prim("BYTE_ARRAY", nullable((b) => formatNet(b as Uint8Array)), STRING);
          case "type":
            return prim("BYTE_ARRAY", nullable((b) => formatTypeValue(b as Type)), STRING);
          case "null":
            throw invalid("null type unimplemented");
        }
        throw invalid(`unknown type ${t.name}`);
      case Kind.Record:
        return this.record(name, t, path, out);
      case Kind.Array:
      case Kind.Set:
        return this.list(name, t.elem, path, out);
      case Kind.Union:
        throw invalid("union type unsupported");
      case Kind.Enum: {
        const symbols = t.symbols;
        return prim(
          "BYTE_ARRAY",
          nullable((b) => {
            const s = symbols[b as number];
            if (s === undefined) throw invalid("enum index out of range");
            return s;
          }),
          ENUM,
        );
      }
      case Kind.Map:
        return this.map(name, t.key, t.value, path, out);
      case Kind.Error:
        // Errors are written as the ZSON text of the whole error value.
        return prim("BYTE_ARRAY", nullable((b) => formatZson(t, b)), STRING);
    }
  }

  /**
   * The reference's special type names. Five of them are matched against the
   * field name rather than the type name, as v1.3.0 does.
   */
  private named(
    field: string,
    typeName: string,
    under: Type,
    path: string[],
    out: SchemaElement[],
  ): Conv | undefined {
    const id = under.kind === Kind.Primitive ? under.id : -1;
    const push = (el: Omit<SchemaElement, "name">, conv: Conv): Conv => {
      out.push({ name: field, repetition_type: OPTIONAL, ...el });
      return conv;
    };
    if (typeName === "date" && id === ID_INT32) {
      return push({ type: "INT32", converted_type: "DATE", logical_type: { type: "DATE" } }, same);
    }
    if (typeName === "bson" && id === ID_BYTES) {
      return push(
        { type: "BYTE_ARRAY", converted_type: "BSON", logical_type: { type: "BSON" } },
        same,
      );
    }
    if (typeName === "interval" && id === ID_BYTES) {
      return push({ type: "BYTE_ARRAY", converted_type: "INTERVAL" }, same);
    }
    if (typeName === "json" && id === ID_STRING) {
      // hyparquet-writer would JSON-encode values of a JSON converted type
      // again, so the annotation is added after the data is written.
      out.push({
        name: field,
        type: "BYTE_ARRAY",
        repetition_type: OPTIONAL,
        logical_type: JSON_TYPE,
      });
      this.json.push(out[out.length - 1]);
      return same;
    }
    if (typeName === "enum" && id === ID_STRING) {
      return push({ type: "BYTE_ARRAY", ...ENUM }, same);
    }
    if (typeName === "float" && id === ID_FLOAT64) {
      return push({ type: "FLOAT" }, nullable((b) => Math.fround(b as number)));
    }
    if (typeName === "int96" && id === ID_BYTES) {
      this.int96.push({ path, element: { name: field } });
      const conv = push(
        { type: "FIXED_LEN_BYTE_ARRAY", type_length: 12 },
        nullable((b) => {
          if ((b as Uint8Array).length !== 12) throw invalid("int96 value must be 12 bytes");
          return b;
        }),
      );
      this.int96[this.int96.length - 1].element = out[out.length - 1];
      return conv;
    }
    if (typeName === "time_millis" && id === ID_INT32) {
      return push(
        { type: "INT32", converted_type: "TIME_MILLIS", logical_type: time("MILLIS") },
        same,
      );
    }
    if (field === "time_micros" && id === ID_INT64) {
      return push(
        { type: "INT64", converted_type: "TIME_MICROS", logical_type: time("MICROS") },
        toBigInt,
      );
    }
    if (field === "time_nanos" && id === ID_INT64) {
      return push({ type: "INT64", logical_type: time("NANOS") }, toBigInt);
    }
    if (field === "timestamp_millis" && id === ID_INT64) {
      return push(
        { type: "INT64", converted_type: "TIMESTAMP_MILLIS", logical_type: timestamp("MILLIS") },
        toBigInt,
      );
    }
    if (field === "timestamp_micros" && id === ID_INT64) {
      return push(
        { type: "INT64", converted_type: "TIMESTAMP_MICROS", logical_type: timestamp("MICROS") },
        toBigInt,
      );
    }
    if (field === "uuid" && id === ID_BYTES) {
      return push({ type: "BYTE_ARRAY", logical_type: { type: "UUID" } }, same);
    }
    return undefined;
  }

  private record(name: string, t: RecordType, path: string[], out: SchemaElement[]): Conv {
    if (t.fields.length === 0) throw invalid("empty record type unsupported");
    out.push({ name, repetition_type: OPTIONAL, num_children: t.fields.length });
    const names = t.fields.map((f) => f.name);
    const convs = t.fields.map((f) => this.column(f.name, f.type, [...path, f.name], out));
    return nullable((b) => {
      const body = b as Body[];
      // Null-prototype objects, so a field named __proto__ is just a field.
      const o: Record<string, unknown> = Object.create(null);
      for (let i = 0; i < convs.length; i++) o[names[i]] = convs[i](body[i]);
      return o;
    });
  }

  private list(name: string, elem: Type, path: string[], out: SchemaElement[]): Conv {
    out.push({
      name,
      repetition_type: OPTIONAL,
      num_children: 1,
      converted_type: "LIST",
      logical_type: { type: "LIST" },
    });
    out.push({ name: "list", repetition_type: "REPEATED", num_children: 1 });
    const conv = this.column("element", elem, [...path, "list", "element"], out);
    return nullable((b) => (b as Body[]).map(conv));
  }

  private map(name: string, key: Type, val: Type, path: string[], out: SchemaElement[]): Conv {
    out.push({
      name,
      repetition_type: OPTIONAL,
      num_children: 1,
      converted_type: "MAP",
      logical_type: { type: "MAP" },
    });
    out.push({
      name: "key_value",
      repetition_type: "REPEATED",
      num_children: 2,
      converted_type: "MAP_KEY_VALUE",
    });
    const keyAt = out.length;
    const keyPath = [...path, "key_value", "key"];
    const kconv = this.column("key", key, keyPath, out);
    out[keyAt].repetition_type = "REQUIRED";
    const valAt = out.length;
    const valPath = [...path, "key_value", "value"];
    const vconv = this.column("value", val, valPath, out);
    out[valAt].repetition_type = "REQUIRED";
    return nullable((b) => {
      const kv = b as Body[];
      const entries = new Array(kv.length / 2);
      for (let i = 0; i < kv.length; i += 2) {
        if (kv[i] === null) throw required(keyPath);
        if (kv[i + 1] === null) throw required(valPath);
        entries[i / 2] = { key: kconv(kv[i]), value: vconv(kv[i + 1]) };
      }
      return entries;
    });
  }
}

function required(path: string[]) {
  return invalid(`the value ${JSON.stringify(path.join("."))} is required`);
}

const STRING = { converted_type: "UTF8", logical_type: { type: "STRING" } } as const;
const ENUM = { converted_type: "ENUM", logical_type: { type: "ENUM" } } as const;
const JSON_TYPE = { type: "JSON" } as const;

/**
 * An integer's annotation: its converted type (INT_8 … UINT_64), which every
 * reader honours. The INTEGER logical type says the same, but
 * hyparquet-writer 0.17.0 writes its bit width as a Thrift i32 where the
 * format says i8, and DuckDB and Zed's reader then refuse the whole file.
 */
function integer(bitWidth: number, isSigned: boolean): Partial<SchemaElement> {
  const converted_type = `${
    isSigned ? "INT" : "UINT"
  }_${bitWidth}` as SchemaElement["converted_type"];
  return { converted_type };
}

function time(unit: "MILLIS" | "MICROS" | "NANOS") {
  return { type: "TIME", isAdjustedToUTC: false, unit } as const;
}

function timestamp(unit: "MILLIS" | "MICROS") {
  return { type: "TIMESTAMP", isAdjustedToUTC: false, unit } as const;
}

/** The reference's strict schema checks that these mappings can fail. */
function validate(schema: SchemaElement[]): void {
  for (let i = 1; i < schema.length; i++) {
    const el = schema[i];
    if (el.name === "") throw invalid("column has no name");
    if (el.converted_type === "INTERVAL" && el.type !== "FIXED_LEN_BYTE_ARRAY") {
      throw invalid(
        `field ${el.name} is annotated as INTERVAL but element type is ${el.type}, not fixed_len_byte_array(12)`,
      );
    }
    if (el.logical_type?.type === "UUID" && el.type !== "FIXED_LEN_BYTE_ARRAY") {
      throw invalid(
        `field ${el.name} is annotated as UUID but is not a fixed_len_byte_array(16)`,
      );
    }
  }
}
