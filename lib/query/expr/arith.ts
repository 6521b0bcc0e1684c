// Arithmetic `+ - * / %` and unary minus (language.md §4.10). Operands are
// coerced to a common type (coerce.ts); integer results wrap at 64 bits and
// are not range-checked for narrow types; a null operand counts as zero (or
// the empty string), as in the reference.
//
// Integer math stays in JS numbers while results are safe integers and falls
// back to bigint (with 64-bit wraparound) only when they are not.

import {
  ID_FLOAT32,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_INT8,
  ID_STRING,
  ID_TIME,
  ID_UINT16,
  ID_UINT32,
  ID_UINT64,
  ID_UINT8,
  isFloat,
  isNumber,
  isSigned,
  Kind,
  primitiveOfId,
  type PrimitiveType,
  type Type,
  TypeDuration,
  TypeFloat64,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  typeUnder,
} from "../../zed/types.ts";
import { formatType } from "../../zed/typetext.ts";
import { type Body, intBody, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { errorOn, errorValue, isError } from "../runtime/values.ts";
import {
  coerceBodies,
  Coercion,
  enumToUint,
  INCOMPATIBLE,
  INCOMPATIBLE_MESSAGE,
  OVERFLOW_MESSAGE,
} from "./coerce.ts";

export type ArithOp = "+" | "-" | "*" | "/" | "%";

const DIVIDE_BY_ZERO = errorValue("divide by zero");
const INCOMPATIBLE_TYPES = errorValue(INCOMPATIBLE_MESSAGE);
const INTEGER_OVERFLOW = errorValue(OVERFLOW_MESSAGE);

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const coercion = new Coercion();

// Operator codes.
const ADD = 0, SUB = 1, MUL = 2, DIV = 3, MOD = 4;
type Op = number;

const opCodes: Record<ArithOp, Op> = { "+": ADD, "-": SUB, "*": MUL, "/": DIV, "%": MOD };

function opCode(op: ArithOp): Op {
  const code = opCodes[op];
  if (code === undefined) throw new Error(`unknown arithmetic operator: ${op}`);
  return code;
}

// Cached `type <T> incompatible with '<op>' operator` errors, per op and type.
const incompatible: Map<Type, Value>[] = [new Map(), new Map(), new Map(), new Map(), new Map()];

function incompatibleWith(op: ArithOp, t: Type): Value {
  const cache = incompatible[opCode(op)];
  let e = cache.get(t);
  if (e === undefined) {
    e = errorValue(`type ${formatType(t)} incompatible with '${op}' operator`);
    cache.set(t, e);
  }
  return e;
}

function toInt(b: Body): number | bigint {
  return b === null ? 0 : b as number | bigint;
}

function toFloat(b: Body): number {
  return b === null ? 0 : Number(b as number | bigint);
}

/** x op y on integers, wrapped to 64 bits (signed or unsigned); undefined for a zero divisor. */
function intOp(op: Op, x: number | bigint, y: number | bigint, signed: boolean) {
  if (typeof x === "number" && typeof y === "number") {
    let r: number;
    switch (op) {
      case ADD:
        r = x + y;
        break;
      case SUB:
        r = x - y;
        break;
      case MUL:
        r = x * y;
        break;
      case DIV:
        if (y === 0) return undefined;
        r = Math.trunc(x / y); // exact: |x| < 2^53 keeps the quotient off integer boundaries
        break;
      default:
        if (y === 0) return undefined;
        r = x % y;
    }
    // A safe result is exact; negative unsigned results must wrap.
    if (r <= MAX_SAFE && r >= (signed ? -MAX_SAFE : 0)) return r === 0 ? 0 : r;
  }
  const a = BigInt(x), b = BigInt(y);
  let r: bigint;
  switch (op) {
    case ADD:
      r = a + b;
      break;
    case SUB:
      r = a - b;
      break;
    case MUL:
      r = a * b;
      break;
    case DIV:
      if (b === 0n) return undefined;
      r = a / b;
      break;
    default:
      if (b === 0n) return undefined;
      r = a % b;
  }
  return intBody(signed ? BigInt.asIntN(64, r) : BigInt.asUintN(64, r));
}

function floatOp(op: Op, x: number, y: number): number | undefined {
  switch (op) {
    case ADD:
      return x + y;
    case SUB:
      return x - y;
    case MUL:
      return x * y;
  }
  return y === 0 ? undefined : x / y;
}

/** The slow path: coercion and every type combination. Neither operand is an error. */
function arithSlow(op: ArithOp, code: Op, a: Value, b: Value): Value {
  if (a.type.kind === Kind.Enum) a = enumToUint(a);
  if (b.type.kind === Kind.Enum) b = enumToUint(b);
  const c = coerceBodies(a.type, a.body, b.type, b.body, coercion);
  if (c.status !== 0) return c.status === INCOMPATIBLE ? INCOMPATIBLE_TYPES : INTEGER_OVERFLOW;
  const id = c.id;
  const t = primitiveOfId(id);
  if (t === undefined) return errorValue(`type ID too large for primitive: ${id}`);
  if (isNumber(id)) {
    if (isFloat(id)) {
      if (code === MOD) return incompatibleWith(op, t);
      const r = floatOp(code, toFloat(c.a), toFloat(c.b));
      if (r === undefined) return DIVIDE_BY_ZERO;
      return new Value(t, id === ID_FLOAT32 ? Math.fround(r) : r);
    }
    const r = intOp(code, toInt(c.a), toInt(c.b), isSigned(id));
    if (r === undefined) return DIVIDE_BY_ZERO;
    // The difference of two times is a duration.
    return new Value(id === ID_TIME && code === SUB ? TypeDuration : t, r);
  }
  if (id === ID_STRING && code === ADD) {
    return new Value(t, ((c.a ?? "") as string) + ((c.b ?? "") as string));
  }
  return incompatibleWith(op, t);
}

type Arith = (a: Value, b: Value) => Value;

// One function per operator, each with an inline fast path for the common
// same-type int64 and float64 operands.
function makeArith(op: ArithOp): Arith {
  const code = opCode(op);
  switch (code) {
    case ADD:
      return (a, b) => {
        const t = a.type, x = a.body, y = b.body;
        if (t === b.type && typeof x === "number" && typeof y === "number") {
          if (t === TypeFloat64) return new Value(t, x + y);
          if (t === TypeInt64) {
            const r = x + y;
            if (r <= MAX_SAFE && r >= -MAX_SAFE) return new Value(t, r);
          }
        }
        return arithSlow(op, code, a, b);
      };
    case SUB:
      return (a, b) => {
        const t = a.type, x = a.body, y = b.body;
        if (t === b.type && typeof x === "number" && typeof y === "number") {
          if (t === TypeFloat64) return new Value(t, x - y);
          if (t === TypeInt64) {
            const r = x - y;
            if (r <= MAX_SAFE && r >= -MAX_SAFE) return new Value(t, r);
          }
        }
        return arithSlow(op, code, a, b);
      };
    case MUL:
      return (a, b) => {
        const t = a.type, x = a.body, y = b.body;
        if (t === b.type && typeof x === "number" && typeof y === "number") {
          if (t === TypeFloat64) return new Value(t, x * y);
          if (t === TypeInt64) {
            const r = x * y;
            if (r <= MAX_SAFE && r >= -MAX_SAFE) return new Value(t, r === 0 ? 0 : r);
          }
        }
        return arithSlow(op, code, a, b);
      };
    case DIV:
      return (a, b) => {
        const t = a.type, x = a.body, y = b.body;
        if (t === b.type && typeof x === "number" && typeof y === "number") {
          if (t === TypeFloat64) return y === 0 ? DIVIDE_BY_ZERO : new Value(t, x / y);
          if (t === TypeInt64) {
            if (y === 0) return DIVIDE_BY_ZERO;
            const r = Math.trunc(x / y);
            return new Value(t, r === 0 ? 0 : r);
          }
        }
        return arithSlow(op, code, a, b);
      };
    default:
      return (a, b) => {
        const t = a.type, x = a.body, y = b.body;
        if (t === TypeInt64 && t === b.type && typeof x === "number" && typeof y === "number") {
          if (y === 0) return DIVIDE_BY_ZERO;
          const r = x % y;
          return new Value(t, r === 0 ? 0 : r);
        }
        return arithSlow(op, code, a, b);
      };
  }
}

const ariths: Record<ArithOp, Arith> = {
  "+": makeArith("+"),
  "-": makeArith("-"),
  "*": makeArith("*"),
  "/": makeArith("/"),
  "%": makeArith("%"),
};

/** a op b on evaluated operands; an error operand is the result (LHS first). */
export function arith(op: ArithOp, a: Value, b: Value): Value {
  if (isError(a)) return a;
  if (isError(b)) return b;
  return ariths[op](a, b);
}

/** Compiles lhs op rhs. The RHS is not evaluated when the LHS is an error. */
export function compileArith(op: ArithOp, lhs: Expr, rhs: Expr): Expr {
  const f = ariths[op];
  if (f === undefined) throw new Error(`unknown arithmetic operator: ${op}`);
  return (v) => {
    const a = lhs(v);
    if (isError(a)) return a;
    const b = rhs(v);
    if (isError(b)) return b;
    return f(a, b);
  };
}

// Unary minus.

const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;

const signedMin: Record<number, number | bigint> = {
  [ID_INT8]: -128,
  [ID_INT16]: -32768,
  [ID_INT32]: -2147483648,
  [ID_INT64]: MIN_INT64,
};

const unsignedToSigned: Record<number, [PrimitiveType, number | bigint]> = {
  [ID_UINT8]: [TypeInt8, 127],
  [ID_UINT16]: [TypeInt16, 32767],
  [ID_UINT32]: [TypeInt32, 2147483647],
  [ID_UINT64]: [TypeInt64, MAX_INT64],
};

function negateInt(x: number | bigint): number | bigint {
  if (typeof x === "number") return x === 0 ? 0 : -x;
  return intBody(-x);
}

/** -v: see language.md §4.10 "Unary minus". Errors are not passed through: they are wrapped. */
export function negate(v: Value): Value {
  const t = v.type;
  const x = v.body;
  const id = t.kind === Kind.Primitive ? t.id : typeUnder(t).id;
  if (isFloat(id)) {
    if (x === null) return v;
    return new Value(t, -(x as number));
  }
  const min = signedMin[id];
  if (min !== undefined) {
    if (x === null) return v;
    if (x === min) {
      return errorValue(`unary '-' underflow: ${primitiveOfId(id)!.name}(${min})`);
    }
    return new Value(t, negateInt(x as number | bigint));
  }
  const to = unsignedToSigned[id];
  if (to !== undefined) {
    if (x === null) return v;
    if ((x as number | bigint) > to[1]) {
      return errorValue(`unary '-' overflow: ${primitiveOfId(id)!.name}(${x})`);
    }
    return new Value(to[0], negateInt(x as number | bigint));
  }
  return errorOn("type incompatible with unary '-' operator", v);
}

export function compileNegate(e: Expr): Expr {
  return (v) => negate(e(v));
}
