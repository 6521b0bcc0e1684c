// Questions the planner asks of syntax trees: whether any node (the tree
// itself, or any below it) answers yes, and whether one is a plain count().

import type * as ast from "../ast.ts";

/** Whether pred holds for e or any node within it. */
export function anyNode(e: ast.AnyNode, pred: (n: ast.AnyNode) => boolean): boolean {
  if (pred(e)) return true;
  for (const k in e) {
    const v = (e as Record<string, unknown>)[k];
    if (Array.isArray(v)) {
      for (const x of v) {
        if (x !== null && typeof x === "object" && "kind" in x && anyNode(x as ast.AnyNode, pred)) {
          return true;
        }
      }
    } else if (
      v !== null && typeof v === "object" && "kind" in v && anyNode(v as ast.AnyNode, pred)
    ) {
      return true;
    }
  }
  return false;
}

/** Whether e is `count()` with no argument and no where clause. */
export function isPlainCount(e: ast.Expr): boolean {
  return (e.kind === "Agg" && e.name === "count" && e.expr === null && e.where === null) ||
    (e.kind === "Call" && e.name === "count" && e.args.length === 0 && e.where === null);
}
