// Zed types. Every distinct type is one object, interned by the TypeContext
// (context.ts), so types are compared by identity everywhere in loch.
//
// Primitive ids are the fixed ZNG ids 0..29; complex types get ids from 30 up
// in creation order. Only the 19 primitives that Zed v1.3 implements exist.

export enum Kind {
  Primitive = 0,
  Record = 1,
  Array = 2,
  Set = 3,
  Map = 4,
  Union = 5,
  Enum = 6,
  Error = 7,
  Named = 8,
}

export const ID_UINT8 = 0;
export const ID_UINT16 = 1;
export const ID_UINT32 = 2;
export const ID_UINT64 = 3;
export const ID_INT8 = 6;
export const ID_INT16 = 7;
export const ID_INT32 = 8;
export const ID_INT64 = 9;
export const ID_DURATION = 12;
export const ID_TIME = 13;
export const ID_FLOAT32 = 15;
export const ID_FLOAT64 = 16;
export const ID_BOOL = 23;
export const ID_BYTES = 24;
export const ID_STRING = 25;
export const ID_IP = 26;
export const ID_NET = 27;
export const ID_TYPE = 28;
export const ID_NULL = 29;
/** First id of a complex (context-allocated) type. */
export const ID_COMPLEX = 30;

export class PrimitiveType {
  readonly kind = Kind.Primitive;
  constructor(readonly id: number, readonly name: string) {}
}

export class Field {
  constructor(readonly name: string, readonly type: Type) {}
}

export class RecordType {
  readonly kind = Kind.Record;
  /** Field name to position. */
  readonly index: Map<string, number>;
  constructor(readonly id: number, readonly fields: readonly Field[]) {
    this.index = new Map();
    for (let i = 0; i < fields.length; i++) this.index.set(fields[i].name, i);
  }
  indexOf(name: string): number {
    const i = this.index.get(name);
    return i === undefined ? -1 : i;
  }
}

export class ArrayType {
  readonly kind = Kind.Array;
  constructor(readonly id: number, readonly elem: Type) {}
}

export class SetType {
  readonly kind = Kind.Set;
  constructor(readonly id: number, readonly elem: Type) {}
}

export class MapType {
  readonly kind = Kind.Map;
  constructor(readonly id: number, readonly key: Type, readonly value: Type) {}
}

/** Member types are always in canonical order (compareTypes); a tag indexes them. */
export class UnionType {
  readonly kind = Kind.Union;
  constructor(readonly id: number, readonly types: readonly Type[]) {}
  tagOf(t: Type): number {
    return this.types.indexOf(t);
  }
}

export class EnumType {
  readonly kind = Kind.Enum;
  constructor(readonly id: number, readonly symbols: readonly string[]) {}
  indexOf(symbol: string): number {
    return this.symbols.indexOf(symbol);
  }
}

export class ErrorType {
  readonly kind = Kind.Error;
  constructor(readonly id: number, readonly inner: Type) {}
}

export class NamedType {
  readonly kind = Kind.Named;
  constructor(readonly id: number, readonly name: string, readonly type: Type) {}
}

export type Type =
  | PrimitiveType
  | RecordType
  | ArrayType
  | SetType
  | MapType
  | UnionType
  | EnumType
  | ErrorType
  | NamedType;

export const TypeUint8 = new PrimitiveType(ID_UINT8, "uint8");
export const TypeUint16 = new PrimitiveType(ID_UINT16, "uint16");
export const TypeUint32 = new PrimitiveType(ID_UINT32, "uint32");
export const TypeUint64 = new PrimitiveType(ID_UINT64, "uint64");
export const TypeInt8 = new PrimitiveType(ID_INT8, "int8");
export const TypeInt16 = new PrimitiveType(ID_INT16, "int16");
export const TypeInt32 = new PrimitiveType(ID_INT32, "int32");
export const TypeInt64 = new PrimitiveType(ID_INT64, "int64");
export const TypeDuration = new PrimitiveType(ID_DURATION, "duration");
export const TypeTime = new PrimitiveType(ID_TIME, "time");
export const TypeFloat32 = new PrimitiveType(ID_FLOAT32, "float32");
export const TypeFloat64 = new PrimitiveType(ID_FLOAT64, "float64");
export const TypeBool = new PrimitiveType(ID_BOOL, "bool");
export const TypeBytes = new PrimitiveType(ID_BYTES, "bytes");
export const TypeString = new PrimitiveType(ID_STRING, "string");
export const TypeIP = new PrimitiveType(ID_IP, "ip");
export const TypeNet = new PrimitiveType(ID_NET, "net");
export const TypeType = new PrimitiveType(ID_TYPE, "type");
export const TypeNull = new PrimitiveType(ID_NULL, "null");

const primitives = [
  TypeUint8,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeInt8,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeDuration,
  TypeTime,
  TypeFloat32,
  TypeFloat64,
  TypeBool,
  TypeBytes,
  TypeString,
  TypeIP,
  TypeNet,
  TypeType,
  TypeNull,
];

const primitiveByName = new Map<string, PrimitiveType>(primitives.map((t) => [t.name, t]));
const primitiveById: (PrimitiveType | undefined)[] = [];
for (const t of primitives) primitiveById[t.id] = t;

/** The primitive type with this name, or undefined (the 11 unimplemented ones included). */
export function lookupPrimitive(name: string): PrimitiveType | undefined {
  return primitiveByName.get(name);
}

/** The primitive type with this id, or undefined for reserved and complex ids. */
export function primitiveOfId(id: number): PrimitiveType | undefined {
  return primitiveById[id];
}

/** The type with any named wrappers removed. */
export function typeUnder(t: Type): Exclude<Type, NamedType> {
  while (t.kind === Kind.Named) t = t.type;
  return t;
}

/** Go's Type.ID(): named types report their underlying type's id. */
export function underId(t: Type): number {
  return typeUnder(t).id;
}

// These mirror Go's zed.IsInteger/IsSigned/IsFloat/IsNumber, which test id ranges:
// duration and time count as signed numbers.
export function isInteger(id: number): boolean {
  return id <= 11;
}

/**
 * Primitive types whose values the order of values (compare.ts) takes as
 * numbers against their own type: the integers but int8 and uint8 (ordered
 * by their bytes), and times and durations (integers of nanoseconds).
 */
export function ordersAsInteger(id: number): boolean {
  return (isInteger(id) || id === ID_TIME || id === ID_DURATION) && id !== ID_INT8 &&
    id !== ID_UINT8;
}

/** Signed integers, duration and time. */
export function isSigned(id: number): boolean {
  return id >= ID_INT8 && id <= ID_TIME;
}

export function isUnsigned(id: number): boolean {
  return id <= 5;
}

export function isFloat(id: number): boolean {
  return id >= 14 && id <= 18;
}

/** Ints, duration, time and floats. */
export function isNumber(id: number): boolean {
  return id <= 22;
}

/** Kinds whose values hold other values. */
export function isContainer(t: Type): boolean {
  const k = typeUnder(t).kind;
  return k === Kind.Record || k === Kind.Array || k === Kind.Set || k === Kind.Map ||
    k === Kind.Union;
}

/**
 * ZSON's "implied" types: ones whose type can be told from the value's text, so
 * the formatter never decorates them.
 */
export function isImplied(t: Type): boolean {
  switch (t.kind) {
    case Kind.Primitive:
      switch (t.id) {
        case ID_INT64:
        case ID_DURATION:
        case ID_TIME:
        case ID_FLOAT64:
        case ID_BOOL:
        case ID_BYTES:
        case ID_STRING:
        case ID_IP:
        case ID_NET:
        case ID_TYPE:
        case ID_NULL:
          return true;
      }
      return false;
    case Kind.Record:
      for (const f of t.fields) if (!isImplied(f.type)) return false;
      return true;
    case Kind.Array:
    case Kind.Set:
      return isImplied(t.elem);
    case Kind.Map:
      return isImplied(t.key) && isImplied(t.value);
    case Kind.Error:
      return isImplied(t.inner);
  }
  return false;
}

/** Types whose whole type can be derived from a value (so `(=name)` suffices). */
export function isSelfDescribing(t: Type): boolean {
  if (isImplied(t)) return true;
  switch (t.kind) {
    case Kind.Record:
    case Kind.Array:
    case Kind.Set:
    case Kind.Map:
      return true;
    case Kind.Named:
      return isSelfDescribing(t.type);
  }
  return false;
}

/** The record type of t (looking through names), or undefined. */
export function recordOf(t: Type): RecordType | undefined {
  const u = typeUnder(t);
  return u.kind === Kind.Record ? u : undefined;
}
