// The type context: interns every complex type so that structurally identical
// types are the same object. loch uses one context for the whole process
// (`zctx`); readers keep their own name bindings, so streams do not see each
// other's `(=name)` definitions.

import { invalid } from "../errors.ts";
import {
  ArrayType,
  EnumType,
  ErrorType,
  Field,
  Kind,
  lookupPrimitive,
  MapType,
  NamedType,
  RecordType,
  SetType,
  type Type,
  typeUnder,
  UnionType,
} from "./types.ts";
import { compareStrings } from "./utf8.ts";
import { quoteGoString } from "./goquote.ts";

export class TypeContext {
  private table = new Map<string, Type>();
  private latest = new Map<string, NamedType>();
  private nextId = 30;

  lookupRecord(fields: readonly Field[]): RecordType {
    let key = "r";
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      key += f.name.length + ":" + f.name + "#" + f.type.id + ";";
    }
    const t = this.table.get(key);
    if (t !== undefined) return t as RecordType;
    const dup = duplicateField(fields);
    if (dup !== undefined) throw invalid(`duplicate field: ${quoteGoString(dup)}`);
    const rec = new RecordType(this.nextId++, fields.slice());
    this.table.set(key, rec);
    return rec;
  }

  /** Looks up a record from parallel arrays of names and types. */
  lookupRecordOf(names: readonly string[], types: readonly Type[]): RecordType {
    const fields = new Array<Field>(names.length);
    for (let i = 0; i < names.length; i++) fields[i] = new Field(names[i], types[i]);
    return this.lookupRecord(fields);
  }

  lookupArray(elem: Type): ArrayType {
    const key = "a" + elem.id;
    let t = this.table.get(key);
    if (t === undefined) this.table.set(key, t = new ArrayType(this.nextId++, elem));
    return t as ArrayType;
  }

  lookupSet(elem: Type): SetType {
    const key = "s" + elem.id;
    let t = this.table.get(key);
    if (t === undefined) this.table.set(key, t = new SetType(this.nextId++, elem));
    return t as SetType;
  }

  lookupMap(key: Type, value: Type): MapType {
    const k = "m" + key.id + "," + value.id;
    let t = this.table.get(k);
    if (t === undefined) this.table.set(k, t = new MapType(this.nextId++, key, value));
    return t as MapType;
  }

  /** Sorts the members into canonical order (stable, as Go does); no dedup. */
  lookupUnion(types: readonly Type[]): UnionType {
    const sorted = types.slice().sort(compareTypes);
    let key = "u";
    for (const m of sorted) key += m.id + ",";
    let t = this.table.get(key);
    if (t === undefined) this.table.set(key, t = new UnionType(this.nextId++, sorted));
    return t as UnionType;
  }

  lookupEnum(symbols: readonly string[]): EnumType {
    let key = "e";
    for (const s of symbols) key += s.length + ":" + s;
    let t = this.table.get(key);
    if (t === undefined) this.table.set(key, t = new EnumType(this.nextId++, symbols.slice()));
    return t as EnumType;
  }

  lookupError(inner: Type): ErrorType {
    const key = "x" + inner.id;
    let t = this.table.get(key);
    if (t === undefined) this.table.set(key, t = new ErrorType(this.nextId++, inner));
    return t as ErrorType;
  }

  /** The named type name=inner; it also becomes the name's latest binding. */
  lookupNamed(name: string, inner: Type): NamedType {
    if (lookupPrimitive(name) !== undefined) {
      throw invalid(`bad type name ${JSON.stringify(name)}: primitive type name`);
    }
    const key = "n" + name.length + ":" + name + "#" + inner.id;
    let t = this.table.get(key) as NamedType | undefined;
    if (t === undefined) this.table.set(key, t = new NamedType(this.nextId++, name, inner));
    this.latest.set(name, t);
    return t;
  }

  /**
   * The type most recently bound to name (by data or by a query), as Go's
   * Context.LookupTypeDef: queries use it to resolve `<name>` at run time.
   */
  latestNamed(name: string): NamedType | undefined {
    return this.latest.get(name);
  }
}

/** The process-wide type context. */
export const zctx = new TypeContext();

/** The first duplicated name in byte order (the one the reference reports), if any. */
function duplicateField(fields: readonly Field[]): string | undefined {
  if (fields.length < 2) return undefined;
  const names = fields.map((f) => f.name).sort(compareStrings);
  for (let i = 1; i < names.length; i++) if (names[i] === names[i - 1]) return names[i];
  return undefined;
}

function cmp(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The canonical type order (Go's CompareTypes): by kind, then primitive id,
 * then structure. Named types compare as their underlying types.
 */
export function compareTypes(x: Type, y: Type): number {
  const a = typeUnder(x), b = typeUnder(y);
  if (a === b) return 0;
  if (a.kind !== b.kind) return cmp(a.kind, b.kind);
  switch (a.kind) {
    case Kind.Primitive:
      return cmp(a.id, b.id);
    case Kind.Record: {
      const rb = b as RecordType;
      if (a.fields.length !== rb.fields.length) return cmp(a.fields.length, rb.fields.length);
      for (let i = 0; i < a.fields.length; i++) {
        const c = compareStrings(a.fields[i].name, rb.fields[i].name);
        if (c !== 0) return c;
      }
      for (let i = 0; i < a.fields.length; i++) {
        const c = compareTypes(a.fields[i].type, rb.fields[i].type);
        if (c !== 0) return c;
      }
      return 0;
    }
    case Kind.Array:
    case Kind.Set:
      return compareTypes(a.elem, (b as ArrayType | SetType).elem);
    case Kind.Map: {
      const mb = b as MapType;
      return compareTypes(a.key, mb.key) || compareTypes(a.value, mb.value);
    }
    case Kind.Union: {
      const ub = b as UnionType;
      if (a.types.length !== ub.types.length) return cmp(a.types.length, ub.types.length);
      for (let i = 0; i < a.types.length; i++) {
        const c = compareTypes(a.types[i], ub.types[i]);
        if (c !== 0) return c;
      }
      return 0;
    }
    case Kind.Enum: {
      const eb = b as EnumType;
      if (a.symbols.length !== eb.symbols.length) return cmp(a.symbols.length, eb.symbols.length);
      for (let i = 0; i < a.symbols.length; i++) {
        const c = compareStrings(a.symbols[i], eb.symbols[i]);
        if (c !== 0) return c;
      }
      return 0;
    }
    case Kind.Error:
      return compareTypes(a.inner, (b as ErrorType).inner);
  }
  return 0;
}

/**
 * Go's UniqueTypes: sorts into canonical order (stable) and drops adjacent
 * identical types. A named type and its underlying type both survive.
 */
export function uniqueTypes(types: readonly Type[]): Type[] {
  const sorted = types.slice().sort(compareTypes);
  const out: Type[] = [];
  let prev: Type | undefined;
  for (const t of sorted) {
    if (t !== prev) out.push(t);
    prev = t;
  }
  return out;
}
