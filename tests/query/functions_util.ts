// Helpers for the function-library tests: build argument expressions from
// ZSON constants, `this` and field references, call a compiled function on an
// input value, and print the result as ZSON.

import "../../lib/query/functions/mod.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonType, parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { compileCall } from "../../lib/query/functions/registry.ts";
import { constant, type Expr } from "../../lib/query/runtime/expr.ts";
import { fieldOf, MISSING } from "../../lib/query/runtime/values.ts";
import { ContextBindings } from "../../lib/query/functions/types.ts";
import type { Type } from "../../lib/zed/types.ts";
import type { Value } from "../../lib/zed/value.ts";

/** An argument: a ZSON constant (string) or an expression. */
export type Arg = string | Expr;

export const THIS: Expr = (v) => v;

/** A field of this (error("missing") when absent). */
export function field(...path: string[]): Expr {
  return (v) => {
    let cur: Value | undefined = v;
    for (const name of path) {
      cur = fieldOf(cur, name);
      if (cur === undefined) return MISSING;
    }
    return cur;
  };
}

/** Type names defined by earlier values resolve in later ones (the latest binding wins). */
const bindings = new ContextBindings();

export function value(zson: string): Value {
  return parseZsonValue(zson, bindings);
}

export function type(zson: string): Type {
  return parseZsonType(zson, bindings);
}

export function show(v: Value): string {
  return formatZson(v.type, v.body);
}

/** The compiled expression name(args). */
export function call(name: string, ...args: Arg[]): Expr {
  const exprs: Expr[] = [];
  const consts: (Value | undefined)[] = [];
  for (const a of args) {
    if (typeof a === "string") {
      const v = value(a);
      exprs.push(constant(v));
      consts.push(v);
    } else {
      exprs.push(a);
      consts.push(undefined);
    }
  }
  return compileCall(name, exprs, consts);
}

/** Compiles name(args) and returns a function from an input ZSON text to output ZSON. */
export function fn(name: string, ...args: Arg[]): (input?: string) => string {
  const e = call(name, ...args);
  return (input = "null") => show(e(value(input)));
}

/** Runs f over each input and returns the outputs. */
export function each(f: (input: string) => string, inputs: string[]): string[] {
  return inputs.map((i) => f(i));
}
