// Decoding plans: each type is compiled once into a tree of Plan nodes that
// the body decoder (decoder.ts) interprets with one switch, so the hot loop
// sees one monomorphic shape whatever the type. Plans are cached per type
// (types are interned process-wide), separately for validating readers, whose
// sets and enums carry checking codes (formats.md §4.7).

import {
  ID_BOOL,
  ID_BYTES,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_IP,
  ID_NET,
  ID_NULL,
  ID_STRING,
  ID_TYPE,
  isSigned,
  isUnsigned,
  Kind,
  type Type,
  typeUnder,
} from "../../zed/types.ts";

export const P_UINT = 0;
export const P_INT = 1;
export const P_FLOAT32 = 2;
export const P_FLOAT64 = 3;
export const P_BOOL = 4;
export const P_BYTES = 5;
export const P_STRING = 6;
export const P_IP = 7;
export const P_NET = 8;
export const P_TYPE = 9;
export const P_NULL = 10;
export const C_RECORD = 11;
export const C_ARRAY = 12;
export const C_SET = 13;
export const C_MAP = 14;
export const C_UNION = 15;
export const C_ENUM = 16;
/** A set whose elements must be sorted and distinct (validating readers). */
export const C_SET_CHECKED = 17;
/** An enum whose index must name a symbol (validating readers). */
export const C_ENUM_CHECKED = 18;
/** A field a projection does not need: its body is skipped and reads as null. */
export const SKIP = 19;

export class Plan {
  constructor(
    readonly code: number,
    /** Record fields or union members. */
    readonly parts: readonly Plan[],
    /** Array or set element, or map key. */
    readonly elem: Plan | null,
    /** Map value. */
    readonly value: Plan | null,
    /** Enum symbol count; for a projected record, the fields read (0: all; NO_FIELDS: none). */
    readonly count: number,
  ) {}
}

const NONE: Plan[] = [];
const primitivePlans = new Map<number, Plan>();
const skipPlan = new Plan(SKIP, NONE, null, null, 0);

function primitivePlan(id: number): Plan {
  let p = primitivePlans.get(id);
  if (p === undefined) {
    primitivePlans.set(id, p = new Plan(primitiveCode(id), NONE, null, null, 0));
  }
  return p;
}

function primitiveCode(id: number): number {
  if (isUnsigned(id)) return P_UINT;
  if (isSigned(id)) return P_INT;
  switch (id) {
    case ID_FLOAT32:
      return P_FLOAT32;
    case ID_FLOAT64:
      return P_FLOAT64;
    case ID_BOOL:
      return P_BOOL;
    case ID_BYTES:
      return P_BYTES;
    case ID_STRING:
      return P_STRING;
    case ID_IP:
      return P_IP;
    case ID_NET:
      return P_NET;
    case ID_TYPE:
      return P_TYPE;
    case ID_NULL:
      return P_NULL;
  }
  throw new Error(`zng: no plan for primitive type ID ${id}`);
}

const plain = new WeakMap<Type, Plan>();
const checked = new WeakMap<Type, Plan>();

/** The plan decoding bodies of type t; `validate` adds the reference's checks. */
export function planOf(t: Type, validate: boolean): Plan {
  const cache = validate ? checked : plain;
  let p = cache.get(t);
  if (p === undefined) cache.set(t, p = build(t, validate));
  return p;
}

function build(t: Type, validate: boolean): Plan {
  switch (t.kind) {
    case Kind.Primitive:
      return primitivePlan(t.id);
    case Kind.Named:
      return planOf(t.type, validate);
    case Kind.Error:
      return planOf(t.inner, validate);
    case Kind.Record:
      return new Plan(C_RECORD, t.fields.map((f) => planOf(f.type, validate)), null, null, 0);
    case Kind.Array:
      return new Plan(C_ARRAY, NONE, planOf(t.elem, validate), null, 0);
    case Kind.Set:
      // The reference checks a set's order but not what is inside it.
      return validate
        ? new Plan(C_SET_CHECKED, NONE, planOf(t.elem, false), null, 0)
        : new Plan(C_SET, NONE, planOf(t.elem, false), null, 0);
    case Kind.Map:
      return new Plan(C_MAP, NONE, planOf(t.key, validate), planOf(t.value, validate), 0);
    case Kind.Union:
      return new Plan(C_UNION, t.types.map((m) => planOf(m, validate)), null, null, 0);
    case Kind.Enum:
      return new Plan(validate ? C_ENUM_CHECKED : C_ENUM, NONE, null, null, t.symbols.length);
  }
}

/** A projected record plan's count when it reads none of the fields. */
export const NO_FIELDS = -1;

/**
 * A record plan that decodes only the fields in `needed` (by position); the
 * others are skipped without decoding and read as null. For projected scans
 * that evaluate a few fields before deciding to decode a whole value. Not
 * validating, the fields after the last needed one are not read at all (its
 * count: the fields read; 0 for all of them).
 */
export function projectedPlan(t: Type, needed: ReadonlySet<number>, validate = false): Plan {
  const full = planOf(typeUnder(t), validate);
  if (full.code !== C_RECORD) return full;
  let read = 0;
  for (const i of needed) if (i + 1 > read) read = i + 1;
  return new Plan(
    C_RECORD,
    full.parts.map((p, i) => needed.has(i) ? p : skipPlan),
    null,
    null,
    validate || read === full.parts.length ? 0 : read === 0 ? NO_FIELDS : read,
  );
}
