// Compiled expressions: a closure from the current value (`this`) to a value.
// Expressions are compiled once per query; constants are folded at compile
// time. Lateral variables live in frames the closures capture.

import type { Value } from "../../zed/value.ts";

export type Expr = (thisValue: Value) => Value;

/** An expression that ignores `this`. */
export function constant(v: Value): Expr {
  return () => v;
}
