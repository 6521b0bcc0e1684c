// Compiles query text into an operator pipeline over a source.
//
// The Zed language arrives with its parser and compiler; until then the only
// queries are the pass-through ones: empty text, `*` and `pass` (optionally
// chained with `|`).

import { invalid } from "../errors.ts";
import type { Operator } from "./pipeline.ts";

export function compile(query: string, source: Operator): Operator {
  const ops = query.split("|").map((s) => s.trim());
  for (const op of ops) {
    if (op !== "" && op !== "*" && op !== "pass") {
      throw invalid(`unsupported query: ${JSON.stringify(query)} (only pass-through queries yet)`);
    }
  }
  return source;
}
