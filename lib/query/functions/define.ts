// Helpers for defining library functions without per-call argument arrays:
// fixed-arity functions get their evaluated arguments as parameters.

import type { Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { type FunctionDef, register, simple } from "./registry.ts";

/** A function of exactly one argument. */
export function unary(name: string, impl: (a: Value) => Value): void {
  register(name, {
    min: 1,
    max: 1,
    compile(args: Expr[]): Expr {
      const [a] = args;
      return (v) => impl(a(v));
    },
  });
}

/** A function of exactly two arguments. */
export function binary(name: string, impl: (a: Value, b: Value) => Value): void {
  register(name, {
    min: 2,
    max: 2,
    compile(args: Expr[]): Expr {
      const [a, b] = args;
      return (v) => impl(a(v), b(v));
    },
  });
}

/** A function of min..max arguments, given as an array. */
export function variadic(
  name: string,
  min: number,
  max: number,
  impl: (args: Value[]) => Value,
): void {
  register(name, simple(min, max, (args) => impl(args)));
}

/** Registers a hand-written definition. */
export function define(name: string, def: FunctionDef): void {
  register(name, def);
}

/** `this` as an argument expression. */
export const thisExpr: Expr = (v) => v;
