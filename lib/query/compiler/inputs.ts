// What a query says about its inputs (zq's rules for a lone argument).

import type * as ast from "../ast.ts";
import { parseQuery } from "../parser/parse.ts";

function isSearchOrBool(e: ast.Expr): boolean {
  switch (e.kind) {
    case "Term":
    case "Glob":
    case "Regexp":
    case "Grep":
      return true;
    case "Primitive":
      return e.type === "bool";
    case "UnaryExpr":
      return e.op === "!" && isSearchOrBool(e.operand);
    case "BinaryExpr":
      return ["and", "or", "in", "==", "!=", "<", "<=", ">", ">=", "~"].includes(e.op);
    case "Conditional":
      return isSearchOrBool(e.then) && isSearchOrBool(e.else);
  }
  return false;
}

/** True when text parses and starts with a yield (explicit or implied). */
export function isYieldQuery(text: string): boolean {
  let seq: ast.Sequential;
  try {
    seq = parseQuery(text);
  } catch {
    return false;
  }
  const first = seq.ops[0];
  if (first.kind === "Yield") return true;
  return first.kind === "OpExpr" && !isSearchOrBool(first.expr);
}

/** True when text starts with `from`, `file` or `get`. */
export function isFromQuery(text: string): boolean {
  try {
    return parseQuery(text).ops[0].kind === "From";
  } catch {
    return false;
  }
}
