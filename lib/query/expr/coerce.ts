// Operand coercion shared by arithmetic, comparison and `in` (language.md
// §4.10, the reference's coerce.Pair), and the lenient number conversions
// used by slices and functions.
//
// Coercion runs per value on hot paths, so coerceNumbers writes into a
// caller-owned (or module scratch) Coercion instead of allocating a result.

import { parseGoFloat } from "../../zed/float.ts";
import { parseInt64 } from "../../zed/primitive.ts";
import {
  ID_FLOAT32,
  ID_FLOAT64,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_INT8,
  ID_NULL,
  ID_STRING,
  ID_UINT64,
  isFloat,
  isNumber,
  isSigned,
  Kind,
  primitiveOfId,
  type Type,
  TypeUint64,
  typeUnder,
} from "../../zed/types.ts";
import { type Body, intBody, Value } from "../../zed/value.ts";

export const COERCE_OK = 0;
/** The operand types have no common type. */
export const INCOMPATIBLE = 1;
/** A negative signed value met a uint64 above MaxInt64. */
export const OVERFLOW = 2;

export const INCOMPATIBLE_MESSAGE = "incompatible types";
export const OVERFLOW_MESSAGE = "integer overflow: uint64 value too large for int64";

/** The outcome of coercing a pair of values. Fields are meaningful when status is COERCE_OK. */
export class Coercion {
  status = COERCE_OK;
  /** The common type's id: a primitive id, or the shared complex type's id. */
  id = 0;
  /** The common (underlying) type. */
  type: Type = primitiveOfId(ID_NULL)!;
  /**
   * The bodies in the common type. Integer bodies are never changed (every
   * integer width shares one value space); a side converted to a float
   * becomes a number, and a null converted that way becomes 0 as in the
   * reference. Otherwise a null body stays null.
   */
  a: Body = null;
  b: Body = null;
}

const scratch = new Coercion();

/** The id Go's Type.ID() reports: named types report their underlying type's id. */
export function typeId(t: Type): number {
  return t.kind === Kind.Primitive ? t.id : typeUnder(t).id;
}

/** Numbers in the reference's sense: ints, uints, floats, duration and time. */
export function isNumberType(t: Type): boolean {
  return isNumber(typeId(t));
}

// The signed type of the same width as an integer type (duration and time
// promote to int64), indexed by id; Go's promote table.
const promote: number[] = [
  ID_INT8,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  -1,
  -1,
  ID_INT8,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  -1,
  -1,
  ID_INT64,
  ID_INT64,
];

const MAX_INT64 = (1n << 63n) - 1n;

function toNumber(b: Body): number {
  return b === null ? 0 : Number(b as number | bigint);
}

/**
 * Coerces the pair (a, b) to a common type as the reference does: the same
 * underlying type, or a null taking the other side's type, or two numbers
 * promoted (float wins; same signedness widens; mixed signedness goes signed,
 * or uint64 when the unsigned value is above MaxInt64, or OVERFLOW). Anything
 * else is INCOMPATIBLE. Returns `out`, which is overwritten by the next call
 * that shares it.
 */
export function coerceNumbers(a: Value, b: Value, out: Coercion = scratch): Coercion {
  return coerceBodies(a.type, a.body, b.type, b.body, out);
}

/** coerceNumbers on (type, body) pairs, for callers that walk bodies without making Values. */
export function coerceBodies(
  at: Type,
  a: Body,
  bt: Type,
  b: Body,
  out: Coercion = scratch,
): Coercion {
  const ta = at.kind === Kind.Primitive ? at : typeUnder(at);
  const tb = bt.kind === Kind.Primitive ? bt : typeUnder(bt);
  out.a = a;
  out.b = b;
  out.status = COERCE_OK;
  if (ta === tb) {
    out.id = ta.id;
    out.type = ta;
    return out;
  }
  const aid = ta.id, bid = tb.id;
  if (aid === ID_NULL) {
    out.id = bid;
    out.type = tb;
    return out;
  }
  if (bid === ID_NULL) {
    out.id = aid;
    out.type = ta;
    return out;
  }
  if (!isNumber(aid) || !isNumber(bid)) {
    out.status = INCOMPATIBLE;
    return out;
  }
  if (isFloat(aid) || isFloat(bid)) {
    // Go keeps the left float's type and mangles float32/float64 mixes; we
    // use the wider float and convert the other side numerically.
    const id = aid === ID_FLOAT64 || bid === ID_FLOAT64 ? ID_FLOAT64 : ID_FLOAT32;
    if (aid !== id) out.a = toNumber(a);
    if (bid !== id) out.b = toNumber(b);
    out.id = id;
    out.type = primitiveOfId(id)!;
    return out;
  }
  const aSigned = isSigned(aid);
  if (aSigned === isSigned(bid)) {
    const id = aid > bid ? aid : bid;
    out.id = id;
    out.type = primitiveOfId(id)!;
    return out;
  }
  // Mixed signedness: the unsigned side must fit in int64, else the signed
  // side must be non-negative (then both are uint64).
  const u = aSigned ? b : a;
  let id = promote[aid] > promote[bid] ? promote[aid] : promote[bid];
  if (typeof u === "bigint" && u > MAX_INT64) {
    const s = aSigned ? a : b;
    if (s !== null && (s as number | bigint) < 0) {
      out.status = OVERFLOW;
      return out;
    }
    id = ID_UINT64;
  }
  out.id = id;
  out.type = primitiveOfId(id)!;
  return out;
}

/** An enum value as its uint64 symbol index (arithmetic and equality do this); others as is. */
export function enumToUint(v: Value): Value {
  return v.type.kind === Kind.Enum ? new Value(TypeUint64, v.body) : v;
}

/**
 * A number as float64 (Go's coerce.ToFloat): floats, ints, uints, duration,
 * time (a null of these is 0), and strings in Go float syntax.
 */
export function toFloat(v: Value): number | undefined {
  const id = typeId(v.type);
  if (isNumber(id)) return toNumber(v.body);
  if (id === ID_STRING) return v.body === null ? undefined : parseGoFloat(v.body as string);
  return undefined;
}

const MIN_INT64_BIG = -(1n << 63n);

/** Go's int64(f) on amd64: truncation, and MinInt64 for NaN and out-of-range values. */
export function floatToInt64(f: number): number | bigint {
  if (!(f >= -9223372036854775808 && f < 9223372036854775808)) return MIN_INT64_BIG;
  const t = Math.trunc(f);
  if (Number.isSafeInteger(t)) return t === 0 ? 0 : t;
  return intBody(BigInt(t));
}

/**
 * The lenient integer conversion (Go's coerce.ToInt) used for slice bounds:
 * ints and uints (uint64 wraps into int64), floats truncated, duration and
 * time in ns (a null of these is 0), and strings in base-10 integer syntax.
 */
export function toInt(v: Value): number | bigint | undefined {
  const id = typeId(v.type);
  if (isNumber(id)) {
    const b = v.body;
    if (b === null) return 0;
    if (isFloat(id)) return floatToInt64(b as number);
    if (typeof b === "bigint" && b > MAX_INT64) return intBody(BigInt.asIntN(64, b));
    return b as number | bigint;
  }
  if (id === ID_STRING) return v.body === null ? undefined : parseInt64(v.body as string);
  return undefined;
}
