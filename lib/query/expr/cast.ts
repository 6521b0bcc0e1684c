// Casts (language.md §4.14): `T(x)`, `<T>(x)` and `cast(x, <T>)` all go
// through the shaper with the CAST transform. Primitive targets use the
// casters in casters.ts; complex targets recurse (records by field name,
// arrays <-> sets, unions by member, named targets relabel).

import type { Type } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { CAST, constShaper } from "./shaper.ts";

export { floatToUint64, toBool, toUint } from "./casters.ts";

/** v cast to type t; failures are error values (an error input is returned as is). */
export function castValue(v: Value, t: Type): Value {
  return constShaper(CAST, t).shape(v);
}

/** The expression casting e's value to t. */
export function compileCast(e: Expr, t: Type): Expr {
  const s = constShaper(CAST, t);
  return (v) => s.shape(e(v));
}
