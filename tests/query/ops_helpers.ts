// Shared by the operator tests: ZSON in, operator, ZSON out; and a few
// hand-compiled expressions (the compiler builds the real ones).

import { Analyzer } from "../../lib/formats/zson/analyzer.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { Parser } from "../../lib/formats/zson/parser.ts";
import type { Type } from "../../lib/zed/types.ts";
import type { Value } from "../../lib/zed/value.ts";
import { compileFieldPath } from "../../lib/query/expr/access.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { Collector, type Op } from "../../lib/query/runtime/op.ts";
import { isMissing, QUIET } from "../../lib/query/runtime/values.ts";

/** The values of a ZSON stream (one set of type bindings for the stream). */
export function values(text: string): Value[] {
  const parser = new Parser();
  const analyzer = new Analyzer(new Map<string, Type>());
  const out: Value[] = [];
  let pos = 0;
  for (;;) {
    parser.reset(text, pos, true);
    const ast = parser.parseValue();
    if (ast === null) return out;
    out.push(analyzer.value(ast));
    pos = parser.pos;
  }
}

export function zsonOf(v: Value): string {
  return formatZson(v.type, v.body);
}

/**
 * Runs input through the operator made by make, pushing batchSize values at a
 * time, and returns the output as ZSON lines.
 */
export function run(make: (next: Op) => Op, input: string, batchSize = 1000): string[] {
  const sink = new Collector();
  const op = make(sink);
  const vals = values(input);
  for (let i = 0; i < vals.length && !op.done; i += batchSize) {
    op.push(vals.slice(i, i + batchSize));
  }
  op.end();
  return sink.take().flat().map(zsonOf);
}

/** Runs with batches of 1 and of all values, checks both agree, returns the lines. */
export function runBoth(make: (next: Op) => Op, input: string): string[] {
  const a = run(make, input, 1);
  const b = run(make, input);
  if (a.join("\n") !== b.join("\n")) {
    throw new Error(`batching changed the output:\n${a.join("\n")}\n---\n${b.join("\n")}`);
  }
  return b;
}

/** Splits expected output text into lines (blank lines ignored). */
export function lines(text: string): string[] {
  return text.split("\n").map((s) => s.trim()).filter((s) => s !== "");
}

/** A field path expression: `f("a", "b")` is `a.b`; `f()` is `this`. */
export function f(...path: string[]): Expr {
  return compileFieldPath(path);
}

/** quiet(e): error("missing") becomes error("quiet"). */
export function quiet(e: Expr): Expr {
  return (v) => {
    const r = e(v);
    return isMissing(r) ? QUIET : r;
  };
}

/** A constant. */
export function lit(zson: string): Expr {
  const v = values(zson)[0];
  return () => v;
}
