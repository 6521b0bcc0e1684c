// Reading ZJSON type objects (formats.md §3.2) the way the reference does.
// The reference turns a type object into Go structs in two steps before it
// interprets it, and each step has its own errors:
//   1. unpackCheck: its "unpack" reflector picks a struct for every nested
//      object with a "kind" key and wires up interface and slice fields;
//   2. decodeCheck: encoding/json fills in the structs (type mismatches);
// then TypeDecoder turns the structs into types, resolving ids and refs.
// Object keys are matched exactly (Go's JSON decoder would also accept other
// capitalisations; nothing writes those).

import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { Field, lookupPrimitive, type Type } from "../../zed/types.ts";
import { formatJsonFloat } from "../../zed/float.ts";
import { compareStrings } from "../../zed/utf8.ts";
import { goMarshal, goTypeOf, isJsonObject, jsonKindOf } from "./gojson.ts";

type Obj = Record<string, unknown>;

const structNames: Record<string, string> = {
  primitive: "zPrimitive",
  record: "zRecord",
  array: "zArray",
  set: "zSet",
  map: "zMap",
  union: "zUnion",
  enum: "zEnum",
  error: "zError",
  named: "zNamed",
  ref: "zRef",
};

const hasOwn = Object.prototype.hasOwnProperty;

/** An object the unpacker turned into a type struct (it has a valid "kind"). */
function isTyped(v: unknown): v is Obj {
  return isJsonObject(v) && hasOwn.call(v, "kind");
}

function sortedKeys(o: Obj): string[] {
  return Object.keys(o).sort(compareStrings);
}

/**
 * Step 1 over any JSON value: children first, then this object's "kind",
 * then the struct's interface and slice fields.
 */
export function unpackCheck(v: unknown): void {
  if (Array.isArray(v)) {
    for (const e of v) unpackCheck(e);
    return;
  }
  if (!isJsonObject(v)) return;
  const keys = sortedKeys(v);
  for (const k of keys) unpackCheck(v[k]);
  if (!hasOwn.call(v, "kind")) return;
  const kind = v.kind;
  if (typeof kind !== "string") {
    throw invalid(`unpack key in JSON field "kind" is not a string: '${goTypeOf(kind)}'`);
  }
  const struct = structNames[kind];
  if (struct === undefined) {
    throw invalid(
      "unpack: JSON object found with candidate key(s) having no template match\n" +
        goMarshal(v, true),
    );
  }
  switch (kind) {
    case "record":
      checkSlice(v, "fields", "zField");
      break;
    case "array":
    case "set":
    case "error":
    case "named":
      checkInterface(v, "type", struct);
      break;
    case "map":
      checkInterface(v, "key_type", struct);
      checkInterface(v, "val_type", struct);
      break;
    case "union":
      checkSlice(v, "types", "zType");
      break;
    case "enum":
      checkSlice(v, "symbols", "string");
      break;
  }
}

function checkInterface(o: Obj, field: string, struct: string): void {
  const v = o[field];
  if (v === undefined || v === null || isTyped(v)) return;
  throw invalid(
    `JSON field "${field}": value for interface "zType" unknown inside of struct type "${struct}"`,
  );
}

function checkSlice(o: Obj, field: string, elem: "zField" | "zType" | "string"): void {
  const v = o[field];
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) {
    throw invalid(`JSON field "${field}": attempting to decode non-array JSON into a Go slice`);
  }
  if (v.length === 0) return;
  const first = v[0];
  if (isTyped(first)) {
    if (elem !== "zType") {
      throw invalid(
        `JSON field "${field}": converted array elements of type "" not type-compatible with Go slice elements of type "${elem}"`,
      );
    }
    for (const e of v) {
      if (!isTyped(e)) {
        throw invalid(
          `JSON field "${field}": array has mixed types that cannot be decoded into Go slice`,
        );
      }
    }
    return;
  }
  if (!isJsonObject(first)) return;
  // The reflector would build structs from these objects; for an interface or
  // string element type the reference panics.
  if (elem !== "zField") {
    const t = elem === "zType" ? "zjsonio.zType" : "string";
    throw invalid(`reflect: NumField of non-struct type ${t}`);
  }
  for (const e of v) {
    if (!isJsonObject(e) || isTyped(e)) {
      throw invalid("array has mixed types that cannot be decoded into Go slice");
    }
    checkInterface(e, "type", "zField");
  }
}

/** Struct fields by kind, with the Go type each one decodes into. */
type FieldType = "string" | "int" | "zType" | "[]zField" | "[]zType" | "[]string";

const structFields: Record<string, Record<string, FieldType>> = {
  primitive: { kind: "string", name: "string" },
  record: { kind: "string", id: "int", fields: "[]zField" },
  array: { kind: "string", id: "int", type: "zType" },
  set: { kind: "string", id: "int", type: "zType" },
  map: { kind: "string", id: "int", key_type: "zType", val_type: "zType" },
  union: { kind: "string", id: "int", types: "[]zType" },
  enum: { kind: "string", id: "int", symbols: "[]string" },
  error: { kind: "string", id: "int", type: "zType" },
  named: { kind: "string", id: "int", name: "string", type: "zType" },
  ref: { kind: "string", id: "int" },
};

const fieldFields: Record<string, FieldType> = { name: "string", type: "zType" };

function typeError(value: string, struct: string, path: string[], goType: string): never {
  throw invalid(
    `json: cannot unmarshal ${value} into Go struct field ${struct}.${
      path.join(".")
    } of type ${goType}`,
  );
}

const TWO63 = 9223372036854775808;

/** Step 2 over a typed object (after step 1 passed): encoding/json's type checks. */
export function decodeCheck(o: Obj, path: string[] = []): void {
  const kind = o.kind as string;
  checkStruct(o, structFields[kind], structNames[kind], path);
}

function checkStruct(
  o: Obj,
  fields: Record<string, FieldType>,
  struct: string,
  path: string[],
): void {
  // The reference re-marshals the object first, so keys come in sorted order.
  for (const k of sortedKeys(o)) {
    const ft = fields[k];
    if (ft === undefined) continue;
    const v = o[k];
    if (v === null) continue;
    const p = [...path, k];
    switch (ft) {
      case "string":
        if (typeof v !== "string") typeError(jsonKindOf(v), struct, p, "string");
        break;
      case "int":
        if (typeof v !== "number") typeError(jsonKindOf(v), struct, p, "int");
        if (!Number.isInteger(v) || Math.abs(v as number) >= TWO63) {
          typeError("number " + formatJsonFloat(v as number, false), struct, p, "int");
        }
        break;
      case "zType":
        // Step 1 left only typed objects here.
        decodeCheck(v as Obj, p);
        break;
      case "[]zField": {
        const a = v as unknown[];
        // When the first element is not an object the reflector left the
        // slice alone, and the elements' type interfaces stay nil.
        const wired = isJsonObject(a[0]);
        for (const e of a) {
          if (e === null) continue;
          if (!isJsonObject(e)) typeError(jsonKindOf(e), struct, p, "zjsonio.zField");
          if (wired) checkStruct(e, fieldFields, "zField", p);
          else checkUnwiredField(e, p);
        }
        break;
      }
      case "[]zType": {
        const a = v as unknown[];
        const wired = isTyped(a[0]);
        for (const e of a) {
          if (e === null) continue;
          if (!wired || !isJsonObject(e)) typeError(jsonKindOf(e), struct, p, "zjsonio.zType");
          decodeCheck(e as Obj, p);
        }
        break;
      }
      case "[]string":
        for (const e of v as unknown[]) {
          if (e !== null && typeof e !== "string") typeError(jsonKindOf(e), struct, p, "string");
        }
        break;
    }
  }
}

function checkUnwiredField(e: Obj, path: string[]): void {
  for (const k of sortedKeys(e)) {
    const v = e[k];
    if (v === null) continue;
    if (k === "name" && typeof v !== "string") {
      typeError(jsonKindOf(v), "zField", [...path, k], "string");
    }
    if (k === "type") typeError(jsonKindOf(v), "zField", [...path, k], "zjsonio.zType");
  }
}

/**
 * Step 3: types from checked type objects. Ids name types in a map that
 * lives as long as the reader; a definition with an id replaces any earlier
 * one, and a ref must name an id already defined.
 */
export class TypeDecoder {
  private byId = new Map<number, Type>();

  decode(v: unknown): Type {
    if (!isJsonObject(v)) throw invalid("ZJSON unknown type: <nil>");
    const o = v;
    const id = typeof o.id === "number" ? o.id : 0;
    let t: Type;
    switch (o.kind) {
      case "primitive": {
        const name = typeof o.name === "string" ? o.name : "";
        const p = lookupPrimitive(name);
        if (p === undefined) throw invalid("ZJSON unknown type: " + name);
        return p;
      }
      case "ref": {
        const r = this.byId.get(id);
        if (r === undefined) throw invalid(`ZJSON unknown type reference: ${id}`);
        return r;
      }
      case "record": {
        const fields: Field[] = [];
        if (Array.isArray(o.fields)) {
          for (const f of o.fields) {
            if (!isJsonObject(f)) throw invalid("ZJSON unknown type: <nil>");
            const name = typeof f.name === "string" ? f.name : "";
            fields.push(new Field(name, this.decode(f.type)));
          }
        }
        t = zctx.lookupRecord(fields);
        break;
      }
      case "array":
        t = zctx.lookupArray(this.decode(o.type));
        break;
      case "set":
        t = zctx.lookupSet(this.decode(o.type));
        break;
      case "map": {
        const k = this.decode(o.key_type);
        t = zctx.lookupMap(k, this.decode(o.val_type));
        break;
      }
      case "union": {
        const types: Type[] = [];
        if (Array.isArray(o.types)) { for (const m of o.types) types.push(this.decode(m)); }
        t = zctx.lookupUnion(types);
        break;
      }
      case "enum": {
        const symbols: string[] = [];
        if (Array.isArray(o.symbols)) {
          for (const s of o.symbols) symbols.push(typeof s === "string" ? s : "");
        }
        t = zctx.lookupEnum(symbols);
        break;
      }
      case "error":
        t = zctx.lookupError(this.decode(o.type));
        break;
      case "named": {
        const inner = this.decode(o.type);
        t = zctx.lookupNamed(typeof o.name === "string" ? o.name : "", inner);
        break;
      }
      default:
        throw invalid("ZJSON unknown type: <nil>");
    }
    this.byId.set(id, t);
    return t;
  }
}

/** Steps 1 and 2 for a JSON value that must be a type object. */
export function checkTypeObject(v: unknown): Obj | undefined {
  if (!isJsonObject(v)) throw invalid("cannot unpack non-object JSON value");
  unpackCheck(v);
  if (!isTyped(v)) return undefined;
  decodeCheck(v);
  return v;
}

/** True for the cheap common case `{"kind":"ref","id":N}` (steps 1 and 2 cannot fail). */
export function isPlainRef(v: unknown): v is { kind: "ref"; id: number } {
  if (!isJsonObject(v) || v.kind !== "ref") return false;
  const id = v.id;
  return typeof id === "number" && Number.isInteger(id) && Math.abs(id) < TWO63 &&
    Object.keys(v).length === 2;
}
