// Type analysis of the ZSON syntax tree (the reference's zson.Analyzer plus
// its Builder): decorators flow down as casts, inferred types flow up, and
// `name=type` / `(=name)` bind names left to right, depth first. The result is
// a Value in loch's body representation (lib/zed/value.ts).
//
// Errors the reference raises while building bodies (bad literal for a cast,
// time overflow, a named enum) are held until the whole value is analyzed, so
// analysis errors elsewhere in the value win, as they do in the reference.

import { invalid, LochError } from "../../errors.ts";
import { uniqueTypes, zctx } from "../../zed/context.ts";
import { normalizeMap, normalizeSet } from "../../zed/normalize.ts";
import { parsePrimitive } from "../../zed/primitive.ts";
import { formatType } from "../../zed/typetext.ts";
import {
  ID_STRING,
  isFloat,
  isInteger,
  Kind,
  type MapType,
  type NamedType,
  type RecordType,
  type Type,
  TypeNull,
  TypeString,
  TypeType,
  typeUnder,
  underId,
  type UnionType,
} from "../../zed/types.ts";
import { nfc } from "../../zed/utf8.ts";
import { type Body, UnionBody, Value } from "../../zed/value.ts";
import {
  type AstAny,
  type AstArray,
  type AstEnum,
  type AstError,
  AstKind,
  type AstMap,
  type AstPrimitive,
  type AstRecord,
  type AstSet,
  type AstType,
  type AstTypeValue,
  type AstValue,
  TypeAstKind,
} from "./ast.ts";

function quote(s: string): string {
  return JSON.stringify(s);
}

function quoteType(t: Type): string {
  return JSON.stringify(formatType(t));
}

const goPrimitiveNames: Record<string, string> = {
  ip: "IP",
  net: "Net",
};

/** Go's `%T` of a zed.Type, which some reference messages print. */
function goTypeName(t: Type): string {
  switch (t.kind) {
    case Kind.Primitive: {
      const n = goPrimitiveNames[t.name] ?? t.name[0].toUpperCase() + t.name.slice(1);
      return "*zed.TypeOf" + n;
    }
    case Kind.Record:
      return "*zed.TypeRecord";
    case Kind.Array:
      return "*zed.TypeArray";
    case Kind.Set:
      return "*zed.TypeSet";
    case Kind.Map:
      return "*zed.TypeMap";
    case Kind.Union:
      return "*zed.TypeUnion";
    case Kind.Enum:
      return "*zed.TypeEnum";
    case Kind.Error:
      return "*zed.TypeError";
    case Kind.Named:
      return "*zed.TypeNamed";
  }
}

function isNumeric(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * Converts syntax trees to typed values. `bindings` maps type names to types
 * as the stream defines them; it is updated in place, so one analyzer (or one
 * map) carries `(=name)` definitions from value to value.
 */
export class Analyzer {
  private buildError: string | undefined;

  constructor(readonly bindings: Map<string, Type> = new Map()) {}

  /** The typed value of a parsed value. */
  value(ast: AstValue): Value {
    this.buildError = undefined;
    const v = this.convertValue(ast, null);
    if (this.buildError !== undefined) {
      const msg = this.buildError;
      this.buildError = undefined;
      throw invalid(msg);
    }
    return v;
  }

  /** The type a parsed type denotes (binding any names it defines). */
  type(ast: AstType): Type {
    return this.convertType(ast);
  }

  private deferBuildError(msg: string): void {
    if (this.buildError === undefined) this.buildError = msg;
  }

  private convertValue(val: AstValue | null, parent: Type | null): Value {
    if (val === null) throw invalid("unknown value ast type: <nil>");
    switch (val.kind) {
      case AstKind.Implied:
        return this.convertAny(val.of, parent);
      case AstKind.Def: {
        const v = this.convertAny(val.of, parent);
        const named = this.enterTypeDef(val.name, v.type);
        return named === null ? v : new Value(named, v.body);
      }
      case AstKind.Cast: {
        const of = val.of;
        if (of.kind === AstKind.Def) {
          // Enter the definition so the cast can refer to it; this pass's value is discarded.
          const held = this.buildError;
          this.convertValue(of, null);
          this.buildError = held;
        } else if (of.kind === AstKind.Cast) {
          this.convertType(of.type);
        }
        const cast = this.convertType(val.type);
        if (parent !== null && cast !== parent && typeUnder(parent).kind !== Kind.Union) {
          throw invalid(
            `decorator conflict enclosing context ${quoteType(parent)} and decorator cast ${
              quoteType(cast)
            }`,
          );
        }
        const under = typeUnder(cast);
        let v: Value;
        if (under.kind === Kind.Union) {
          v = this.convertUnion(this.convertValue(of, null), under, cast);
        } else {
          v = this.convertValue(of, cast);
        }
        if (parent !== null) {
          const p = typeUnder(parent);
          if (p.kind === Kind.Union) v = this.convertUnion(v, p, parent);
        }
        return v;
      }
    }
  }

  private enterTypeDef(name: string, t: Type): NamedType | null {
    if (isNumeric(name)) {
      // Numeric names are temporary references, not named types.
      this.bindings.set(name, t);
      return null;
    }
    const named = zctx.lookupNamed(name, t);
    this.bindings.set(name, named);
    return named;
  }

  private convertAny(any: AstAny | null, cast: Type | null): Value {
    if (cast !== null) {
      const under = typeUnder(cast);
      if (under.kind === Kind.Union) {
        return this.convertUnion(this.convertAny(any, null), under, cast);
      }
    }
    if (any === null) {
      throw invalid("internal error: unknown ast type in Analyzer.convertAny(): <nil>");
    }
    switch (any.kind) {
      case AstKind.Primitive:
        return this.convertPrimitive(any, cast);
      case AstKind.Record:
        return this.convertRecord(any, cast);
      case AstKind.Array:
        return this.convertArray(any, cast);
      case AstKind.Set:
        return this.convertSet(any, cast);
      case AstKind.Map:
        return this.convertMap(any, cast);
      case AstKind.Enum:
        return this.convertEnum(any, cast);
      case AstKind.TypeValue:
        return this.convertTypeValue(any, cast);
      case AstKind.Error:
        return this.convertError(any, cast);
    }
  }

  private convertUnion(v: Value, union: UnionType, cast: Type): Value {
    // A null of type null becomes the null union.
    if (v.type === TypeNull) return new Value(cast, null);
    const tag = union.types.indexOf(v.type);
    if (tag < 0) {
      throw invalid(`type ${quoteType(v.type)} is not in union type ${quoteType(union)}`);
    }
    return new Value(cast, new UnionBody(tag, v.body));
  }

  private convertPrimitive(p: AstPrimitive, cast: Type | null): Value {
    if (cast === null) {
      if (p.body !== undefined) return new Value(p.type, p.body);
      if (p.type === TypeString) return new Value(p.type, nfc(p.text));
      if (p.type === TypeNull) return new Value(p.type, null);
      return new Value(p.type, this.build(p.type.id, p.text));
    }
    // A string decorated with an enum type is that enum's symbol.
    if (cast.kind === Kind.Enum && p.type === TypeString) {
      const tag = cast.indexOf(p.text);
      if (tag < 0) throw invalid(`symbol ${quote(p.text)} not a member of type ${quoteType(cast)}`);
      return new Value(cast, tag);
    }
    const id = p.type.id, castId = underId(cast);
    if (
      !(id === castId || p.type === TypeNull || (isInteger(id) && isInteger(castId)) ||
        (isFloat(id) && isFloat(castId)))
    ) {
      throw invalid(
        `type mismatch: ${quoteType(p.type)} cannot be used as ${quoteType(cast)}`,
      );
    }
    if (p.type === TypeNull) return new Value(cast, null);
    if (castId === ID_STRING) return new Value(cast, nfc(p.text));
    if (castId === id && p.body !== undefined) return new Value(cast, p.body);
    return new Value(cast, this.build(castId, p.text));
  }

  /** A primitive body, holding any error until the value is complete. */
  private build(id: number, text: string): Body {
    try {
      return parsePrimitive(id, text);
    } catch (e) {
      if (!(e instanceof LochError)) throw e;
      this.deferBuildError(e.message);
      return null;
    }
  }

  private convertRecord(rec: AstRecord, cast: Type | null): Value {
    const n = rec.names.length;
    const bodies = new Array<Body>(n);
    if (cast !== null) {
      const under = typeUnder(cast);
      if (under.kind !== Kind.Record) {
        throw invalid(`record decorator not of type record: ${goTypeName(cast)}`);
      }
      const fields = under.fields;
      if (fields.length !== n) {
        throw invalid(
          `record decorator columns (${fields.length}) mismatched with value columns (${n})`,
        );
      }
      for (let i = 0; i < n; i++) bodies[i] = this.convertValue(rec.values[i], fields[i].type).body;
      return new Value(cast, bodies);
    }
    const types = new Array<Type>(n);
    for (let i = 0; i < n; i++) {
      const v = this.convertValue(rec.values[i], null);
      types[i] = v.type;
      bodies[i] = v.body;
    }
    return new Value(this.recordType(rec.names, types), bodies);
  }

  // Record types of undecorated records, cached by field names and types:
  // each trie level is one field (its name, then its type).
  private recordCache = new RecordTypeTrie();
  private cachedRecords = 0;

  private recordType(names: string[], types: Type[]): RecordType {
    let node = this.recordCache;
    for (let i = 0; i < names.length; i++) node = node.child(names[i], types[i]);
    if (node.type === null) {
      node.type = zctx.lookupRecordOf(names, types);
      // Streams of ever-new shapes would grow the cache without bound.
      if (++this.cachedRecords > 10000) {
        this.recordCache = new RecordTypeTrie();
        this.cachedRecords = 0;
      }
    }
    return node.type;
  }

  private convertElems(elems: AstValue[], cast: Type | null): Value[] {
    const vals = new Array<Value>(elems.length);
    for (let i = 0; i < elems.length; i++) vals[i] = this.convertValue(elems[i], cast);
    return vals;
  }

  private convertArray(arr: AstArray, cast: Type | null): Value {
    let elemCast: Type | null = null;
    if (cast !== null) {
      const under = typeUnder(cast);
      if (under.kind !== Kind.Array) throw invalid("array decorator not of type array");
      elemCast = under.elem;
    }
    const vals = this.convertElems(arr.elems, elemCast);
    if (cast !== null) return new Value(cast, bodiesOf(vals));
    if (vals.length === 0) return new Value(zctx.lookupArray(TypeNull), []);
    const elems = this.normalizeElems(vals);
    return new Value(zctx.lookupArray(elems.type), elems.bodies);
  }

  private convertSet(set: AstSet, cast: Type | null): Value {
    let elemCast: Type | null = null;
    if (cast !== null) {
      const under = typeUnder(cast);
      if (under.kind !== Kind.Set) {
        throw invalid(`set decorator not of type set: ${goTypeName(cast)}`);
      }
      elemCast = under.elem;
    }
    const vals = this.convertElems(set.elems, elemCast);
    // The reference leaves a decorated set in input order.
    if (cast !== null) return new Value(cast, bodiesOf(vals));
    if (vals.length === 0) return new Value(zctx.lookupSet(TypeNull), []);
    const elems = this.normalizeElems(vals);
    return new Value(zctx.lookupSet(elems.type), normalizeSet(elems.type, elems.bodies));
  }

  /**
   * Undecorated container elements: their one non-null type (or null), with
   * bodies as they are, or else the union of their distinct types, with each
   * body wrapped as a union value.
   */
  private normalizeElems(vals: Value[]): Elems {
    let t: Type = TypeNull;
    let mixed = false;
    for (let i = 0; i < vals.length; i++) {
      const vt = vals[i].type;
      if (vt === TypeNull || vt === t) continue;
      if (t === TypeNull) t = vt;
      else mixed = true;
    }
    if (!mixed) return new Elems(t, bodiesOf(vals));
    const types = new Array<Type>(vals.length);
    for (let i = 0; i < vals.length; i++) types[i] = vals[i].type;
    const union = zctx.lookupUnion(uniqueTypes(types).filter((u) => u !== TypeNull));
    const bodies = new Array<Body>(vals.length);
    for (let i = 0; i < vals.length; i++) bodies[i] = this.convertUnion(vals[i], union, union).body;
    return new Elems(union, bodies);
  }

  private convertMap(m: AstMap, cast: Type | null): Value {
    let keyCast: Type | null = null, valCast: Type | null = null;
    let mapType: MapType | null = null;
    if (cast !== null) {
      const under = typeUnder(cast);
      if (under.kind !== Kind.Map) throw invalid("map decorator not of type map");
      mapType = under;
      keyCast = under.key;
      valCast = under.value;
    }
    const n = m.keys.length;
    const keys = new Array<Value>(n), vals = new Array<Value>(n);
    for (let i = 0; i < n; i++) {
      keys[i] = this.convertValue(m.keys[i], keyCast);
      vals[i] = this.convertValue(m.values[i], valCast);
    }
    let keyBodies: Body[], valBodies: Body[];
    if (mapType === null) {
      // With no entries both normalize to null.
      const k = this.normalizeElems(keys), v = this.normalizeElems(vals);
      keyBodies = k.bodies;
      valBodies = v.bodies;
      mapType = zctx.lookupMap(k.type, v.type);
      cast = mapType;
    } else {
      keyBodies = bodiesOf(keys);
      valBodies = bodiesOf(vals);
    }
    const kv = new Array<Body>(2 * n);
    for (let i = 0; i < n; i++) {
      kv[2 * i] = keyBodies[i];
      kv[2 * i + 1] = valBodies[i];
    }
    return new Value(cast!, normalizeMap(mapType.key, kv));
  }

  private convertEnum(e: AstEnum, cast: Type | null): Value {
    if (cast === null) {
      throw invalid(`identifier ${quote(e.name)} must be enum and requires decorator`);
    }
    const under = typeUnder(cast);
    if (under.kind !== Kind.Enum) {
      throw invalid(
        `identifier ${quote(e.name)} is enum and incompatible with type ${quoteType(cast)}`,
      );
    }
    const tag = under.indexOf(e.name);
    if (tag < 0) {
      throw invalid(`symbol ${quote(e.name)} not a member of type ${quoteType(under)}`);
    }
    if (cast.kind !== Kind.Enum) this.deferBuildError("enum value is not of type enum");
    return new Value(cast, tag);
  }

  private convertTypeValue(tv: AstTypeValue, cast: Type | null): Value {
    if (cast !== null && typeUnder(cast) !== TypeType) {
      throw invalid(`cannot apply decorator (${quoteType(cast)}) to a type value`);
    }
    return new Value(cast ?? TypeType, this.convertType(tv.type));
  }

  private convertError(e: AstError, cast: Type | null): Value {
    let inner: Type | null = null;
    if (cast !== null) {
      const under = typeUnder(cast);
      if (under.kind !== Kind.Error) throw invalid("error decorator not of type error");
      inner = under.inner;
    }
    const v = this.convertValue(e.value, inner);
    return new Value(cast ?? zctx.lookupError(v.type), v.body);
  }

  private convertType(t: AstType | null): Type {
    if (t === null) throw invalid("unknown type in Analyzer.convertType: <nil>");
    switch (t.kind) {
      case TypeAstKind.Primitive:
        return t.type;
      case TypeAstKind.Def: {
        const inner = this.convertType(t.type);
        return this.enterTypeDef(t.name, inner) ?? inner;
      }
      case TypeAstKind.Record: {
        const types = new Array<Type>(t.types.length);
        for (let i = 0; i < types.length; i++) types[i] = this.convertType(t.types[i]);
        return zctx.lookupRecordOf(t.names, types);
      }
      case TypeAstKind.Array:
        return zctx.lookupArray(this.convertType(t.elem));
      case TypeAstKind.Set:
        return zctx.lookupSet(this.convertType(t.elem));
      case TypeAstKind.Map: {
        const key = this.convertType(t.key);
        return zctx.lookupMap(key, this.convertType(t.value));
      }
      case TypeAstKind.Union:
        return zctx.lookupUnion(t.types.map((m) => this.convertType(m)));
      case TypeAstKind.Enum:
        if (t.symbols.length === 0) throw invalid("enum body is empty");
        return zctx.lookupEnum(t.symbols);
      case TypeAstKind.Error:
        return zctx.lookupError(this.convertType(t.inner));
      case TypeAstKind.Name: {
        const bound = this.bindings.get(t.name);
        if (bound === undefined) throw invalid(`no such type name: ${quote(t.name)}`);
        return bound;
      }
    }
  }
}

function bodiesOf(vals: Value[]): Body[] {
  const out = new Array<Body>(vals.length);
  for (let i = 0; i < vals.length; i++) out[i] = vals[i].body;
  return out;
}

class Elems {
  constructor(readonly type: Type, readonly bodies: Body[]) {}
}

/** One level of the record type cache. */
class RecordTypeTrie {
  type: RecordType | null = null;
  private next: Map<string, Map<Type, RecordTypeTrie>> | null = null;

  child(name: string, t: Type): RecordTypeTrie {
    if (this.next === null) this.next = new Map();
    let byType = this.next.get(name);
    if (byType === undefined) this.next.set(name, byType = new Map());
    let node = byType.get(t);
    if (node === undefined) byType.set(t, node = new RecordTypeTrie());
    return node;
  }
}

/** The typed value of a parsed value; `bindings` is read and updated in place. */
export function analyzeValue(ast: AstValue, bindings?: Map<string, Type>): Value {
  return new Analyzer(bindings).value(ast);
}

/** The type a parsed type denotes; `bindings` is read and updated in place. */
export function analyzeType(ast: AstType, bindings?: Map<string, Type>): Type {
  return new Analyzer(bindings).type(ast);
}
