// Comparisons `==` `!=` `<` `<=` `>` `>=` (language.md §4.7). Two paths, as
// in the reference's compiler:
//   A. the RHS is a constant of type null, ip, bool, float64, string, bytes,
//      type, int64, time or duration: a typed predicate on the LHS value
//      (other LHS types give false for every operator, `!=` included);
//   B. otherwise both sides are evaluated and coerced (coerce.ts).
//
// Outcomes are bits so that one predicate serves every operator: the operator
// is a mask of the outcomes for which it is true.

import { compareBytes } from "../../zed/bytes.ts";
import {
  ID_BOOL,
  ID_BYTES,
  ID_DURATION,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_INT64,
  ID_IP,
  ID_NULL,
  ID_STRING,
  ID_TIME,
  ID_TYPE,
  ID_UINT64,
  isFloat,
  isNumber,
  isSigned,
  Kind,
  type Type,
  TypeFloat64,
  TypeInt64,
  typeUnder,
} from "../../zed/types.ts";
import { encodeTypeValue } from "../../zed/typevalue.ts";
import { compareStrings } from "../../zed/utf8.ts";
import { type Body, intBody, type Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { errorValue, FALSE, isError, TRUE } from "../runtime/values.ts";
import { COERCE_OK, coerceBodies, Coercion, enumToUint, OVERFLOW } from "./coerce.ts";
import { bodiesEqual } from "./equal.ts";

export type CompareOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

/** A predicate on a value given as (type, body), so walkers need not make Values. */
export type BodyPredicate = (t: Type, body: Body) => boolean;

const LT = 1, EQ = 2, GT = 4, UNORDERED = 8;

const MASKS: Record<CompareOp, number> = {
  "==": EQ,
  "!=": LT | GT | UNORDERED,
  "<": LT,
  "<=": LT | EQ,
  ">": GT,
  ">=": GT | EQ,
};

function opMask(op: CompareOp): number {
  const m = MASKS[op];
  if (m === undefined) throw new Error(`unknown comparison operator: ${op}`);
  return m;
}

function orderInts(a: number | bigint, b: number | bigint): number {
  return a < b ? LT : a > b ? GT : EQ;
}

function orderFloats(a: number, b: number): number {
  return a < b ? LT : a > b ? GT : a === b ? EQ : UNORDERED;
}

function orderOf(c: number): number {
  return c < 0 ? LT : c > 0 ? GT : EQ;
}

const MAX_INT64 = (1n << 63n) - 1n;
const EMPTY = new Uint8Array(0);

const typeEncodings = new WeakMap<Type, Uint8Array>();

/** The type-value encoding of a type (what the reference compares byte-wise). */
function typeBytes(t: Type | null): Uint8Array {
  if (t === null) return EMPTY;
  let b = typeEncodings.get(t);
  if (b === undefined) {
    b = encodeTypeValue(t);
    typeEncodings.set(t, b);
  }
  return b;
}

/** netip.Addr order: the zero address (a null), then IPv4, then IPv6, each by bytes. */
function compareIPs(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return compareBytes(a, b);
}

function idOf(t: Type): number {
  return t.kind === Kind.Primitive ? t.id : typeUnder(t).id;
}

/** Path A for an integer, time or duration constant (int64 nanoseconds for the latter). */
function intPredicate(mask: number, p: number | bigint): BodyPredicate {
  const pf = Number(p);
  return (t, body) => {
    const id = t.kind === Kind.Primitive ? t.id : typeUnder(t).id;
    if (id <= ID_TIME) {
      // Integers (uint64 only up to MaxInt64), duration and time; a null is 0.
      const x = body === null ? 0 : body as number | bigint;
      if (id <= ID_UINT64 && typeof x === "bigint" && x > MAX_INT64) return false;
      return (mask & orderInts(x, p)) !== 0;
    }
    if (id === ID_FLOAT64 || id === ID_FLOAT32) {
      return (mask & orderFloats(body === null ? 0 : body as number, pf)) !== 0;
    }
    return false;
  };
}

function floatPredicate(mask: number, p: number): BodyPredicate {
  return (t, body) => {
    const id = t.kind === Kind.Primitive ? t.id : typeUnder(t).id;
    if (id > ID_FLOAT64) return false; // every number id is below float64's
    return (mask & orderFloats(body === null ? 0 : Number(body as number | bigint), p)) !== 0;
  };
}

function stringPredicate(mask: number, s: string): BodyPredicate {
  if (mask === EQ) return (t, body) => idOf(t) === ID_STRING && (body ?? "") === s;
  if (mask === (LT | GT | UNORDERED)) {
    return (t, body) => idOf(t) === ID_STRING && (body ?? "") !== s;
  }
  return (t, body) =>
    idOf(t) === ID_STRING && (mask & orderOf(compareStrings((body ?? "") as string, s))) !== 0;
}

function boolPredicate(mask: number, p: boolean): BodyPredicate {
  return (t, body) => {
    if (idOf(t) !== ID_BOOL) return false;
    const x = body === true;
    return (mask & (x === p ? EQ : x ? GT : LT)) !== 0;
  };
}

function ipPredicate(mask: number, p: Uint8Array): BodyPredicate {
  return (t, body) =>
    idOf(t) === ID_IP &&
    (mask & orderOf(compareIPs((body ?? EMPTY) as Uint8Array, p))) !== 0;
}

/** Path A for bytes and type constants: byte-wise on bytes bodies and type-value encodings. */
function bytesPredicate(mask: number, p: Uint8Array, pt: Type | null): BodyPredicate {
  return (t, body) => {
    const id = idOf(t);
    let x: Uint8Array;
    if (id === ID_BYTES) x = (body ?? EMPTY) as Uint8Array;
    else if (id === ID_TYPE) {
      if (body === pt && body !== null) return (mask & EQ) !== 0;
      x = typeBytes(body as Type | null);
    } else return false;
    return (mask & orderOf(compareBytes(x, p))) !== 0;
  };
}

/**
 * Path A as a predicate on (type, body), or undefined when the constant's
 * type has no typed predicate (the caller then uses path B). A typed null
 * constant compares as its type's zero value, as in the reference.
 */
export function constBodyPredicate(op: CompareOp, c: Value): BodyPredicate | undefined {
  const mask = opMask(op);
  const u = typeUnder(c.type);
  if (u.kind !== Kind.Primitive) return undefined;
  const b = c.body;
  switch (u.id) {
    case ID_NULL:
      if (mask === EQ) return (_t, body) => body === null;
      if (mask === (LT | GT | UNORDERED)) return (_t, body) => body !== null;
      return undefined;
    case ID_INT64:
    case ID_TIME:
    case ID_DURATION:
      return intPredicate(mask, b === null ? 0 : typeof b === "bigint" ? intBody(b) : b as number);
    case ID_FLOAT64:
      return floatPredicate(mask, b === null ? 0 : b as number);
    case ID_STRING:
      return stringPredicate(mask, (b ?? "") as string);
    case ID_BOOL:
      return boolPredicate(mask, b === true);
    case ID_IP:
      return ipPredicate(mask, (b ?? EMPTY) as Uint8Array);
    case ID_BYTES:
      return bytesPredicate(mask, (b ?? EMPTY) as Uint8Array, null);
    case ID_TYPE:
      return bytesPredicate(mask, typeBytes(b as Type | null), b as Type | null);
  }
  return undefined;
}

/**
 * Whether path A's predicate for constant c can hold for some value (or
 * null) of type t: false where it is false for all of them, as it is for
 * every type the constant's kind does not compare with.
 */
export function constMayHold(c: Value, t: Type): boolean {
  const u = typeUnder(c.type);
  if (u.kind !== Kind.Primitive) return true;
  const id = idOf(t);
  switch (u.id) {
    case ID_INT64:
    case ID_TIME:
    case ID_DURATION:
      return id <= ID_TIME || id === ID_FLOAT64 || id === ID_FLOAT32;
    case ID_FLOAT64:
      return id <= ID_FLOAT64;
    case ID_STRING:
      return id === ID_STRING;
    case ID_BOOL:
      return id === ID_BOOL;
    case ID_IP:
      return id === ID_IP;
    case ID_BYTES:
    case ID_TYPE:
      return id === ID_BYTES || id === ID_TYPE;
  }
  return true;
}

/** Path A as a predicate on a value (see constBodyPredicate). */
export function constPredicate(op: CompareOp, c: Value): ((v: Value) => boolean) | undefined {
  const p = constBodyPredicate(op, c);
  return p === undefined ? undefined : (v) => p(v.type, v.body);
}

const coercion = new Coercion();

/** Results of equalBodies. */
export const UNEQUAL = 0, EQUAL = 1, OVERFLOWED = 2, INCOMPARABLE = 3;

/**
 * Path B equality of two values given as (type, body), without enum
 * conversion (what `in` uses): EQUAL or UNEQUAL; INCOMPARABLE when the types
 * have no common type; OVERFLOWED when a negative signed value met a uint64
 * above MaxInt64.
 */
export function equalBodies(at: Type, a: Body, bt: Type, b: Body): number {
  if (at === bt) return bodiesEqual(at, a, b) ? EQUAL : UNEQUAL;
  const c = coerceBodies(at, a, bt, b, coercion);
  if (c.status !== COERCE_OK) return c.status === OVERFLOW ? OVERFLOWED : INCOMPARABLE;
  return bodiesEqual(c.type, c.a, c.b) ? EQUAL : UNEQUAL;
}

/** General `==` with coercion (path B): false for incompatible types and overflow. */
export function valuesEqual(a: Value, b: Value): boolean {
  a = enumToUint(a);
  b = enumToUint(b);
  return equalBodies(a.type, a.body, b.type, b.body) === EQUAL;
}

/** `==` (eq) or `!=` on non-error values: incompatible types are false for both. */
function equality(eq: boolean, a: Value, b: Value): Value {
  if (a.type.kind === Kind.Enum) a = enumToUint(a);
  if (b.type.kind === Kind.Enum) b = enumToUint(b);
  switch (equalBodies(a.type, a.body, b.type, b.body)) {
    case EQUAL:
      return eq ? TRUE : FALSE;
    case INCOMPARABLE:
      return FALSE;
  }
  return eq ? FALSE : TRUE;
}

function compileEquality(eq: boolean, lhs: Expr, rhs: Expr): Expr {
  return (v) => {
    const a = lhs(v);
    if (isError(a)) return a;
    const b = rhs(v);
    if (isError(b)) return b;
    return equality(eq, a, b);
  };
}

/** The outcome bit of a path B relative comparison, or an error value. */
function relativeOutcome(a: Value, b: Value): number | Value {
  const at = a.type, x = a.body, y = b.body;
  if (at === b.type && typeof x === "number" && typeof y === "number") {
    // Fast path: the same numeric type. Floats are equal when bit-identical.
    if (at === TypeInt64) return orderInts(x, y);
    if (at === TypeFloat64) return Object.is(x, y) ? EQ : x < y ? LT : GT;
  }
  const c = coerceBodies(at, x, b.type, y, coercion);
  if (c.status !== COERCE_OK) {
    // On overflow the unsigned side is the larger.
    if (c.status === OVERFLOW) return isSigned(idOf(at)) ? LT : GT;
    return 0;
  }
  if (bodiesEqual(c.type, c.a, c.b)) return EQ;
  if (c.a === null || c.b === null) return 0;
  const id = c.id;
  if (isNumber(id)) {
    if (isFloat(id)) return (c.a as number) < (c.b as number) ? LT : GT;
    return (c.a as number | bigint) < (c.b as number | bigint) ? LT : GT;
  }
  if (id === ID_STRING) return compareStrings(c.a as string, c.b as string) < 0 ? LT : GT;
  return errorValue(`bad comparison type ID: ${id}`);
}

function compileRelative(mask: number, lhs: Expr, rhs: Expr): Expr {
  return (v) => {
    const a = lhs(v);
    if (isError(a)) return a;
    const b = rhs(v);
    if (isError(b)) return b;
    const r = relativeOutcome(a, b);
    if (typeof r !== "number") return r;
    return (mask & r) !== 0 ? TRUE : FALSE;
  };
}

/**
 * A comparison. Pass `rhsConst` when the RHS is a compile-time constant so
 * that path A applies to the constant types it covers.
 */
export function compileCompare(op: CompareOp, lhs: Expr, rhs: Expr, rhsConst?: Value): Expr {
  const mask = opMask(op);
  if (rhsConst !== undefined && !isError(rhsConst)) {
    const pred = constBodyPredicate(op, rhsConst);
    if (pred !== undefined) {
      return (v) => {
        const a = lhs(v);
        if (isError(a)) return a;
        return pred(a.type, a.body) ? TRUE : FALSE;
      };
    }
  }
  if (op === "==" || op === "!=") return compileEquality(op === "==", lhs, rhs);
  return compileRelative(mask, lhs, rhs);
}

/** Path B of a comparison on two evaluated values (errors are returned first, LHS first). */
export function compareValues(op: CompareOp, a: Value, b: Value): Value {
  const mask = opMask(op);
  if (isError(a)) return a;
  if (isError(b)) return b;
  if (op === "==" || op === "!=") return equality(op === "==", a, b);
  const r = relativeOutcome(a, b);
  if (typeof r !== "number") return r;
  return (mask & r) !== 0 ? TRUE : FALSE;
}
