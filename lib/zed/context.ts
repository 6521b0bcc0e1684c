// The type context: interns every complex type so that structurally identical
// types are the same object. loch uses one table for the whole process
// (`zctx`), shared by every query and load, and holds its types weakly: a
// type nothing else refers to any more is collected and its entry dropped,
// so the table holds the types in use rather than every type ever seen. A
// type still in use stays the one object for its structure (whoever looks
// it up again gets it back), so identity comparisons stay right.
//
// Name bindings (`name` → the latest `(=name)` type) are per scope: each
// request the server handles runs in its own (withTypeBindings), so named
// types declared by one client's data or query never resolve in another's.
// Outside any scope (a one-shot CLI command) the bindings are the process's.

import { AsyncLocalStorage } from "node:async_hooks";
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

/** The name bindings of the scope in force (undefined outside any). */
const bindingScopes = new AsyncLocalStorage<Map<string, NamedType>>();

/** Runs fn (and all it starts) with name bindings of its own. */
export function withTypeBindings<T>(fn: () => T): T {
  return bindingScopes.run(new Map(), fn);
}

export class TypeContext {
  private table = new Map<string, WeakRef<Type>>();
  /** Drops a collected type's entry (unless the key was interned again since). */
  private collected = new FinalizationRegistry<string>((key) => {
    if (this.table.get(key)?.deref() === undefined) this.table.delete(key);
  });
  private latest = new Map<string, NamedType>();
  private nextId = 30;

  private find(key: string): Type | undefined {
    return this.table.get(key)?.deref();
  }

  private add<T extends Type>(key: string, t: T): T {
    this.table.set(key, new WeakRef(t));
    this.collected.register(t, key);
    return t;
  }

  /** How many types the table holds (live or not yet collected). */
  get size(): number {
    return this.table.size;
  }

  lookupRecord(fields: readonly Field[]): RecordType {
    let key = "r";
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      key += f.name.length + ":" + f.name + "#" + f.type.id + ";";
    }
    const t = this.find(key);
    if (t !== undefined) return t as RecordType;
    const dup = duplicateField(fields);
    if (dup !== undefined) throw invalid(`duplicate field: ${quoteGoString(dup)}`);
    return this.add(key, new RecordType(this.nextId++, fields.slice()));
  }

  /** Looks up a record from parallel arrays of names and types. */
  lookupRecordOf(names: readonly string[], types: readonly Type[]): RecordType {
    const fields = new Array<Field>(names.length);
    for (let i = 0; i < names.length; i++) fields[i] = new Field(names[i], types[i]);
    return this.lookupRecord(fields);
  }

  lookupArray(elem: Type): ArrayType {
    const key = "a" + elem.id;
    return (this.find(key) ?? this.add(key, new ArrayType(this.nextId++, elem))) as ArrayType;
  }

  lookupSet(elem: Type): SetType {
    const key = "s" + elem.id;
    return (this.find(key) ?? this.add(key, new SetType(this.nextId++, elem))) as SetType;
  }

  lookupMap(key: Type, value: Type): MapType {
    const k = "m" + key.id + "," + value.id;
    return (this.find(k) ?? this.add(k, new MapType(this.nextId++, key, value))) as MapType;
  }

  /** Sorts the members into canonical order (stable, as Go does); no dedup. */
  lookupUnion(types: readonly Type[]): UnionType {
    const sorted = types.slice().sort(compareTypes);
    let key = "u";
    for (const m of sorted) key += m.id + ",";
    return (this.find(key) ?? this.add(key, new UnionType(this.nextId++, sorted))) as UnionType;
  }

  lookupEnum(symbols: readonly string[]): EnumType {
    let key = "e";
    for (const s of symbols) key += s.length + ":" + s;
    return (this.find(key) ??
      this.add(key, new EnumType(this.nextId++, symbols.slice()))) as EnumType;
  }

  lookupError(inner: Type): ErrorType {
    const key = "x" + inner.id;
    return (this.find(key) ?? this.add(key, new ErrorType(this.nextId++, inner))) as ErrorType;
  }

  /** The named type name=inner; it also becomes the name's latest binding. */
  lookupNamed(name: string, inner: Type): NamedType {
    if (lookupPrimitive(name) !== undefined) {
      throw invalid(`bad type name ${JSON.stringify(name)}: primitive type name`);
    }
    const key = "n" + name.length + ":" + name + "#" + inner.id;
    const t = (this.find(key) ??
      this.add(key, new NamedType(this.nextId++, name, inner))) as NamedType;
    (bindingScopes.getStore() ?? this.latest).set(name, t);
    return t;
  }

  /**
   * The type most recently bound to name (by data or by a query) in the
   * scope in force, as Go's Context.LookupTypeDef: queries use it to resolve
   * `<name>` at run time.
   */
  latestNamed(name: string): NamedType | undefined {
    return (bindingScopes.getStore() ?? this.latest).get(name);
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
