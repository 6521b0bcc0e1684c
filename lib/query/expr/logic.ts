// Logic `and`, `or`, `!` and the conditional `c ? a : b` (language.md §4.11,
// §4.12). Operands must be bool (named bools too); a null bool counts as
// false. Missing is handled asymmetrically, exactly as the reference does:
// `and` returns the first non-bool operand it evaluates, while `or` lets a
// missing LHS fall through to the RHS.

import { type Type, TypeBool, typeUnder } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { errorValue, FALSE, isError, isMissing, TRUE, zson } from "../runtime/values.ts";

function isBoolType(t: Type): boolean {
  return t === TypeBool || typeUnder(t) === TypeBool;
}

/** The error for a non-bool operand: the operand itself when it is an error. */
function notBool(v: Value): Value {
  return isError(v) ? v : errorValue(`not type bool: ${zson(v)}`);
}

/**
 * v when it is a bool; otherwise the error that `and`, `or`, `!` and filters
 * produce for it (the value itself when it is an error, else
 * `error("not type bool: <zson>")`).
 */
export function asBool(v: Value): Value {
  return isBoolType(v.type) ? v : notBool(v);
}

export function compileAnd(lhs: Expr, rhs: Expr): Expr {
  return (v) => {
    const a = lhs(v);
    if (!isBoolType(a.type)) return notBool(a);
    if (a.body !== true) return FALSE;
    const b = rhs(v);
    if (!isBoolType(b.type)) return notBool(b);
    return b.body === true ? TRUE : FALSE;
  };
}

export function compileOr(lhs: Expr, rhs: Expr): Expr {
  return (v) => {
    const a = lhs(v);
    if (isBoolType(a.type)) {
      if (a.body === true) return TRUE;
    } else {
      // A non-bool LHS is an error; only missing lets the RHS decide.
      const e = notBool(a);
      if (!isMissing(e)) return e;
    }
    const b = rhs(v);
    if (!isBoolType(b.type)) return notBool(b);
    return b.body === true ? TRUE : FALSE;
  };
}

export function compileNot(e: Expr): Expr {
  return (v) => {
    const a = e(v);
    if (!isBoolType(a.type)) return notBool(a);
    return a.body === true ? FALSE : TRUE;
  };
}

const PREDICATE_REQUIRED = errorValue("?-operator: bool predicate required");

/**
 * c ? a : b. Only the chosen branch is evaluated. A non-bool predicate
 * (missing included) is an error; a null bool chooses b (the reference
 * crashes on it).
 */
export function compileConditional(cond: Expr, a: Expr, b: Expr): Expr {
  return (v) => {
    const c = cond(v);
    if (!isBoolType(c.type)) return PREDICATE_REQUIRED;
    return c.body === true ? a(v) : b(v);
  };
}
