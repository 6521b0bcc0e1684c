// The type system of the legacy "zng21" layout (Zed before 2022), just enough
// to read it: the old primitive IDs, complex types, and a per-stream type
// context that numbers types as the old reader did. Names and symbols are
// kept as byte strings (one char per byte), as Go keeps them, so interning
// and duplicate checks compare bytes; they are decoded when converted.

import { invalid } from "../../errors.ts";
import { malformed } from "../zng/decoder.ts";

export const enum K21 {
  Primitive,
  Record,
  Array,
  Set,
  Map,
  Union,
  Enum,
  Named,
}

/** The old primitive type IDs (10 and 13, float16 and decimal, had no type). */
export const ID21_FLOAT16 = 10;
export const ID21_DECIMAL = 13;
export const ID21_BSTRING = 17;
export const ID21_TYPE = 20;
export const ID21_ERROR = 21;
export const ID21_NULL = 22;
/** The first ID of a type defined in a stream. */
export const ID21_TYPEDEF = 23;

export class Column21 {
  constructor(readonly name: string, readonly type: Type21) {}
}

/** One class for every kind keeps the shape monomorphic. */
export class Type21 {
  constructor(
    readonly kind: K21,
    /** Primitive: its old ID; otherwise the ID the stream's context gave it. */
    readonly id: number,
    /** Record columns. */
    readonly columns: readonly Column21[],
    /** Union members, in the order the stream gave them. */
    readonly members: readonly Type21[],
    /** Enum symbols. */
    readonly symbols: readonly string[],
    /** Array or set element, map key, named type's inner type. */
    readonly inner: Type21 | null,
    /** Map value. */
    readonly value: Type21 | null,
    /** Named type's name. */
    readonly name: string,
    /** The ID of the first type of this structure (named types by name and inner type). */
    readonly canon: number = id,
  ) {}
}

const NO_COLUMNS: Column21[] = [];
const NO_TYPES: Type21[] = [];
const NO_SYMBOLS: string[] = [];

const primitives: (Type21 | null)[] = [];
for (let id = 0; id < ID21_TYPEDEF; id++) {
  primitives.push(
    id === ID21_FLOAT16 || id === ID21_DECIMAL
      ? null
      : new Type21(K21.Primitive, id, NO_COLUMNS, NO_TYPES, NO_SYMBOLS, null, null, ""),
  );
}

/** The primitive type of an old ID, or null (also for 10 and 13). */
export function primitive21(id: number): Type21 | null {
  return id >= 0 && id < ID21_TYPEDEF ? primitives[id] : null;
}

/** Codes of the old context-independent type encoding (type values). */
export const TV21_DEF = 23;
export const TV21_NAME = 24;
export const TV21_RECORD = 25;
export const TV21_ARRAY = 26;
export const TV21_SET = 27;
export const TV21_UNION = 28;
export const TV21_ENUM = 29;
export const TV21_MAP = 30;

/**
 * A structural key of a type: its kind and parts, with parts by canonical ID.
 * The reference interned types by their full old encoding; the keys agree
 * with it except for absurd streams that bind one name to two different but
 * equal types and use both in one type. A part that the old type system
 * could not encode (a column of type 10 or 13) made the reference crash; it
 * is a malformed stream here.
 */
function keyOf(d: Type21): string {
  switch (d.kind) {
    case K21.Record: {
      let s = "r" + d.columns.length;
      for (const c of d.columns) s += ":" + c.name.length + ":" + c.name + canon(c.type);
      return s;
    }
    case K21.Union: {
      let s = "u" + d.members.length;
      for (const m of d.members) s += canon(m);
      return s;
    }
    case K21.Set:
      return "s" + canon(d.inner);
    case K21.Array:
      return "a" + canon(d.inner);
    case K21.Enum: {
      let s = "e" + d.symbols.length;
      for (const sym of d.symbols) s += ":" + sym.length + ":" + sym;
      return s;
    }
    case K21.Map:
      return "m" + canon(d.inner) + canon(d.value);
    default:
      return "n" + d.name.length + ":" + d.name + canon(d.inner);
  }
}

function canon(t: Type21 | null): string {
  if (t === null) throw malformed();
  return "," + t.canon;
}

/** A type whose parts may include the missing types 10 and 13 (null). */
function draft(
  kind: K21,
  parts: { columns?: Column21[]; members?: (Type21 | null)[]; symbols?: string[] },
  inner: Type21 | null = null,
  value: Type21 | null = null,
  name = "",
): Type21 {
  return new Type21(
    kind,
    -1,
    parts.columns ?? NO_COLUMNS,
    (parts.members ?? NO_TYPES) as Type21[],
    parts.symbols ?? NO_SYMBOLS,
    inner,
    value,
    name,
  );
}

/**
 * The types a stream has defined, numbered from 23 in order of first
 * definition; an EOS starts a new context. Defining a type that already
 * exists returns it without using a new ID.
 */
export class Context21 {
  private byId: Type21[] = [];
  private byKey = new Map<string, Type21>();
  private typedefs = new Map<string, Type21>();

  /** A type defined in this stream by ID (primitives are not here). */
  defined(id: number): Type21 | undefined {
    return this.byId[id - ID21_TYPEDEF];
  }

  /** A type for a typedef's reference to id: null for 10 and 13, as Go gave nil. */
  lookup(id: number | bigint): Type21 | null {
    if (id < 0) throw invalid(`type id (${id}) cannot be negative`);
    if (id < ID21_TYPEDEF) return primitive21(Number(id));
    const size = ID21_TYPEDEF + this.byId.length;
    if (id >= size) throw invalid(`type id (${id}) not in type context (size ${size})`);
    return this.byId[Number(id) - ID21_TYPEDEF];
  }

  record(columns: Column21[]): Type21 {
    const seen = new Set<string>();
    for (const c of columns) {
      if (seen.has(c.name)) throw invalid(`duplicate fields: ${bytesToText(c.name)}`);
      seen.add(c.name);
    }
    return this.intern(draft(K21.Record, { columns }));
  }

  array(inner: Type21 | null): Type21 {
    return this.intern(draft(K21.Array, {}, inner));
  }

  set(inner: Type21 | null): Type21 {
    return this.intern(draft(K21.Set, {}, inner));
  }

  map(key: Type21 | null, value: Type21 | null): Type21 {
    return this.intern(draft(K21.Map, {}, key, value));
  }

  union(members: (Type21 | null)[]): Type21 {
    return this.intern(draft(K21.Union, { members }));
  }

  enum(symbols: string[]): Type21 {
    return this.intern(draft(K21.Enum, { symbols }));
  }

  /** name=inner: reuses the name's current binding when it has the same inner type. */
  named(name: string, inner: Type21 | null): Type21 {
    const prev = this.typedefs.get(name);
    if (prev !== undefined && prev.inner === inner) return prev;
    const t = this.enter(draft(K21.Named, {}, inner, null, name));
    this.typedefs.set(name, t);
    return t;
  }

  private intern(d: Type21): Type21 {
    const existing = this.byKey.get(keyOf(d));
    return existing ?? this.enter(d);
  }

  /** Gives d the next ID; a named type equal to an earlier one shares its canonical ID. */
  private enter(d: Type21): Type21 {
    const key = keyOf(d);
    const id = ID21_TYPEDEF + this.byId.length;
    const t = new Type21(
      d.kind,
      id,
      d.columns,
      d.members,
      d.symbols,
      d.inner,
      d.value,
      d.name,
      this.byKey.get(key)?.canon ?? id,
    );
    this.byId.push(t);
    if (!this.byKey.has(key)) this.byKey.set(key, t);
    return t;
  }
}

const utf8 = new TextDecoder();

/** Decodes a byte string (one char per byte) as UTF-8. */
export function bytesToText(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s;
  return utf8.decode(Uint8Array.from(s, (c) => c.charCodeAt(0)));
}
