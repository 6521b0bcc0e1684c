// Helpers for the expression tests: values from ZSON text, ZSON text of
// results, and small expressions built without the parser.

import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { compileFieldPath } from "../../lib/query/expr/access.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import type { Value } from "../../lib/zed/value.ts";

/** A value from ZSON text. */
export function z(text: string): Value {
  return parseZsonValue(text);
}

/** ZSON text of a value. */
export function show(v: Value): string {
  return formatZson(v.type, v.body);
}

/** The field path this.a.b... */
export function f(...path: string[]): Expr {
  return compileFieldPath(path);
}

/** A constant expression from ZSON text. */
export function k(text: string): Expr {
  const v = z(text);
  return () => v;
}

export const self: Expr = (v) => v;

/** The ZSON text of e evaluated on the value written in ZSON as input. */
export function on(e: Expr, input: string): string {
  return show(e(z(input)));
}

/** e on each input, as ZSON texts. */
export function each(e: Expr, inputs: string[]): string[] {
  return inputs.map((input) => on(e, input));
}
