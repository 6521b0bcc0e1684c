// Parquet schema to Zed types (formats.md §7, reader), plus the plan the
// assembler follows to rebuild one row from the leaf columns. The type rules
// follow the reference, including its quirks (a DATE logical type without a
// DATE converted type stays int32; TIMESTAMP_MILLIS as a converted type alone
// names int32).

import type { SchemaElement, SchemaTree } from "hyparquet";
import { getTreePath } from "hyparquet/src/schema.js";
import { LochError } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import {
  type Type,
  TypeBool,
  TypeBytes,
  TypeFloat32,
  TypeFloat64,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeString,
  TypeTime,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeUint8,
} from "../../zed/types.ts";

/** How a leaf's physical values become bodies. */
export const enum LeafConv {
  /** booleans, floats, int32 kept as they are */
  Same,
  /** INT32 read as unsigned */
  Uint32,
  /** INT64 to a normalized int body */
  Int64,
  /** INT64 to a normalized uint64 body */
  Uint64,
  /** BYTE_ARRAY decoded as UTF-8 */
  Utf8,
  /** BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96 copied as bytes */
  Bytes,
}

/** One physical column of the file, in schema order. */
export interface Leaf {
  path: string[];
  element: SchemaElement;
  /** The root-to-leaf schema path (hyparquet's page decoders need it). */
  schemaPath: SchemaTree[];
  maxDef: number;
  maxRep: number;
  conv: LeafConv;
}

export const enum NodeKind {
  Leaf,
  Record,
  List,
  Map,
}

/**
 * A value-producing node. `def` is the definition level at which the node is
 * present; `optional` nodes below it are null. `first`..`end` are the leaves
 * under the node. A List or Map has items when the level reaches `itemDef`
 * and repeats while the repetition level is at least `itemRep`.
 */
export interface ReadNode {
  kind: NodeKind;
  type: Type;
  optional: boolean;
  def: number;
  first: number;
  end: number;
  /** Record: its fields. List: [item]. Map: [key, value]. */
  children: ReadNode[];
  itemDef: number;
  itemRep: number;
}

export interface ReadPlan {
  type: Type;
  /** The root columns, one per field of `type`. */
  fields: ReadNode[];
  leaves: Leaf[];
}

/** Builds the record type and the assembly plan for a file's schema. */
export function readPlan(root: SchemaTree): ReadPlan {
  const b = new PlanBuilder(root);
  const { type, fields } = b.record(root.children, 0, 0);
  return { type, fields, leaves: b.leaves };
}

function fail(msg: string): LochError {
  return new LochError("invalid", msg);
}

/** Prefixes errors raised while typing a column, as the reference wraps them. */
function wrap<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof LochError) throw new LochError(e.kind, prefix + e.message);
    throw e;
  }
}

class PlanBuilder {
  leaves: Leaf[] = [];

  constructor(private root: SchemaTree) {}

  record(children: SchemaTree[], def: number, rep: number): { type: Type; fields: ReadNode[] } {
    const names: string[] = [];
    const types: Type[] = [];
    const fields: ReadNode[] = [];
    for (const c of children) {
      const name = c.element.name;
      const n = wrap(name + ": ", () => this.field(c, def, rep));
      names.push(name);
      types.push(n.type);
      fields.push(n);
    }
    return { type: zctx.lookupRecordOf(names, types), fields };
  }

  /** A field of a record: a repeated field becomes an array of its items. */
  private field(t: SchemaTree, def: number, rep: number): ReadNode {
    const r = t.element.repetition_type;
    if (r !== "REPEATED") {
      return this.value(t, def + (r === "OPTIONAL" ? 1 : 0), rep, r === "OPTIONAL");
    }
    const first = this.leaves.length;
    const item = this.value(t, def + 1, rep + 1, false);
    return listNode(
      zctx.lookupArray(item.type),
      false,
      def,
      first,
      this.leaves.length,
      [item],
      def + 1,
      rep + 1,
    );
  }

  /** The node for t itself, present at level `def` (t's own repetition already counted). */
  private value(t: SchemaTree, def: number, rep: number, optional: boolean): ReadNode {
    const el = t.element;
    const first = this.leaves.length;
    if (el.type !== undefined) {
      const { type, conv } = primitiveType(el);
      this.leaves.push({
        path: t.path,
        element: el,
        schemaPath: getTreePath(this.root, t.path),
        maxDef: def,
        maxRep: rep,
        conv,
      });
      const n = node(NodeKind.Leaf, type, optional, def, first, []);
      n.end = first + 1;
      return n;
    }
    if (el.converted_type === "MAP" && isMapShape(t)) {
      const kv = t.children[0];
      const kd = def + 1, kr = rep + 1;
      const key = wrap(el.name + ": map key: ", () => this.field(kv.children[0], kd, kr));
      const val = wrap(el.name + ": map value: ", () => this.field(kv.children[1], kd, kr));
      const type = zctx.lookupMap(key.type, val.type);
      const n = node(NodeKind.Map, type, optional, def, first, [key, val]);
      n.end = this.leaves.length;
      n.itemDef = kd;
      n.itemRep = kr;
      return n;
    }
    if (el.converted_type === "LIST" && isListShape(t)) {
      const r = t.children[0];
      const id = def + 1, ir = rep + 1;
      // Standard 3-level lists hold one element field; older 2-level ones
      // repeat the element itself (a leaf, or a group of several fields).
      const item = r.children.length === 1
        ? this.field(r.children[0], id, ir)
        : this.value(r, id, ir, false);
      return listNode(
        zctx.lookupArray(item.type),
        optional,
        def,
        first,
        this.leaves.length,
        [item],
        id,
        ir,
      );
    }
    const { type, fields } = this.record(t.children, def, rep);
    const n = node(NodeKind.Record, type, optional, def, first, fields);
    n.end = this.leaves.length;
    return n;
  }
}

function isListShape(t: SchemaTree): boolean {
  return t.children.length === 1 && t.children[0].element.repetition_type === "REPEATED";
}

function isMapShape(t: SchemaTree): boolean {
  if (t.children.length !== 1) return false;
  const kv = t.children[0];
  return kv.element.repetition_type === "REPEATED" && kv.children.length === 2;
}

function node(
  kind: NodeKind,
  type: Type,
  optional: boolean,
  def: number,
  first: number,
  children: ReadNode[],
): ReadNode {
  return {
    kind,
    type,
    optional,
    def,
    first,
    end: first,
    children,
    itemDef: 0,
    itemRep: 0,
  };
}

function listNode(
  type: Type,
  optional: boolean,
  def: number,
  first: number,
  end: number,
  children: ReadNode[],
  itemDef: number,
  itemRep: number,
): ReadNode {
  const n = node(NodeKind.List, type, optional, def, first, children);
  n.end = end;
  n.itemDef = itemDef;
  n.itemRep = itemRep;
  return n;
}

function named(name: string, t: Type): Type {
  return zctx.lookupNamed(name, t);
}

/** The Zed type of a primitive column and how its values convert. */
export function primitiveType(s: SchemaElement): { type: Type; conv: LeafConv } {
  const l = s.logical_type;
  const c = s.converted_type;
  if (l?.type === "DECIMAL" || c === "DECIMAL") throw fail("DECIMAL type is unimplemented");
  switch (s.type) {
    case "BOOLEAN":
      return { type: TypeBool, conv: LeafConv.Same };
    case "INT32":
      return int32Type(s);
    case "INT64":
      return int64Type(s);
    case "INT96":
      return { type: named("int96", TypeBytes), conv: LeafConv.Bytes };
    case "FLOAT":
      return { type: TypeFloat32, conv: LeafConv.Same };
    case "DOUBLE":
      return { type: TypeFloat64, conv: LeafConv.Same };
    case "BYTE_ARRAY":
      return byteArrayType(s);
    case "FIXED_LEN_BYTE_ARRAY": {
      const n = s.type_length ?? 0;
      let name = `fixed_len_byte_array_${n}`;
      if (n === 16 && l?.type === "UUID") name = "uuid";
      else if (n === 12 && c === "INTERVAL") name = "interval";
      return { type: named(name, TypeBytes), conv: LeafConv.Bytes };
    }
  }
  throw fail(`unknown parquet type ${s.type}`);
}

function int32Type(s: SchemaElement): { type: Type; conv: LeafConv } {
  const l = s.logical_type;
  const signed = (t: Type) => ({ type: t, conv: LeafConv.Same });
  const unsigned = (t: Type) => ({ type: t, conv: LeafConv.Uint32 });
  if (l?.type === "INTEGER") {
    const w = l.bitWidth;
    if (w === 8) return l.isSigned ? signed(TypeInt8) : unsigned(TypeUint8);
    if (w === 16) return l.isSigned ? signed(TypeInt16) : unsigned(TypeUint16);
    if (w === 32) return l.isSigned ? signed(TypeInt32) : unsigned(TypeUint32);
  } else if (l?.type === "TIME" && l.unit === "MILLIS") {
    return signed(named("time_millis", TypeInt32));
  }
  switch (s.converted_type) {
    case "DATE":
      return signed(named("date", TypeInt32));
    case "UINT_8":
      return unsigned(TypeUint8);
    case "UINT_16":
      return unsigned(TypeUint16);
    case "UINT_32":
      return unsigned(TypeUint32);
    case "INT_8":
      return signed(TypeInt8);
    case "INT_16":
      return signed(TypeInt16);
    case "INT_32":
      return signed(TypeInt32);
    case "TIME_MILLIS":
      return signed(named("time_millis", TypeInt32));
  }
  return signed(TypeInt32);
}

function int64Type(s: SchemaElement): { type: Type; conv: LeafConv } {
  const l = s.logical_type;
  const i64 = (t: Type) => ({ type: t, conv: LeafConv.Int64 });
  if (l?.type === "INTEGER") {
    if (l.bitWidth === 64) {
      return l.isSigned ? i64(TypeInt64) : { type: TypeUint64, conv: LeafConv.Uint64 };
    }
  } else if (l?.type === "TIME") {
    if (l.unit === "MICROS") return i64(named("time_micros", TypeInt64));
    if (l.unit === "NANOS") return i64(named("time_nanos", TypeInt64));
  } else if (l?.type === "TIMESTAMP") {
    if (l.unit === "MILLIS") return i64(named("timestamp_millis", TypeInt64));
    if (l.unit === "MICROS") return i64(named("timestamp_micros", TypeInt64));
    if (l.unit === "NANOS") return i64(TypeTime);
  }
  switch (s.converted_type) {
    case "UINT_64":
      return { type: TypeUint64, conv: LeafConv.Uint64 };
    case "INT_64":
      return i64(TypeInt64);
    case "TIME_MICROS":
      return i64(named("time_micros", TypeInt64));
    case "TIMESTAMP_MILLIS":
      // The reference names int32 here (its own slip); the values stay 64-bit.
      return i64(named("timestamp_millis", TypeInt32));
    case "TIMESTAMP_MICROS":
      return i64(named("timestamp_micros", TypeInt64));
  }
  return i64(TypeInt64);
}

function byteArrayType(s: SchemaElement): { type: Type; conv: LeafConv } {
  switch (s.logical_type?.type) {
    case "BSON":
      return { type: named("bson", TypeBytes), conv: LeafConv.Bytes };
    case "ENUM":
      return { type: named("enum", TypeString), conv: LeafConv.Utf8 };
    case "JSON":
      return { type: named("json", TypeString), conv: LeafConv.Utf8 };
    case "STRING":
      return { type: TypeString, conv: LeafConv.Utf8 };
  }
  switch (s.converted_type) {
    case "BSON":
      return { type: named("bson", TypeBytes), conv: LeafConv.Bytes };
    case "JSON":
      return { type: named("json", TypeString), conv: LeafConv.Utf8 };
    case "ENUM":
      return { type: named("enum", TypeString), conv: LeafConv.Utf8 };
    case "UTF8":
      return { type: TypeString, conv: LeafConv.Utf8 };
  }
  return { type: TypeBytes, conv: LeafConv.Bytes };
}
